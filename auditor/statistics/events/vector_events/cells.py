"""The cell source: for rows with a discrete part (an index, an answer pattern) beside other
values, thresholds on a value among the rows of one outcome of the part."""

from __future__ import annotations

import inspect

import numpy as np

from auditor.core.source import array_literal
from auditor.statistics.events.vector_events.base import CandidateSet, Context
from auditor.statistics.events.vector_events.rows import (
    _Columns,
    as_matrix,
    projection_code,
    value_text,
)
from auditor.statistics.events.vector_events.scalar import search_projections

#: a column with at most this many distinct values is part of a row's discrete part for the
#: cells "discrete part = d and value beyond t" (an index, an answer pattern)
CELL_LEVELS = 16

#: cells for at most this many outcomes of the discrete part (the most frequent) and this
#: many other columns (the most different): thresholds on each pair's values
CELL_PARTS, CELL_COLUMNS = 8, 2

#: ... each outcome seen at least this many times among the first ``CELL_ROWS`` build rows
MIN_CELL, CELL_ROWS = 32, 1 << 16


class Within:
    """One column's value on the rows whose discrete part is one outcome, NaN on the others.

    A threshold on it is the cell "the part is d and the value lies beyond t": the event of a
    noisy max that releases its gap, or of an SVT that releases the value it answered, whose
    leak sits in one index's tail (the gap of the last query, the value of the one answered
    above), and which neither the part's outcomes nor the value's thresholds over all rows
    isolate."""

    thresholds_only = True  # its outcomes would be the row's own, searched already

    def __init__(self, part: np.ndarray, outcome: np.ndarray, column: int, text: str) -> None:
        self.part, self.outcome, self.column, self.text = part, outcome, column, text

    def __call__(self, y: np.ndarray) -> np.ndarray:
        m = as_matrix(y)
        return np.where(in_part(m[:, self.part], self.outcome), m[:, self.column], np.nan)

    def code_prelude(self) -> str:
        constants = (
            f"PART = {array_literal(self.part, 'int64')}\n"
            f"OUTCOME = {array_literal(self.outcome, 'float64')}\n\n\n" + _IN_PART_SOURCE
        )
        return projection_code(
            f"np.where(in_part(m[:, PART], OUTCOME), m[:, {self.column}], np.nan)",
            "m = as_matrix(y)\n    ",
            constants=constants,
        )


def in_part(values: np.ndarray, outcome: np.ndarray) -> np.ndarray:
    """Which rows of ``values`` equal ``outcome`` (NaN equal to NaN)."""
    same = (values == outcome) | (np.isnan(values) & np.isnan(outcome))
    hit: np.ndarray = same.all(axis=1)
    return hit


#: its source, read when this module is loaded (the file on disk may change later)
_IN_PART_SOURCE = inspect.getsource(in_part)


def cells(pooled: np.ndarray, columns: _Columns, names: list[str]) -> list[Within]:
    """The cells of rows with a discrete part (integer columns of at most ``CELL_LEVELS``
    values) beside other columns: for each of the part's ``CELL_PARTS`` most frequent
    outcomes seen ``MIN_CELL`` times, each of the ``CELL_COLUMNS`` most different other
    columns (read on the first ``CELL_ROWS`` rows)."""
    rows = pooled[:CELL_ROWS]
    # a column with more levels in the first rows has more in all: only the few left are
    # counted whole (a histogram of 1,000 integer bins would otherwise sort every column)
    few = [
        j for j in np.flatnonzero(columns.integral) if len(np.unique(rows[:256, j])) <= CELL_LEVELS
    ]
    part = np.array([j for j in few if len(np.unique(rows[:, j])) <= CELL_LEVELS], dtype=np.intp)
    others = [int(j) for j in columns.ranked if j not in part][:CELL_COLUMNS]
    if not 0 < len(part) <= CELL_LEVELS or not others:
        return []
    outcomes, counts = np.unique(rows[:, part], axis=0, return_counts=True)
    order = np.argsort(-counts, kind="stable")[:CELL_PARTS]
    frequent = outcomes[order[counts[order] >= MIN_CELL]]
    shown = ", ".join(names[j] for j in part)
    out = []
    for outcome in frequent:
        value = ", ".join(value_text(v) for v in outcome)
        for j in others:
            text = f"the output's ({shown}) is ({value}) and its {names[j]}"
            out.append(Within(part, outcome, j, text))
    return out


class CellSource:
    """The cells of rows of more than one column (:func:`cells`)."""

    def candidates(self, ctx: Context) -> list[CandidateSet]:
        if ctx.width <= 1:
            return []
        return search_projections(cells(ctx.pooled, ctx.columns, ctx.names), ctx)
