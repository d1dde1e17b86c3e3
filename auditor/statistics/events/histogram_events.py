"""Histogram events for continuous outputs: unions of the bins with the largest likelihood ratio.

By the Neyman-Pearson lemma the best event at a given size is a super-level set of the
likelihood ratio ``p_x(y) / p_x'(y)``.  For a one-dimensional output that ratio need not be
monotone (a mechanism may leak in the middle of its range, or on both tails), so thresholds miss
it.  Here the bin edges are chosen from training quantiles, the per-bin ratio is estimated on the
training split, bins are sorted by that ratio, and the unions of the top-r bins (r = 1, 2, ...)
are the candidates, in both directions.  Everything is fixed by the training data alone.

References:
    Ding et al., StatDP (CCS 2018): binned outputs as events.
    Koskela & Mohammadi, "Auditing DP guarantees using density estimation" (arXiv 2406.04827).
    Gilbert & McMillan (2018), Alg. 2: histogram estimates of the privacy loss.
"""

from __future__ import annotations

import numpy as np

from auditor.core.source import array_literal, event_code
from auditor.core.trials import Event

#: number of histogram bins (equal-mass on the pooled training outputs)
DEFAULT_BINS = 48


class BinUnion:
    """Predicate ``y`` falls in one of ``bins`` of the histogram with inner ``edges``.

    Bin i is ``[edges[i-1], edges[i])`` (bin 0 is everything below ``edges[0]``, the last bin
    everything from ``edges[-1]`` up).  NaN falls in no bin.
    """

    def __init__(self, edges: np.ndarray, bins: np.ndarray) -> None:
        self.edges = np.asarray(edges, dtype=float)
        self.member = np.zeros(len(self.edges) + 1, dtype=bool)
        self.member[np.asarray(bins, dtype=np.int64)] = True
        #: the partition whose cells it unites, and those cells (see ``selection_counts``)
        self.partition = b"bins " + self.edges.tobytes()
        self.members = np.flatnonzero(self.member)

    def cells_of(self, y: np.ndarray) -> np.ndarray:
        """Each output's bin, -1 for NaN."""
        y = np.asarray(y, dtype=float)
        idx = np.minimum(np.searchsorted(self.edges, y, side="right"), len(self.edges))
        cells: np.ndarray = np.where(np.isnan(y), -1, idx)
        return cells

    def __call__(self, y: np.ndarray) -> np.ndarray:
        cells = self.cells_of(y)
        inside: np.ndarray = (cells >= 0) & self.member[cells]
        return inside

    def code(self) -> str:
        """Standalone source of this predicate (``Event.source``)."""
        prelude = (
            f"EDGES = {array_literal(self.edges, 'float64')}\n"
            f"MEMBER = {array_literal(self.member, 'bool')}"
        )
        return event_code(
            "MEMBER[np.minimum(np.searchsorted(EDGES, np.asarray(x, dtype=float), side='right'), "
            "len(EDGES))] & ~np.isnan(np.asarray(x, dtype=float))",
            prelude,
        )


def _describe(edges: np.ndarray, bins: np.ndarray, side: str) -> str:
    bins = np.sort(bins)
    # merge adjacent bins into intervals so that a reviewer can read the event
    parts, start = [], bins[0]
    for prev, cur in zip(bins[:-1], bins[1:], strict=True):
        if cur != prev + 1:
            parts.append((start, prev))
            start = cur
    parts.append((start, bins[-1]))

    def lo(i: int) -> str:
        return "-inf" if i == 0 else f"{edges[i - 1]:.6g}"

    def hi(i: int) -> str:
        return "inf" if i == len(edges) else f"{edges[i]:.6g}"

    shown = ", ".join(f"[{lo(a)}, {hi(b)})" for a, b in parts[:4])
    more = f" and {len(parts) - 4} more intervals" if len(parts) > 4 else ""
    return f"output in {shown}{more} ({len(bins)} histogram bins most likely on {side}, chosen on training data)"


def histogram_events(a: np.ndarray, b: np.ndarray, n_bins: int = DEFAULT_BINS) -> list[Event]:
    """Unions of top-ratio bins, both directions, from training outputs ``a`` (x) and ``b`` (x').

    Returns an empty list when the finite outputs have fewer than two distinct quantiles.
    """
    pooled = np.concatenate([a, b])
    finite = pooled[np.isfinite(pooled)]
    if finite.size < 2 * n_bins:
        return []
    edges = np.unique(np.quantile(finite, np.linspace(0, 1, n_bins + 1)[1:-1]))
    if len(edges) < 1:
        return []
    k = len(edges) + 1
    ia = np.searchsorted(edges, a[np.isfinite(a)], side="right")
    ib = np.searchsorted(edges, b[np.isfinite(b)], side="right")
    ca = np.bincount(ia, minlength=k) + 0.5
    cb = np.bincount(ib, minlength=k) + 0.5
    ratio = np.log(ca / ca.sum()) - np.log(cb / cb.sum())
    events: list[Event] = []
    for sign, side in ((1.0, "x"), (-1.0, "x'")):
        order = np.argsort(-sign * ratio, kind="stable")
        for r in range(1, k):
            chosen = order[:r]
            events.append(Event(_describe(edges, chosen, side), BinUnion(edges, chosen)))
    return events
