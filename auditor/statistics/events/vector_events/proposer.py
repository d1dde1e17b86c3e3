"""The vector-events distinguisher: every source's candidates, counted on the selection half,
ranked by the bound each is predicted to certify."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import islice

import numpy as np

from auditor.core.trials import CertificationPlan, Event
from auditor.statistics.events.event_selection import ranking_scores
from auditor.statistics.events.vector_events.base import (
    N_THRESHOLDS,
    CandidateSet,
    Context,
    EventSource,
)
from auditor.statistics.events.vector_events.cells import CellSource
from auditor.statistics.events.vector_events.classifier import ClassifierSource
from auditor.statistics.events.vector_events.coordinates import CoordinateSource
from auditor.statistics.events.vector_events.float_cells import FloatCellSource
from auditor.statistics.events.vector_events.membership import MembershipSource
from auditor.statistics.events.vector_events.outcomes import OutcomeSource
from auditor.statistics.events.vector_events.rows import _Rows
from auditor.statistics.events.vector_events.summaries import SummarySource

#: every source, in the order its candidates join the ranking (part of a seed's result: a tie
#: ranks the earlier source's event first, and equal descriptions keep the first)
SOURCES: tuple[EventSource, ...] = (
    OutcomeSource(),
    CoordinateSource(),
    FloatCellSource(),
    SummarySource(),
    CellSource(),
    MembershipSource(),
    ClassifierSource(),
)


@dataclass
class VectorEvents:
    """Model-free distinguisher for outputs of any kind (rows of numbers, index sets, records).

    ``membership``: for index-set outputs, the number of indices a row may hold (adds the
    projections "index j is in the output").  See the package docstring for the candidates.
    """

    max_events: int = 8
    train_fraction: float = 0.25
    membership: int = 0
    n_thresholds: int = N_THRESHOLDS
    classifier: bool = True

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        """The ``max_events`` candidates with the largest predicted certified bound (training
        outputs only; [] when there are fewer than 4 per side)."""
        if min(len(train_x), len(train_x_prime)) < 4:
            return []
        ha, hb = len(train_x) // 2, len(train_x_prime) // 2
        raw_build = (train_x[:ha], train_x_prime[:hb])
        raw_sel = (train_x[ha:], train_x_prime[hb:])
        build = (_Rows(raw_build[0]), _Rows(raw_build[1]))
        sel = (_Rows(raw_sel[0]), _Rows(raw_sel[1]))
        candidates = [c for c in self._candidates(raw_build, build, sel, plan) if len(c)]
        if not candidates:
            return []
        n_a, n_b = len(sel[0]), len(sel[1])
        flat = ranking_scores(
            np.concatenate([c.on_x for c in candidates]),
            n_a,
            np.concatenate([c.on_x_prime for c in candidates]),
            n_b,
            plan,
        )
        event_at = _flat_events(candidates)

        def ranked() -> Iterator[Event]:
            """The candidates' events, best first, each description once."""
            seen: set[str] = set()
            for i in np.argsort(-flat, kind="stable"):
                event = event_at(int(i))
                if event.description not in seen:
                    seen.add(event.description)
                    yield event

        events = ranked()
        edge = self._heaviest_edge(candidates, n_a, n_b, plan.delta)
        if edge is None:
            return list(islice(events, self.max_events))
        # a slot is kept for the edge's event until the ranking reaches it
        reserved = event_at(edge)
        chosen = list(islice(events, self.max_events - 1))
        if any(e.description == reserved.description for e in chosen):
            return chosen + list(islice(events, 1))
        return [*chosen, reserved]

    @staticmethod
    def _heaviest_edge(
        candidates: list[CandidateSet], n_a: int, n_b: int, delta: float
    ) -> int | None:
        """For a claim with delta > 0: the candidate seen on one side only of the selection
        half, most often (at least twice, and in more than a delta share of that side's
        outputs), as a flat index; else None.

        Its event gets a slot of its own.  Such an event certifies a violation of delta alone
        once its probability is measured above delta, but its predicted bound at a screening
        size stays below that of the mechanism's honest events of loss near epsilon (the zero
        side's pessimistic rate is a fraction of one output), so the ranking alone would drop
        it (a stability histogram's threshold off by one: a bin released only with the record,
        with probability 1.65 delta)."""
        if delta <= 0:
            return None
        ka = np.concatenate([c.on_x for c in candidates]).astype(np.int64)
        kb = np.concatenate([c.on_x_prime for c in candidates]).astype(np.int64)
        weight = np.where(kb == 0, ka / max(n_a, 1), 0.0)
        weight = np.maximum(weight, np.where(ka == 0, kb / max(n_b, 1), 0.0))
        weight = np.where(np.maximum(ka, kb) >= 2, weight, 0.0)
        best = int(np.argmax(weight))
        return best if weight[best] > delta else None

    def _candidates(
        self,
        raw_build: tuple[np.ndarray, np.ndarray],
        build: tuple[_Rows, _Rows],
        sel: tuple[_Rows, _Rows],
        plan: CertificationPlan,
    ) -> list[CandidateSet]:
        """Every source's candidates, in the order of ``SOURCES``."""
        ctx = Context.of(
            raw_build,
            build,
            sel,
            plan,
            n_thresholds=self.n_thresholds,
            membership=self.membership,
            classifier=self.classifier,
        )
        return [c for source in SOURCES for c in source.candidates(ctx)]


def _flat_events(candidates: list[CandidateSet]) -> Callable[[int], Event]:
    """The event at a flat index of the candidates' concatenated counts."""
    sizes = [len(c) for c in candidates]
    owner = np.repeat(np.arange(len(candidates)), sizes)
    offset = np.concatenate([[0], np.cumsum(sizes)])

    def event_at(i: int) -> Event:
        c = int(owner[i])
        return candidates[c].event(int(i - offset[c]))

    return event_at
