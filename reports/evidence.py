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

from auditor.core.claim_kinds import REGISTRY, Claim, claim_from_dict
from auditor.core.claims import PrivacyClaim, exceeds
from auditor.core.errors import InvalidArgument
from auditor.statistics.clopper_pearson import cp_lower, cp_upper, epsilon_lower_bound
from auditor.statistics.conditional import CONDITIONAL_ESTIMATOR, conditional_upper_bound
from auditor.statistics.events.cell_chains import CELLS_ESTIMATOR
from auditor.statistics.exact import WHITE_BOX_ESTIMATOR


def as_floats(values: Sequence[Any]) -> np.ndarray:
    """report.json outputs back to float64 (non-finite values are stored as "nan", "inf")."""
    return np.array([float(v) for v in values], dtype=np.float64)


def as_float(value: Any) -> float:
    """A report number that may be stored as the string "inf" or "nan"; None becomes nan."""
    if value is None:
        return math.nan
    return float(value)


def is_cells(r: dict[str, Any]) -> bool:
    """Whether the result's bound was certified on the counts of several cells (a Renyi claim's
    partition of the outputs), not on one event."""
    return r.get("estimator") == CELLS_ESTIMATOR


def cells_lines(r: dict[str, Any], num: Callable[[Any], str]) -> tuple[str, str]:
    """How a cells bound was certified, and what its best cut counts: plain text."""
    c = r["counts"]
    how = (
        f"at significance {num(r.get('alpha'))}: the smallest Rényi divergence between any two "
        "laws of the cells' simultaneous Clopper-Pearson limits (each cell, each side, lower and "
        "upper limit at an equal share of it)"
    )
    cut = (
        f"{c['k0']:,} of {c['n0']:,} outputs on x, {c['k1']:,} of {c['n1']:,} on x′ in the cut "
        f"the (ε, δ) statement reads; ε ≥ {num(r.get('epsilon_lower_bound'))} from the same limits"
    )
    return how, cut


def is_sampled(r: dict[str, Any]) -> bool:
    """Whether the result's bound is one event's test on sampled counts (the two-limit box or
    the conditional test), not white-box evidence or cells."""
    return r.get("estimator") in (None, "clopper-pearson", CONDITIONAL_ESTIMATOR)


def is_conditional(r: dict[str, Any]) -> bool:
    """Whether the bound is the conditional test's, on Poisson-sized samples."""
    return r.get("estimator") == CONDITIONAL_ESTIMATOR


def test_text(r: dict[str, Any], num: Callable[[Any], str]) -> str:
    """How the event's bound was certified from its counts: plain text."""
    if is_conditional(r):
        return (
            "conditional test: the sizes were drawn from Poisson with mean "
            f"{int(r.get('poisson_mean') or 0):,} per side, and the Clopper-Pearson lower limit "
            "on x's share of the outputs in the event, at the whole significance, bounds the "
            "ratio"
        )
    return (
        f"Clopper-Pearson, share {num(r.get('alpha_split') or 0.5)} of it on the limit for x, "
        "the rest on x'"
    )


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


#: how reports write the parameter a claim's bound is in (``r["parameter"]``)
PARAMETER_SYMBOL = {"epsilon": "ε", "mu": "μ", "rho": "ρ", "scale": "scale"}
#: the parameter of each curve kind, for results that carry no ``parameter`` (no finding)
KIND_PARAMETER = {name: kind.parameter for name, kind in REGISTRY.items() if not kind.point}
#: keys report.json adds to a curve claim's own dict (``claim_to_dict``): the implied point
_IMPLIED_KEYS = ("epsilon", "delta", "description")


def is_curve_claim(r: dict[str, Any]) -> bool:
    """Whether the result's claim is a curve (GDP, zCDP, RDP, profile, f-DP), not one point."""
    kind = (r.get("claim") or {}).get("kind")
    return kind is not None and not (
        isinstance(kind, str) and kind in REGISTRY and REGISTRY[kind].point
    )


def claim_text(r: dict[str, Any], num: Callable[[Any], str]) -> str:
    """The claim as the verdict tables write it: ``(ε, δ)`` for a point claim; a curve claim
    by its description and the point it implies at its report δ, ``1-GDP (implies (4.887,
    1e-06))``; "–" without a claim.  Plain text: callers escape it."""
    claim = r.get("claim")
    if not claim:
        return "–"
    point = f"({num(claim.get('epsilon'))}, {num(claim.get('delta'))})"
    if not is_curve_claim(r):
        return point
    return f"{claim.get('description') or claim['kind']} (implies {point})"


