"""Input and output kinds: what an adapter is sent and what it must hand back.

An adapter declares its **input kind** (with the neighbouring relation that goes with it) and
its **output kind**; the four families of the first release are named combinations of the two
(:data:`FAMILY_KINDS`), so one engine serves both:

=========  =========================================  ==========================================
input      one neighbour's input                       neighbours
=========  =========================================  ==========================================
scalar     a number f(D)                               ``|x - x'| <= sensitivity``
vector     m numbers (query answers, counts, scores)   ``‖x - x'‖ <= sensitivity`` in L1, L2 or L∞
dataset    records in a declared domain, 1 or c cols   add/remove one record, or replace one
local      one person's value, an integer in a domain  any two values (local DP)
=========  =========================================  ==========================================

=========  ==================================================  ==================================
output     ``sample(x, n)`` returns                             values
=========  ==================================================  ==================================
real       (n,) when d = 1, else (n, d)                        finite; NaN for "none" if nullable
integer    (n,) or (n, d)                                      integers; NaN for "none" if nullable
boolean    (n,) or (n, d)                                      0 / 1
ternary    (n,) or (n, d)                                      1 above (⊤), 0 below (⊥), -1 halted
index      (n,)                                                an index into the query; -1 = none
index_set  (n, k)                                              k distinct indices (top-k)
record     (n,) structured array with the declared fields      each field of its own kind and
                                                               length (one value, or d of them)
keyed      n mappings key -> value (or frames), keys open       real or integer values; encoded
                                                               as d = len(keys) + 1 (keyed.py)
=========  ==================================================  ==================================

``d`` is the declared ``output_length``: a number, or ``"query"`` for "as many as the query
has" (a histogram, the answers of the sparse vector technique).  Outputs with d = 1 are
one-dimensional arrays, as in the first release.

:meth:`OutputKindSpec.conform` is the one place that knows what a valid output is; it raises
:class:`OutputProblem` with a sentence a maintainer can act on.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from auditor.core.claims import Family
from auditor.core.keyed import KeyedOutputProblem, declared_keys, encode_keyed, keyed_label


class InputKind(StrEnum):
    SCALAR = "scalar"
    VECTOR = "vector"
    DATASET = "dataset"
    LOCAL = "local"


class Norm(StrEnum):
    """The norm a vector query's sensitivity is measured in."""

    L1 = "l1"
    L2 = "l2"
    LINF = "linf"


class OutputKind(StrEnum):
    REAL = "real"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    TERNARY = "ternary"
    INDEX = "index"
    INDEX_SET = "index_set"
    RECORD = "record"
    #: declared by adapters only: the spec reads it as a nullable real or integer vector with
    #: ``keys`` (one column per declared key, and one for the keys outside them)
    KEYED = "keyed"


#: kinds a record's field may have when it holds one value per output
FIELD_KINDS = (OutputKind.REAL, OutputKind.INTEGER, OutputKind.BOOLEAN, OutputKind.INDEX)
#: kinds a record's field may have when it holds several (``(kind, length)``: top-k indices
#: with their noisy values, a sparse vector's answers with the values it releases)
VECTOR_FIELD_KINDS = (
    OutputKind.REAL,
    OutputKind.INTEGER,
    OutputKind.BOOLEAN,
    OutputKind.TERNARY,
    OutputKind.INDEX_SET,
)
#: ``output_length`` meaning "as many as the query has"
QUERY_LENGTH = "query"


class OutputProblem(ValueError):
    """An output breaks its declared kind; the message says how (without naming the adapter)."""


@dataclass(frozen=True)
class InputKindSpec:
    """An adapter's input kind and the shape parameters that go with it.

    ``norm``: vector inputs' sensitivity norm.  ``length``: the number of entries a vector query
    must have (None: the attack chooses).  ``columns``: a dataset's columns per record.
    ``monotone``: vector neighbours move every entry the same way (counting queries under
    add/remove: all up or all down), so a mechanism may rely on it (report-noisy-max at
    scale Δ/ε).  The relation's other parameters (sensitivity, domain, neighbours) are on the
    adapter spec.
    """

    kind: InputKind
    norm: Norm | None = None
    length: int | None = None
    columns: int = 1
    monotone: bool = False

    @property
    def label(self) -> str:
        if self.kind is InputKind.VECTOR:
            return f"vector({self.norm}{', monotone' if self.monotone else ''})"
        if self.kind is InputKind.DATASET and self.columns > 1:
            return f"dataset({self.columns} columns)"
        return str(self.kind)


