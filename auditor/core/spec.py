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
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from auditor.core.claim_kinds import Claim, as_claim
from auditor.core.claims import Family, PrivacyClaim
from auditor.core.declared_kinds import _kinds, _whole, choice
from auditor.core.distance import within_norm
from auditor.core.errors import AdapterContractError, InvalidArgument, adapter_code
from auditor.core.kinds import (
    InputKind,
    InputKindSpec,
    Norm,
    OutputKindSpec,
)
from auditor.core.targets import NotAnAdapter
from auditor.core.text import printable

NEIGHBOUR_RELATIONS = ("add_remove", "replace")
_ABSENT = object()


#: name of the dataset family's optional white-box extra (see ``auditor.core.oracles``)
NOISELESS_PROBE = "release_without_noise"


@dataclass(frozen=True)
class AdapterSpec:
    """A validated adapter: its claim, declared neighbourhood and optional extras, plus the
    object itself (which only the engine may call).

    ``domain`` holds float copies for arithmetic; ``exact_domain`` the adapter's own values,
    integers kept as Python ints of any width (float copies of wide integers may collapse).
    ``dataset_sensitivity`` is the Δ a dataset adapter declares (None when it declares none);
    ``size_sensitivity`` the function of the number of records it declares instead, under
    ``replace`` neighbours (a mean with n public: Δ = (hi - lo) / n).
    ``query_bounds`` (additive) and ``utility_bounds`` (selection) bound the inputs attacks may
    send; ``has_probabilities`` and ``has_noiseless_probe`` say which white-box oracles exist.
    """

    adapter: Any
    name: str
    family: Family | None
    #: what the adapter promises: an (epsilon, delta) point (``epsilon``/``delta``) or any
    #: claim kind of ``auditor.core.claim_kinds`` (``claim``: an object or text such as
    #: ``"gdp:mu=1"``)
    claim: Claim
    input: InputKindSpec
    output: OutputKindSpec
    sensitivity: float | None = None
    domain: tuple[float, float] | None = None
    exact_domain: tuple[int | float, int | float] | None = None
    neighbours: str | None = None
    dataset_sensitivity: Fraction | None = None
    size_sensitivity: Callable[[int], Any] | None = field(default=None, repr=False)
    #: the norm ``dataset_sensitivity`` bounds a vector output's noiseless change in (``norm``
    #: on a dataset adapter); None: undeclared (one number: its absolute value)
    output_norm: Norm | None = None
    integer_queries: bool = False
    query_bounds: tuple[float, float] | None = None
    utility_bounds: tuple[float, float] | None = None
    has_probabilities: bool = False
    has_noiseless_probe: bool = False
    seedable: bool = False
    #: the adapter declares ``os_entropy = True``: every copy draws from the operating system's
    #: entropy (a CSPRNG seeded per process), so copies in several worker processes never
    #: replay one stream and an unseedable adapter may still use every worker
    os_entropy: bool = False
    library: str = ""
    library_version: str = ""
    description: str = ""
    vectorised: bool = True
    column_domains: tuple[tuple[float, float], ...] | None = None
    #: the fewest records a dataset mechanism accepts (``min_records``; a variance needs 2)
    min_records: int = 1
    #: records one privacy unit (a user) may contribute (``max_contributions``): neighbouring
    #: datasets differ in up to this many records, as OpenDP's symmetric distance d_in
    max_contributions: int = 1
    #: the dataset column holding user ids (``user_column``): neighbours then differ in all
    #: the records of one user, however many; None: a record is a privacy unit of its own
    user_column: int | None = None
    #: the ids that column may hold, ``(lo, hi)`` as Python ints (None without user ids)
    user_ids: tuple[int, int] | None = None

    @property
    def kind_label(self) -> str:
        """The family's name, or ``input → output`` for adapters outside the four families."""
        users = ""
        if self.max_contributions > 1:
            users = f" (up to {self.max_contributions} records per user)"
        if self.user_column is not None:
            users = f" (user ids in column {self.user_column})"
        if self.family is not None:
            return self.family.value + (" (monotone)" if self.input.monotone else "") + users
        return f"{self.input.label} → {self.output.label}{users}"

    @property
    def many_copies(self) -> bool:
        """Whether copies of the adapter in several processes give independent outputs: it
        is seeded per chunk, or draws from the operating system's entropy (``os_entropy``).
        Otherwise its one random stream must stay in one process."""
        return self.seedable or self.os_entropy

    @property
    def input_bounds(self) -> tuple[float, float] | None:
        """The declared range of a query's entries: ``query_bounds``, or a selection
        mechanism's ``utility_bounds`` (which ``query_bounds`` also sets there)."""
        return self.query_bounds or self.utility_bounds

    def accepts_move(self, x: Any, x_prime: Any) -> bool:
        """Whether the pair moves as the relation allows: with ``monotone``, every entry the
        same way (always True otherwise; the size of the move is the attacks' to keep)."""
        if not self.input.monotone:
            return True
        step = np.asarray(x_prime, dtype=float) - np.asarray(x, dtype=float)
        return bool((step >= 0).all() or (step <= 0).all())

    def within_sensitivity(self, x: Any, x_prime: Any) -> bool:
        """Whether a scalar or vector pair is at most the declared sensitivity apart in the
        declared norm, exactly (``auditor.core.distance``); True for other input kinds."""
        if self.input.kind not in (InputKind.SCALAR, InputKind.VECTOR) or self.sensitivity is None:
            return True
        return within_norm(x, x_prime, self.input.norm or Norm.LINF, float(self.sensitivity))

    def accepts_size(self, query: Any) -> bool:
        """Whether ``query`` has as many records as the mechanism accepts (``min_records``;
        True for any other input kind)."""
        return self.input.kind is not InputKind.DATASET or len(query) >= self.min_records

    def query_length(self, query: Any) -> int | None:
        """How many entries ``query`` has when the input is a vector (None otherwise)."""
        if self.input.kind is not InputKind.VECTOR:
            return None
        return len(np.atleast_1d(np.asarray(query)))

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


