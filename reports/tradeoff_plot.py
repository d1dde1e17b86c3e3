"""The trade-off figure of a curve claim: the best event as a test rejecting x', its
Clopper-Pearson box against the claimed curve beta = f(alpha) (report.html, and the
``tradeoff-<adapter>.png`` files of the report set).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from auditor.core.claim_kinds import REGISTRY
from reports.evidence import PARAMETER_SYMBOL, TradeoffEvidence, curve_text
from reports.figure_base import (
    CLAIM_COLOUR,
    EVENT_COLOUR,
    NEUTRAL_COLOUR,
    X_COLOUR,
    _figure,
    _g,
    add_result_figures,
    short,
    to_png,
)
from reports.view import AdapterReport, parse_report, parse_result

#: type-I error levels the claimed curve is drawn at: even steps, and log steps towards 0
#: and 1 where curves such as GDP's are steep
_LEVELS = np.unique(
    np.concatenate(
        [
            np.linspace(0.0, 1.0, 801),
            np.geomspace(1e-9, 0.05, 200),
            1.0 - np.geomspace(1e-9, 0.05, 200),
        ]
    )
)
#: the zoomed panel: the box padded by this share of its size on each side
_ZOOM_PAD = 0.6
#: the curve is brought into the zoomed panel when it passes within this many box sizes
_ZOOM_REACH = 3.0


def corner_style(ev: TradeoffEvidence, kind: str | None) -> tuple[str, str]:
    """The colour and legend label of the box's corner: red, "violating point", exactly when
    the corner certifies a violation (``ev.violating``, the verdict's own test); ``kind`` is
    the claim's (None for a point claim), to say why the test and the drawn curve disagree."""
    entry = REGISTRY.get(kind) if isinstance(kind, str) else None
    renyi = entry is not None and entry.renyi_orders is not None
    if ev.violating and (ev.below or not renyi):
        return EVENT_COLOUR, "violating point: corner below the curve"
    if ev.violating:
        return EVENT_COLOUR, "violating point: corner refutes the claim by its Rényi test"
    if ev.below and (kind is None or (entry is not None and entry.point)):
        # f_{ε,δ}'s other branch is the complement event read the other way round
        return "black", "corner: below the curve's complement branch only, not certified"
    if ev.below:
        return "black", "corner: below the curve within the rounding tolerance only"
    return "black", "corner (p1_high, 1 − p0_low): not below the curve"


def _draw_panel(
    ax: Any,
    r: AdapterReport,
    ev: TradeoffEvidence,
    curve: np.ndarray,
    described: str,
    corner: tuple[str, str],
    labelled: bool,
) -> None:
    """One panel's curve, diagonal, box, estimate and corner (legend labels on one panel)."""
    from matplotlib.patches import Rectangle

    x0, x1 = ev.p1_low, ev.p1_high
    y0, y1 = 1.0 - ev.p0_high, 1.0 - ev.p0_low
    corner_colour, corner_label = corner

    def label(text: str, on: bool = labelled) -> str | None:
        return text if on else None

    ax.fill_between(
        _LEVELS,
        0.0,
        curve,
        color=EVENT_COLOUR,
        alpha=0.07,
        lw=0,
        label=label("below the curve: refutes the claim"),
    )
    ax.plot(
        [0.0, 1.0],
        [1.0, 0.0],
        ls=":",
        lw=1,
        color=NEUTRAL_COLOUR,
        label=label("β = 1 − α: no privacy loss"),
    )
    ax.plot(
        _LEVELS,
        curve,
        color=CLAIM_COLOUR,
        lw=2,
        label=label(f"claimed trade-off f(α): {described}"),
    )
    ax.add_patch(
        Rectangle(
            (x0, y0),
            x1 - x0,
            y1 - y0,
            facecolor=X_COLOUR,
            edgecolor=X_COLOUR,
            alpha=0.3,
            lw=1,
            label=label(f"Clopper-Pearson box (significance {_g(r.alpha)}, one-sided limits)"),
        )
    )
    ax.plot(
        [ev.alpha_hat],
        [ev.beta_hat],
        "o",
        color=X_COLOUR,
        ms=5,
        label=label("estimate (k1/n1, 1 − k0/n0)"),
    )
    ax.plot(
        [x1],
        [y1],
        "s",
        color=corner_colour,
        ms=7,
        mec="white",
        mew=0.8,
        label=label(corner_label),
    )


def _zoom_window(zoom: Any, ev: TradeoffEvidence) -> tuple[float, float, float, float]:
    """``(left, right, bottom, top)`` of the zoomed panel: the box, padded on each axis by a
    share of its own extent, and the curve when it passes near the corner (else a note on the
    panel of where it is at the corner's α)."""
    x0, x1 = ev.p1_low, ev.p1_high
    y0, y1 = 1.0 - ev.p0_high, 1.0 - ev.p0_low
    width, height = x1 - x0, max(y1 - y0, 1e-12)
    left, right = max(0.0, x0 - _ZOOM_PAD * width), min(1.0, x1 + _ZOOM_PAD * width)
    bottom, top = max(0.0, y0 - _ZOOM_PAD * height), min(1.0, y1 + _ZOOM_PAD * height)
    f_corner = ev.curve_at_corner
    if bottom - _ZOOM_REACH * height <= f_corner <= top + _ZOOM_REACH * height:
        bottom = max(0.0, min(bottom, f_corner - _ZOOM_PAD * height))
        top = min(1.0, max(top, f_corner + _ZOOM_PAD * height))
    else:
        above = f_corner > top
        zoom.text(
            0.03,
            0.03 if above else 0.97,
            f"curve at the corner's α = {_g(x1)}:\n"
            f"β = {_g(f_corner)}, {'above' if above else 'below'} this window",
            transform=zoom.transAxes,
            va="bottom" if above else "top",
            fontsize=7,
            color=CLAIM_COLOUR,
        )
    return left, right, bottom, top


def tradeoff_png(r: Mapping[str, Any]) -> bytes | None:
    """The best event as a test rejecting x′, against the claimed trade-off curve β = f(α).

    Left, the whole square [0, 1]²: the claimed curve (the region below it, which refutes the
    claim, shaded), the no-privacy-loss diagonal β = 1 − α, the empirical point
    (k1/n1, 1 − k0/n0), its Clopper-Pearson box and the box's corner (p1_high, 1 − p0_low),
    on which the claim is judged: red, "violating point", when it certifies a violation.
    Right, the same around the box (a box of a few thousand outputs is a dot on the square,
    and events rare on x′ sit against the axis), with the curve when it passes near, else a
    note of where it is.  None without counts (an error, a white-box estimate).
    ``r``: a report.json result.
    """
    return result_tradeoff_png(parse_result(r))


def result_tradeoff_png(r: AdapterReport) -> bytes | None:
    """:func:`tradeoff_png` of a result of the report view."""
    ev = r.tradeoff
    if ev is None or r.claim is None:
        return None
    from matplotlib.patches import Rectangle

    described = short(r.claim.description or ev.claim.describe(), 50)
    curve = ev.claim.tradeoff(_LEVELS)
    corner = corner_style(ev, r.claim.kind)
    fig = _figure(7.5, 4.4, fit_labels=True)
    whole, zoom = fig.subplots(1, 2)
    for ax, labelled in ((whole, True), (zoom, False)):
        _draw_panel(ax, r, ev, curve, described, corner, labelled)
    whole.set_xlim(0.0, 1.0)
    whole.set_ylim(0.0, 1.0)
    whole.set_aspect("equal")
    whole.set_xlabel("type-I error α = P[M(x′) ∈ S]", fontsize=8)
    whole.set_ylabel("type-II error β = 1 − P[M(x) ∈ S]", fontsize=8)
    whole.set_title("the whole trade-off", fontsize=9)
    left, right, bottom, top = _zoom_window(zoom, ev)
    zoom.set_xlim(left, right)
    zoom.set_ylim(bottom, top)
    zoom.set_xlabel("type-I error α", fontsize=8)
    zoom.set_ylabel("type-II error β", fontsize=8)
    zoom.set_title("around the confidence box", fontsize=9)
    zoom.tick_params(labelsize=7)
    zoom.locator_params(nbins=4)
    whole.add_patch(
        Rectangle(
            (left, bottom),
            right - left,
            top - bottom,
            fill=False,
            ls="--",
            lw=0.8,
            ec=NEUTRAL_COLOUR,
        )
    )
    if r.is_curve:
        headline = curve_text(r, _g, implied=False) or ""
    else:
        symbol = PARAMETER_SYMBOL["epsilon"]
        headline = f"{symbol} ≥ {_g(r.epsilon_lower_bound)} for a claimed {described}"
    fig.suptitle(short(f"{r.adapter}: {headline}", 110), fontsize=9)
    fig.legend(loc="outside lower center", ncols=2, fontsize=7)
    return to_png(fig)


def tradeoff_filename(adapter: Any) -> str:
    """``tradeoff-<adapter>.png`` with the name reduced to letters, digits, ``.``, ``_``, ``-``."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", str(adapter)).strip("-.")[:80]
    return f"tradeoff-{safe or 'adapter'}.png"


def tradeoff_files(report: Mapping[str, Any]) -> dict[str, bytes]:
    """The trade-off figure of every result with a curve claim and counts, as extra files of the
    report set: ``{"tradeoff-<adapter>.png": PNG}`` (names made unique with ``-2``, ``-3``…).
    A figure that cannot be drawn is left out (report.html says why): a figure is decoration,
    the numbers are the report."""
    results = [r for r in parse_report(report).results if r.is_curve]
    return add_result_figures({}, results, result_tradeoff_png, tradeoff_filename)
