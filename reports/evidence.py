"""How every renderer words a result's evidence, from the report view (``reports.view``).

The numbers come from the view: the bounds the engine wrote into report.json, and the limits
the view's parser derived from the stored counts.  Nothing here computes a bound; these
functions only word them, so Markdown, HTML and JUnit say the same thing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from auditor.core.claim_kinds import REGISTRY
from reports.missing import MISSING
from reports.view import AdapterReport, EventEvidence, TradeoffEvidence, parse_result
from reports.view import claim_object as claim_object

__all__ = [
    "PARAMETER_SYMBOL",
    "QUERY_RUNS_SHOWN",
    "EventEvidence",
    "TradeoffEvidence",
    "as_float",
    "as_floats",
    "bound_text",
    "cells_lines",
    "claim_object",
    "claim_text",
    "curve_bound_text",
    "curve_text",
    "delta_bound_text",
    "query_text",
    "test_text",
    "tightened_text",
    "white_box_bound_sentence",
]


def as_floats(values: Sequence[Any]) -> np.ndarray:
    """report.json outputs back to float64 (non-finite values are stored as "nan", "inf")."""
    return np.array([float(v) for v in values], dtype=np.float64)


def as_float(value: Any) -> float:
    """A report number that may be stored as the string "inf" or "nan"; None becomes nan."""
    if value is None:
        return math.nan
    return float(value)


def cells_lines(r: AdapterReport, num: Callable[[Any], str]) -> tuple[str, str]:
    """How a cells bound was certified, and what its best cut counts: plain text."""
    c = r.counts
    assert c is not None
    how = (
        f"at significance {num(r.alpha)}: the smallest Rényi divergence between any two "
        "laws of the cells' simultaneous Clopper-Pearson limits (each cell, each side, lower and "
        "upper limit at an equal share of it)"
    )
    cut = (
        f"{c.k0:,} of {c.n0:,} outputs on x, {c.k1:,} of {c.n1:,} on x′ in the cut "
        f"the (ε, δ) statement reads; ε ≥ {num(r.epsilon_lower_bound)} from the same limits"
    )
    return how, cut


def test_text(r: AdapterReport, num: Callable[[Any], str]) -> str:
    """How the event's bound was certified from its counts: plain text."""
    if r.is_conditional:
        return (
            "conditional test: the sizes were drawn from Poisson with mean "
            f"{int(r.poisson_mean or 0):,} per side, and the Clopper-Pearson lower limit "
            "on x's share of the outputs in the event, at the whole significance, bounds the "
            "ratio"
        )
    return (
        f"Clopper-Pearson, share {num(r.alpha_split or 0.5)} of it on the limit for x, "
        "the rest on x'"
    )


def bound_text(r: AdapterReport, num: Callable[[Any], str]) -> str:
    """The epsilon lower bound as people read it.

    An unbounded white-box estimate (probability exactly 0 on x') is "∞ (white-box)": its
    ``epsilon_lower_bound`` in report.json is only a finite stand-in.  Other exact white-box
    bounds get a "(white-box)" suffix; certified bounds are ``num(value)``.
    """
    if r.unbounded:
        return "∞ (white-box)"
    text = num(r.epsilon_lower_bound)
    return f"{text} (white-box)" if r.is_exact_white_box else text


#: how reports write the parameter a claim's bound is in (``AdapterReport.parameter``)
PARAMETER_SYMBOL = {"epsilon": "ε", "mu": "μ", "rho": "ρ", "scale": "scale"}
#: the parameter of each curve kind, for results that carry no ``parameter`` (no finding)
KIND_PARAMETER = {name: kind.parameter for name, kind in REGISTRY.items() if not kind.point}


def claim_text(r: AdapterReport, num: Callable[[Any], str]) -> str:
    """The claim as the verdict tables write it: ``(ε, δ)`` for a point claim; a curve claim
    by its description and the point it implies at its report δ, ``1-GDP (implies (4.887,
    1e-06))``; the missing-value mark of Markdown and HTML (``–``) without a claim.  Plain
    text: callers escape it."""
    claim = r.claim
    if claim is None:
        return MISSING["markdown"]
    point = f"({num(claim.epsilon)}, {num(claim.delta)})"
    if not claim.is_curve:
        return point
    return f"{claim.name} (implies {point})"