@dataclass(frozen=True)
class OutputKindSpec:
    """An adapter's output kind: what :meth:`conform` accepts.

    ``length``: d, or :data:`QUERY_LENGTH`; ``fields``: a record's ``(name, kind, length)``
    parts, in order (length 1: one value per output; else d, or :data:`QUERY_LENGTH`); ``nullable``: whether "none" (no answer) is a valid output; ``ordered``: for index
    sets, whether the order of the k indices is part of the output (False: rows are sorted;
    an index-set field of a record keeps its order, which pairs it with the other fields).
    ``keys``: an open key set's tracked keys (``kind`` is then the values' kind, real or
    integer, nullable, of length ``len(keys) + 1``; ``frame_columns`` the key and value
    columns of frame outputs); :mod:`auditor.core.keyed` encodes each output.
    """

    kind: OutputKind
    length: int | str = 1
    fields: tuple[tuple[str, OutputKind, int | str], ...] = ()
    nullable: bool = False
    ordered: bool = True
    keys: tuple[Hashable, ...] = ()
    frame_columns: tuple[str, str] | None = None

    @property
    def label(self) -> str:
        if self.keys:
            return keyed_label(self.keys, str(self.kind))
        if self.kind is OutputKind.RECORD:
            return "record(" + ", ".join(f"{n}: {k}{_size(m)}" for n, k, m in self.fields) + ")"
        return f"{self.kind}{_size(self.length)}{'?' if self.nullable else ''}"

    def width(self, query_length: int | None) -> int:
        """d for a query of ``query_length`` entries (None: not a vector query); 1 for
        one-dimensional outputs; for records, the values of all their fields."""
        if self.kind is OutputKind.RECORD:
            return sum(_resolve(m, query_length) for _, _, m in self.fields)
        return _resolve(self.length, query_length)

    def conform(self, raw: Any, n: int, query_length: int | None) -> np.ndarray:
        """``raw`` as the canonical array of ``n`` outputs on a query of ``query_length``
        entries (None: the input is not a vector; indices are then only checked to be >= 0).

        Canonical: one-dimensional when d = 1; integers as int64 (int8 for boolean and ternary
        vectors); reals as they came (float or integer), as float when nullable.

        Raises:
            OutputProblem: wrong type, shape, dtype, field names or values.
        """
        if self.kind is OutputKind.RECORD:
            return self._record(raw, n, query_length)
        if self.keys:
            try:
                raw = encode_keyed(raw, n, self.keys, self.frame_columns)
            except KeyedOutputProblem as exc:
                raise OutputProblem(str(exc)) from None
        out = _as_array(raw)
        d = self.width(query_length)
        expected = f"({n},)" if d == 1 else f"({n}, {d})"
        if d == 1 and out.ndim == 2 and out.shape[1] == 1:
            out = out[:, 0]
        if out.shape != ((n,) if d == 1 else (n, d)):
            hint = ""
            if out.ndim == 2 and out.shape[0] == n and d == 1:
                hint = f" (declare output_length = {out.shape[1]} or 'query' for vector outputs)"
            raise OutputProblem(f"returned shape {out.shape}, expected {expected}{hint}")
        return _values(self.kind, out, self.nullable, query_length, d > 1, self.ordered)

    def _record(self, raw: Any, n: int, query_length: int | None) -> np.ndarray:
        out = _as_array(raw, structured=True)
        names = out.dtype.names
        declared = [name for name, _, _ in self.fields]
        if names is None:
            raise OutputProblem(
                f"returned a plain {out.dtype} array, expected a structured array with fields "
                f"{declared}"
            )
        if out.shape != (n,):
            raise OutputProblem(f"returned shape {out.shape}, expected ({n},)")
        if sorted(names) != sorted(declared):
            missing = [f for f in declared if f not in names]
            extra = [f for f in names if f not in declared]
            parts = ([f"missing {missing}"] if missing else []) + (
                [f"unexpected {extra}"] if extra else []
            )
            raise OutputProblem(
                f"returned fields {list(names)}, expected {declared} ({'; '.join(parts)})"
            )
        columns = []
        for name, kind, length in self.fields:
            d = _resolve(length, query_length)
            column = np.asarray(out[name])
            expected = (n,) if length == 1 else (n, d)
            if column.shape != expected:
                raise OutputProblem(f"field {name!r} has shape {column.shape}, expected {expected}")
            try:
                # a field keeps its order: it pairs the field with the others (top-k indices
                # with their values), so index sets are not sorted here
                vector = length != 1
                columns.append(_values(kind, column, self.nullable, query_length, vector, True))
            except OutputProblem as exc:
                raise OutputProblem(f"field {name!r}: {exc}") from None
        canonical = np.empty(
            n,
            dtype=[
                _field(name, c.dtype, c.shape[1:])
                for (name, _, _), c in zip(self.fields, columns, strict=True)
            ],
        )
        for (name, _, _), c in zip(self.fields, columns, strict=True):
            canonical[name] = c
        return canonical

    def empty(self, query_length: int | None) -> np.ndarray:
        """No outputs, with the canonical dtype and shape (what a request for 0 outputs gives)."""
        d = self.width(query_length)
        if self.kind is OutputKind.RECORD:
            return np.empty(
                0,
                dtype=[
                    _field(
                        name,
                        _dtype(kind, self.nullable, length != 1),
                        () if length == 1 else (_resolve(length, query_length),),
                    )
                    for name, kind, length in self.fields
                ],
            )
        shape = (0,) if d == 1 else (0, d)
        return np.empty(shape, dtype=_dtype(self.kind, self.nullable, d > 1))


