"""Neighbouring pairs to search: systematic patterns per input kind, within the declared
relation.

Which pair of neighbours exposes a mechanism depends on the mechanism: the sparse vector
variant of Lee & Clifton shows its leak when half of the queries move up and half down, report
noisy max when one moves up and the rest down, a histogram when one bin moves.  So the pairs
are not drawn at random; every pattern the testing literature uses is listed (Ding et al.,
StatDP, CCS 2018, section 5.1; Bichsel et al., DP-Sniper, S&P 2021, their input pairs), and
the certifier screens them all on outputs of their own before certifying the most promising
(``Trial.candidates``).

One module per input kind: ``vectors``, ``scalars``, ``local`` and ``datasets``; this module
chooses among them (``search_pairs``) and tells neighbours apart (``are_neighbours``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from attacks.neighbours.datasets import (
    LARGE,
    MANY,
    MIXED_COLUMNS,
    RANDOM_SIZES,
    dataset_pairs,
    domain_rows,
    one_user_apart,
    size_pair,
    uniform_rows,
)
from attacks.neighbours.local import SMALL_DOMAIN, local_pairs
from attacks.neighbours.pair import Pair
from attacks.neighbours.scalars import PHASES, SHORT_FRACTIONS, scalar_pair_groups
from attacks.neighbours.vectors import (
    DEFAULT_QUERIES,
    SHORT_VECTOR_PAIRS,
    SPLIT_ALL,
    integer_move,
    short_vector_pairs,
    sign_patterns,
    split_tie_pairs,
    tie_pairs,
    vector_pairs,
)
from auditor.core.kinds import InputKind
from auditor.core.spec import AdapterSpec
from auditor.core.trials import row_keys


def search_pairs(spec: AdapterSpec, rng: np.random.Generator) -> list[Pair]:
    """The pairs to screen for this adapter's input kind (``rng`` places a scalar query's)."""
    kind = spec.input.kind
    if kind is InputKind.VECTOR:
        return vector_pairs(spec) + tie_pairs(spec, rng) + short_vector_pairs(spec, rng)
    if kind is InputKind.LOCAL:
        return local_pairs(spec)
    if kind is InputKind.DATASET:
        return dataset_pairs(spec, rng)
    return [pair for _, group in scalar_pair_groups(spec, rng) for pair in group]


def are_neighbours(spec: AdapterSpec, x: Any, x_prime: Any) -> bool:
    """Whether ``x`` and ``x_prime`` are neighbours under the adapter's declared relation."""
    kind = spec.input.kind
    if kind is InputKind.LOCAL:
        assert spec.exact_domain is not None
        lo, hi = spec.exact_domain
        return bool(lo <= x <= hi and lo <= x_prime <= hi)
    if kind in (InputKind.SCALAR, InputKind.VECTOR):
        assert spec.sensitivity is not None
        return spec.within_sensitivity(x, x_prime) and spec.accepts_move(x, x_prime)
    a, b = np.asarray(x), np.asarray(x_prime)
    k = spec.max_contributions  # records of one privacy unit
    if spec.neighbours == "replace":
        return a.shape == b.shape and int((a != b).reshape(len(a), -1).any(axis=1).sum()) <= k
    small, big = (a, b) if len(a) < len(b) else (b, a)
    if spec.user_column is not None:
        return one_user_apart(small, big, spec.user_column)
    if not 1 <= len(big) - len(small) <= k:
        return False

    left = Counter(row_keys(big))
    left.subtract(row_keys(small))
    return min(left.values(), default=0) >= 0 and sum(left.values()) == len(big) - len(small)


__all__ = [
    "DEFAULT_QUERIES",
    "LARGE",
    "MANY",
    "MIXED_COLUMNS",
    "PHASES",
    "RANDOM_SIZES",
    "SHORT_FRACTIONS",
    "SHORT_VECTOR_PAIRS",
    "SMALL_DOMAIN",
    "SPLIT_ALL",
    "Pair",
    "are_neighbours",
    "dataset_pairs",
    "domain_rows",
    "integer_move",
    "local_pairs",
    "scalar_pair_groups",
    "search_pairs",
    "short_vector_pairs",
    "split_tie_pairs",
    "sign_patterns",
    "size_pair",
    "tie_pairs",
    "uniform_rows",
    "vector_pairs",
]
