"""The float-representation root cause: the grid or bit pattern that separates the neighbours."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from auditor.statistics.events.bit_events import coarsest_grid
from reports.root_cause.sample import (
    EXAMPLES,
    FLOAT_ATTACKS,
    FLOAT_EVENT,
    GRID_EXPLAINS,
    _counts,
    _queries,
    non_integer,
    off_grid,
    pct,
    pow2,
    scalar_sample,
)
from reports.view import AdapterReport, parse_result

# --- float representation ------------------------------------------------------------------


def _event_counts(r: AdapterReport, s: Any) -> tuple[tuple[int, int, int, int], str]:
    """``(n0, k0, n1, k1)`` of the certification counts, or else of the sample, and which."""
    counts = _counts(r)
    if counts is not None:
        return counts, "certification"
    n0, k0 = len(s.x), int(np.count_nonzero(s.in_x))
    n1, k1 = len(s.x_prime), int(np.count_nonzero(s.in_x_prime))
    return (n0, k0, n1, k1), s.source


def _share_words(
    counts: tuple[int, int, int, int], x: str, x_prime: str, counts_source: str, source: str
) -> str:
    """How many outputs on each side lie in the event, and which outputs were counted."""
    n0, k0, n1, k1 = counts
    share = (
        f"{k0:,} of {n0:,} outputs at {x} ({pct(k0, n0)}) lie in the event and {k1:,} of "
        f"{n1:,} at {x_prime}" + (f" ({pct(k1, n1)})" if k1 else "")
    )
    share += (
        " (certification counts)."
        if counts_source == "certification"
        else f" (in the {source} sample)."
    )
    return share


def _pattern_words(event: str) -> str:
    """What a pattern finding's event separates the neighbours by."""
    if "cannot produce" in event:
        return "which exact doubles the sampler can produce from each input"
    return "a bit pattern"


def _no_grid_words(g0: float, g1: float, x: str, x_prime: str) -> str:
    """Why no power-of-two grid separates the neighbours (``g0 >= g1``, or one is inf)."""
    if math.isfinite(g0) and g0 == g1:
        return (
            f"No grid separates the neighbours: the outputs seen at {x} and at {x_prime} "
            f"are all multiples of {pow2(g0)} (the coarsest grid on both sides)."
        )
    return (
        "No grid separates the neighbours: the outputs seen at "
        f"{x} are multiples of {pow2(g0) if math.isfinite(g0) else 'any power of two'}, "
        f"those at {x_prime} of "
        f"{pow2(g1) if math.isfinite(g1) else 'any power of two'}."
    )


def float_root_cause(r: Mapping[str, Any]) -> dict[str, Any] | None:
    """The grid or bit pattern that separates the neighbours of a float-representation finding.

    Applies to violations whose sample holds non-integer floats and whose attack (precision,
    lsb-laplace), event text (mantissa bits, multiples, binades…) or data (the event's outputs
    at x lie off the coarsest power-of-two grid of every output at x′) says the finding is
    about the representation.  Returns a dict with ``kind`` ("grid" when that grid explains
    the event, "pattern" otherwise), ``grid_x`` / ``grid_x_prime`` (coarsest power of two
    dividing every finite nonzero output seen on each side, inf when there is none),
    ``finest_x`` (the smallest lowest set bit among the outputs at x: the same number as
    ``grid_x``), the ``*_exponent`` of each, ``off_grid_x`` (outputs at x in the sample off the
    x′ grid), ``examples`` (up to three outputs at x in the event, as ``float.hex``),
    ``fraction_x`` / ``fraction_x_prime`` (k0/n0 and k1/n1 of the certification counts, or
    the sample's shares without counts), ``counts_source`` and ``sentence``; None otherwise.
    ``r``: a report.json result.
    """
    return result_float_root_cause(parse_result(r))


