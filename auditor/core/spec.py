"""Checking an adapter against the contract before anything is sampled.

Every problem is reported as one line naming the adapter and the field, so that a maintainer
who mistyped a claim sees exactly which attribute to fix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from auditor.core.claims import Family, PrivacyClaim
from auditor.core.errors import AdapterContractError, InvalidArgument, adapter_code

NEIGHBOUR_RELATIONS = ("add_remove", "replace")
_ABSENT = object()


@dataclass(frozen=True)
class AdapterSpec:
    """A validated adapter: its claim and declared neighbourhood, plus the object itself."""

    adapter: Any
    name: str
    family: Family
    claim: PrivacyClaim
    sensitivity: float | None = None
    domain: tuple[float, float] | None = None
    neighbours: str | None = None
    integer_queries: bool = False
    library: str = ""
    library_version: str = ""
    description: str = ""
    vectorised: bool = True

    @property
    def seedable(self) -> bool:
        return callable(getattr(self.adapter, "seed", None))


def _positive_finite(value: Any) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


def adapter_label(adapter: Any) -> str:
    """The adapter's name if it has a readable one, else a stand-in naming its type: for
    messages and bookkeeping before (or instead of) :func:`check_adapter`."""
    try:
        with adapter_code("reading 'name'", AdapterContractError):
            name = getattr(adapter, "name", None)
    except AdapterContractError:
        name = None
    return name if isinstance(name, str) and name.strip() else f"<{type(adapter).__name__} object>"


def check_adapter(adapter: Any) -> AdapterSpec:
    """Validate ``adapter`` against the duck-typed contract and return its spec.

    Raises:
        AdapterContractError: a required attribute is missing or out of range; the message
            names the adapter and the field.
    """
    label = f"<{type(adapter).__name__} object>"

    def read(field: str, default: Any = None) -> Any:
        # a property runs the adapter's own code: whatever it raises is the adapter's fault
        with adapter_code(f"adapter {label}: reading {field!r}", AdapterContractError):
            return getattr(adapter, field, default)

    name = read("name")
    if not isinstance(name, str) or not name.strip():
        raise AdapterContractError(
            f"adapter {label}: attribute 'name' must be a non-empty string, got {name!r}"
        )
    label = repr(name)

    def fail(field: str, problem: str) -> AdapterContractError:
        return AdapterContractError(f"adapter {name!r}: {field} {problem}")

    present = {field: read(field, _ABSENT) for field in ("family", "epsilon", "sample")}
    for required, value in present.items():
        if value is _ABSENT:
            raise fail(f"attribute {required!r}", "is missing")
    if not callable(present["sample"]):
        raise fail("attribute 'sample'", "must be callable as sample(query, n)")
    family_raw = present["family"]
    try:
        family = Family(str(family_raw))
    except ValueError:
        allowed = ", ".join(f.value for f in Family)
        raise fail("family", f"={family_raw!r} is not one of: {allowed}") from None
    try:
        claim = PrivacyClaim(present["epsilon"], read("delta", 0.0))
    except InvalidArgument as exc:
        raise fail("claim", str(exc)) from None

    sensitivity = domain = neighbours = None
    if family in (Family.ADDITIVE, Family.SELECTION):
        sensitivity = read("sensitivity")
        if sensitivity is None:
            raise fail("attribute 'sensitivity'", "is missing (required for the family)")
        if not _positive_finite(sensitivity):
            raise fail("sensitivity", f"={sensitivity!r} must be a finite number > 0")
        sensitivity = float(sensitivity)
    if family is Family.DATASET:
        domain = read("domain")
        try:
            lo, hi = (float(v) for v in domain)  # type: ignore[union-attr]
        except (TypeError, ValueError):
            raise fail("domain", f"={domain!r} must be a pair (lo, hi) of numbers") from None
        # compare the adapter's own values: float copies of wide integers may collapse
        raw_lo, raw_hi = domain  # type: ignore[misc]
        if not (math.isfinite(lo) and math.isfinite(hi) and raw_lo < raw_hi):
            raise fail("domain", f"={domain!r} must satisfy finite lo < hi")
        domain = (lo, hi)
        neighbours = read("neighbours", "add_remove")
        if neighbours not in NEIGHBOUR_RELATIONS:
            raise fail("neighbours", f"={neighbours!r} must be one of {NEIGHBOUR_RELATIONS}")

    return AdapterSpec(
        adapter=adapter,
        name=name,
        family=family,
        claim=claim,
        sensitivity=sensitivity,
        domain=domain,
        neighbours=neighbours,
        integer_queries=bool(read("integer_queries", False)),
        library=str(read("library", "") or ""),
        library_version=str(read("library_version", "") or ""),
        description=str(read("description", "") or ""),
        vectorised=bool(read("vectorised", True)),
    )
