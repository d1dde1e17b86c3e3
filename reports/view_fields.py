"""Typed reads of report.json's dictionaries for the report view (``reports.view``): each read
checks the field's type and names its path when it is wrong."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from auditor.core.errors import InvalidArgument
from auditor.core.results import SCHEMA


class Reader:
    """Typed reads of one dictionary of the report, with the path for error messages."""

    def __init__(self, data: Mapping[str, Any], where: str, source: str) -> None:
        self.data, self.where, self.source = data, where, source

    def fail(self, key: str, expected: str) -> InvalidArgument:
        value = repr(self.data.get(key))[:60]
        return InvalidArgument(
            f"{self.source} is not a valid {SCHEMA} report: at {self.where}/{key}, expected "
            f"{expected}, found {value}"
        )

    def text(self, key: str, *, required: bool = False) -> str | None:
        value = self.data.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str):
            raise self.fail(key, "a string")
        return value

    def number(self, key: str) -> float | None:
        """A JSON number as written (an int stays an int); "inf", "nan" as floats."""
        value = self.data.get(key)
        if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
            return value
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise self.fail(key, "a number")

    def integer(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        raise self.fail(key, "an integer")

    def mapping(self, key: str) -> Mapping[str, Any] | None:
        value = self.data.get(key)
        if value is None or isinstance(value, Mapping):
            return value
        raise self.fail(key, "an object")

    def items(self, key: str) -> list[Any]:
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list | tuple):
            raise self.fail(key, "a list")
        return list(value)

    def sub(self, key: str) -> Reader | None:
        value = self.mapping(key)
        return None if value is None else Reader(value, f"{self.where}/{key}", self.source)
