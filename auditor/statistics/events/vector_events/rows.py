"""One side's training rows as the event sources read them: float matrices made a chunk at a
time, repeated rows kept once with their counts, column names and column statistics."""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from auditor.statistics.events.vector_events.counting import Tally

#: most values of a half (training or screening outputs) made floats at once: rows as drawn
#: may be compact int8
FLOAT_VALUES = 1 << 22

#: a column's two means differ visibly at this many standard errors (z) on the build half
VISIBLE_GAP = 3.0


def fmt(value: float) -> str:
    short = f"{value:.6g}"
    return short if float(short) == value else repr(float(value))


def value_text(value: float) -> str:
    return "none" if np.isnan(value) else fmt(value)


def as_matrix(outputs: np.ndarray) -> np.ndarray:
    """Rows as an (n, p) float matrix: one column per coordinate or record field (a field
    of several values gives one column each)."""
    y = np.asarray(outputs)
    if y.dtype.names is not None:
        return np.column_stack([np.asarray(y[name], dtype=float) for name in y.dtype.names])
    f = y.astype(float, copy=False)
    return f[:, None] if f.ndim == 1 else f.reshape(len(f), int(np.prod(f.shape[1:])))


#: its source, read when this module is loaded (the file on disk may change later)
AS_MATRIX_SOURCE = inspect.getsource(as_matrix)


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
ROW_KEYS_SOURCE = inspect.getsource(row_keys)


def _weights(p: int) -> np.ndarray:
    rng = np.random.default_rng(0x5EED_0F_0575)
    return rng.integers(1, 2**63, size=p, dtype=np.uint64) | np.uint64(1)


def integral_columns(pooled: np.ndarray) -> np.ndarray:
    """Whether each column holds only integers (NaN, no answer, aside)."""
    with np.errstate(invalid="ignore"):
        whole: np.ndarray = (np.isnan(pooled) | (pooled == np.round(pooled))).all(axis=0)
    return whole


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
    tally (:class:`Tally`) at the cost of the distinct rows, not of every row (the boosted
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

    def tally(self, f: Callable[[np.ndarray], np.ndarray]) -> Tally:
        """``f`` on every row, as a tally: once per distinct row when the rows repeat."""
        if self._distinct is None:
            return Tally(self._chunked(f))
        values, counts = self._distinct
        return Tally(np.asarray(f(values)), counts)

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


def projection_code(expression: str, setup: str = "", constants: str = "") -> str:
    """Standalone source defining ``projection(y)`` (with ``as_matrix``): after the module
    lines ``constants``, ``setup`` lines, then ``return expression``."""
    head = constants.rstrip() + "\n\n\n" if constants else ""
    return head + AS_MATRIX_SOURCE + f"\n\ndef projection(y):\n    {setup}return {expression}\n"


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


def column_stat(stat: str, m: np.ndarray, nan: bool) -> np.ndarray:
    """numpy's column ``stat`` ("mean", "var", "std" or "median") ignoring NaN, or the plain
    one when ``nan`` is False (nothing is NaN): the same values at a fraction of the cost --
    the NaN-ignoring ones copy the matrix, and their median goes column by column."""
    return np.asarray(getattr(np, "nan" + stat if nan else stat)(m, axis=0))


def _columns(build: tuple[np.ndarray, ...], pooled: np.ndarray) -> _Columns:
    a, b = build
    nan = bool(np.isnan(pooled).any())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column
        mean_a, mean_b = column_stat("mean", a, nan), column_stat("mean", b, nan)
        spread = column_stat("std", pooled, nan)
        mean = np.nan_to_num(column_stat("mean", pooled, nan))
        nan_gap = np.abs(np.isnan(a).mean(axis=0) - np.isnan(b).mean(axis=0))
        error = np.sqrt(column_stat("var", a, nan) / len(a) + column_stat("var", b, nan) / len(b))
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
