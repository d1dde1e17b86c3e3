"""Reading an adapter's declared kinds: its ``family``, or its ``input_kind`` and
``output_kind`` with their shapes and fields, checked against each other (for
:func:`auditor.core.spec.check_adapter`, the only caller).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import numpy as np

from auditor.core.claims import Family
from auditor.core.errors import AdapterContractError
from auditor.core.kinds import (
    FAMILY_KINDS,
    FIELD_KINDS,
    KEYED_ATTRIBUTES,
    QUERY_LENGTH,
    VECTOR_FIELD_KINDS,
    InputKind,
    InputKindSpec,
    Norm,
    OutputKind,
    OutputKindSpec,
    OutputProblem,
    family_of,
    keyed_output,
)


def choice(
    raw: Any, allowed: type[StrEnum], field: str, fail: Callable[[str, str], AdapterContractError]
) -> Any:
    try:
        return allowed(str(raw))
    except ValueError:
        names = ", ".join(member.value for member in allowed)
        raise fail(field, f"={raw!r} is not one of: {names}") from None


def _whole(raw: Any) -> bool:
    return isinstance(raw, numbers.Integral) and not isinstance(raw, bool) and int(raw) >= 1


def _fields(
    raw_fields: Any, input_kind: InputKind, fail: Callable[[str, str], AdapterContractError]
) -> tuple[tuple[str, OutputKind, int | str], ...]:
    """A record's ``{name: kind}`` or ``{name: (kind, length)}`` as ``(name, kind, length)``."""
    usage = "a record output needs {name: kind, ...}, or {name: (kind, length)} for several values"
    if raw_fields is None:
        raise fail("attribute 'fields'", f"is missing ({usage})")
    try:
        items = list(dict(raw_fields).items())
    except (TypeError, ValueError):
        raise fail("fields", f"={raw_fields!r} must map field names to kinds") from None
    if not items:
        raise fail("fields", f"is missing ({usage})")
    fields = []
    for name, value in items:
        where = f"fields[{name!r}]"
        if not str(name).isidentifier():
            raise fail("fields", f": {name!r} is not a valid field name")
        raw_kind, length = (
            value if isinstance(value, tuple | list) and len(value) == 2 else (value, 1)
        )
        kind = choice(raw_kind, OutputKind, where, fail)
        if length == QUERY_LENGTH:
            if input_kind is not InputKind.VECTOR:
                raise fail(where, f"has length {length!r}, which needs input_kind = 'vector'")
        elif not _whole(length):
            raise fail(
                where, f"has length {length!r}; a length is a whole number >= 1 or {QUERY_LENGTH!r}"
            )
        allowed = FIELD_KINDS if length == 1 else VECTOR_FIELD_KINDS
        if kind not in allowed:
            names = ", ".join(k.value for k in allowed)
            several = "" if length == 1 else f" (for {length!r} values)"
            raise fail(where, f"={kind.value!r} is not one of: {names}{several}")
        fields.append((str(name), kind, length))
    return tuple(fields)


def _input_shape(
    kind: InputKind,
    norm: Norm | None,
    read: Callable[..., Any],
    fail: Callable[[str, str], AdapterContractError],
) -> InputKindSpec:
    """The input kind with its declared shape: a vector's ``query_length``, a dataset's
    ``columns``."""
    query_length = None
    columns = 1
    if kind is InputKind.VECTOR:
        query_length = read("query_length")
        if query_length is not None and not _whole(query_length):
            raise fail("query_length", f"={query_length!r} must be a whole number >= 1")
    if kind is InputKind.DATASET:
        columns = read("columns", 1)
        if not _whole(columns):
            raise fail("columns", f"={columns!r} must be a whole number >= 1")
    monotone = read("monotone", False)
    if not isinstance(monotone, bool | np.bool_):
        raise fail("monotone", f"={monotone!r} must be True or False")
    if monotone and kind is not InputKind.VECTOR:
        raise fail("monotone", "=True needs vector queries (input_kind 'vector' or a selection)")
    return InputKindSpec(kind, norm, query_length, int(columns), bool(monotone))


def _kinds(
    read: Callable[..., Any], fail: Callable[[str, str], AdapterContractError]
) -> tuple[Family | None, InputKindSpec, OutputKindSpec]:
    """The adapter's family (None outside the four) and its input and output kinds.

    An adapter declares ``family`` (the first release's contract) or ``input_kind`` and
    ``output_kind`` with their shape attributes; declaring both, they must agree.
    """
    family_raw = read("family")
    input_raw, output_raw = read("input_kind"), read("output_kind")
    family = None if family_raw is None else choice(family_raw, Family, "family", fail)
    if input_raw is None and output_raw is None:
        if family is None:
            raise fail(
                "attribute 'family'",
                "is missing (declare a family, or input_kind and output_kind)",
            )
        inputs, output = FAMILY_KINDS[family]
        # the shape attributes of the family's input kind hold here too
        return family, _input_shape(inputs.kind, inputs.norm, read, fail), output
    if input_raw is None or output_raw is None:
        missing = "input_kind" if input_raw is None else "output_kind"
        raise fail(f"attribute {missing!r}", "is missing (input_kind and output_kind go together)")
    input_kind = choice(input_raw, InputKind, "input_kind", fail)
    norm = choice(read("norm"), Norm, "norm", fail) if input_kind is InputKind.VECTOR else None
    inputs = _input_shape(input_kind, norm, read, fail)

    output_kind = choice(output_raw, OutputKind, "output_kind", fail)
    length = read("output_length", 1)
    if length == QUERY_LENGTH:
        if input_kind is not InputKind.VECTOR:
            raise fail("output_length", f"={length!r} needs input_kind = 'vector'")
    elif not _whole(length):
        raise fail("output_length", f"={length!r} must be a whole number >= 1 or {QUERY_LENGTH!r}")
    if output_kind is OutputKind.INDEX and length != 1:
        raise fail("output_length", f"={length!r}: an index output is one index (use index_set)")
    fields: tuple[tuple[str, OutputKind, int | str], ...] = ()
    if output_kind is OutputKind.RECORD:
        fields = _fields(read("fields"), input_kind, fail)
    if output_kind is OutputKind.KEYED:  # an open key set (auditor.core.keyed)
        try:
            return None, inputs, keyed_output(*(read(f) for f in KEYED_ATTRIBUTES))
        except OutputProblem as exc:
            raise fail("output_kind='keyed'", f": {exc}") from None
    output = OutputKindSpec(
        output_kind,
        length,
        fields,
        nullable=bool(read("nullable", False)),
        ordered=bool(read("ordered", True)),
    )
    derived = family_of(inputs, output, read("domain") if input_kind is InputKind.LOCAL else None)
    if family is not None and derived is not family:
        raise fail(
            "family",
            f"={family.value!r} does not match input_kind={inputs.label!r}, "
            f"output_kind={output.label!r} (declare one or the other)",
        )
    return derived, inputs, output
