"""Choosing distinguishing events on vector, sequence and record outputs.

One output is a row: d numbers (a noisy histogram, an SVT answer pattern, a RAPPOR bit
vector), k indices (top-k) or named parts (index and value).  Candidates come from four
sources, all built on one half of the training split and scored on the other by the bound
each is predicted to certify at the planned certification size (``predicted_scores``):

* **exact outcomes** — when the rows take few distinct values (answer patterns, bit vectors,
  index sets), rows are ranked by their empirical likelihood ratio and every top-ranked union
  is a candidate (Neyman–Pearson on the empirical distribution); discrete rows wider than a
  few columns (a bit vector, a histogram) also on their most different columns alone; rows
  that are discrete only in part (released values beside an answer pattern) are ranked the
  same way on their discrete part: the integer columns, which real columns are answered, and
  both;
* **projections** — each of the most different coordinates (or record fields), the sum, the
  largest and smallest entry, the position of the largest, the number of entries above their
  column's median (the sign test: under Laplace noise it follows the likelihood ratio, the sum
  does not) and the same count on the row's increments (prefix sums unmixed), the number of
  unanswered entries,
  membership of each index (index sets), the difference direction of the two sides' means,
  and how far every moved entry has gone towards one side at once (the box in which each
  entry's loss adds up, as under composition); each projection is searched like a scalar
  output (thresholds, outcomes);
* **cells** — for rows with a discrete part (an index, an answer pattern) beside other
  values, thresholds on a value among the rows of one outcome of the part (a gap that leaks
  in one index's tail);
* **a learned classifier** — a scikit-learn logistic regression (and, outside quick
  proposals, a gradient-boosted tree model) over the whole row; thresholds on its score are candidates
  (DP-Sniper's idea, without its probability floor that caps the bound at ln(1/c));
* **float cells** — the (sign, binade, last mantissa bits) cell of each of those coordinates
  that is real, searched as outcomes: a float output vector leaks through the representation
  of any coordinate, also one that answers no query of its own (Mironov 2012);
* **support edges** — for every projection and score, "beyond every training output of one
  side" (``> max``, ``< min``): a region one neighbour reaches and the other never does, whose
  certified bound keeps growing with n instead of stopping near the claim.

Counting is vectorised (sorted values and cumulative sums), so thousands of candidates cost
one pass over the selection half; Event objects are built only for the chosen few.

Assumptions:
    None about the implementation.  Integer-valued rows are treated as discrete; NaN is "no
    answer".

References:
    Ding et al., StatDP (CCS 2018): events selected on a separate batch.
    Bichsel et al., DP-Sniper (S&P 2021): thresholds on a classifier's score.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import islice

import numpy as np

from auditor.core.source import array_literal, event_code, literal
from auditor.core.trials import CertificationPlan, Event
from auditor.statistics.events.bit_events import cell_keys, cell_keys_code, describe_cell
from auditor.statistics.events.classifier_events import (
    WEIGHTED_SUM_SOURCE,
    one_thread,
    weighted_sum,
)
from auditor.statistics.events.event_selection import ranking_scores
from auditor.statistics.events.tree_scores import tree_code, tree_table

#: at most this many distinct rows for exact outcome candidates
MAX_OUTCOMES = 4096
#: a column's two means differ visibly at this many standard errors (z) on the build half
VISIBLE_GAP = 3.0
#: at most this many distinct values make a projection discrete
MAX_DISCRETE_VALUES = 512
#: coordinates searched one by one: the most different on the build half
MAX_COORDINATES = 8
#: thresholds per projection (quantiles of the build half), plus the support edges
N_THRESHOLDS = 128
#: a column with at most this many distinct values is part of a row's discrete part for the
#: cells "discrete part = d and value beyond t" (an index, an answer pattern)
CELL_LEVELS = 16
#: cells for at most this many outcomes of the discrete part (the most frequent) and this
#: many other columns (the most different): thresholds on each pair's values
CELL_PARTS, CELL_COLUMNS = 8, 2
#: ... each outcome seen at least this many times among the first ``CELL_ROWS`` build rows
MIN_CELL, CELL_ROWS = 32, 1 << 16
#: most values of a half (training or screening outputs) made floats at once: rows as drawn
#: may be compact int8
FLOAT_VALUES = 1 << 22
#: training rows per side used to fit a classifier
MAX_FIT = 10_000
#: the boosted-tree classifier is fitted only for rows of at most this many columns
MAX_BOOSTED_COLUMNS = 64

#: a candidate: (counts on the selection half of x, of x', and how to build its Event)
_Candidates = list[tuple[np.ndarray, np.ndarray, Callable[[int], Event]]]


def _fmt(value: float) -> str:
    short = f"{value:.6g}"
    return short if float(short) == value else repr(float(value))


def _value_text(value: float) -> str:
    return "none" if np.isnan(value) else _fmt(value)


def as_matrix(outputs: np.ndarray) -> np.ndarray:
    """Rows as an (n, p) float matrix: one column per coordinate or record field (a field
    of several values gives one column each)."""
    y = np.asarray(outputs)
    if y.dtype.names is not None:
        return np.column_stack([np.asarray(y[name], dtype=float) for name in y.dtype.names])
    f = y.astype(float, copy=False)
    return f[:, None] if f.ndim == 1 else f.reshape(len(f), int(np.prod(f.shape[1:])))


#: its source, read when this module is loaded (the file on disk may change later)
_AS_MATRIX_SOURCE = inspect.getsource(as_matrix)


def record_columns(outputs: np.ndarray) -> tuple[str, ...] | None:
    """A record's column labels as ``as_matrix`` lays them out (a field of several values:
    ``name[0]``, ``name[1]``, ...); None for outputs that are not records."""
    dtype = np.asarray(outputs).dtype
    if dtype.names is None:
        return None
    labels: list[str] = []
    for name in dtype.names:
        shape = dtype[name].shape
        labels += [name] if not shape else [f"{name}[{j}]" for j in range(shape[0])]
    return tuple(labels)


def column_names(outputs: np.ndarray) -> list[str]:
    y = np.asarray(outputs)
    fields = record_columns(y)
    if fields is not None:
        scalar = set(y.dtype.names or ())
        return [f"field {name!r}" if name in scalar else name for name in fields]
    return ["the output"] if y.ndim == 1 else [f"coordinate {j}" for j in range(y.shape[1])]


# --- projections: rows -> one number each (picklable: they travel to workers in events) ---


class Column:
    def __init__(self, index: int, text: str) -> None:
        self.index, self.text = index, text

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return as_matrix(y)[:, self.index]

    def code_prelude(self) -> str:
        return _projection_code(f"as_matrix(y)[:, {self.index}]")


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
        return _projection_code(
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
        return _projection_code(
            f"np.asarray(({part} > MEDIANS).sum(axis=1), dtype=float)", constants=constants
        )


def row_increments(m: np.ndarray) -> np.ndarray:
    """Each row's first differences, its first entry kept as it is."""
    return np.diff(m, axis=1, prepend=0.0)


