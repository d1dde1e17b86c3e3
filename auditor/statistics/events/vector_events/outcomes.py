"""The exact-outcome source: rows, or their discrete parts, that take few distinct values,
ranked by empirical likelihood ratio; every top-ranked union is a candidate."""

from __future__ import annotations

import numpy as np

from auditor.core.source import array_literal
from auditor.statistics.events.vector_events.base import MAX_COORDINATES, CandidateSet, Context
from auditor.statistics.events.vector_events.rows import (
    AS_MATRIX_SOURCE,
    ROW_KEYS_SOURCE,
    _Rows,
    _weights,
    as_matrix,
    integral_columns,
    record_columns,
    row_keys,
    value_text,
)
from auditor.statistics.events.vector_events.scalar import outcome_candidates

#: at most this many distinct rows for exact outcome candidates
MAX_OUTCOMES = 4096


class RowKey:
    """Each row as one 64-bit key (:func:`row_keys`).

    Two different rows may share a key (with probability ~2^-64 per pair); an event is then
    still a fixed set of rows, so nothing certified depends on keys being distinct.
    ``width``: the columns of the rows it keys, when known (for its standalone source).
    """

    def __init__(self, width: int | None = None) -> None:
        self.width = width

    def __call__(self, y: np.ndarray) -> np.ndarray:
        m = as_matrix(y)
        return row_keys(m, _weights(m.shape[1]))

    def code_prelude(self, width: int | None = None, part: str = "as_matrix(y)") -> str | None:
        """Standalone source defining ``key(y)`` for rows of ``width`` columns (the weights are
        written out); None when the width is not known."""
        width = self.width if width is None else width
        if width is None:
            return None
        return (
            AS_MATRIX_SOURCE
            + "\n\n"
            + ROW_KEYS_SOURCE
            + f"\n\nWEIGHTS = {array_literal(_weights(width), 'uint64')}\n\n\n"
            f"def key(y):\n    return row_keys({part}, WEIGHTS)\n"
        )


class DiscretePart:
    """The discrete part of a row whose other entries are real: the entries of the columns that
    take integer values (answers such as 1 / 0 / -1), and, for the other columns, only whether
    each is answered (not NaN).  Ranking these parts by likelihood ratio is the exact-outcome
    search of rows that are discrete only in part (an SVT that releases some values beside
    its answer pattern, or beside another mechanism's answers)."""

    def __init__(self, integral: np.ndarray, answered: np.ndarray) -> None:
        self.integral, self.answered = integral, answered
        self.key = RowKey()

    def part(self, y: np.ndarray) -> np.ndarray:
        m = as_matrix(y)
        return np.column_stack(
            [m[:, self.integral], np.where(np.isnan(m[:, self.answered]), np.nan, 1.0)]
        )

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return self.key(self.part(y))

    def code_prelude(self) -> str | None:
        part = (
            "np.column_stack([as_matrix(y)[:, INTEGRAL], "
            "np.where(np.isnan(as_matrix(y)[:, ANSWERED]), np.nan, 1.0)])"
        )
        keyed = self.key.code_prelude(len(self.integral) + len(self.answered), part)
        assert keyed is not None
        return (
            f"INTEGRAL = {array_literal(self.integral, 'int64')}\n"
            f"ANSWERED = {array_literal(self.answered, 'int64')}\n" + keyed
        )

    def text(self, names: list[str]) -> str:
        shown = [names[j] for j in self.integral]
        shown += [f"{names[j]} answered" for j in self.answered]
        listed = ", ".join(shown[:6]) + (", …" if len(shown) > 6 else "")
        return f"({listed})"


def discrete_parts(pooled: np.ndarray) -> list[DiscretePart]:
    """The discrete parts of rows that are discrete only in part: the integer columns, the
    answered pattern of the other columns, and both together ([] when the whole row is
    discrete, or nothing is).  Each alone has fewer outcomes, so more outputs per outcome."""
    integral = np.flatnonzero(integral_columns(pooled))
    nullable = np.flatnonzero(np.isnan(pooled).any(axis=0))
    answered = np.setdiff1d(nullable, integral)
    none = np.zeros(0, dtype=np.intp)
    if len(integral) == pooled.shape[1]:
        return []
    splits = [(integral, none), (none, answered), (integral, answered)]
    parts = [(i, a) for i, a in splits if len(i) + len(a)]
    unique = {(tuple(i), tuple(a)): (i, a) for i, a in parts}
    return [DiscretePart(i, a) for i, a in unique.values()]