#: the spec's fields that depend on the input kind (None unless that kind declares them)
_INPUT_FIELDS = (
    "sensitivity",
    "domain",
    "exact_domain",
    "neighbours",
    "dataset_sensitivity",
    "size_sensitivity",
    "output_norm",
    "column_domains",
    "user_column",
    "user_ids",
)


def _dataset_fields(
    read: Callable[..., Any], fail: Callable[[str, str], AdapterContractError], inputs: Any
) -> dict[str, Any]:
    """The spec's fields of a dataset adapter (domain, neighbours, sensitivity, norm, records
    and users), read and checked in the order :func:`check_adapter` always read them."""
    column_domains = dataset_sensitivity = size_sensitivity = output_norm = None
    raw_domain = read("domain")
    if inputs.columns > 1:
        column_domains, exact_columns = _column_domains(raw_domain, inputs.columns, fail)
        lows, highs = zip(*column_domains, strict=True)
        domain = (min(lows), max(highs))
        exact_domain = _widest(exact_columns)
    else:
        domain, exact_domain = _domain(raw_domain, fail)
        exact_columns = (exact_domain,)
    neighbours = read("neighbours", "add_remove")
    if neighbours not in NEIGHBOUR_RELATIONS:
        raise fail("neighbours", f"={neighbours!r} must be one of {NEIGHBOUR_RELATIONS}")
    declared = read("sensitivity")
    if callable(declared):
        if neighbours != "replace":
            raise fail(
                "sensitivity",
                "is a function of the number of records, which only neighbours = 'replace' "
                "makes public (under add/remove the size is one record's secret)",
            )
        size_sensitivity = declared
    elif declared is not None:
        if not _positive_finite(declared):
            raise fail("sensitivity", f"={declared!r} must be a finite number > 0")
        dataset_sensitivity = Fraction(declared)
    if read("norm") is not None:
        output_norm = choice(read("norm"), Norm, "norm", fail)
    min_records = read("min_records", 1)
    if not _whole(min_records):
        raise fail("min_records", f"={min_records!r} must be a whole number >= 1")
    max_contributions = read("max_contributions", 1)
    if not _whole(max_contributions):
        raise fail("max_contributions", f"={max_contributions!r} must be a whole number >= 1")
    user_column, user_ids = _user_column(read, exact_columns, neighbours, fail)
    if user_column is not None and max_contributions > 1:
        raise fail(
            "max_contributions",
            "cannot be declared with user_column: a user's records are the ids' to group",
        )
    return {
        "domain": domain,
        "exact_domain": exact_domain,
        "column_domains": column_domains,
        "neighbours": neighbours,
        "dataset_sensitivity": dataset_sensitivity,
        "size_sensitivity": size_sensitivity,
        "output_norm": output_norm,
        "min_records": min_records,
        "max_contributions": max_contributions,
        "user_column": user_column,
        "user_ids": user_ids,
    }


def _checked_name(name: Any, label: str) -> str:
    """The adapter's ``name``: non-empty printable text (``label`` names it until then)."""
    if not isinstance(name, str) or not name.strip():
        raise AdapterContractError(
            f"adapter {label}: attribute 'name' must be a non-empty string, got {name!r}"
        )
    if printable(name) != name:  # it would rewrite terminal lines, or not encode at all
        raise AdapterContractError(
            f"adapter {printable(name)!r}: attribute 'name' must be printable text "
            "(no control characters or lone surrogates)"
        )
    return name