#: its source, read when this module is loaded (the file on disk may change later)
_ROW_INCREMENTS_SOURCE = inspect.getsource(row_increments)


class FloatCell:
    """The float cell of one real coordinate: sign, binade and last mantissa bits
    (``bit_events.cell_keys``), NaN for no answer.  An output vector whose coordinate sits in
    a cell the other input never reaches is impossible there (Mironov 2012), also when the
    coordinate answers no query of its own (a quantile, a statistic of a dataset)."""

    outcomes_only = True  # a threshold on a cell key means nothing
    #: only cells one side never reached in training: a float leak shows as cells impossible
    #: on one input; a cell both reach is a coarse value bin, which the coordinate's own
    #: thresholds cover, and hundreds of them would let sampling noise pick the events
    one_sided = True

    def __init__(self, index: int, name: str) -> None:
        self.index, self.text = index, f"float cell of {name}"

    def __call__(self, y: np.ndarray) -> np.ndarray:
        v = as_matrix(y)[:, self.index]
        return np.where(np.isfinite(v), cell_keys(v).astype(float), np.nan)

    @staticmethod
    def describe_value(key: float) -> str:
        return "none" if np.isnan(key) else describe_cell(int(key))

    def code_prelude(self) -> str:
        return _projection_code(
            "np.where(np.isfinite(v), cell_keys(v).astype(float), np.nan)",
            f"v = as_matrix(y)[:, {self.index}]\n    ",
            constants=cell_keys_code(),
        )