def _row_outcomes(
    key: RowKey | DiscretePart,
    build: tuple[_Rows, _Rows],
    sel: tuple[_Rows, _Rows],
    subject: str,
    fields: tuple[str, ...] | None = None,
) -> list[CandidateSet]:
    """Exact outcomes of whole rows (``key`` a ``RowKey``) or of a part of them (a
    ``DiscretePart``), none if there are too many; ``subject`` names them in descriptions."""
    keys_build = (build[0].tally(key), build[1].tally(key))
    distinct, first = np.unique(np.concatenate([t.values for t in keys_build]), return_index=True)
    if len(distinct) > MAX_OUTCOMES:
        return []
    # a row behind each distinct key, read from its side (no copy of the whole build half)
    n0 = len(keys_build[0].values)
    on_x = first < n0
    shown = np.empty((len(first), build[0].sample.shape[1]))
    shown[on_x] = build[0].unit_rows(first[on_x])
    shown[~on_x] = build[1].unit_rows(first[~on_x] - n0)
    if isinstance(key, DiscretePart):
        shown = key.part(shown)
    rows = {int(k): row for k, row in zip(distinct, shown, strict=True)}

    def describe(chosen: np.ndarray) -> str:
        text = _row_text(np.array([rows[int(k)] for k in chosen]), fields)
        return text.replace("the output is", f"{subject} is", 1)

    return outcome_candidates(key, describe, keys_build, (sel[0].tally(key), sel[1].tally(key)))


def _row_text(rows: np.ndarray, fields: tuple[str, ...] | None = None) -> str:
    """Outcome rows in words: ``(1, 0, -1)`` or, for records, ``(index=2, value=0.5)``."""

    def one(row: np.ndarray) -> str:
        values = [value_text(v) for v in row[:12]]
        if fields is not None:
            values = [f"{name}={v}" for name, v in zip(fields, values, strict=False)]
        shown = ", ".join(values)
        return "(" + shown + (", …" if len(row) > 12 else "") + ")"

    if len(rows) == 1:
        return f"the output is {one(rows[0])}"
    listed = "; ".join(one(r) for r in rows[:3])
    more = f"; … ({len(rows)} outputs in all)" if len(rows) > 3 else ""
    return f"the output is one of {listed}{more}"


class OutcomeSource:
    """Exact outcomes: whole rows when every column is integer (answer patterns, bit vectors,
    index sets), also of the most different columns alone for wider rows; else the discrete
    parts of rows that are discrete only in part (Neyman-Pearson on the empirical laws)."""

    def candidates(self, ctx: Context) -> list[CandidateSet]:
        build, sel, columns, p = ctx.build, ctx.sel, ctx.columns, ctx.width
        out: list[CandidateSet] = []
        if p > 1 and columns.integral.all():
            fields = record_columns(ctx.raw_build[0])
            out += _row_outcomes(RowKey(p), build, sel, "the output", fields)
            # rows wider than a few columns (a bit vector, a histogram): the exact outcomes of
            # their most different columns alone -- those whose means differ visibly, and the
            # 2, 4 and 8 most different (the selection half scores them all)
            none = np.zeros(0, dtype=np.intp)
            for k in sorted({columns.visible, 2, MAX_COORDINATES // 2, MAX_COORDINATES}):
                if not 2 <= k < p:
                    continue
                sub = DiscretePart(np.sort(columns.ranked[:k]), none)
                where = f"the output's {k} most different coordinates {sub.text(ctx.names)}"
                out += _row_outcomes(sub, build, sel, where)
        elif p > 1:
            for discrete in discrete_parts(ctx.pooled):
                where = f"the output's discrete part {discrete.text(ctx.names)}"
                out += _row_outcomes(discrete, build, sel, where)
        return out