def curve_bound_text(
    r: dict[str, Any], num: Callable[[Any], str], *, implied: bool = True
) -> str | None:
    """A curve claim's certified bound in the claim's own parameter; None for a point claim
    (whose wording is :func:`bound_text`'s, unchanged).

    ``μ ≥ 1.087 for a claimed 1-GDP; as (ε, δ): ε ≥ 0.3682 at δ = 1e-06, where the claim
    implies ε ≤ 4.887``.  The (ε, δ) part (left out unless ``implied``) is
    ``epsilon_lower_bound``: what the same counts certify at the claim's report δ, beside
    the ε the claim itself implies there.  An estimate with no bound in the claim's
    parameter (a white-box one) is stated in ε only.  Plain text: callers escape it.
    """
    if not is_curve_claim(r):
        return None
    claim = r["claim"]
    described = claim.get("description") or claim["kind"]
    parameter = r.get("parameter") or KIND_PARAMETER.get(claim["kind"], "scale")
    symbol = PARAMETER_SYMBOL.get(parameter, parameter)
    at_delta = f"ε ≥ {bound_text(r, num)} at δ = {num(claim.get('delta'))}"
    bound = r.get("claim_bound")
    if bound is None and r.get("attack") is not None:
        return f"{at_delta} for a claimed {described} (this estimate gives no {symbol} bound)"
    text = f"{symbol} ≥ {num(0.0 if bound is None else bound)} for a claimed {described}"
    if parameter == "scale":
        text += f" (claimed scale {num(claim.get('scale', 1.0))})"
    if implied:
        text += f"; as (ε, δ): {at_delta}, where the claim implies ε ≤ {num(claim.get('epsilon'))}"
    return text


def claim_object(r: dict[str, Any]) -> Claim | None:
    """The claim of a report.json result as an object (``auditor.core.claim_kinds``), or None
    when the result has none or its dict does not rebuild (a report from elsewhere)."""
    claim = r.get("claim")
    if not isinstance(claim, dict) or not claim:
        return None
    try:
        if not is_curve_claim(r):
            return PrivacyClaim(float(claim["epsilon"]), float(claim.get("delta") or 0.0))
        return claim_from_dict({k: v for k, v in claim.items() if k not in _IMPLIED_KEYS})
    except (InvalidArgument, KeyError, TypeError, ValueError):
        return None


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

    ``p0_low``/``p0_high`` are one-sided Clopper-Pearson limits at ``alpha * alpha_split`` and
    ``p1_low``/``p1_high`` at ``alpha * (1 - alpha_split)``: the split the certified bound used
    (one half each when a report has none).  ``lower`` is the certified
    ``epsilon_lower_bound``: ln((p0_low − δ) / p1_high), floored at 0.  ``upper`` is
    ln((p0_high − δ) / p1_low), infinite when ``k1 == 0``: the event's loss is in
    [lower, upper] with the same confidence.  ``upper`` says nothing about the mechanism's ε,
    which may exceed it through another event.

    For the conditional test (``conditional``), ``lower`` is its bound and ``upper`` the same
    test's upper limit on x's share of the pooled count; the four limits on p0 and p1 are
    then only descriptive (at the split recorded, one half each by default).
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
    conditional: bool = False

    @classmethod
    def from_result(cls, r: dict[str, Any], *, cells_cut: bool = False) -> EventEvidence | None:
        """None when the result has no counts (an error, or no event proposed) or its bound
        is not one event's Clopper-Pearson bound (cells, white-box).

        ``cells_cut``: for a bound certified on cells, the interval of the cut its (ε, δ)
        statement reads, from that cut's own counts at the result's alpha (half on each
        side).  The cut is one event fixed before certification, so the interval holds; the
        certified ``lower`` stays the cells', which is below the cut's own limit."""
        c = r.get("counts")
        if not c or not r.get("alpha") or not c.get("n0") or not c.get("n1"):
            return None
        if not is_sampled(r) and not (cells_cut and is_cells(r)):
            return None
        n0, k0, n1, k1 = int(c["n0"]), int(c["k0"]), int(c["n1"]), int(c["k1"])
        alpha = float(r["alpha"])
        split = float(r.get("alpha_split") or 0.5)
        delta = float((r.get("claim") or {}).get("delta") or 0.0)
        a0, a1 = alpha * split, alpha * (1.0 - split)
        p0_low, p0_high = cp_lower(k0, n0, a0), cp_upper(k0, n0, a0)
        p1_low, p1_high = cp_lower(k1, n1, a1), cp_upper(k1, n1, a1)
        conditional = is_conditional(r)
        if conditional:
            mean = float(r.get("poisson_mean") or 1)
            upper = conditional_upper_bound(k0, k1, mean, mean, alpha)
        else:
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
            conditional=conditional,
        )