def _query_bounds(
    read: Callable[..., Any],
    fail: Callable[[str, str], AdapterContractError],
    family: Family | None,
    inputs: Any,
) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """``(query_bounds, utility_bounds)``: a malformed ``query_bounds`` is ignored (attacks
    choose inputs freely), a malformed ``utility_bounds`` is an error."""
    utility_bounds = query_bounds = None
    if inputs.kind in (InputKind.SCALAR, InputKind.VECTOR):
        query_bounds = _bounds(read("query_bounds"))  # malformed: attacks choose inputs freely
    if family is Family.SELECTION:
        raw_bounds = read("utility_bounds")
        utility_bounds = _bounds(raw_bounds)
        if raw_bounds is not None and utility_bounds is None:
            raise fail(
                "utility_bounds",
                f"={raw_bounds!r} must be a pair (lo, hi) of finite numbers lo < hi",
            )
        utility_bounds = utility_bounds or query_bounds
    return query_bounds, utility_bounds


def _extras(read: Callable[..., Any]) -> dict[str, Any]:
    """The optional extras and descriptive attributes, read in the spec's field order."""
    return {
        "integer_queries": bool(read("integer_queries", False)),
        "has_probabilities": callable(read("probabilities")),
        "has_noiseless_probe": callable(read(NOISELESS_PROBE)),
        "seedable": callable(read("seed")),
        "os_entropy": bool(read("os_entropy", False)),
        "library": str(read("library", "") or ""),
        "library_version": str(read("library_version", "") or ""),
        "description": str(read("description", "") or ""),
        "vectorised": bool(read("vectorised", True)),
    }


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

    name = _checked_name(read("name"), label)
    label = repr(name)

    def fail(field: str, problem: str) -> AdapterContractError:
        # "sensitivity=-1 must be ..." or "attribute 'sample' is missing"
        joint = "" if problem.startswith("=") else " "
        return AdapterContractError(f"adapter {name!r}: {field}{joint}{problem}")

    declared = read("claim", None)
    present = {field: read(field, _ABSENT) for field in ("epsilon", "sample")}
    for required, value in present.items():
        if value is _ABSENT and not (required == "epsilon" and declared is not None):
            raise fail(f"attribute {required!r}", "is missing (or declare 'claim')")
    if not callable(present["sample"]):
        raise fail("attribute 'sample'", "must be callable as sample(query, n)")
    family, inputs, output = _kinds(read, fail)
    try:
        claim: Claim = (
            PrivacyClaim(present["epsilon"], read("delta", 0.0))
            if declared is None
            else as_claim(declared)
        )
    except InvalidArgument as exc:
        raise fail("claim", str(exc)) from None

    fields: dict[str, Any] = dict.fromkeys(_INPUT_FIELDS)
    fields.update(min_records=1, max_contributions=1)
    if inputs.kind in (InputKind.SCALAR, InputKind.VECTOR):
        sensitivity = read("sensitivity")
        if sensitivity is None:
            raise fail("attribute 'sensitivity'", f"is missing (required for {inputs.kind} inputs)")
        if not _positive_finite(sensitivity):
            raise fail("sensitivity", f"={sensitivity!r} must be a finite number > 0")
        fields["sensitivity"] = float(sensitivity)
    if inputs.kind is InputKind.DATASET:
        fields.update(_dataset_fields(read, fail, inputs))
    if inputs.kind is InputKind.LOCAL:
        # the binary family's inputs are the bits 0 and 1, whatever else it calls a domain
        raw_domain = (0, 1) if family is Family.BINARY else read("domain")
        fields["domain"], fields["exact_domain"] = _domain(raw_domain, fail)
        if not all(isinstance(v, int) for v in fields["exact_domain"]):
            raise fail(
                "domain", f"={raw_domain!r} must be a pair of integers (lo, hi) for local inputs"
            )

    query_bounds, utility_bounds = _query_bounds(read, fail, family, inputs)
    fields.update(min_records=int(fields["min_records"]))
    fields.update(max_contributions=int(fields["max_contributions"]))
    extras = _extras(read)  # after every other read, in the order the spec has always read them
    return AdapterSpec(
        adapter=adapter,
        name=name,
        family=family,
        claim=claim,
        input=inputs,
        output=output,
        query_bounds=query_bounds if family is not Family.SELECTION else None,
        utility_bounds=utility_bounds,
        **fields,
        **extras,
    )


