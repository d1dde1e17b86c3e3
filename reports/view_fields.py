"""The parts of a report.json result the report view (``reports.view``) is built from: typed
reads of its dictionaries (each checks the field's type and names its path when it is
wrong), the claim, the counts, the δ bound and the kept output sample."""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from auditor.core.claim_kinds import REGISTRY, Claim, claim_from_dict
from auditor.core.claims import PrivacyClaim
from auditor.core.errors import InvalidArgument
from auditor.core.results import SCHEMA, CertifiedFirst, DeltaBound, EventCounts


class Reader:
    """Typed reads of one dictionary of the report, with the path for error messages."""

    def __init__(self, data: Mapping[str, Any], where: str, source: str) -> None:
        self.data, self.where, self.source = data, where, source

    def fail(self, key: str, expected: str) -> InvalidArgument:
        value = repr(self.data.get(key))[:60]
        where = f"{self.where}/{key}" if self.where else key
        return InvalidArgument(
            f"{self.source} is not a valid {SCHEMA} report: at {where}, expected "
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
        """A JSON number as written (an int stays an int); "inf", "nan" as floats; a numpy
        scalar of a dictionary built in-process as the Python number it stands for."""
        value = self.data.get(key)
        if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
            return value
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return int(value)
        if isinstance(value, numbers.Real):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise self.fail(key, "a number")

    def real(self, key: str) -> float:
        """A number that must be there."""
        value = self.number(key)
        if value is None:
            raise self.fail(key, "a number")
        return value

    def count(self, key: str) -> int:
        """An integer that must be there."""
        value = self.integer(key)
        if value is None:
            raise self.fail(key, "an integer")
        return value

    def integer(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is None or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return int(value)  # a numpy integer of a dictionary built in-process
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
        where = f"{self.where}/{key}" if self.where else key
        return None if value is None else Reader(value, where, self.source)

    def filled(self, key: str) -> Reader | None:
        """:meth:`sub` of a mapping that holds something: None when ``key`` is absent or empty
        (an optional section a run did not write)."""
        sub = self.sub(key)
        return None if sub is None or not sub.data else sub


#: keys report.json adds to a curve claim's own dict (``claim_to_dict``): the implied point
_IMPLIED_KEYS = ("epsilon", "delta", "description")


@dataclass(frozen=True)
class ClaimView:
    """A result's claim: ``(epsilon, delta)`` for a point claim; a curve claim (``kind`` not a
    point kind) also carries its ``description`` and its own ``parameters``, and ``epsilon``,
    ``delta`` are the point it implies at its report δ.  ``claim`` is the claim object rebuilt
    from them (None when it does not rebuild: a report from elsewhere)."""

    epsilon: float | None
    delta: float | None
    kind: str | None
    description: str | None
    parameters: Mapping[str, Any]
    claim: Claim | None = field(compare=False)

    @property
    def is_curve(self) -> bool:
        """Whether it is a curve (GDP, zCDP, RDP, profile, f-DP), not one point."""
        return self.kind is not None and not (self.kind in REGISTRY and REGISTRY[self.kind].point)

    @property
    def name(self) -> str:
        """How a curve claim is named: its description, else its kind."""
        return self.description or str(self.kind)


def claim_object(r: Mapping[str, Any]) -> Claim | None:
    """The claim of a report.json result as an object (``auditor.core.claim_kinds``), or None
    when the result has none or its dict does not rebuild (a report from elsewhere)."""
    claim = r.get("claim")
    if not isinstance(claim, Mapping) or not claim:
        return None
    return read_claim(claim, "claim", "report").claim


def read_claim(data: Mapping[str, Any], where: str, source: str) -> ClaimView:
    read = Reader(data, where, source)
    kind = read.text("kind")
    parameters = {k: v for k, v in data.items() if k not in _IMPLIED_KEYS}
    view = ClaimView(
        epsilon=read.number("epsilon"),
        delta=read.number("delta"),
        kind=kind,
        description=read.text("description"),
        parameters=parameters,
        claim=None,
    )
    try:
        if not view.is_curve:
            claim: Claim | None = PrivacyClaim(float(data["epsilon"]), float(view.delta or 0.0))
        else:
            claim = claim_from_dict(dict(parameters))
    except (InvalidArgument, KeyError, TypeError, ValueError):
        claim = None
    return replace(view, claim=claim)


def read_counts(read: Reader, key: str) -> EventCounts | None:
    sub = read.filled(key)
    if sub is None:
        return None
    n0, k0, n1, k1 = (sub.integer(k) for k in ("n0", "k0", "n1", "k1"))
    if n0 is None or k0 is None or n1 is None or k1 is None:
        raise read.fail(key, "counts n0, k0, n1, k1")
    return EventCounts(n0=n0, k0=k0, n1=n1, k1=k1)


def read_pair(read: Reader, key: str) -> tuple[Any, Any] | None:
    value = read.data.get(key)
    if value is None:
        return None
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise read.fail(key, "a pair")
    return (value[0], value[1])


@dataclass(frozen=True)
class SampleView:
    """The outputs kept for plots (never for a bound), as report.json stores them: values
    (non-finite ones as "nan", "inf"; vectors as lists), and whether each is in the event."""

    x: list[Any]
    x_prime: list[Any]
    in_event_x: list[Any]
    in_event_x_prime: list[Any]
    #: "training" or "plot" (None: not stated)
    source: str | None


def read_sample(read: Reader) -> SampleView | None:
    sub = read.filled("output_sample")
    if sub is None:
        return None
    return SampleView(
        x=sub.items("x"),
        x_prime=sub.items("x_prime"),
        in_event_x=sub.items("in_event_x"),
        in_event_x_prime=sub.items("in_event_x_prime"),
        source=sub.text("source"),
    )


def read_delta_bound(read: Reader) -> DeltaBound | None:
    sub = read.filled("delta_lower_bound")
    if sub is None:
        return None
    counts = read_counts(sub, "counts")
    if counts is None:
        raise sub.fail("counts", "counts n0, k0, n1, k1")
    queries = read_pair(sub, "queries") or (None, None)
    return DeltaBound(
        delta_lower_bound=sub.real("delta_lower_bound"),
        epsilon=sub.real("epsilon"),
        alpha=sub.real("alpha"),
        event=sub.text("event") or "",
        counts=counts,
        alpha_split=sub.number("alpha_split") or 0.5,
        x=queries[0],
        x_prime=queries[1],
        trial=sub.text("trial") or "",
    )


def read_first_certified(read: Reader) -> CertifiedFirst | None:
    sub = read.filled("first_certified")
    if sub is None:
        return None
    return CertifiedFirst(
        bound=sub.real("bound"),
        looks=sub.count("looks"),
        n_certify=sub.count("n_certify"),
    )


@dataclass(frozen=True)
class Screened:
    """One configuration a parameter search screened (a ranking, never a verdict)."""

    name: str
    #: bound at screening over the claim (None: no bound)
    ratio: float | None
    rejected: str | None
    error: str | None
    verdict_at_screening: str | None


@dataclass(frozen=True)
class SearchedAdapter:
    """What the search did for one adapter: its space, how many configurations it screened or
    the adapter rejected, the ranking and the finalists audited in full."""

    adapter: str
    space: Mapping[str, Any]
    screened: int | None
    rejected: int | None
    finalists: tuple[str, ...]
    ranking: tuple[Screened, ...]


@dataclass(frozen=True)
class SearchView:
    """The ``search`` section ``--search`` adds: the design, the screening and how alpha was
    spent (``alpha`` is a sentence)."""

    design: str | None
    configurations: int | None
    screening_budget: int | None
    screening_seed: int | None
    alpha: str
    adapters: tuple[SearchedAdapter, ...]


def read_search(read: Reader) -> SearchView | None:
    sub = read.filled("search")
    if sub is None:
        return None
    adapters = []
    for i, a in enumerate(sub.items("adapters")):
        one = Reader(a, f"{sub.where}/adapters/{i}", sub.source)
        ranking = []
        for j, s in enumerate(one.items("ranking")):
            row = Reader(s, f"{one.where}/ranking/{j}", sub.source)
            score = row.items("score") or [None]
            ranking.append(
                Screened(
                    name=str(row.text("name", required=True)),
                    ratio=None if score[0] is None else float(score[0]),
                    rejected=row.text("rejected"),
                    error=row.text("error"),
                    verdict_at_screening=row.text("verdict_at_screening"),
                )
            )
        adapters.append(
            SearchedAdapter(
                adapter=str(one.text("adapter", required=True)),
                space=one.mapping("space") or {},
                screened=one.integer("screened"),
                rejected=one.integer("rejected"),
                finalists=tuple(str(f) for f in one.items("finalists")),
                ranking=tuple(ranking),
            )
        )
    return SearchView(
        design=sub.text("design"),
        configurations=sub.integer("configurations"),
        screening_budget=sub.integer("screening_budget"),
        screening_seed=sub.integer("screening_seed"),
        alpha=str(sub.data.get("alpha")),
        adapters=tuple(adapters),
    )