@dataclass(frozen=True)
class TradeoffEvidence:
    """The best event read as a test rejecting x′ on it, against the claimed trade-off curve.

    Type-I error ``alpha_hat`` = k1/n1, type-II error ``beta_hat`` = 1 − k0/n0.  The box is
    [p1_low, p1_high] × [1 − p0_high, 1 − p0_low]: the one-sided Clopper-Pearson limits
    the certification used (``alpha_split`` of ``alpha`` on x, the rest on x′) and the
    opposite limits at the same levels.  Its upper-right ``corner`` (p1_high, 1 − p0_low) is
    the point the claim is judged on; ``curve_at_corner`` = f(p1_high) from ``claim.tradeoff``.

    ``violating``: the corner certifies a violation, judged exactly as the verdict is
    (``epsilon_lower_bound(..., claim)`` beyond the claim's value: for a point claim the
    estimator's ln((p0_low − δ)/p1_high), for a curve ``claim.certified``); ``certified`` is
    that bound.  ``below``: the corner lies strictly below the drawn curve.  The two agree
    except within the rounding tolerance; for zCDP / RDP, whose verdict rests on the Rényi
    divergence of the event, stronger than their curve (drawn from the (ε, δ) profile); and
    for a point claim, whose bound reads the event one way only: f_{ε,δ}'s other branch is
    the complement event read the other way round: another event, with a bound of its own.
    For the conditional test the box is descriptive (at the split recorded) and ``certified``
    is the conditional bound, which no corner of a box draws.
    """

    claim: Claim
    alpha_hat: float
    beta_hat: float
    p0_low: float
    p0_high: float
    p1_low: float
    p1_high: float
    curve_at_corner: float
    certified: float
    violating: bool
    below: bool

    @property
    def corner(self) -> tuple[float, float]:
        return (self.p1_high, 1.0 - self.p0_low)

    @classmethod
    def from_result(cls, r: dict[str, Any]) -> TradeoffEvidence | None:
        """None without counts (an error, no event, a white-box estimate) or a readable claim."""
        c = r.get("counts")
        if not c or not r.get("alpha") or not c.get("n0") or not c.get("n1") or not is_sampled(r):
            return None
        claim = claim_object(r)
        if claim is None:
            return None
        n0, k0, n1, k1 = int(c["n0"]), int(c["k0"]), int(c["n1"]), int(c["k1"])
        alpha = float(r["alpha"])
        split = float(r.get("alpha_split") or 0.5)
        on_x, on_x_prime = alpha * split, alpha * (1.0 - split)
        p0_low, p1_high = cp_lower(k0, n0, on_x), cp_upper(k1, n1, on_x_prime)
        certified = (
            as_float(r.get("epsilon_lower_bound"))
            if is_conditional(r)
            else epsilon_lower_bound(k0, n0, k1, n1, alpha, claim.delta, split, claim)
        )
        curve = float(claim.tradeoff(p1_high))
        return cls(
            claim=claim,
            alpha_hat=k1 / n1,
            beta_hat=1.0 - k0 / n0,
            p0_low=p0_low,
            p0_high=cp_upper(k0, n0, on_x),
            p1_low=cp_lower(k1, n1, on_x_prime),
            p1_high=p1_high,
            curve_at_corner=curve,
            certified=certified,
            violating=exceeds(certified, claim.value),
            below=1.0 - p0_low < curve,
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


def delta_bound_text(r: dict[str, Any], num: Callable[[Any], str]) -> str | None:
    """The certified lower bound on delta at the claimed epsilon, with the event and counts it
    rests on; None when no test showed one.  Plain text: callers escape it."""
    d = r.get("delta_lower_bound")
    claim = r.get("claim") or {}
    if not d or "delta" not in claim:
        return None
    c = d["counts"]
    exceeds = " (exceeds the claim)" if d["delta_lower_bound"] > claim["delta"] else ""
    return (
        f"certified δ ≥ {num(d['delta_lower_bound'])} at ε = {num(d['epsilon'])} "
        f"(claimed δ {num(claim['delta'])}){exceeds}: event {d['event']}, "
        f"{c['k0']:,} of {c['n0']:,} outputs on x, {c['k1']:,} of {c['n1']:,} on x', "
        f"significance {num(d['alpha'])}, on {d.get('trial', '')}"
    )


def tightened_text(r: dict[str, Any], num: Callable[[Any], str]) -> str | None:
    """Where a tightened violation was first certified; None when it was not tightened."""
    first = r.get("first_certified")
    if not first:
        return None
    where = "the pilot" if first["looks"] == 0 else f"look {first['looks']}"
    return (
        f"the violation was first certified at {num(first['bound'])} on "
        f"{first['n_certify']:,} outputs per side ({where}); the trial's later looks, on "
        "fresh outputs within its alpha, certified the bound above"
    )
