"""Open key sets: outputs whose keys are part of the release (partition selection, counts by
key as a mapping or a frame).

A mechanism that selects its keys privately returns, per output, the keys it released and a
value for each: a ``dict`` ``{key: value}``, or a frame (pandas, Polars) with a key column and a
value column.  Which keys appear is part of the output, so the encoding into the fixed-width
rows the events read must not lose it.  It is a *pure function of each output* and of the
adapter's declared ``keys``, fixed before anything is sampled: column j holds the value of
``keys[j]``, NaN when that key was not released (a released value must be finite, so "absent"
is distinct from every value), and a last column counts the released keys outside ``keys``.
A key seen only in certification outputs therefore still counts (in that last column); no
universe is gathered from outputs, so no output used to choose an event shapes the encoding.

The existing events then apply: "key k released" is "coordinate j is not none", "the value of
key k in an interval" a threshold on coordinate j, and joint events the outcome sets over rows.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

#: the most keys tracked one by one (each is one column of every output)
MAX_KEYS = 4096


class KeyedOutputProblem(ValueError):
    """An open-key output is malformed; the message says how (without naming the adapter)."""


def keyed_label(keys: Sequence[Hashable], value_kind: str) -> str:
    """``keyed(integer)[3 keys + other]``: the kind label of an open-key output."""
    return f"keyed({value_kind})[{len(keys)} keys + other]"


def column_legend(keys: Sequence[Hashable]) -> str:
    """Which coordinate holds which key (for descriptions: events name coordinates)."""
    shown = ", ".join(f"{j}: {key!r}" for j, key in enumerate(keys[:8]))
    more = ", …" if len(keys) > 8 else ""
    return f"coordinates {shown}{more}; {len(keys)}: how many other keys were released"


def encode_keyed(
    raw: Any,
    n: int,
    keys: Sequence[Hashable],
    frame_columns: tuple[str, str] | None = None,
) -> np.ndarray:
    """``raw`` (``n`` outputs, each a mapping or a frame) as an (n, len(keys) + 1) float array.

    Raises:
        KeyedOutputProblem: not a sequence of ``n`` outputs, a key released twice in one
            output, a value that is not a finite number, a frame without the declared columns.
    """
    if isinstance(raw, np.ndarray) and raw.dtype != object:
        raise KeyedOutputProblem(
            f"returned an array of {raw.dtype}; an open-key output is one mapping (key -> value) "
            "or frame per output, in a list"
        )
    if isinstance(raw, Mapping) or not isinstance(raw, Sequence | np.ndarray):
        raise KeyedOutputProblem(
            f"returned {type(raw).__name__}; expected a list of {n} outputs, each a mapping "
            "(key -> value) or a frame"
        )
    if len(raw) != n:
        raise KeyedOutputProblem(f"returned {len(raw)} outputs, expected {n}")
    column = {key: j for j, key in enumerate(keys)}
    out = np.full((n, len(keys) + 1), np.nan)
    out[:, -1] = 0.0
    for i, item in enumerate(raw):
        others = 0
        seen: set[Hashable] = set()
        for key, value in _pairs(item, frame_columns):
            try:
                fresh = key not in seen
            except TypeError:
                raise KeyedOutputProblem(f"released an unhashable key {key!r}") from None
            if not fresh:
                raise KeyedOutputProblem(f"released key {key!r} twice in one output")
            seen.add(key)
            j = column.get(key)
            if j is None:
                others += 1
            else:
                out[i, j] = _finite(key, value)
        out[i, -1] = others
    return out


def _pairs(item: Any, frame_columns: tuple[str, str] | None) -> list[tuple[Any, Any]]:
    """One output's (key, value) pairs: a mapping's items, or a frame's two declared columns."""
    if isinstance(item, Mapping):
        return list(item.items())
    if frame_columns is None:
        raise KeyedOutputProblem(
            f"an output is a {type(item).__name__}, not a mapping; declare key_column and "
            "value_column to return frames"
        )
    key_column, value_column = frame_columns
    try:
        keys, values = list(item[key_column]), list(item[value_column])
    except Exception as exc:  # noqa: BLE001 - whatever the frame library raises
        raise KeyedOutputProblem(
            f"an output ({type(item).__name__}) has no columns {key_column!r} and "
            f"{value_column!r}: {exc}"
        ) from None
    return list(zip(keys, values, strict=True))


def _finite(key: Any, value: Any) -> float:
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise KeyedOutputProblem(f"released key {key!r} with value {value!r}, not a number")
    number = float(value)
    if not math.isfinite(number):
        raise KeyedOutputProblem(
            f"released key {key!r} with value {number}; a released key's value must be finite "
            "(an absent key is left out of the output)"
        )
    return number


def declared_keys(
    raw_keys: Any, value_kind: Any, key_column: Any, value_column: Any
) -> tuple[tuple[Hashable, ...], str, tuple[str, str] | None]:
    """An open-key adapter's ``keys``, ``value_kind`` and frame columns, checked.

    Raises:
        KeyedOutputProblem: the message names the attribute and its value.
    """
    if raw_keys is None or isinstance(raw_keys, str | bytes | Mapping):
        raise KeyedOutputProblem(
            f"keys={raw_keys!r}: an open-key output needs keys, a list of the keys to track one "
            "by one (any other released key is counted in the last column)"
        )
    try:
        keys = tuple(raw_keys)
        distinct = len(set(keys)) == len(keys)
    except TypeError:
        raise KeyedOutputProblem(f"keys={raw_keys!r} must be a list of hashable keys") from None
    if not keys or len(keys) > MAX_KEYS or not distinct:
        raise KeyedOutputProblem(
            f"keys={raw_keys!r} must hold 1 to {MAX_KEYS} distinct keys"
            + ("" if distinct else " (a key is listed twice)")
        )
    if value_kind not in ("real", "integer"):
        raise KeyedOutputProblem(f"value_kind={value_kind!r} must be 'real' or 'integer'")
    if (key_column is None) != (value_column is None):
        raise KeyedOutputProblem("key_column and value_column go together (frame outputs)")
    frame = None if key_column is None else (str(key_column), str(value_column))
    return keys, str(value_kind), frame