def curve_text(r: AdapterReport, num: Callable[[Any], str], *, implied: bool = True) -> str | None:
    """A curve claim's certified bound in the claim's own parameter; None for a point claim
    (whose wording is :func:`bound_text`'s, unchanged).

    ``μ ≥ 1.087 for a claimed 1-GDP; as (ε, δ): ε ≥ 0.3682 at δ = 1e-06, where the claim
    implies ε ≤ 4.887``.  The (ε, δ) part (left out unless ``implied``) is
    ``epsilon_lower_bound``: what the same counts certify at the claim's report δ, beside
    the ε the claim itself implies there.  An estimate with no bound in the claim's
    parameter (a white-box one) is stated in ε only.  Plain text: callers escape it.
    """
    claim = r.claim
    if claim is None or not claim.is_curve:
        return None
    described = claim.name
    parameter = r.parameter or KIND_PARAMETER.get(str(claim.kind), "scale")
    symbol = PARAMETER_SYMBOL.get(parameter, parameter)
    at_delta = f"ε ≥ {bound_text(r, num)} at δ = {num(claim.delta)}"
    if r.claim_bound is None and r.attack is not None:
        return f"{at_delta} for a claimed {described} (this estimate gives no {symbol} bound)"
    bound = 0.0 if r.claim_bound is None else r.claim_bound
    text = f"{symbol} ≥ {num(bound)} for a claimed {described}"
    if parameter == "scale":
        text += f" (claimed scale {num(claim.parameters.get('scale', 1.0))})"
    if implied:
        text += f"; as (ε, δ): {at_delta}, where the claim implies ε ≤ {num(claim.epsilon)}"
    return text


def curve_bound_text(
    r: Mapping[str, Any], num: Callable[[Any], str], *, implied: bool = True
) -> str | None:
    """:func:`curve_text` of a report.json result dictionary (for the command line)."""
    return curve_text(parse_result(r), num, implied=implied)


def white_box_bound_sentence(r: AdapterReport, num: Callable[[Any], str], prime: str) -> str:
    """The bound line of a white-box finding's evidence; ``prime`` marks x' (′ or ')."""
    if r.unbounded:
        return (
            f"ε = ∞: the event has probability exactly 0 on x{prime} and more than δ on x "
            f"(finite stand-in {num(r.epsilon_lower_bound)} in report.json)"
        )
    return f"ε ≥ {num(r.epsilon_lower_bound)} exactly"


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


def delta_bound_text(r: AdapterReport, num: Callable[[Any], str]) -> str | None:
    """The certified lower bound on delta at the claimed epsilon, with the event and counts it
    rests on; None when no test showed one.  Plain text: callers escape it."""
    d = r.delta_bound
    if d is None or r.claim is None or r.claim.delta is None:
        return None
    c = d.counts
    exceeds = " (exceeds the claim)" if d.delta_lower_bound > r.claim.delta else ""
    return (
        f"certified δ ≥ {num(d.delta_lower_bound)} at ε = {num(d.epsilon)} "
        f"(claimed δ {num(r.claim.delta)}){exceeds}: event {d.event}, "
        f"{c.k0:,} of {c.n0:,} outputs on x, {c.k1:,} of {c.n1:,} on x', "
        f"significance {num(d.alpha)}, on {d.trial}"
    )


def tightened_text(r: AdapterReport, num: Callable[[Any], str]) -> str | None:
    """Where a tightened violation was first certified; None when it was not tightened."""
    first = r.first_certified
    if first is None:
        return None
    where = "the pilot" if first.looks == 0 else f"look {first.looks}"
    return (
        f"the violation was first certified at {num(first.bound)} on "
        f"{first.n_certify:,} outputs per side ({where}); the trial's later looks, on "
        "fresh outputs within its alpha, certified the bound above"
    )


def statements(r: AdapterReport, num: Callable[[Any], str]) -> list[tuple[str, str]]:
    """What every renderer states after a result's evidence, in this order, as (what, plain
    text): ``delta`` (the δ bound), ``tightened``, ``power``, then one ``note`` each; the
    renderers word the labels and escape the text."""
    out: list[tuple[str, str]] = []
    if delta := delta_bound_text(r, num):
        out.append(("delta", delta))
    if tightened := tightened_text(r, num):
        out.append(("tightened", tightened))
    if r.power_statement:
        out.append(("power", r.power_statement))
    return out + [("note", note) for note in r.notes]
