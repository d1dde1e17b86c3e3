"""Shared pieces of the selection-family attacks: declared utility bounds, neighbour checks and
events over outcome indices.

Two utility conventions exist in the wild and an attack cannot know which one an adapter uses:
``HIGHER_IS_BETTER`` (weights ``exp(+eps*u/(2*sensitivity))``, the textbook exponential
mechanism) and ``LOSS`` (weights ``exp(-eps*u/(2*sensitivity))``, lower is better, as in
Ilvento's code).  Attacks try both; ``sign`` below is +1 or -1 accordingly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from auditor.core import distance
from auditor.core.kinds import Norm
from auditor.core.source import array_literal, event_code
from auditor.core.spec import AdapterSpec
from auditor.core.trials import CertificationPlan, Event
from auditor.statistics.events.event_selection import DataDrivenEvents


@dataclass(frozen=True)
class Convention:
    """A utility convention: ``sign = +1`` (higher is better) or ``-1`` (a loss)."""

    name: str
    sign: int


HIGHER_IS_BETTER = Convention("higher-is-better", +1)
LOSS = Convention("loss (lower is better)", -1)
CONVENTIONS = (HIGHER_IS_BETTER, LOSS)


def within(values: np.ndarray, bounds: tuple[float, float] | None) -> bool:
    """Whether every utility lies inside ``bounds`` (always True without bounds)."""
    if bounds is None:
        return True
    return bool(np.all(values >= bounds[0]) and np.all(values <= bounds[1]))


def outcome_counts(spec: AdapterSpec, preferred: tuple[int, ...]) -> tuple[int, ...]:
    """How many outcomes (utilities) the selection trials give the mechanism: the adapter's
    declared ``query_length`` when it has one (a mechanism over a fixed set of candidates
    may refuse any other length), else the attack's ``preferred`` numbers."""
    declared = spec.input.length
    return preferred if declared is None else (declared,)


def middle(bounds: tuple[float, float] | None) -> tuple[float, float]:
    """Where the selection trials put their base utilities and how far they may move from it:
    the middle of declared bounds and its distance to either end (0 and no limit without)."""
    if bounds is None:
        return 0.0, math.inf
    return (bounds[0] + bounds[1]) / 2.0, (bounds[1] - bounds[0]) / 2.0


def largest_move(spec: AdapterSpec) -> float:
    """The largest move of one query entry (a utility, a count) that keeps two inputs
    neighbours: the sensitivity, or its whole part for integer queries (``integer_queries``:
    a mechanism over counts may refuse any other value); 0 when no such move exists."""
    assert spec.sensitivity is not None
    return float(math.floor(spec.sensitivity)) if spec.integer_queries else spec.sensitivity


def are_neighbours(x: np.ndarray, x_prime: np.ndarray, sensitivity: float) -> bool:
    """Selection neighbours: same length, every utility moves by at most ``sensitivity``
    (decided exactly, not with a rounded subtraction: ``auditor.core.distance``)."""
    x, x_prime = np.asarray(x, dtype=float), np.asarray(x_prime, dtype=float)
    if x.shape != x_prime.shape or x.ndim != 1:
        return False
    return distance.within_norm(x, x_prime, Norm.LINF, float(sensitivity))


def declared_neighbours(spec: AdapterSpec, x: np.ndarray, x_prime: np.ndarray) -> bool:
    """:func:`are_neighbours` under the adapter's declared sensitivity, moving as its relation
    allows (every utility the same way when ``monotone``)."""
    assert spec.sensitivity is not None
    return are_neighbours(x, x_prime, spec.sensitivity) and spec.accepts_move(x, x_prime)


def pull_within(x: npt.ArrayLike, x_prime: npt.ArrayLike, sensitivity: float) -> np.ndarray:
    """``x_prime`` with each entry moved (by ulps) towards ``x`` until it is at most
    ``sensitivity`` away exactly: ``fl(u + sensitivity)`` can overshoot by rounding."""
    return distance.pull_within(x, x_prime, Norm.LINF, float(sensitivity))


def bounds_note(bounds: tuple[float, float] | None) -> str:
    """Trial-description suffix stating how declared bounds were respected."""
    if bounds is None:
        return ""
    return (
        f"; all utilities inside the declared utility_bounds [{bounds[0]:g}, {bounds[1]:g}] "
        "(the mechanism clamps utilities outside them)"
    )


def index_set_text(indices: npt.ArrayLike, k: int) -> str:
    """Readable outcome set: "output == 0", "output != 0", "output in {0, 3}", ..."""
    indices = np.unique(np.asarray(indices, dtype=np.int64))
    if len(indices) == 1:
        return f"output == {int(indices[0])}"
    if len(indices) == k - 1:
        missing = sorted(set(range(k)) - {int(i) for i in indices})
        return f"output != {missing[0]} (any of the other {k - 1} outcomes)"
    if len(indices) <= 8:
        return "output in {" + ", ".join(str(int(i)) for i in indices) + "}"
    return f"output in a set of {len(indices)} outcomes {{{', '.join(str(int(i)) for i in indices[:6])}, ...}}"


def index_set_event(indices: npt.ArrayLike, k: int, white_box: bool = False) -> Event:
    """The event "output is one of ``indices``" over outcomes ``0..k-1``."""
    members = np.zeros(k, dtype=bool)
    members[np.asarray(indices, dtype=np.int64)] = True

    def predicate(y: np.ndarray, members: np.ndarray = members) -> np.ndarray:
        y = np.asarray(y, dtype=np.int64)
        hits = np.zeros(y.shape, dtype=bool)
        inside = (y >= 0) & (y < len(members))
        hits[inside] = members[y[inside]]
        return hits

    code = event_code(
        "np.isin(np.asarray(x, dtype=np.int64), INDICES)",
        f"INDICES = {array_literal(np.flatnonzero(members), 'int64')}",
    )
    return Event(index_set_text(indices, k), predicate, white_box=white_box, code=code)


@dataclass
class FixedAndLearnedEvents:
    """Events fixed by the attack's design, plus a few outcome sets learned on a training split.

    The fixed events come first and need no training; the learned ones come from
    :class:`DataDrivenEvents` and catch what the design did not foresee.  ``max_events`` is
    the number of fixed events plus ``learned``, fixed before any data is seen.
    """

    fixed: list[Event]
    learned: int = 2
    train_fraction: float = 0.05
    max_events: int = field(init=False)

    def __post_init__(self) -> None:
        self.max_events = len(self.fixed) + self.learned
        if self.learned == 0:
            self.train_fraction = 0.0

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        events = list(self.fixed)
        if self.learned and len(train_x) and len(train_x_prime):
            names = {e.description for e in events}
            more = DataDrivenEvents(max_events=self.learned + len(events)).propose(
                train_x, train_x_prime, plan
            )
            events += [e for e in more if e.description not in names][: self.learned]
        return events[: self.max_events]


class NoEvents:
    """Distinguisher of a white-box-only trial: proposes nothing and reserves no alpha."""

    max_events = 0
    train_fraction = 0.0

    def propose(self, train_x: Any, train_x_prime: Any, plan: CertificationPlan) -> list[Event]:
        return []
