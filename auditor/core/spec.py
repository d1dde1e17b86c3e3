"""The adapter spec: everything the harness needs from an adapter, read once and checked before
anything is sampled.

``check_adapter`` is the only reader of an adapter's attributes and optional extras (bounds,
oracles, probes, seeding); attacks and the engine read the spec, and only the engine calls the
adapter's methods.  Every problem is reported as one line naming the adapter and the field, so
that a maintainer who mistyped a claim sees exactly which attribute to fix.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from auditor.core.claims import Family, PrivacyClaim
from auditor.core.errors import AdapterContractError, InvalidArgument, adapter_code
from auditor.core.targets import NotAnAdapter
from auditor.core.text import printable

NEIGHBOUR_RELATIONS = ("add_remove", "replace")
_ABSENT = object()


#: name of the dataset family's optional white-box extra (see ``auditor.engine.probes``)
NOISELESS_PROBE = "release_without_noise"


@dataclass(frozen=True)
class AdapterSpec:
    """A validated adapter: its claim, declared neighbourhood and optional extras, plus the
    object itself (which only the engine may call).

    ``domain`` holds float copies for arithmetic; ``exact_domain`` the adapter's own values,
    integers kept as Python ints of any width (float copies of wide integers may collapse).
    ``dataset_sensitivity`` is the Δ a dataset adapter declares (None when it declares none).
    ``query_bounds`` (additive) and ``utility_bounds`` (selection) bound the inputs attacks may
    send; ``has_probabilities`` and ``has_noiseless_probe`` say which white-box oracles exist.
    """

    adapter: Any
    name: str
    family: Family
    claim: PrivacyClaim
    sensitivity: float | None = None
    domain: tuple[float, float] | None = None
    exact_domain: tuple[int | float, int | float] | None = None
    neighbours: str | None = None
    dataset_sensitivity: Fraction | None = None
    integer_queries: bool = False
    query_bounds: tuple[float, float] | None = None
    utility_bounds: tuple[float, float] | None = None
    has_probabilities: bool = False
    has_noiseless_probe: bool = False
    seedable: bool = False
    library: str = ""
    library_version: str = ""
    description: str = ""
    vectorised: bool = True

    @property
    def integer_domain(self) -> bool:
        """Whether the dataset domain's bounds are integers (records are then integers too)."""
        return self.exact_domain is not None and all(isinstance(v, int) for v in self.exact_domain)


def exact_number(value: Any) -> int | float:
    """``value`` as a Python int (integers of any width) or float, without rounding an int.

    Raises:
        TypeError, ValueError: a bool, or not a real number.
    """
    if isinstance(value, bool):
        raise TypeError("a bool is not a number here")
    if isinstance(value, numbers.Integral):
        return int(value)
    return float(value)


def _bounds(raw: Any) -> tuple[float, float] | None:
    """``(lo, hi)`` as floats if ``raw`` is a pair of finite numbers lo < hi, else None."""
    try:
        lo, hi = (float(v) for v in raw)
    except (TypeError, ValueError):
        return None
    return (lo, hi) if math.isfinite(lo) and math.isfinite(hi) and lo < hi else None


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
    if isinstance(name, str) and name.strip():
        return printable(name)
    return f"<{type(adapter).__name__} object>"


def check_adapter(adapter: Any) -> AdapterSpec:
    """Validate ``adapter`` against the duck-typed contract and return its spec.

    Raises:
        AdapterContractError: a required attribute is missing or out of range; the message
            names the adapter and the field.
    """
    if isinstance(adapter, NotAnAdapter):
        raise AdapterContractError(adapter.problem)
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
    if printable(name) != name:  # it would rewrite terminal lines, or not encode at all
        raise AdapterContractError(
            f"adapter {printable(name)!r}: attribute 'name' must be printable text "
            "(no control characters or lone surrogates)"
        )
    label = repr(name)

    def fail(field: str, problem: str) -> AdapterContractError:
        # "sensitivity=-1 must be ..." or "attribute 'sample' is missing"
        joint = "" if problem.startswith("=") else " "
        return AdapterContractError(f"adapter {name!r}: {field}{joint}{problem}")

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

    sensitivity = domain = exact_domain = neighbours = dataset_sensitivity = None
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
            lo, hi = (float(v) for v in domain)
        except (TypeError, ValueError):
            raise fail("domain", f"={domain!r} must be a pair (lo, hi) of numbers") from None
        # compare the adapter's own values: float copies of wide integers may collapse
        raw_lo, raw_hi = domain
        if not (math.isfinite(lo) and math.isfinite(hi) and raw_lo < raw_hi):
            raise fail("domain", f"={domain!r} must satisfy finite lo < hi")
        try:
            exact_domain = (exact_number(raw_lo), exact_number(raw_hi))
        except (TypeError, ValueError):
            raise fail("domain", f"={domain!r} must be a pair (lo, hi) of numbers") from None
        domain = (lo, hi)
        neighbours = read("neighbours", "add_remove")
        if neighbours not in NEIGHBOUR_RELATIONS:
            raise fail("neighbours", f"={neighbours!r} must be one of {NEIGHBOUR_RELATIONS}")
        declared = read("sensitivity")
        if declared is not None:
            if not _positive_finite(declared):
                raise fail("sensitivity", f"={declared!r} must be a finite number > 0")
            dataset_sensitivity = Fraction(declared)

    utility_bounds = None
    if family is Family.SELECTION:
        raw_bounds = read("utility_bounds")
        utility_bounds = _bounds(raw_bounds)
        if raw_bounds is not None and utility_bounds is None:
            raise fail(
                "utility_bounds",
                f"={raw_bounds!r} must be a pair (lo, hi) of finite numbers lo < hi",
            )

    return AdapterSpec(
        adapter=adapter,
        name=name,
        family=family,
        claim=claim,
        sensitivity=sensitivity,
        domain=domain,
        exact_domain=exact_domain,
        neighbours=neighbours,
        dataset_sensitivity=dataset_sensitivity,
        integer_queries=bool(read("integer_queries", False)),
        # a malformed optional bound is ignored: attacks then choose inputs without one
        query_bounds=_bounds(read("query_bounds")) if family is Family.ADDITIVE else None,
        utility_bounds=utility_bounds,
        has_probabilities=callable(read("probabilities")),
        has_noiseless_probe=callable(read(NOISELESS_PROBE)),
        seedable=callable(read("seed")),
        library=str(read("library", "") or ""),
        library_version=str(read("library_version", "") or ""),
        description=str(read("description", "") or ""),
        vectorised=bool(read("vectorised", True)),
    )


def typical_query(spec: AdapterSpec) -> Any:
    """A query every adapter of the family must accept."""
    if spec.family is Family.ADDITIVE:
        return 0 if spec.integer_queries else 0.0
    if spec.family is Family.SELECTION:
        return np.zeros(4)
    if spec.family is Family.BINARY:
        return 1
    assert spec.domain is not None
    lo, hi = spec.domain
    return np.linspace(lo, hi, 11)
