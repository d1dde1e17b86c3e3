"""What every report figure shares: the colours, a fresh Agg-rendered ``Figure``, PNG bytes,
label text.  matplotlib is imported inside the functions: importing this module stays cheap.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable
from typing import Any

from reports.evidence import as_float

X_COLOUR, X_PRIME_COLOUR, EVENT_COLOUR, CLAIM_COLOUR = "#1f77b4", "#ff7f0e", "#d62728", "#444444"
NEUTRAL_COLOUR = "#999999"
_DPI = 80


def _figure(width: float, height: float, *, fit_labels: bool = False) -> Any:
    """A Figure; ``fit_labels`` lays it out around its tick labels (slower: about 2x)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=_DPI, layout="constrained" if fit_labels else None)
    if not fit_labels:
        fig.subplots_adjust(left=0.1, right=0.97, bottom=0.15, top=0.9, hspace=0.45, wspace=0.3)
    return fig


def to_png(fig: Any) -> bytes:
    """Render a Figure to PNG with the Agg backend (no metadata that names a web address)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def claim_tick(ax: Any, claim: float, y: float, half: float, *, labelled: bool) -> None:
    """The claimed ε as a short vertical bar at row ``y`` (``y ± half``) of a horizontal bar
    chart; nothing for an infinite claim.  ``labelled``: the first row names it in the legend."""
    if math.isfinite(claim):
        ax.plot(
            [claim, claim],
            [y - half, y + half],
            color=CLAIM_COLOUR,
            lw=2.5,
            label="claimed ε" if labelled else None,
        )


def add_result_figures(
    files: dict[str, bytes],
    results: Iterable[Any],
    draw: Callable[[Any], bytes | None],
    filename: Callable[[Any], str],
) -> dict[str, bytes]:
    """Add to ``files`` the figure ``draw`` makes of each result, named ``filename(adapter)``
    (made unique with ``-2``, ``-3``…).  A figure that cannot be drawn is left out: a figure is
    decoration, the numbers are the report."""
    for r in results:
        try:
            png = draw(r)
        except Exception:  # noqa: BLE001 - see the docstring
            continue
        if png is None:
            continue
        name = filename(r.adapter)
        stem, i = name.removesuffix(".png"), 2
        while name in files:
            name, i = f"{stem}-{i}.png", i + 1
        files[name] = png
    return files


def short(text: Any, limit: int = 60) -> str:
    """Adapter-provided text for a label: shortened, and ``$`` made literal (no mathtext)."""
    s = str(text)
    s = s if len(s) <= limit else s[: limit - 1] + "…"
    return s.replace("$", r"\$")


def _g(x: Any) -> str:
    value = as_float(x)
    return "∞" if value == math.inf else f"{value:.4g}"
