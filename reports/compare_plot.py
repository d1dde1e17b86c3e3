"""``compare.png``: two reports' certified epsilon lower bounds side by side, per adapter.

A white-box bound of ∞ (an outcome impossible on x') is drawn as a hatched bar past the
largest finite value, marked "∞"; its finite stand-in in report.json (about 708) is never
drawn as a number.  When the finite values span more than two decades the axis is
logarithmic (symmetric, so a bound of 0 still shows), so one large bound does not flatten
every other bar.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from reports.evidence import as_float
from reports.figure_base import X_COLOUR, X_PRIME_COLOUR, _figure, claim_tick, short, to_png

KEYS = ("epsilon_lower_bound_a", "epsilon_lower_bound_b")
#: the finite values' span (largest / smallest positive) beyond which the axis is logarithmic
LOG_SPAN = 100.0


def axis_extent(rows: Sequence[dict[str, Any]]) -> tuple[bool, float, float]:
    """(logarithmic, where ∞ is drawn, the smallest positive value shown)."""
    values = [as_float(row.get(key)) for row in rows for key in KEYS if row.get(key) is not None]
    values += [as_float(row.get("claim_epsilon")) for row in rows]
    positive = [v for v in values if math.isfinite(v) and v > 0]
    top, low = max(positive, default=1.0), min(positive, default=1.0)
    log = top / low > LOG_SPAN
    return log, top * (4.0 if log else 1.25), low


def compare_png(rows: Sequence[dict[str, Any]], labels: tuple[str, str]) -> bytes:
    """ε lower bounds of two reports side by side, per adapter, with each claim marked."""
    fig = _figure(7.5, 1.2 + 0.5 * max(1, len(rows)), fit_labels=True)
    ax = fig.add_subplot()
    height = 0.38
    n = len(rows)
    log, infinity, low = axis_extent(rows)
    for i, row in enumerate(rows):
        y = n - 1 - i
        for offset, key, colour, label in (
            (height / 2, KEYS[0], X_COLOUR, labels[0]),
            (-height / 2, KEYS[1], X_PRIME_COLOUR, labels[1]),
        ):
            value = row.get(key)
            if value is None or math.isnan(value):
                continue
            unbounded = math.isinf(value)
            ax.barh(
                [y + offset],
                [infinity if unbounded else value],
                height=height,
                color=colour,
                hatch="//" if unbounded else None,
                label=short(label, 30) if i == 0 else None,
            )
            if unbounded:
                ax.text(infinity, y + offset, " ∞", va="center", fontsize=9)
        claim = as_float(row.get("claim_epsilon"))  # "inf": a curve implying no finite ε
        claim_tick(ax, claim, y, 0.45, labelled=i == 0)
    ax.set_yticks(range(n))
    ax.set_yticklabels([short(row["adapter"], 40) for row in reversed(rows)])
    xlabel = "certified ε lower bound"
    if log:
        ax.set_xscale("symlog", linthresh=low)
        xlabel += " (log scale)"
    if any(math.isinf(as_float(row.get(key))) for row in rows for key in KEYS if row.get(key)):
        xlabel += "; ∞: an outcome impossible on x′ (white-box)"
    ax.set_xlabel(xlabel)
    if n:
        ax.legend(fontsize=8, loc="lower right")
    return to_png(fig)