def _user_column(
    read: Callable[..., Any],
    columns: tuple[tuple[int | float, int | float], ...],
    neighbours: str,
    fail: Callable[[str, str], AdapterContractError],
) -> tuple[int | None, tuple[int, int] | None]:
    """The declared ``user_column`` and the ids its domain allows, checked: a column index
    whose bounds (``columns``: each column's, as the adapter wrote them) are integers with
    room for two ids, under add/remove of one user."""
    raw = read("user_column")
    if raw is None:
        return None, None
    if not (isinstance(raw, numbers.Integral) and not isinstance(raw, bool)):
        raise fail("user_column", f"={raw!r} must be a column index (an integer)")
    if not 0 <= int(raw) < len(columns):
        raise fail("user_column", f"={raw!r} must be a column index in 0..{len(columns) - 1}")
    column = int(raw)
    lo, hi = columns[column]
    if not all(isinstance(v, int) for v in (lo, hi)) or hi - lo < 1:
        raise fail(
            "user_column",
            f"={column}: its domain {(lo, hi)!r} must be integer bounds with room for 2 ids",
        )
    if neighbours != "add_remove":
        raise fail(
            "user_column",
            f"needs neighbours = 'add_remove' (one user's records added or removed), "
            f"not {neighbours!r}",
        )
    return column, (int(lo), int(hi))


def _domain(
    raw: Any, fail: Callable[[str, str], AdapterContractError]
) -> tuple[tuple[float, float], tuple[int | float, int | float]]:
    """A ``(lo, hi)`` domain as floats (for arithmetic) and as the adapter's own numbers."""
    try:
        lo, hi = (float(v) for v in raw)
        raw_lo, raw_hi = raw
        # compare the adapter's own values: float copies of wide integers may collapse
        ordered = bool(raw_lo < raw_hi)
    except (TypeError, ValueError):
        raise fail("domain", f"={raw!r} must be a pair (lo, hi) of numbers") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and ordered):
        raise fail("domain", f"={raw!r} must satisfy finite lo < hi")
    try:
        exact = (exact_number(raw_lo), exact_number(raw_hi))
    except (TypeError, ValueError):
        raise fail("domain", f"={raw!r} must be a pair (lo, hi) of numbers") from None
    return (lo, hi), exact


def _column_domains(
    raw: Any, columns: int, fail: Callable[[str, str], AdapterContractError]
) -> tuple[tuple[tuple[float, float], ...], tuple[tuple[int | float, int | float], ...]]:
    """One ``(lo, hi)`` per column (a single pair applies to every column), as floats and as
    the adapter's own numbers."""
    try:
        pairs = list(raw)
        if len(pairs) == 2 and all(isinstance(v, numbers.Real) for v in pairs):
            pairs = [pairs] * columns
    except TypeError:
        raise fail("domain", f"={raw!r} must be (lo, hi) or one (lo, hi) per column") from None
    if len(pairs) != columns:
        raise fail("domain", f"={raw!r} must hold one (lo, hi) per column ({columns} columns)")
    parsed = [_domain(pair, fail) for pair in pairs]
    return tuple(floats for floats, _ in parsed), tuple(exact for _, exact in parsed)


def _widest(
    columns: tuple[tuple[int | float, int | float], ...],
) -> tuple[int | float, int | float]:
    """The lowest and highest of the columns' bounds, as the adapter's own numbers: ints when
    every column's bounds are (its records are then integers)."""
    lows, highs = zip(*columns, strict=True)
    lo, hi = min(lows), max(highs)
    if not all(isinstance(b, int) for b in (*lows, *highs)):
        lo, hi = float(lo), float(hi)
    return lo, hi


def typical_query(spec: AdapterSpec) -> Any:
    """A query every adapter of its kind must accept: entries 0, or inside declared bounds
    the value nearest 0."""
    kind = spec.input.kind
    if kind in (InputKind.SCALAR, InputKind.VECTOR):
        lo, hi = spec.input_bounds or (0.0, 0.0)
        value = min(max(0.0, lo), hi)
        if spec.integer_queries:
            value = float(math.ceil(value)) if math.ceil(value) <= hi else float(math.floor(value))
        if kind is InputKind.SCALAR:
            return int(value) if spec.integer_queries else value
        length = spec.input.length or 4
        return np.full(length, value, dtype=np.int64 if spec.integer_queries else float)
    if kind is InputKind.LOCAL:
        assert spec.exact_domain is not None
        return 1 if spec.family is Family.BINARY else spec.exact_domain[0]
    size = max(11, spec.min_records)
    if spec.column_domains is not None:
        records = np.column_stack([np.linspace(lo, hi, size) for lo, hi in spec.column_domains])
    else:
        assert spec.domain is not None
        records = np.linspace(*spec.domain, size)
    # an integer domain (categories, counts) takes integer records
    return records.round().astype(np.int64) if spec.integer_domain else records
