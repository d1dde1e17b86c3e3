"""A curve claim read point by point: at each δ, the ε the best event certifies against the ε
the claim states there (report.json's ``epsilon_by_delta``, a table in report.md and
report.html, the ``epsilon-by-delta-<adapter>.png`` figure, a line in junit.xml).

A privacy profile (an accountant's δ(ε), a DP-SGD training's claim) is stated at a list of δ;
the verdict rests on one number, the stretch of the whole curve.  Reviewers also want the
certified ε beside the claimed ε at each δ the claim names.  Both come from the two
Clopper-Pearson limits the verdict's test already holds (p0_low at α·split, p1_high at
α·(1 − split)): ε(δ) ≥ ln((p0_low − δ) / p1_high), or the complement event read the other way
round, is a deterministic function of those limits, so every point holds together with the
verdict at the run's confidence and spends no α of its own.  For zCDP and Rényi claims the
verdict's Rényi test is stronger than these (ε, δ) points: a violation need not show here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from auditor.core.claims import event_epsilon, exceeds
from reports.view import AdapterReport, parse_result

#: the δ a curve claim without a table of its own is read at (with its report δ)
DEFAULT_DELTAS = (0.5, 0.1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10)


@dataclass(frozen=True)
class DeltaPoint:
    """At ``delta``: the certified ``epsilon_lower_bound`` (0 when the event certifies
    nothing there) and ``claimed`` (the claim's ε there; inf when it states none)."""

    delta: float
    epsilon_lower_bound: float
    claimed: float

    @property
    def ratio(self) -> float:
        """certified / claimed (inf when the claim states ε = 0 and the bound is positive)."""
        if self.claimed == 0.0:
            return math.inf if self.epsilon_lower_bound > 0 else 0.0
        return self.epsilon_lower_bound / self.claimed

    @property
    def violating(self) -> bool:
        return exceeds(self.epsilon_lower_bound, self.claimed)


def claim_deltas(r: AdapterReport) -> tuple[float, ...]:
    """The δ a result's claim is read at, largest first: a profile's own table δ, else
    :data:`DEFAULT_DELTAS` and the claim's report δ."""
    assert r.claim is not None
    table = r.claim.parameters.get("table") if r.claim.kind == "profile" else None
    if isinstance(table, list) and table:
        deltas = {float(d) for _, d in table}
    else:
        deltas = {*DEFAULT_DELTAS, r.claim_delta}
    return tuple(sorted((d for d in deltas if 0.0 <= d < 1.0), reverse=True))


def result_points(r: AdapterReport) -> tuple[DeltaPoint, ...]:
    """The points of a result with a curve claim and one sampled event's counts (not the
    conditional test's, whose box is descriptive); () otherwise."""
    ev = r.event_evidence  # the limits only: no trade-off curve to evaluate
    claim = r.claim.claim if r.claim is not None else None
    if not r.is_curve or r.is_conditional or ev is None or claim is None:
        return ()
    points = []
    for delta in claim_deltas(r):
        certified = event_epsilon(ev.p0_low, ev.p1_high, delta)
        points.append(
            DeltaPoint(
                delta=delta,
                epsilon_lower_bound=max(0.0, certified),
                claimed=float(claim.epsilon_for_delta(delta)),
            )
        )
    return tuple(points)


def best_point(points: tuple[DeltaPoint, ...]) -> DeltaPoint | None:
    """The point where the certified ε is largest relative to the claimed one (the first of
    equals, so the largest δ); None when no point certifies anything."""
    ranked = [p for p in points if p.epsilon_lower_bound > 0]
    return max(ranked, key=lambda p: p.ratio, default=None)


def _jsonable(x: float) -> float | str:
    return x if math.isfinite(x) else str(x)


def epsilon_by_delta(r: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """report.json's ``epsilon_by_delta`` of a result: ``[{delta, epsilon_lower_bound,
    claimed_epsilon}]``, largest δ first (a non-finite claimed ε as ``"inf"``); None when the
    result has no such points."""
    points = result_points(parse_result(r))
    if not points:
        return None
    return [
        {
            "delta": p.delta,
            "epsilon_lower_bound": p.epsilon_lower_bound,
            "claimed_epsilon": _jsonable(p.claimed),
        }
        for p in points
    ]


def summary_text(r: AdapterReport, fmt: Any) -> str | None:
    """One line: the best point (certified / claimed at its δ) and the point at the claim's
    report δ; None without points."""
    points = result_points(r)
    if not points:
        return None
    best = best_point(points)
    head = (
        "no δ of the claim with a certified ε > 0"
        if best is None
        else f"certified ε ≥ {fmt(best.epsilon_lower_bound)} where the claim states ε ≤ "
        f"{fmt(best.claimed)} at δ = {fmt(best.delta)} (ratio {fmt(best.ratio)})"
    )
    at = min(
        points, key=lambda p: abs(math.log10(max(p.delta, 1e-300) / max(r.claim_delta, 1e-300)))
    )
    return (
        f"{head}; at δ = {fmt(at.delta)}: ε ≥ {fmt(at.epsilon_lower_bound)}, claimed "
        f"{fmt(at.claimed)} ({len(points)} δ points)"
    )


def table_rows(r: AdapterReport, fmt: Any) -> list[tuple[str, str, str, str, bool]]:
    """(δ, certified ε, claimed ε, ratio, violating) per point, formatted with ``fmt``."""
    return [
        (fmt(p.delta), fmt(p.epsilon_lower_bound), fmt(p.claimed), fmt(p.ratio), p.violating)
        for p in result_points(r)
    ]