#: the attributes an open-key adapter declares, in :func:`keyed_output`'s order
KEYED_ATTRIBUTES = ("keys", "value_kind", "key_column", "value_column")


def keyed_output(
    keys: Any, value_kind: Any, key_column: Any = None, value_column: Any = None
) -> OutputKindSpec:
    """An open key set as a nullable vector: one column per declared key, one for the others.

    Raises:
        OutputProblem: a malformed declaration, named with its value.
    """
    try:
        tracked, kind, frame = declared_keys(keys, value_kind or "real", key_column, value_column)
    except KeyedOutputProblem as exc:
        raise OutputProblem(str(exc)) from None
    return OutputKindSpec(
        OutputKind(kind), len(tracked) + 1, nullable=True, keys=tracked, frame_columns=frame
    )


def _size(length: int | str) -> str:
    return "" if length == 1 else f"[{length}]"


def _resolve(length: int | str, query_length: int | None) -> int:
    """A declared length (a number, or :data:`QUERY_LENGTH`) for a query of this length."""
    if length == QUERY_LENGTH:
        if query_length is None:
            raise OutputProblem("a length of 'query' needs a vector input")
        return max(1, query_length)
    return int(length)


def _field(name: str, dtype: np.dtype[Any], shape: tuple[int, ...]) -> tuple[Any, ...]:
    """A structured dtype's entry: one value, or a sub-array of ``shape``."""
    return (name, dtype, shape) if shape else (name, dtype)


def _dtype(kind: OutputKind, nullable: bool, vector: bool) -> np.dtype[Any]:
    if kind in (OutputKind.BOOLEAN, OutputKind.TERNARY):
        return np.dtype(np.int8 if vector else np.int64)
    if kind in (OutputKind.INDEX, OutputKind.INDEX_SET):
        return np.dtype(np.int64)
    if kind is OutputKind.INTEGER:
        return np.dtype(float if nullable else np.int64)
    return np.dtype(float)


def _as_array(raw: Any, structured: bool = False) -> np.ndarray:
    try:
        out = np.asarray(raw)
    except Exception as exc:  # noqa: BLE001 - anything the adapter hands back
        raise OutputProblem(f"returned {type(raw).__name__}, not an array: {exc}") from None
    if out.dtype.names is not None:
        if structured:
            return out
        raise OutputProblem(
            f"returned a structured array (fields {list(out.dtype.names)}); declare "
            "output_kind = 'record' and its fields"
        )
    if out.dtype == object or not (
        np.issubdtype(out.dtype, np.number) or np.issubdtype(out.dtype, np.bool_)
    ):
        raise OutputProblem(f"returned dtype {out.dtype}, expected numbers")
    if np.issubdtype(out.dtype, np.complexfloating):
        raise OutputProblem("returned complex numbers")
    return out


def _integers(out: np.ndarray, what: str, nullable: bool) -> np.ndarray:
    """``out`` as int64 if every (non-NaN, when nullable) value is an integer."""
    if np.issubdtype(out.dtype, np.bool_) or np.issubdtype(out.dtype, np.integer):
        return out.astype(np.int64, copy=False)
    values = out[~np.isnan(out)] if nullable else out
    if not np.isfinite(values).all():
        raise OutputProblem(f"returned {values[~np.isfinite(values)][0]} for {what} outputs")
    with np.errstate(invalid="ignore"):  # floats beyond int64 are caught just below
        as_int = values.astype(np.int64)
    if not np.array_equal(as_int, values):
        raise OutputProblem(f"returned non-integer (or beyond 64-bit) values for {what} outputs")
    return out if nullable else as_int


