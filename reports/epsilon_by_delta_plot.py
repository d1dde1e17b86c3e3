"""The ε-by-δ figure of a curve claim (``reports.epsilon_by_delta``): the claimed ε(δ) against
the ε the best event certifies at each δ (report.html, and the ``epsilon-by-delta-<adapter>.png``
files of the report set beside the trade-off figures)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from reports.epsilon_by_delta import best_point, result_points
from reports.figure_base import (
    CLAIM_COLOUR,
    EVENT_COLOUR,
    X_COLOUR,
    _figure,
    _g,
    add_result_figures,
    short,
    to_png,
)
from reports.tradeoff_plot import tradeoff_files
from reports.view import AdapterReport, parse_report, parse_result


def epsilon_by_delta_png(r: Mapping[str, Any]) -> bytes | None:
    """The claimed ε against the certified ε at each δ of the claim (log δ across); points
    where the certified ε exceeds the claimed one in red.  None without points.
    ``r``: a report.json result."""
    return result_epsilon_by_delta_png(parse_result(r))


def result_epsilon_by_delta_png(r: AdapterReport) -> bytes | None:
    """:func:`epsilon_by_delta_png` of a result of the report view."""
    points = result_points(r)
    if not points:
        return None
    delta = np.array([p.delta for p in points])
    certified = np.array([p.epsilon_lower_bound for p in points])
    claimed = np.array([p.claimed for p in points])
    shown = delta > 0  # a log axis: δ = 0 (a pure-ε point) is left to the table
    finite = shown & np.isfinite(claimed)
    fig = _figure(7.5, 3.8, fit_labels=True)
    ax = fig.add_subplot()
    ax.plot(delta[finite], claimed[finite], "-o", color=CLAIM_COLOUR, ms=4, label="claimed ε(δ)")
    bad = np.array([p.violating for p in points]) & shown
    ok = shown & ~bad
    ax.plot(delta[ok], certified[ok], "o", color=X_COLOUR, ms=6, label="certified ε ≥ (best event)")
    if bad.any():
        ax.plot(
            delta[bad], certified[bad], "o", color=EVENT_COLOUR, ms=7, label="certified ε > claimed"
        )
    ax.set_xscale("log")
    ax.invert_xaxis()
    ax.set_xlabel("δ")
    ax.set_ylabel("ε")
    top = max([*claimed[finite], *certified[shown], 0.1])
    ax.set_ylim(0.0, top * 1.1)
    best = best_point(points)
    summary = (
        "nothing certified"
        if best is None
        else f"best: ε ≥ {_g(best.epsilon_lower_bound)} vs claimed {_g(best.claimed)} "
        f"at δ = {_g(best.delta)}" + (f" ({_g(best.ratio)}×)" if math.isfinite(best.ratio) else "")
    )
    ax.set_title(short(f"{r.adapter}: {summary}", 110), fontsize=9)
    ax.legend(fontsize=7, loc="best")
    return to_png(fig)


def epsilon_by_delta_filename(adapter: Any) -> str:
    """``epsilon-by-delta-<adapter>.png``, named as the trade-off figure is."""
    from reports.tradeoff_plot import tradeoff_filename

    return "epsilon-by-delta-" + tradeoff_filename(adapter).removeprefix("tradeoff-")


def figure_files(report: Mapping[str, Any]) -> dict[str, bytes]:
    """The trade-off figures (``tradeoff_files``) and the ε-by-δ figure of every result with
    points, as extra files of the report set; one that cannot be drawn is left out."""
    files = dict(tradeoff_files(report))
    results = parse_report(report).results
    return add_result_figures(
        files, results, result_epsilon_by_delta_png, epsilon_by_delta_filename
    )
