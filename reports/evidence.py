"""Numbers every renderer derives from a result's counts, computed in one place.

Everything here is re-derived from ``counts``, ``alpha`` and the claim's ``delta`` stored in
report.json, so what a page shows is exactly what a reader can recompute.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.statistics.clopper_pearson import cp_lower, cp_upper
from auditor.statistics.exact import WHITE_BOX_ESTIMATOR


def as_floats(values: Sequence[Any]) -> np.ndarray:
    """report.json outputs back to float64 (non-finite values are stored as "nan", "inf")."""
    return np.array([float(v) for v in values], dtype=np.float64)


def as_float(value: Any) -> float:
    """A report number that may be stored as the string "inf" or "nan"; None becomes nan."""
    if value is None:
        return math.nan
    return float(value)


def is_exact_white_box(r: dict[str, Any]) -> bool:
    """Whether the result's bound comes from the adapter's probability oracle, not from counts."""
    return r.get("estimator") == WHITE_BOX_ESTIMATOR


def bound_text(r: dict[str, Any], num: Callable[[Any], str]) -> str:
    """The epsilon lower bound as people read it.

    An unbounded white-box estimate (probability exactly 0 on x') is "∞ (white-box)": its
    ``epsilon_lower_bound`` in report.json is only a finite stand-in.  Other exact white-box
    bounds get a "(white-box)" suffix; certified bounds are ``num(value)``.
    """
    if r.get("unbounded"):
        return "∞ (white-box)"
    text = num(r.get("epsilon_lower_bound"))
    return f"{text} (white-box)" if is_exact_white_box(r) else text


def white_box_bound_sentence(r: dict[str, Any], num: Callable[[Any], str], prime: str) -> str:
    """The bound line of a white-box finding's evidence; ``prime`` marks x' (′ or ')."""
    if r.get("unbounded"):
        return (
            f"ε = ∞: the event has probability exactly 0 on x{prime} and more than δ on x "
            f"(finite stand-in {num(r.get('epsilon_lower_bound'))} in report.json)"
        )
    return f"ε ≥ {num(r.get('epsilon_lower_bound'))} exactly"


@dataclass(frozen=True)
class EventEvidence:
    """The best event's two probabilities and the interval of its privacy loss.

    ``p0_low``/``p0_high`` and ``p1_low``/``p1_high`` are one-sided Clopper-Pearson limits at
    ``alpha / 2`` each (the split the certified bound uses).  ``lower`` is the certified
    ``epsilon_lower_bound``: ln((p0_low − δ) / p1_high), floored at 0.  ``upper`` is
    ln((p0_high − δ) / p1_low), infinite when ``k1 == 0``: the event's loss is in
    [lower, upper] with the same confidence.  ``upper`` says nothing about the mechanism's ε,
    which may exceed it through another event.
    """

    n0: int
    k0: int
    n1: int
    k1: int
    alpha: float
    delta: float
    p0: float
    p0_low: float
    p0_high: float
    p1: float
    p1_low: float
    p1_high: float
    lower: float
    upper: float
    point: float

    @classmethod
    def from_result(cls, r: dict[str, Any]) -> EventEvidence | None:
        """None when the result has no counts (an error, or no event proposed)."""
        c = r.get("counts")
        if not c or not r.get("alpha") or not c.get("n0") or not c.get("n1"):
            return None
        n0, k0, n1, k1 = int(c["n0"]), int(c["k0"]), int(c["n1"]), int(c["k1"])
        alpha = float(r["alpha"])
        delta = float((r.get("claim") or {}).get("delta") or 0.0)
        p0_low, p0_high = cp_lower(k0, n0, alpha / 2), cp_upper(k0, n0, alpha / 2)
        p1_low, p1_high = cp_lower(k1, n1, alpha / 2), cp_upper(k1, n1, alpha / 2)
        upper = _log_ratio(p0_high - delta, p1_low)
        return cls(
            n0=n0,
            k0=k0,
            n1=n1,
            k1=k1,
            alpha=alpha,
            delta=delta,
            p0=k0 / n0,
            p0_low=p0_low,
            p0_high=p0_high,
            p1=k1 / n1,
            p1_low=p1_low,
            p1_high=p1_high,
            lower=as_float(r.get("epsilon_lower_bound")),
            upper=max(upper, 0.0),
            point=as_float(r.get("point_estimate")),
        )


def _log_ratio(numerator: float, denominator: float) -> float:
    if numerator <= 0:
        return 0.0
    if denominator <= 0:
        return math.inf
    return math.log(numerator / denominator)


#: a query longer than this many runs of equal values is shortened on the page
QUERY_RUNS_SHOWN = 12


def query_text(query: Any) -> str:
    """A neighbouring input as a reader wants it on a page: runs of equal values folded
    (``0.5 ×9``) and long datasets cut, pointing to report.json for the full list."""
    if not isinstance(query, list):
        return str(query)
    runs: list[tuple[Any, int]] = []
    for value in query:
        if runs and runs[-1][0] == value:
            runs[-1] = (value, runs[-1][1] + 1)
        else:
            runs.append((value, 1))
    parts = [f"{v} ×{c}" if c > 1 else str(v) for v, c in runs[:QUERY_RUNS_SHOWN]]
    if len(runs) > QUERY_RUNS_SHOWN:
        parts.append(f"… ({len(query)} values in all; the full list is in report.json)")
    return "[" + ", ".join(parts) + "]"
