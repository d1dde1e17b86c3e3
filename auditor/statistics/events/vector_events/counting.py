"""Counting a row-wise function's values on rows that repeat: tallies, cut counts and
quantiles, the same numbers as on every row at the cost of the distinct ones."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Tally:
    """A row-wise function's values on one side's rows: one per distinct row with how many
    rows it stands for (rows that repeat), or one per row (``counts`` None).  Candidates are
    counted on it as on the values of every row, at the cost of the distinct ones."""

    values: np.ndarray
    counts: np.ndarray | None = None

    def apply(self, g: Callable[[np.ndarray], np.ndarray]) -> Tally:
        return Tally(np.asarray(g(self.values)), self.counts)

    def where(self, keep: np.ndarray) -> Tally:
        return Tally(self.values[keep], None if self.counts is None else self.counts[keep])

    def bincount(self, positions: np.ndarray, keep: np.ndarray, size: int) -> np.ndarray:
        """How many rows have each of ``size`` values (``positions``: each unit's, where
        ``keep``)."""
        weights = None if self.counts is None else self.counts[keep]
        return np.bincount(positions[keep], weights, minlength=size).astype(np.int64)

    def sorted(self) -> tuple[np.ndarray, np.ndarray | None, int]:
        """The non-NaN values ascending, the cumulative row counts (None: one row each) and
        how many rows they stand for."""
        keep = ~np.isnan(self.values)
        order = np.argsort(self.values[keep], kind="stable")
        values = self.values[keep][order]
        if self.counts is None:
            return values, None, len(values)
        cumulative = np.cumsum(self.counts[keep][order])
        return values, cumulative, int(cumulative[-1]) if len(cumulative) else 0

    @staticmethod
    def concat(tallies: tuple[Tally, ...]) -> Tally:
        values = np.concatenate([t.values for t in tallies])
        if all(t.counts is None for t in tallies):
            return Tally(values)
        counts = [
            np.ones(len(t.values), np.int64) if t.counts is None else t.counts for t in tallies
        ]
        return Tally(values, np.concatenate(counts))


def at_most(
    values: np.ndarray, cumulative: np.ndarray | None, cuts: np.ndarray, side: str
) -> np.ndarray:
    """How many rows have a value below (``side="left"``) or at most (``"right"``) each cut."""
    pos = np.searchsorted(values, cuts, side=side)  # type: ignore[call-overload]
    if cumulative is None:
        return np.asarray(pos, dtype=np.int64)
    # rows at or below position pos - 1; none below the first (a side may have no value at
    # all: every row unanswered)
    below: np.ndarray = np.concatenate([[0], cumulative]).astype(np.int64)[pos]
    return below


def _quantiles(tally: Tally, q: np.ndarray) -> np.ndarray:
    """``np.quantile`` (linear) of the values of every row the tally stands for: the same
    order statistics and the same interpolation, without repeating each value."""
    if tally.counts is None:
        plain: np.ndarray = np.quantile(tally.values, q)
        return plain
    order = np.argsort(tally.values, kind="stable")
    values, cumulative = tally.values[order], np.cumsum(tally.counts[order])
    n = int(cumulative[-1])
    virtual = (n - 1) * q
    previous = np.floor(virtual)
    following = previous + 1
    top = virtual >= n - 1
    previous[top], following[top] = n - 1, n - 1
    a = values[np.searchsorted(cumulative, previous.astype(np.intp), side="right")]
    b = values[np.searchsorted(cumulative, following.astype(np.intp), side="right")]
    t = virtual - np.where(top, -1.0, previous)  # numpy's gamma (it marks the top as -1)
    diff = b - a
    out: np.ndarray = a + diff * t
    np.subtract(b, diff * (1 - t), out=out, where=t >= 0.5)
    return out