class Membership:
    """Whether index ``j`` is among a row's indices (top-k outputs)."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.text = f"index {index} is in the output"

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return np.asarray((as_matrix(y) == self.index).any(axis=1), dtype=float)

    def code_prelude(self) -> str:
        return _projection_code(
            f"np.asarray((as_matrix(y) == {self.index}).any(axis=1), dtype=float)"
        )


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
        return _projection_code(
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
        return _projection_code(
            f"reduce_rows(SIGN * (as_matrix(y)[:, COLUMNS] - CENTRE), {literal(self.how)})",
            constants=constants,
        )


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
        return _projection_code(
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
        value = ", ".join(_value_text(v) for v in outcome)
        for j in others:
            text = f"the output's ({shown}) is ({value}) and its {names[j]}"
            out.append(Within(part, outcome, j, text))
    return out


class Score:
    """A fitted classifier's score of "produced on x" (larger: likelier on x)."""

    def __init__(
        self,
        model: object,
        mean: np.ndarray,
        scale: np.ndarray,
        nan_columns: np.ndarray,
        text: str,
    ) -> None:
        self.mean, self.scale, self.text = mean, scale, text
        self.nan_columns = nan_columns
        coef, intercept = getattr(model, "coef_", None), getattr(model, "intercept_", 0.0)
        #: a linear model's weights and intercept, summed here row by row (see weighted_sum)
        self.linear = (
            None if coef is None else (np.ravel(coef).astype(float), float(np.ravel(intercept)[0]))
        )
        #: kept only when it scores (a tree model): a linear score pickled to the workers then
        #: carries no scikit-learn object, and they need not import scikit-learn (a second each)
        self.model = model if self.linear is None else None
        #: a tree model's nodes, for the standalone source (scoring here stays scikit-learn's
        #: compiled walk, three times faster than numpy's; tree_sum adds up the same way)
        self.trees = None if self.linear is not None else tree_table(model)

    def __call__(self, y: np.ndarray) -> np.ndarray:
        z = _standardise(as_matrix(y), self.mean, self.scale, self.nan_columns)
        if self.linear is not None:
            return weighted_sum(z, *self.linear)
        # one thread: the trees' OpenMP, in worker processes side by side on a few cores,
        # made counting an event ten times slower than here
        with one_thread():
            return np.asarray(self.model.decision_function(z), dtype=float)  # type: ignore[attr-defined]

    def code_prelude(self) -> str | None:
        """Standalone source for the score of a linear or tree model (None for another)."""
        standardise = (
            f"MEAN = {array_literal(self.mean, 'float64')}\n"
            f"SCALE = {array_literal(self.scale, 'float64')}\n"
            f"NAN_COLUMNS = {array_literal(self.nan_columns, 'bool_')}\n"
            + _STANDARDISE_SOURCE
            + "\n\n"
        )
        if self.linear is not None:
            w, intercept = self.linear
            model = (
                f"W = {array_literal(w, 'float64')}\nINTERCEPT = {literal(intercept)}\n"
                + WEIGHTED_SUM_SOURCE
            )
            expression = "weighted_sum(z, W, INTERCEPT)"
        elif self.trees is not None:
            model, expression = tree_code(self.trees), "tree_sum(z, *TREES)"
        else:
            return None
        return _projection_code(
            expression,
            "z = _standardise(as_matrix(y), MEAN, SCALE, NAN_COLUMNS)\n    ",
            constants=standardise + model,
        )