def _values(
    kind: OutputKind,
    out: np.ndarray,
    nullable: bool,
    index_range: int | None,
    vector: bool,
    ordered: bool,
) -> np.ndarray:
    """Check the values of a plain array against ``kind``; return it canonical."""
    floating = np.issubdtype(out.dtype, np.floating)
    if kind is OutputKind.REAL:
        if floating:
            if np.isinf(out).any():
                raise OutputProblem("returned inf (outputs must be finite)")
            if not nullable and np.isnan(out).any():
                raise OutputProblem(
                    "returned nan (outputs must be finite); declare nullable = True if NaN "
                    "stands for 'no answer'"
                )
        if np.issubdtype(out.dtype, np.bool_):
            return out.astype(np.int64)
        return out.astype(float, copy=False) if nullable else out
    if kind is OutputKind.INTEGER:
        if floating and np.isinf(out).any():
            raise OutputProblem("returned inf (outputs must be finite)")
        if floating and not nullable and np.isnan(out).any():
            raise OutputProblem(
                "returned nan for integer outputs (declare nullable = True if NaN "
                "stands for 'no answer')"
            )
        ints = _integers(out, "integer", nullable)
        return ints.astype(float, copy=False) if nullable else ints
    if kind in (OutputKind.BOOLEAN, OutputKind.TERNARY):
        # integers are checked in their own dtype: widening a chunk of answer patterns to
        # int64 first was most of the check's cost, and the allowed values are one range
        ints = out if out.dtype.kind in "biu" else _integers(out, str(kind), False)
        low = 0 if kind is OutputKind.BOOLEAN else -1
        if ints.size and (ints.min() < low or ints.max() > 1):
            bad = ints[(ints < low) | (ints > 1)].flat[0]
            names = (
                "0 and 1" if kind is OutputKind.BOOLEAN else "1 (above), 0 (below) and -1 (halted)"
            )
            raise OutputProblem(f"returned {bad}; {kind} outputs are {names}")
        return ints.astype(np.int8 if vector else np.int64, copy=False)
    ints = _integers(out, str(kind), False)
    low = -1 if nullable and kind is OutputKind.INDEX else 0
    if ints.size and ints.min() < low:
        raise OutputProblem(
            f"returned index {int(ints.min())}"
            + (" (-1 means 'none': declare nullable = True)" if ints.min() == -1 else "")
        )
    if index_range is not None and ints.size and ints.max() >= index_range:
        raise OutputProblem(f"returned index {int(ints.max())} outside [0, {index_range})")
    if kind is OutputKind.INDEX_SET:
        if ints.ndim == 1:  # sets of one index (k = 1): one column, nothing to order
            return ints
        sorted_ints = np.sort(ints, axis=1)
        if ints.shape[1] > 1 and (np.diff(sorted_ints, axis=1) == 0).any():
            raise OutputProblem("returned an index set with a repeated index")
        return ints if ordered else sorted_ints
    return ints


#: the first release's families as kinds: (input, output)
FAMILY_KINDS: dict[Family, tuple[InputKindSpec, OutputKindSpec]] = {
    Family.ADDITIVE: (InputKindSpec(InputKind.SCALAR), OutputKindSpec(OutputKind.REAL)),
    Family.SELECTION: (
        InputKindSpec(InputKind.VECTOR, Norm.LINF),
        OutputKindSpec(OutputKind.INDEX),
    ),
    Family.BINARY: (InputKindSpec(InputKind.LOCAL), OutputKindSpec(OutputKind.BOOLEAN)),
    Family.DATASET: (
        InputKindSpec(InputKind.DATASET),
        OutputKindSpec(OutputKind.REAL, nullable=True),
    ),
}


def family_of(inputs: InputKindSpec, output: OutputKindSpec, domain: Any = None) -> Family | None:
    """The first release's family these kinds make up, if any (its attacks then apply too).

    A scalar query with a one-number output is ``additive``; an L∞ vector query with one
    index out is ``selection``; a local bit with a bit out is ``binary``; a one-column dataset
    with one number out is ``dataset``.  Anything else has no family.
    """
    scalar_out = output.length == 1 and output.kind is not OutputKind.RECORD
    if not scalar_out:
        return None
    if inputs.kind is InputKind.SCALAR and output.kind in (OutputKind.REAL, OutputKind.INTEGER):
        return Family.ADDITIVE if not output.nullable else None
    if (
        inputs.kind is InputKind.VECTOR
        and inputs.norm is Norm.LINF
        and output.kind is OutputKind.INDEX
        and not output.nullable
    ):
        return Family.SELECTION
    if inputs.kind is InputKind.LOCAL and output.kind is OutputKind.BOOLEAN:
        return Family.BINARY if domain is not None and tuple(domain) == (0, 1) else None
    if (
        inputs.kind is InputKind.DATASET
        and inputs.columns == 1
        and output.kind in (OutputKind.REAL, OutputKind.INTEGER)
    ):
        return Family.DATASET
    return None
