"""What every claim kind shares: the :class:`Claim` protocol, the registry entry a kind is
looked up by (:class:`ClaimKind`), the implied (epsilon, delta) point of curve claims, and the
argument checks and directed roundings the kinds' numerics use.

Why a module of its own: each kind lives in one module beside it (``gdp``, ``zcdp``, ``rdp``,
``profile``, ``fdp``; pure and approximate DP in ``point``), and a new kind should need only its
own module and one line in ``registry``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, Self, runtime_checkable

import gmpy2
import numpy as np
import numpy.typing as npt

from auditor.core.claims import FloatArray, exceeds
from auditor.core.errors import InvalidArgument


@runtime_checkable
class Claim(Protocol):
    """A privacy claim as the auditor judges it: a trade-off curve and an event-level test.

    ``kind`` is one of "pure", "approx", "profile", "zcdp", "gdp", "fdp", "rdp"; ``parameter``
    names the quantity certified bounds are reported in and ``value`` is its claimed value.
    ``violated(p0_lo, p1_hi)`` == ``exceeds(certified(p0_lo, p1_hi), value)``.

    ``delta_for_epsilon`` / ``epsilon_for_delta`` are the claim's delta(epsilon) and its
    inverse; they are not called ``delta`` / ``epsilon`` because PrivacyClaim has fields of
    those names.  For zCDP and RDP the event test is the Renyi one (stronger than the corner
    against ``tradeoff``, which comes from their (eps, delta) conversion).
    """

    @property
    def kind(self) -> str: ...

    @property
    def parameter(self) -> str: ...

    @property
    def value(self) -> float: ...

    @property
    def epsilon(self) -> float:
        """The epsilon of the (epsilon, delta) point the claim is or implies."""
        ...

    @property
    def delta(self) -> float:
        """The delta of that point (a curve claim's ``report_delta``)."""
        ...

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """f(a), never above the true curve."""
        ...

    def delta_for_epsilon(self, epsilon: float) -> float:
        """An upper value of the delta the claim implies at ``epsilon``."""
        ...

    def epsilon_for_delta(self, delta: float) -> float:
        """The smallest epsilon >= 0 with ``delta_for_epsilon(epsilon) <= delta`` (inf if none)."""
        ...

    def violated(self, p0_lo: float, p1_hi: float) -> bool:
        """The corner (p1_hi, 1 - p0_lo) lies strictly below the curve."""
        ...

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        """sup of the parameter values whose claim the corner refutes (0.0 if none)."""
        ...

    def with_value(self, v: float) -> Claim:
        """The same claim with ``parameter`` set to ``v``."""
        ...

    def describe(self) -> str: ...

    def to_dict(self) -> dict[str, Any]: ...


def is_point(claim: Any) -> bool:
    """Whether ``claim`` is one (epsilon, delta) point, whose bound is epsilon at delta (None
    stands for the run's point claim)."""
    return claim is None or getattr(claim, "kind", "approx") in ("pure", "approx")


#: the delta at which a curve claim states the (epsilon, delta) point it implies, unless the
#: claim names its own (``report_delta``; ``gdp:mu=1,delta=1e-5``)
REPORT_DELTA = 1e-6


#: the epsilon where a curve claim with no finite epsilon at its report delta is read instead
_FAR_EPSILON = 64.0


class _ImpliedPoint:
    """``epsilon`` and ``delta`` of a curve claim: the (epsilon, delta) point it implies at its
    ``report_delta``.  Reports state it beside the curve's own bound, and attacks that need a
    noise scale read ``epsilon`` as for a point claim.

    A table that stops above ``report_delta`` (a profile whose smallest delta is 1e-5, f-DP
    points that end before alpha = 1) implies no finite epsilon there; its point is then taken
    at the smallest delta the curve reaches by epsilon = 64, so that epsilon stays a number an
    attack can set a noise scale from."""

    report_delta: float

    @functools.cached_property
    def _point(self) -> tuple[float, float]:
        epsilon_for_delta = self.epsilon_for_delta  # type: ignore[attr-defined]
        eps = float(epsilon_for_delta(self.report_delta))
        if math.isfinite(eps):
            return eps, self.report_delta
        floor = float(self.delta_for_epsilon(_FAR_EPSILON))  # type: ignore[attr-defined]
        if not self.report_delta < floor < 1.0:
            return eps, self.report_delta
        return float(epsilon_for_delta(floor)), floor

    @property
    def delta(self) -> float:
        return self._point[1]

    @property
    def epsilon(self) -> float:
        return self._point[0]


class CurveClaim(_ImpliedPoint):
    """What every curve kind answers the same way: its ``kind`` and ``parameter`` (class
    constants), ``value`` (the field named by ``parameter``) and ``violated`` (its certified
    bound beyond that value, by the tolerance of ``exceeds``)."""

    _KIND: ClassVar[str]
    _PARAMETER: ClassVar[str]

    @property
    def kind(self) -> str:
        return self._KIND

    @property
    def parameter(self) -> str:
        return self._PARAMETER

    @property
    def value(self) -> float:
        value: float = getattr(self, self._PARAMETER)
        return value

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        raise NotImplementedError  # every kind has its own

    def violated(self, p0_lo: float, p1_hi: float) -> bool:
        return exceeds(self.certified(p0_lo, p1_hi), self.value)

    def with_value(self, v: float) -> Self:
        changed: Self = dataclasses.replace(self, **{self._PARAMETER: v})  # type: ignore[type-var]
        return changed


class KeyedCurveClaim(CurveClaim):
    """A curve kind with one positive parameter and a report delta (GDP, zCDP): checked,
    printed ("1-GDP"), stored and read back (:func:`keyed_kind`) the same way; ``_LABEL``
    names it in ``describe``."""

    _LABEL: ClassVar[str]

    def __post_init__(self) -> None:
        name = self._PARAMETER
        object.__setattr__(self, name, _positive(getattr(self, name), name))
        object.__setattr__(self, "report_delta", _report_delta(self.report_delta))

    def describe(self) -> str:
        return f"{self.value:g}-{self._LABEL}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self._KIND, self._PARAMETER: self.value, "report_delta": self.report_delta}


class TableClaim(CurveClaim):
    """A curve kind given as a callable or a table, with a ``name`` and a ``scale`` (its
    parameter: RDP, profile, f-DP): checked, printed and stored (:func:`table_kind`) alike."""

    _PARAMETER = "scale"
    name: str
    scale: float

    def _check_name_and_scale(self) -> None:
        _name(self.name)
        object.__setattr__(self, "scale", _positive(self.scale, "scale"))

    def _store_table(
        self,
        attr: str,
        what: str,
        grid: Callable[[], Iterable[float]],
        check: Callable[[float, float], None],
    ) -> None:
        """Name and scale checked, then the table ``attr`` stands for (:func:`read_table`), each
        point checked, kept in ``_table``."""
        self._check_name_and_scale()
        table = read_table(self, attr, what, grid)
        for x, y in table:
            check(x, y)
        object.__setattr__(self, "_table", table)

    def _what(self, given: Any) -> str:
        """The name ``describe`` prints: the claim's own, else what was given."""
        return self.name or ("callable" if callable(given) else "table")

    def _scaled(self, text: str, joint: str) -> str:
        """``text``, followed by ``joint`` and the scale unless the scale is 1."""
        return text if self.scale == 1.0 else f"{text}{joint}{self.scale:g}"

    def _table_dict(self, table: list[list[float]]) -> dict[str, Any]:
        return {"kind": self._KIND, "name": self.name, "table": table, "scale": self.scale}


def epsilon_at_the_ends(delta_for_epsilon: Callable[[float], float], d: float) -> float | None:
    """0.0 when the claim's delta at epsilon 0 is already at most ``d``; inf when ``d`` is 0
    and it is not; None when the kind must search between."""
    if delta_for_epsilon(0.0) <= d:
        return 0.0
    if d == 0.0:
        return math.inf
    return None


def _report_delta(x: Any) -> float:
    if not is_number(x) or not 0.0 < float(x) < 1.0:
        raise InvalidArgument(f"report_delta={x!r} must be a number in (0, 1)")
    return float(x)


# -- argument checks -------------------------------------------------------------------------


def is_number(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, int | float | np.floating | np.integer)


def _positive(x: Any, name: str) -> float:
    if not is_number(x) or not math.isfinite(float(x)) or float(x) <= 0:
        raise InvalidArgument(f"{name}={x!r} must be a finite number > 0")
    return float(x)


def _name(x: Any) -> str:
    if not isinstance(x, str):
        raise InvalidArgument(f"name={x!r} must be a string")
    return x


def _pairs(table: Any, what: str) -> tuple[tuple[float, float], ...]:
    """A table given as a mapping or a sequence of pairs, as sorted float pairs (x unique)."""
    items = list(table.items()) if isinstance(table, Mapping) else list(table)
    if not items:
        raise InvalidArgument(f"{what}: the table is empty")
    out = []
    for item in items:
        if not isinstance(item, Sequence) or len(item) != 2 or not all(is_number(v) for v in item):
            raise InvalidArgument(f"{what}: entry {item!r} is not a pair of numbers")
        x, y = float(item[0]), float(item[1])
        if math.isnan(x) or math.isnan(y):
            raise InvalidArgument(f"{what}: entry {item!r} is not a pair of numbers")
        out.append((x, y))
    out.sort()
    for (x0, _), (x1, _) in zip(out, out[1:], strict=False):
        if x0 == x1:
            raise InvalidArgument(f"{what}: {x0!r} appears twice in the table")
    return tuple(out)


def mpfr_down(x: Any) -> float:
    """An mpfr value as the largest float <= it."""
    with gmpy2.context(precision=53, round=gmpy2.RoundDown):
        return float(gmpy2.mpfr(x))


def mpfr_up(x: Any) -> float:
    """An mpfr value as the smallest float >= it."""
    with gmpy2.context(precision=53, round=gmpy2.RoundUp):
        return float(gmpy2.mpfr(x))


def call(fn: Callable[[float], Any], x: float, what: str) -> float:
    try:
        y = fn(x)
    except Exception as exc:  # the user's function: say which and where
        raise InvalidArgument(f"{what}: the function raised {exc!r} at {x!r}") from exc
    if isinstance(y, np.ndarray) and y.size == 1:
        y = y.reshape(()).item()
    if not is_number(y) or math.isnan(float(y)):
        raise InvalidArgument(f"{what}: the function returned {y!r} at {x!r}, not a number")
    return float(y)


def read_table(
    claim: Any, attr: str, what: str, grid: Callable[[], Iterable[float]]
) -> tuple[tuple[float, float], ...]:
    """The (x, y) table a curve claim's field ``attr`` stands for: a callable read at
    ``grid()``, or the pairs given, sorted and stored back in the (frozen) field."""
    given = getattr(claim, attr)
    if callable(given):
        return tuple((x, call(given, x, what)) for x in grid())
    table = _pairs(given, what)
    object.__setattr__(claim, attr, table)
    return table


#: points of a privacy profile sampled for a trade-off curve (a sup over a grid: conservative)
PROFILE_POINTS = 200


# -- what the registry knows of a kind ---------------------------------------------------------


@dataclass(frozen=True)
class KeyedForm:
    """How a claim written as named keys reads on the command line (``gdp:mu=1``).

    ``needed`` are the canonical keys it takes (``eps`` is read as ``epsilon``), ``optional``
    those it may leave out; ``build`` makes the claim from the values given.
    """

    needed: tuple[str, ...]
    build: Callable[[dict[str, float]], Claim]
    optional: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableForm:
    """How a claim written as key=value points reads (``rdp:2=0.5,4=1.2``)."""

    key: str
    value: str
    key_ok: Callable[[float], bool]
    key_rule: str
    value_ok: Callable[[float], bool]
    value_rule: str
    build: Callable[[dict[float, float]], Claim]


#: the shape of a sensitivity finding's effect on a claim: (power of the ratio r the claim's
#: parameter grows by, the noise that reading assumes)
Scaling = tuple[int, str]


@dataclass(frozen=True)
class ClaimKind:
    """One claim kind as serialisation, the command line, the reports and the attacks look it
    up by name (``registry.REGISTRY``), so none of them lists the kinds itself.

    ``keys``: the keys of its dict (``claim_to_dict``), "kind" included; ``from_dict`` builds
    it from a checked dict (``need(key)`` raises for a missing key).  ``syntax``: its lines in
    ``CLAIM_SYNTAX``.  ``point``: an (epsilon, delta) point, whose bound is epsilon at delta.
    ``scaling``: how a sensitivity ratio scales its parameter (None: not in numbers).
    ``gaussian_mu``: the mu of the Gaussian mechanism a claim of this kind describes.
    ``renyi_orders(claim, grid)``: the orders a Renyi event test binds and the divisor of each
    order's divergence in the claim's parameter (``grid``: the harness's default orders).
    """

    name: str
    cls: type
    parameter: str
    keys: frozenset[str]
    from_dict: Callable[[Mapping[str, Any], Callable[[str], Any]], Claim]
    form: KeyedForm | TableForm
    syntax: str
    aliases: tuple[str, ...] = ()
    point: bool = False
    scaling: Scaling | None = None
    gaussian_mu: Callable[[Any], float] | None = None
    renyi_orders: Callable[[Any, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None


def keyed_kind(cls: type[CurveClaim], syntax: str, **extra: Any) -> ClaimKind:
    """The registry entry of a :class:`KeyedCurveClaim` (``gdp:mu=1``, ``zcdp:rho=0.5,delta=1e-5``)."""
    key = cls._PARAMETER
    build: Callable[..., Any] = cls
    return ClaimKind(
        name=cls._KIND,
        cls=cls,
        parameter=key,
        keys=frozenset({"kind", key, "report_delta"}),
        from_dict=lambda d, need: build(need(key), d.get("report_delta", REPORT_DELTA)),
        form=KeyedForm(
            (key, "delta"),
            lambda v: build(v[key], v.get("delta", REPORT_DELTA)),
            optional=("delta",),
        ),
        syntax=syntax,
        **extra,
    )


def table_kind(
    cls: type[TableClaim],
    key: tuple[str, Callable[[float], bool], str],
    value: tuple[str, Callable[[float], bool], str],
    syntax: str,
    **extra: Any,
) -> ClaimKind:
    """The registry entry of a :class:`TableClaim`; ``key`` and ``value`` are each a name, its
    test and the rule that test states (``("order", lambda a: a > 1, "a finite number > 1")``)."""
    build: Callable[..., Any] = cls
    return ClaimKind(
        name=cls._KIND,
        cls=cls,
        parameter="scale",
        keys=frozenset({"kind", "name", "table", "scale"}),
        from_dict=table_from_dict(build, cls._KIND),
        form=TableForm(key[0], value[0], key[1], key[2], value[1], value[2], build),
        syntax=syntax,
        **extra,
    )


def table_from_dict(build: Callable[..., Claim], kind: str) -> Callable[..., Claim]:
    """``from_dict`` of a kind stored as ``{"name", "table", "scale"}`` (RDP, profile, f-DP)."""

    def from_dict(d: Mapping[str, Any], need: Callable[[str], Any]) -> Claim:
        table = need("table")
        name, scale = d.get("name", ""), d.get("scale", 1.0)
        if isinstance(table, str | bytes) or not isinstance(table, Sequence):
            raise InvalidArgument(
                f"claim of kind {kind!r}: table={table!r} must be a list of pairs"
            )
        return build(table, name=name, scale=scale)

    return from_dict