def row_keys(m: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """One 64-bit key per row of floats: each value's bits through the splitmix64 finalizer (a
    bijection that spreads every bit over the whole word: small integers such as answers
    differ only in their top bits), times its column's odd weight, summed modulo 2^64.  Rows
    that differ in one column never share a key (each step is invertible there); other
    distinct rows share one with probability about 2^-64."""
    m = m + 0.0  # -0.0 -> 0.0
    m = np.where(np.isnan(m), np.nan, m)  # one NaN bit pattern
    z = np.ascontiguousarray(m, dtype=np.float64).view(np.uint64)
    with np.errstate(over="ignore"):
        z = z ^ (z >> np.uint64(30))
        z = z * np.uint64(0xBF58476D1CE4E5B9)
        z = z ^ (z >> np.uint64(27))
        z = z * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
        mixed = (z * weights).sum(axis=1, dtype=np.uint64)
    keys: np.ndarray = mixed.view(np.int64)
    return keys


#: its source, read when this module is loaded (the file on disk may change later)
_ROW_KEYS_SOURCE = inspect.getsource(row_keys)


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
            _AS_MATRIX_SOURCE
            + "\n\n"
            + _ROW_KEYS_SOURCE
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


def integral_columns(pooled: np.ndarray) -> np.ndarray:
    """Whether each column holds only integers (NaN, no answer, aside)."""
    with np.errstate(invalid="ignore"):
        whole: np.ndarray = (np.isnan(pooled) | (pooled == np.round(pooled))).all(axis=0)
    return whole


@dataclass(frozen=True)
class _Tally:
    """A row-wise function's values on one side's rows: one per distinct row with how many
    rows it stands for (rows that repeat), or one per row (``counts`` None).  Candidates are
    counted on it as on the values of every row, at the cost of the distinct ones."""

    values: np.ndarray
    counts: np.ndarray | None = None

    def apply(self, g: Callable[[np.ndarray], np.ndarray]) -> _Tally:
        return _Tally(np.asarray(g(self.values)), self.counts)

    def where(self, keep: np.ndarray) -> _Tally:
        return _Tally(self.values[keep], None if self.counts is None else self.counts[keep])

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
    def concat(tallies: tuple[_Tally, ...]) -> _Tally:
        values = np.concatenate([t.values for t in tallies])
        if all(t.counts is None for t in tallies):
            return _Tally(values)
        counts = [
            np.ones(len(t.values), np.int64) if t.counts is None else t.counts for t in tallies
        ]
        return _Tally(values, np.concatenate(counts))


def _at_most(
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


def _quantiles(tally: _Tally, q: np.ndarray) -> np.ndarray:
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


def _packing(raw: np.ndarray) -> Callable[[np.ndarray], np.ndarray] | None:
    """For rows of small integers (answers, bits): a key of these rows as floats, each row one
    exact int64 whose digits in base (largest - smallest + 1) are its entries.  None for other
    rows, or when the digits do not fit."""
    if raw.dtype.kind not in "biu" or not raw.size:
        return None
    low, high = int(raw.min()), int(raw.max())
    width = raw.size // len(raw)
    if width * math.log2(high - low + 1) >= 62:
        return None
    digits = (high - low + 1) ** np.arange(width, dtype=np.int64)

    def pack(m: np.ndarray) -> np.ndarray:
        keys: np.ndarray = (m.astype(np.int64) - low) @ digits
        return keys

    return pack


class _Rows:
    """One side's rows of a proposal's half, as drawn (compact answers stay int8).

    Floats are made a chunk at a time: ``sample``, the first ``FLOAT_VALUES`` values' rows,
    is what column statistics and classifiers read, and a row-wise function (projection, key,
    score) runs over every row chunk by chunk.  Integer rows that repeat (answer patterns, bit
    vectors, index sets) are kept as their distinct rows and how many rows each stands for:
    such a function is computed once per distinct row, and candidates are counted on that
    tally (:class:`_Tally`) at the cost of the distinct rows, not of every row (the boosted
    trees' prediction on 10^6 copies of a dozen patterns was most of a sparse-vector
    proposal).  Memory is then the rows as drawn plus one key per row, not n x d floats."""

    def __init__(self, raw: np.ndarray) -> None:
        self.raw = raw
        self._distinct: tuple[np.ndarray, np.ndarray] | None = None  # rows, how many each
        n = len(raw)
        width = as_matrix(raw[:1]).shape[1] if n else 1
        self.step = max(1, FLOAT_VALUES // width)  # rows per float chunk
        if n < 64:
            return
        key = _packing(raw)
        if key is None:
            if not integral_columns(self.sample).all():
                return
            weights = _weights(width)
            key = lambda m: row_keys(m, weights)  # noqa: E731
        # rows that are mostly distinct (a wide bit vector) show it in their first few
        # thousand: do not key them all for nothing.  Only mostly: 10 answers of a sparse
        # vector show 885 of their 1,024 patterns in 4,096 rows, and repeat in 10^6
        probe = self.sample[:4096]
        if len(np.unique(key(probe))) > len(probe) // 2:
            return
        keys = self._chunked(key)
        _, first, counts = np.unique(keys, return_index=True, return_counts=True)
        if len(first) <= n // 8:
            self._distinct = (as_matrix(raw[first]), counts.astype(np.int64))

    @cached_property
    def sample(self) -> np.ndarray:
        """The first rows as floats (all of them, unless they are many or wide)."""
        return as_matrix(self.raw[: self.step])

    def __len__(self) -> int:
        return len(self.raw)

    def at(self, index: np.ndarray) -> np.ndarray:
        """Rows ``index`` as floats."""
        return as_matrix(self.raw[index])

    def tally(self, f: Callable[[np.ndarray], np.ndarray]) -> _Tally:
        """``f`` on every row, as a tally: once per distinct row when the rows repeat."""
        if self._distinct is None:
            return _Tally(self._chunked(f))
        values, counts = self._distinct
        return _Tally(np.asarray(f(values)), counts)

    def sample_distinct(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The sample's distinct rows and how many rows each stands for, when the sample is
        every row and rows repeat (else None)."""
        if self._distinct is None or len(self.raw) > self.step:
            return None
        return self._distinct

    def unit_rows(self, index: np.ndarray) -> np.ndarray:
        """The rows behind a tally's entries ``index``, as floats."""
        if self._distinct is None:
            return self.at(index)
        rows: np.ndarray = self._distinct[0][index]
        return rows

    def _chunked(self, f: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        if len(self.raw) <= self.step:
            return np.asarray(f(self.sample))
        parts = [
            np.asarray(f(as_matrix(self.raw[i : i + self.step])))
            for i in range(0, len(self.raw), self.step)
        ]
        return np.concatenate(parts)


def _column_medians(
    build: tuple[_Rows, _Rows], pooled: np.ndarray, f: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """``np.nanmedian(f(pooled), axis=0)`` for row-wise ``f``, on the distinct rows when both
    samples repeat: their median at the cost of a few hundred rows, not of 10^6 (on integers
    numpy's median is its linear quantile at 1/2, which ``_quantiles`` reproduces)."""
    distinct = [rows.sample_distinct() for rows in build]
    if distinct[0] is None or distinct[1] is None:
        m = f(pooled)
        return _column_stat("median", m, bool(np.isnan(m).any()))
    m = f(np.vstack([distinct[0][0], distinct[1][0]]))
    counts = np.concatenate([distinct[0][1], distinct[1][1]])
    half = np.array([0.5])
    medians = np.full(m.shape[1], np.nan)
    for j in range(m.shape[1]):
        answered = ~np.isnan(m[:, j])
        if answered.any():
            medians[j] = _quantiles(_Tally(m[answered, j], counts[answered]), half)[0]
    return medians


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


def _projection_code(expression: str, setup: str = "", constants: str = "") -> str:
    """Standalone source defining ``projection(y)`` (with ``as_matrix``): after the module
    lines ``constants``, ``setup`` lines, then ``return expression``."""
    head = constants.rstrip() + "\n\n\n" if constants else ""
    return head + _AS_MATRIX_SOURCE + f"\n\ndef projection(y):\n    {setup}return {expression}\n"


@dataclass(frozen=True)
class _Columns:
    """What the candidates read of the build half's columns, computed once per proposal."""

    mean_a: np.ndarray
    mean_b: np.ndarray
    #: the pooled mean (0 for an all-NaN column) and standard deviation
    mean: np.ndarray
    spread: np.ndarray
    integral: np.ndarray
    #: columns by how far apart the two sides' means are (in pooled standard deviations),
    #: plus how differently often each is unanswered: the largest first
    ranked: np.ndarray
    #: how many columns' means differ by more than ``VISIBLE_GAP`` standard errors
    visible: int
    #: whether any entry is NaN (no answer)
    nan: bool


def _column_stat(stat: str, m: np.ndarray, nan: bool) -> np.ndarray:
    """numpy's column ``stat`` ("mean", "var", "std" or "median") ignoring NaN, or the plain
    one when ``nan`` is False (nothing is NaN): the same values at a fraction of the cost --
    the NaN-ignoring ones copy the matrix, and their median goes column by column."""
    return np.asarray(getattr(np, "nan" + stat if nan else stat)(m, axis=0))


def _columns(build: tuple[np.ndarray, ...], pooled: np.ndarray) -> _Columns:
    a, b = build
    nan = bool(np.isnan(pooled).any())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column
        mean_a, mean_b = _column_stat("mean", a, nan), _column_stat("mean", b, nan)
        spread = _column_stat("std", pooled, nan)
        mean = np.nan_to_num(_column_stat("mean", pooled, nan))
        nan_gap = np.abs(np.isnan(a).mean(axis=0) - np.isnan(b).mean(axis=0))
        error = np.sqrt(_column_stat("var", a, nan) / len(a) + _column_stat("var", b, nan) / len(b))
        z = np.nan_to_num(np.abs(mean_a - mean_b) / np.where(error > 0, error, np.inf))
    gap = np.nan_to_num(np.abs(mean_a - mean_b) / np.where(spread > 0, spread, 1.0)) + nan_gap
    return _Columns(
        mean_a,
        mean_b,
        mean,
        spread,
        integral_columns(pooled),
        np.argsort(-gap, kind="stable"),
        int(np.count_nonzero(z > VISIBLE_GAP)),
        nan,
    )


def _weights(p: int) -> np.ndarray:
    rng = np.random.default_rng(0x5EED_0F_0575)
    return rng.integers(1, 2**63, size=p, dtype=np.uint64) | np.uint64(1)


def _standardise(
    m: np.ndarray, mean: np.ndarray, scale: np.ndarray, nan_columns: np.ndarray
) -> np.ndarray:
    """Standardised columns (NaN as 0), plus a "no answer" indicator for each column that
    had NaN in training."""
    z = np.nan_to_num((m - mean) / scale, nan=0.0)
    if not nan_columns.any():
        return np.asarray(z)
    return np.column_stack([z, np.isnan(m[:, nan_columns]).astype(float)])


#: its source, read when this module is loaded (the file on disk may change later)
_STANDARDISE_SOURCE = inspect.getsource(_standardise)


# --- predicates ---


class Threshold:
    def __init__(self, projection: Callable[[np.ndarray], np.ndarray], t: float, above: bool):
        self.projection, self.t, self.above = projection, t, above

    def __call__(self, y: np.ndarray) -> np.ndarray:
        v = self.projection(y)
        return np.asarray(v > self.t if self.above else v < self.t)

    def code(self) -> str | None:
        """Standalone source (``Event.source``) when the projection can write its own."""
        write = getattr(self.projection, "code_prelude", None)
        if write is None or (prelude := write()) is None:
            return None
        op = ">" if self.above else "<"
        return event_code(f"projection(x) {op} {literal(self.t)}", prelude)


class KeyIn:
    def __init__(self, key: Callable[[np.ndarray], np.ndarray], keys: np.ndarray) -> None:
        self.key, self.keys = key, np.sort(keys)

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return np.asarray(np.isin(self.key(y), self.keys))

    def code(self) -> str | None:
        """Standalone source (``Event.source``) when the key can write its own."""
        write = getattr(self.key, "code_prelude", None)
        if write is None or (prelude := write()) is None:
            return None
        keys = array_literal(self.keys, "int64")
        return event_code("np.isin(key(x), KEYS)", f"KEYS = {keys}\n" + prelude)


# --- candidates with their selection counts, computed in bulk ---


def _threshold_candidates(
    projection: Callable[[np.ndarray], np.ndarray],
    text: str,
    build: tuple[_Tally, _Tally],
    sel: tuple[_Tally, _Tally],
    n_thresholds: int,
) -> _Candidates:
    """``value > t`` and ``value < t`` at quantiles of the build half and at its support edges
    (beyond every build value of one side)."""
    pooled = _Tally.concat(build)
    pooled = pooled.where(np.isfinite(pooled.values))
    if pooled.values.size == 0:
        return []
    cuts = _quantiles(pooled, np.linspace(0, 1, n_thresholds + 1))
    edges = [t.values[np.isfinite(t.values)] for t in build]
    extremes = [f(v) for v in edges if v.size for f in (np.min, np.max)]
    cuts = np.unique(np.concatenate([cuts, extremes]))
    (sa, ca, na), (sb, cb, nb) = (t.sorted() for t in sel)
    out: _Candidates = []
    for above in (True, False):
        if above:
            ka = na - _at_most(sa, ca, cuts, "right")
            kb = nb - _at_most(sb, cb, cuts, "right")
        else:
            ka, kb = _at_most(sa, ca, cuts, "left"), _at_most(sb, cb, cuts, "left")
        op = ">" if above else "<"

        def make(i: int, above: bool = above, op: str = op) -> Event:
            t = float(cuts[i])
            return Event(f"{text} {op} {_fmt(t)}", Threshold(projection, t, above))

        out.append((ka, kb, make))
    return out


def _outcome_candidates(
    key: Callable[[np.ndarray], np.ndarray],
    describe: Callable[[np.ndarray], str],
    build: tuple[_Tally, _Tally],
    sel: tuple[_Tally, _Tally],
) -> _Candidates:
    """Unions of the outcomes with the largest (smallest) empirical likelihood ratio on the
    build half, every size: counted by cumulative sums of per-outcome selection counts."""
    values = np.unique(np.concatenate([t.values for t in build]))
    if len(values) < 2:
        return []

    def per_value(keys: _Tally) -> np.ndarray:
        pos = np.searchsorted(values, keys.values)
        found = (pos < len(values)) & (values[np.minimum(pos, len(values) - 1)] == keys.values)
        return keys.bincount(pos, found, len(values))

    ca, cb = per_value(build[0]), per_value(build[1])
    ratio = np.log((ca + 0.5) / (ca.sum() + 1.0)) - np.log((cb + 0.5) / (cb.sum() + 1.0))
    order = np.argsort(-ratio, kind="stable")
    sa, sb = per_value(sel[0]), per_value(sel[1])
    out: _Candidates = []
    for ranked in (order, order[::-1]):
        ka, kb = np.cumsum(sa[ranked])[:-1], np.cumsum(sb[ranked])[:-1]

        def make(i: int, ranked: np.ndarray = ranked) -> Event:
            chosen = values[ranked[: i + 1]]
            return Event(describe(chosen), KeyIn(key, chosen))

        out.append((ka, kb, make))
    if len(values) <= MAX_DISCRETE_VALUES:

        def single(i: int) -> Event:
            return Event(describe(values[i : i + 1]), KeyIn(key, values[i : i + 1]))

        out.append((sa, sb, single))
    return out


def _row_outcomes(
    key: RowKey | DiscretePart,
    build: tuple[_Rows, _Rows],
    sel: tuple[_Rows, _Rows],
    subject: str,
    fields: tuple[str, ...] | None = None,
) -> _Candidates:
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

    return _outcome_candidates(key, describe, keys_build, (sel[0].tally(key), sel[1].tally(key)))


def _row_text(rows: np.ndarray, fields: tuple[str, ...] | None = None) -> str:
    """Outcome rows in words: ``(1, 0, -1)`` or, for records, ``(index=2, value=0.5)``."""

    def one(row: np.ndarray) -> str:
        values = [_value_text(v) for v in row[:12]]
        if fields is not None:
            values = [f"{name}={v}" for name, v in zip(fields, values, strict=False)]
        shown = ", ".join(values)
        return "(" + shown + (", …" if len(row) > 12 else "") + ")"

    if len(rows) == 1:
        return f"the output is {one(rows[0])}"
    listed = "; ".join(one(r) for r in rows[:3])
    more = f"; … ({len(rows)} outputs in all)" if len(rows) > 3 else ""
    return f"the output is one of {listed}{more}"


@dataclass
class VectorEvents:
    """Model-free distinguisher for outputs of any kind (rows of numbers, index sets, records).

    ``membership``: for index-set outputs, the number of indices a row may hold (adds the
    projections "index j is in the output").  See the module docstring for the candidates.
    """

    max_events: int = 8
    train_fraction: float = 0.25
    membership: int = 0
    n_thresholds: int = N_THRESHOLDS
    classifier: bool = True

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        """The ``max_events`` candidates with the largest predicted certified bound (training
        outputs only; [] when there are fewer than 4 per side)."""
        if min(len(train_x), len(train_x_prime)) < 4:
            return []
        ha, hb = len(train_x) // 2, len(train_x_prime) // 2
        raw_build = (train_x[:ha], train_x_prime[:hb])
        raw_sel = (train_x[ha:], train_x_prime[hb:])
        build = (_Rows(raw_build[0]), _Rows(raw_build[1]))
        sel = (_Rows(raw_sel[0]), _Rows(raw_sel[1]))
        candidates = self._candidates(raw_build, build, sel, plan)
        candidates = [c for c in candidates if len(c[0])]
        if not candidates:
            return []
        n_a, n_b = len(sel[0]), len(sel[1])
        sizes = [len(ka) for ka, _, _ in candidates]
        flat = ranking_scores(
            np.concatenate([ka for ka, _, _ in candidates]),
            n_a,
            np.concatenate([kb for _, kb, _ in candidates]),
            n_b,
            plan,
        )
        owner = np.repeat(np.arange(len(candidates)), sizes)
        offset = np.concatenate([[0], np.cumsum(sizes)])

        def event_at(i: int) -> Event:
            c = int(owner[i])
            return candidates[c][2](int(i - offset[c]))

        def ranked() -> Iterator[Event]:
            """The candidates' events, best first, each description once."""
            seen: set[str] = set()
            for i in np.argsort(-flat, kind="stable"):
                event = event_at(int(i))
                if event.description not in seen:
                    seen.add(event.description)
                    yield event

        events = ranked()
        edge = self._heaviest_edge(candidates, n_a, n_b, plan.delta)
        if edge is None:
            return list(islice(events, self.max_events))
        # a slot is kept for the edge's event until the ranking reaches it
        reserved = event_at(edge)
        chosen = list(islice(events, self.max_events - 1))
        if any(e.description == reserved.description for e in chosen):
            return chosen + list(islice(events, 1))
        return [*chosen, reserved]

    @staticmethod
    def _heaviest_edge(candidates: _Candidates, n_a: int, n_b: int, delta: float) -> int | None:
        """For a claim with delta > 0: the candidate seen on one side only of the selection
        half, most often (at least twice, and in more than a delta share of that side's
        outputs), as a flat index; else None.

        Its event gets a slot of its own.  Such an event certifies a violation of delta alone
        once its probability is measured above delta, but its predicted bound at a screening
        size stays below that of the mechanism's honest events of loss near epsilon (the zero
        side's pessimistic rate is a fraction of one output), so the ranking alone would drop
        it (a stability histogram's threshold off by one: a bin released only with the record,
        with probability 1.65 delta)."""
        if delta <= 0:
            return None
        ka = np.concatenate([a for a, _, _ in candidates]).astype(np.int64)
        kb = np.concatenate([b for _, b, _ in candidates]).astype(np.int64)
        weight = np.where(kb == 0, ka / max(n_a, 1), 0.0)
        weight = np.maximum(weight, np.where(ka == 0, kb / max(n_b, 1), 0.0))
        weight = np.where(np.maximum(ka, kb) >= 2, weight, 0.0)
        best = int(np.argmax(weight))
        return best if weight[best] > delta else None

    def _candidates(
        self,
        raw_build: tuple[np.ndarray, np.ndarray],
        build: tuple[_Rows, _Rows],
        sel: tuple[_Rows, _Rows],
        plan: CertificationPlan,
    ) -> _Candidates:
        matrices = (build[0].sample, build[1].sample)
        pooled = np.vstack(matrices)
        names = column_names(raw_build[0])
        columns = _columns(matrices, pooled)
        ranked = columns.ranked
        out: _Candidates = []
        p = pooled.shape[1]
        if p > 1 and columns.integral.all():
            fields = record_columns(raw_build[0])
            out += _row_outcomes(RowKey(p), build, sel, "the output", fields)
            # rows wider than a few columns (a bit vector, a histogram): the exact outcomes of
            # their most different columns alone -- those whose means differ visibly, and the
            # 2, 4 and 8 most different (the selection half scores them all)
            none = np.zeros(0, dtype=np.intp)
            for k in sorted({columns.visible, 2, MAX_COORDINATES // 2, MAX_COORDINATES}):
                if not 2 <= k < p:
                    continue
                sub = DiscretePart(np.sort(ranked[:k]), none)
                where = f"the output's {k} most different coordinates {sub.text(names)}"
                out += _row_outcomes(sub, build, sel, where)
        elif p > 1:
            for discrete in discrete_parts(pooled):
                where = f"the output's discrete part {discrete.text(names)}"
                out += _row_outcomes(discrete, build, sel, where)
        for projection in self._projections(names, build, pooled, columns):
            out += self._scalar(projection, build, sel)
        if self.classifier:
            for score in self._scores(matrices, plan):
                out += _threshold_candidates(
                    score,
                    score.text,
                    (build[0].tally(score), build[1].tally(score)),
                    (sel[0].tally(score), sel[1].tally(score)),
                    self.n_thresholds,
                )
        return out

    def _scalar(
        self,
        projection: Callable[[np.ndarray], np.ndarray],
        build: tuple[_Rows, _Rows],
        sel: tuple[_Rows, _Rows],
    ) -> _Candidates:
        """A projection searched like a scalar output: thresholds, and outcomes if discrete."""
        text = getattr(projection, "text", "projection")
        vb = (build[0].tally(projection), build[1].tally(projection))
        vs = (sel[0].tally(projection), sel[1].tally(projection))
        out: _Candidates = []
        if not getattr(projection, "outcomes_only", False):
            out += _threshold_candidates(projection, text, vb, vs, self.n_thresholds)
        pooled = np.concatenate([t.values for t in vb])
        if not getattr(projection, "thresholds_only", False) and (
            len(np.unique(pooled)) <= MAX_DISCRETE_VALUES
        ):
            keyed = _ProjectionKey(projection)
            one = getattr(projection, "describe_value", _value_text)

            def describe(chosen: np.ndarray) -> str:
                vals = keyed.values(chosen)
                shown = ", ".join(one(v) for v in vals[:8])
                more = ", …" if len(vals) > 8 else ""
                return f"{text} is in {{{shown}{more}}}" if len(vals) > 1 else f"{text} = {shown}"

            keys_a, keys_b = vb[0].apply(keyed.of), vb[1].apply(keyed.of)
            if getattr(projection, "one_sided", False):
                both = np.intersect1d(keys_a.values, keys_b.values)
                keys_a = keys_a.where(~np.isin(keys_a.values, both))
                keys_b = keys_b.where(~np.isin(keys_b.values, both))
            build_keys = (keys_a, keys_b)
            out += _outcome_candidates(
                keyed, describe, build_keys, (vs[0].apply(keyed.of), vs[1].apply(keyed.of))
            )
        return out

    def _projections(
        self, names: list[str], build: tuple[_Rows, _Rows], pooled: np.ndarray, columns: _Columns
    ) -> list[Callable[[np.ndarray], np.ndarray]]:
        chosen = sorted(int(j) for j in columns.ranked[:MAX_COORDINATES])
        projections: list[Callable[[np.ndarray], np.ndarray]] = [
            Column(j, names[j]) for j in chosen
        ]
        projections += [FloatCell(j, names[j]) for j in chosen if not columns.integral[j]]
        if pooled.shape[1] > 1:
            projections += [Reduce(how) for how in ("sum", "max", "min", "argmax")]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column
                medians = _column_medians(build, pooled, lambda m: m)
                steps = _column_medians(build, pooled, row_increments)
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
            projections += cells(pooled, columns, names)
        projections += [Membership(j) for j in range(self.membership)]
        return projections

    def _scores(self, build: tuple[np.ndarray, ...], plan: CertificationPlan) -> list[Score]:
        """Classifiers fitted on the build half (at most ``MAX_FIT`` rows per side)."""
        a, b = build[0][:MAX_FIT], build[1][:MAX_FIT]
        if min(len(a), len(b)) < 50:
            return []
        m = np.vstack([a, b])
        label = np.r_[np.ones(len(a)), np.zeros(len(b))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            nan_columns = np.isnan(m).any(axis=0)
            nan = bool(nan_columns.any())
            mean, scale = _column_stat("mean", m, nan), _column_stat("std", m, nan)
        mean, scale = np.nan_to_num(mean), np.where(np.nan_to_num(scale) > 0, scale, 1.0)
        z = _standardise(m, mean, scale, nan_columns)
        if np.ptp(z, axis=0).max(initial=0.0) == 0:
            return []
        from sklearn.ensemble import HistGradientBoostingClassifier
        from sklearn.linear_model import LogisticRegression

        models: list[tuple[object, str]] = [
            (LogisticRegression(max_iter=300), "logistic regression")
        ]
        if not plan.quick and m.shape[1] <= MAX_BOOSTED_COLUMNS:
            boosted = HistGradientBoostingClassifier(
                max_iter=50, early_stopping=False, random_state=0
            )
            models.append((boosted, "gradient-boosted trees"))
        scores = []
        for model, what in models:
            try:
                # one thread: several fits run side by side in worker processes
                with warnings.catch_warnings(), one_thread():
                    warnings.simplefilter("ignore")
                    model.fit(z, label)  # type: ignore[attr-defined]
            except Exception:  # noqa: BLE001 - a degenerate fit proposes nothing
                continue
            text = f"{what} score of the whole output (fitted on {len(m):,} training outputs)"
            scores.append(Score(model, mean, scale, nan_columns, text))
        return scores


def value_keys(v: np.ndarray) -> np.ndarray:
    """Each value's float bits as an int64 key (-0.0 as 0.0, every NaN as one)."""
    v = np.where(np.isnan(v), np.nan, v + 0.0)
    return np.ascontiguousarray(v, dtype=float).view(np.int64)


#: its source, read when this module is loaded (the file on disk may change later)
_VALUE_KEYS_SOURCE = inspect.getsource(value_keys)


class _ProjectionKey:
    """Keys of a projection's values (:func:`value_keys`), and back."""

    def __init__(self, projection: Callable[[np.ndarray], np.ndarray]) -> None:
        self.projection = projection

    of = staticmethod(value_keys)

    @staticmethod
    def values(keys: np.ndarray) -> np.ndarray:
        return np.sort(np.ascontiguousarray(keys, dtype=np.int64).view(float))

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return value_keys(np.asarray(self.projection(y), dtype=float))

    def code_prelude(self) -> str | None:
        """Standalone source defining ``key(y)``, when the projection can write its own."""
        write = getattr(self.projection, "code_prelude", None)
        if write is None or (prelude := write()) is None:
            return None
        return (
            f"{prelude}\n\n{_VALUE_KEYS_SOURCE}\n\n"
            "def key(y):\n    return value_keys(np.asarray(projection(y), dtype=float))\n"
        )
