"""The summary source: one number per row from all its entries (sum, extremes, the position of
the largest, sign counts against the column medians, the difference direction of the means,
how far the moved entries went towards one side), for rows of more than one column."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable

import numpy as np

from auditor.core.source import array_literal, literal
from auditor.statistics.events.classifier_events import WEIGHTED_SUM_SOURCE, weighted_sum
from auditor.statistics.events.vector_events.base import CandidateSet, Context
from auditor.statistics.events.vector_events.counting import Tally, _quantiles
from auditor.statistics.events.vector_events.rows import (
    _Rows,
    as_matrix,
    column_stat,
    projection_code,
)
from auditor.statistics.events.vector_events.scalar import search_projections


class Reduce:
    """A summary of each row: sum, max, min, argmax, or number of unanswered entries."""

    TEXT = {
        "sum": "sum of the output's entries",
        "max": "largest entry of the output",
        "min": "smallest entry of the output",
        "argmax": "position of the largest entry",
        "none": "number of unanswered (NaN) entries",
    }

    def __init__(self, how: str) -> None:
        self.how, self.text = how, self.TEXT[how]

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return reduce_rows(as_matrix(y), self.how)

    def code_prelude(self) -> str:
        return projection_code(
            f"reduce_rows(as_matrix(y), {literal(self.how)})",
            constants="import warnings\n\n\n" + _REDUCE_ROWS_SOURCE,
        )


def reduce_rows(m: np.ndarray, how: str) -> np.ndarray:
    """Each row of ``m`` summarised (see :class:`Reduce`); all-NaN rows give NaN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if how == "sum":
            out = np.nansum(m, axis=1)
        elif how == "max":
            out = np.nanmax(m, axis=1)
        elif how == "min":
            out = np.nanmin(m, axis=1)
        elif how == "argmax":
            out = np.argmax(np.nan_to_num(m, nan=-np.inf), axis=1)
        else:
            out = np.isnan(m).sum(axis=1)
    return np.asarray(out, dtype=float)


#: its source, read when this module is loaded (the file on disk may change later)
_REDUCE_ROWS_SOURCE = inspect.getsource(reduce_rows)


class AboveMedian:
    """How many entries of a row are above their column's pooled median: the sign test's
    statistic, which under heavy-tailed noise (Laplace) follows the likelihood ratio where the
    sum does not (one far-out entry moves a sum, not a count).

    With ``increments``, the entries are the row's first differences (each entry minus the one
    before it; the first as it is): a cumulative release (prefix sums, a running count) adds
    up independent noise, and its increments take it apart again.
    """

    def __init__(self, medians: np.ndarray, increments: bool = False) -> None:
        self.medians, self.increments = medians, increments
        what = "increments (each entry minus the one before)" if increments else "entries"
        self.text = f"number of the output's {what} above their column's median"

    def __call__(self, y: np.ndarray) -> np.ndarray:
        m = as_matrix(y)
        if self.increments:
            m = row_increments(m)
        return np.asarray((m > self.medians).sum(axis=1), dtype=float)

    def code_prelude(self) -> str:
        part = "row_increments(as_matrix(y))" if self.increments else "as_matrix(y)"
        constants = f"MEDIANS = {array_literal(self.medians, 'float64')}\n"
        if self.increments:
            constants += "\n\n" + _ROW_INCREMENTS_SOURCE
        return projection_code(
            f"np.asarray(({part} > MEDIANS).sum(axis=1), dtype=float)", constants=constants
        )


def row_increments(m: np.ndarray) -> np.ndarray:
    """Each row's first differences, its first entry kept as it is."""
    return np.diff(m, axis=1, prepend=0.0)


#: its source, read when this module is loaded (the file on disk may change later)
_ROW_INCREMENTS_SOURCE = inspect.getsource(row_increments)


class Linear:
    """``w · row`` on standardised columns (NaN as 0): the difference direction of the means."""

    def __init__(self, w: np.ndarray, mean: np.ndarray, scale: np.ndarray, text: str) -> None:
        self.w, self.mean, self.scale, self.text = w, mean, scale, text

    def __call__(self, y: np.ndarray) -> np.ndarray:
        z = np.nan_to_num((as_matrix(y) - self.mean) / self.scale, nan=0.0)
        return weighted_sum(z, self.w, 0.0)

    def code_prelude(self) -> str:
        constants = (
            f"W = {array_literal(self.w, 'float64')}\n"
            f"MEAN = {array_literal(self.mean, 'float64')}\n"
            f"SCALE = {array_literal(self.scale, 'float64')}\n" + WEIGHTED_SUM_SOURCE
        )
        return projection_code(
            "weighted_sum(z, W, 0.0)",
            "z = np.nan_to_num((as_matrix(y) - MEAN) / SCALE, nan=0.0)\n    ",
            constants=constants,
        )