def result_float_root_cause(r: AdapterReport) -> dict[str, Any] | None:
    """:func:`float_root_cause` of a result of the report view."""
    if r.verdict != "violation":
        return None
    s = scalar_sample(r)
    if s is None or not (non_integer(s.x) or non_integer(s.x_prime)):
        return None
    g0, g1 = coarsest_grid(s.x), coarsest_grid(s.x_prime)
    grids_differ = math.isfinite(g0) and math.isfinite(g1) and g0 < g1
    event_x = s.x[s.in_x]
    explained = float(np.mean(off_grid(event_x, g1))) if grids_differ and len(event_x) else 0.0
    kind = "grid" if explained >= GRID_EXPLAINS else "pattern"
    binades = _binade_grids(s.x, s.x_prime, event_x)
    event = r.event or ""
    if not ((r.attack or "") in FLOAT_ATTACKS or FLOAT_EVENT.search(event) or kind == "grid"):
        return None
    x, x_prime = _queries(r)
    (n0, k0, n1, k1), counts_source = _event_counts(r, s)
    off_x = int(np.count_nonzero(off_grid(s.x, g1))) if grids_differ else 0
    examples = _examples(event_x, g1 if grids_differ else math.inf)
    share = _share_words((n0, k0, n1, k1), x, x_prime, counts_source, s.source)
    grid_words = (
        f"outputs at input {x} reach doubles off the {pow2(g1)} grid (as fine as {pow2(g0)}); "
        f"from input {x_prime} every output seen is a multiple of {pow2(g1)}"
    )
    if kind == "grid":
        sentence = (
            f"{grid_words[0].upper()}{grid_words[1:]}. {share} In the {s.source} sample "
            f"{off_x:,} of {len(s.x):,} outputs at {x} ({pct(off_x, len(s.x))}) are off that grid."
        )
    else:
        if grids_differ:
            grids = (
                f"The grids alone do not separate the neighbours: {grid_words}, but only "
                f"{pct(round(explained * len(event_x)), len(event_x))} of the event's outputs "
                f"at {x} in the {s.source} sample are off that grid."
            )
        else:
            grids = _no_grid_words(g0, g1, x, x_prime)
        sentence = (
            f"{grids}{_binade_words(binades, len(event_x), x, x_prime, s.source)} What separates "
            f"them is {_pattern_words(event)}, the event “{event}”. {share}"
        )
    return {
        "kind": kind,
        "grid_x": g0,
        "grid_x_prime": g1,
        "grid_x_exponent": math.frexp(g0)[1] - 1 if math.isfinite(g0) else None,
        "grid_x_prime_exponent": math.frexp(g1)[1] - 1 if math.isfinite(g1) else None,
        "finest_x": g0,
        "off_grid_x": off_x,
        "sample_x": len(s.x),
        "examples": examples,
        "binades": binades,
        "n0": n0,
        "k0": k0,
        "n1": n1,
        "k1": k1,
        "fraction_x": k0 / n0 if n0 else math.nan,
        "fraction_x_prime": k1 / n1 if n1 else math.nan,
        "counts_source": counts_source,
        "source": s.source,
        "sentence": sentence,
    }


def _binade_keys(values: np.ndarray) -> np.ndarray:
    """Each finite nonzero double's binade as a signed integer: ±(e + 1100) for |v| in
    [2^(e-1), 2^e) (0 for zeros and non-finite values)."""
    v = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(v) & (v != 0)
    exponent = np.frexp(np.where(ok, np.abs(v), 1.0))[1].astype(np.int64) + 1100
    return np.where(ok, np.where(np.signbit(v), -exponent, exponent), 0)


def _binade_text(key: int) -> str:
    """``[1, 2)`` or ``(−1, −0.5]``; powers of two beyond 2^±20 as ``2^-30``."""
    e = abs(key) - 1100

    def power(k: int) -> str:
        return f"{2.0**k:g}" if -20 <= k <= 20 else f"2^{k}"

    lo, hi = power(e - 1), power(e)
    return f"(−{hi}, −{lo}]" if key < 0 else f"[{lo}, {hi})"


def _binade_grids(a: np.ndarray, b: np.ndarray, event_x: np.ndarray) -> list[dict[str, Any]]:
    """Binades (power-of-two ranges) where the event's outputs at x reach a finer grid than
    every output at x′ in the same binade: per binade ``binade`` (text), ``grid_x``,
    ``grid_x_prime``, ``in_event`` (the event's outputs at x there) and ``explained`` (those
    off the x′ grid), most explained first.  Binades x′ never reached are left out."""
    ka, kb, ke = _binade_keys(a), _binade_keys(b), _binade_keys(event_x)
    found = []
    for key in np.unique(ke[ke != 0]):
        gx, gx_prime = coarsest_grid(a[ka == key]), coarsest_grid(b[kb == key])
        if not (math.isfinite(gx_prime) and gx < gx_prime):
            continue
        in_event = event_x[ke == key]
        explained = int(np.count_nonzero(off_grid(in_event, gx_prime)))
        if explained:
            found.append(
                {
                    "binade": _binade_text(int(key)),
                    "grid_x": gx,
                    "grid_x_prime": gx_prime,
                    "in_event": len(in_event),
                    "explained": explained,
                }
            )
    return sorted(found, key=lambda d: -int(d["explained"]))


def _binade_words(
    binades: list[dict[str, Any]], events: int, x: str, x_prime: str, source: str
) -> str:
    """ " Within binades the grids differ: in [1, 2) …" (two binades at most), or ""."""
    if not binades:
        return ""
    shown = [
        f"in {d['binade']} outputs at {x} reach the {pow2(d['grid_x'])} grid while every "
        f"output from {x_prime} there is a multiple of {pow2(d['grid_x_prime'])}"
        for d in binades[:2]
    ]
    more = f", and {len(binades) - 2} more binade(s)" if len(binades) > 2 else ""
    explained = sum(int(d["explained"]) for d in binades)
    return (
        f" Within binades the grids do differ: {'; '.join(shown)}{more}. That accounts for "
        f"{explained:,} of the event's {events:,} outputs at {x} in the {source} sample."
    )


def _examples(event_x: np.ndarray, grid: float) -> list[str]:
    """Up to three distinct finite outputs at x in the event, off ``grid`` first, as hex."""
    v = event_x[np.isfinite(event_x)]
    off = off_grid(v, grid) if math.isfinite(grid) else np.ones(len(v), dtype=bool)
    chosen: list[str] = []
    for value in [*v[off], *v[~off]]:
        text = float.hex(float(value))
        if text not in chosen:
            chosen.append(text)
        if len(chosen) == EXAMPLES:
            break
    return chosen
