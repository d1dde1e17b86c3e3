"""Neighbouring pairs to search: local inputs.

**local** inputs: pairs of values at both ends and in the middle of the domain (any two
values are neighbours), and in a domain of at most ``SMALL_DOMAIN`` values every value
with the next.
"""

from __future__ import annotations

from attacks.neighbours.pair import Pair
from auditor.core.spec import AdapterSpec

#: at most this many values of an integer domain are listed one by one
SMALL_DOMAIN = 16


def local_pairs(spec: AdapterSpec) -> list[Pair]:
    """Pairs of values of a local domain: both ends, the middle, neighbours of each; in a
    small domain every two values (the relation is all of them), so that a mechanism that
    mishandles one value or confuses two (reports it as is, collides it with another, lets a
    bucket edge count twice) meets them in some pair."""
    assert spec.exact_domain is not None
    lo, hi = (int(v) for v in spec.exact_domain)
    values = list(range(lo, hi + 1)) if hi - lo + 1 <= SMALL_DOMAIN else []
    mid = (lo + hi) // 2
    chosen = [(lo, hi), (lo, lo + 1), (hi - 1, hi), (mid, mid + 1), (lo, mid), (mid, hi)]
    chosen = [(a, b) for a, b in chosen if lo <= a < b <= hi]
    # a small domain: every two values (any two are neighbours), the next ones first
    chosen += sorted(
        ((a, b) for i, a in enumerate(values) for b in values[i + 1 :]), key=lambda p: p[1] - p[0]
    )
    return [(a, b, f"values {a} and {b}") for a, b in dict.fromkeys(chosen)]