class Toward:
    """How far the moved entries of a row have gone towards one side, all at once: the least
    (``how="min"``) or the most (``"max"``) of ``sign_j * (y_j - centre_j)`` over the columns
    whose means differ, unanswered entries left out.

    A threshold on the least is the box where *every* moved entry lies beyond its centre in the
    direction its column moves; on the most, the opposite box.  Composition adds up each
    entry's loss, and only outputs on which every entry speaks for the same side collect the
    sum (a vector Laplace's box beyond both means has exactly the composed ratio), where a
    sum, a sign count or a linear score mixes them with outputs on which one entry alone
    speaks.  With every column moved up it is the smallest (largest) entry, on the moved
    columns only."""

    def __init__(self, columns: np.ndarray, sign: np.ndarray, centre: np.ndarray, how: str):
        self.columns, self.sign, self.centre, self.how = columns, sign, centre, how
        self.text = (
            f"{how} over the output's moved entries {tuple(columns.tolist())} of how far each "
            "lies beyond its median, towards where its mean moves"
        )

    def __call__(self, y: np.ndarray) -> np.ndarray:
        beyond = self.sign * (as_matrix(y)[:, self.columns] - self.centre)
        return reduce_rows(beyond, self.how)

    def code_prelude(self) -> str:
        constants = (
            f"COLUMNS = {array_literal(self.columns, 'int64')}\n"
            f"SIGN = {array_literal(self.sign, 'float64')}\n"
            f"CENTRE = {array_literal(self.centre, 'float64')}\n\n\n"
            "import warnings\n\n\n" + _REDUCE_ROWS_SOURCE
        )
        return projection_code(
            f"reduce_rows(SIGN * (as_matrix(y)[:, COLUMNS] - CENTRE), {literal(self.how)})",
            constants=constants,
        )


def column_medians(
    build: tuple[_Rows, _Rows], pooled: np.ndarray, f: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """``np.nanmedian(f(pooled), axis=0)`` for row-wise ``f``, on the distinct rows when both
    samples repeat: their median at the cost of a few hundred rows, not of 10^6 (on integers
    numpy's median is its linear quantile at 1/2, which ``_quantiles`` reproduces)."""
    distinct = [rows.sample_distinct() for rows in build]
    if distinct[0] is None or distinct[1] is None:
        m = f(pooled)
        return column_stat("median", m, bool(np.isnan(m).any()))
    m = f(np.vstack([distinct[0][0], distinct[1][0]]))
    counts = np.concatenate([distinct[0][1], distinct[1][1]])
    half = np.array([0.5])
    medians = np.full(m.shape[1], np.nan)
    for j in range(m.shape[1]):
        answered = ~np.isnan(m[:, j])
        if answered.any():
            medians[j] = _quantiles(Tally(m[answered, j], counts[answered]), half)[0]
    return medians


class SummarySource:
    """Summaries of whole rows, each searched like a scalar output (in the order listed)."""

    def candidates(self, ctx: Context) -> list[CandidateSet]:
        return search_projections(self.projections(ctx), ctx)

    @staticmethod
    def projections(ctx: Context) -> list[Callable[[np.ndarray], np.ndarray]]:
        build, pooled, columns = ctx.build, ctx.pooled, ctx.columns
        if ctx.width <= 1:
            return []
        projections: list[Callable[[np.ndarray], np.ndarray]] = [
            Reduce(how) for how in ("sum", "max", "min", "argmax")
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column
            medians = column_medians(build, pooled, lambda m: m)
            steps = column_medians(build, pooled, row_increments)
        if np.isfinite(medians).all():
            projections.append(AboveMedian(medians))
        if np.isfinite(steps).all():
            projections.append(AboveMedian(steps, increments=True))
        if columns.nan:
            projections.append(Reduce("none"))
        scale = np.where(columns.spread > 0, columns.spread, 1.0)
        w = np.nan_to_num((columns.mean_a - columns.mean_b) / scale)
        if np.any(w != 0):
            text = "projection on the difference of the two sides' means"
            projections.append(Linear(w, columns.mean, scale, text))
        moved = np.sort(columns.ranked[: columns.visible])
        centre = medians[moved]
        if len(moved) >= 2 and np.isfinite(centre).all():
            sign = np.sign(columns.mean_a[moved] - columns.mean_b[moved])
            projections += [Toward(moved, sign, centre, how) for how in ("min", "max")]
        return projections
