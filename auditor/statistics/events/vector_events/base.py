"""What every source of vector events shares: the candidate type, the per-proposal context and
the source protocol; a new source is one module and one line in ``proposer.SOURCES``.

Projections, keys and predicates in every source module are plain picklable classes: the
chosen events travel to worker processes, which count them on certification outputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from auditor.core.trials import CertificationPlan, Event
from auditor.statistics.events.vector_events.rows import _Columns, _columns, _Rows, column_names

#: at most this many distinct values make a projection discrete
MAX_DISCRETE_VALUES = 512

#: coordinates searched one by one: the most different on the build half
MAX_COORDINATES = 8

#: thresholds per projection (quantiles of the build half), plus the support edges
N_THRESHOLDS = 128


@dataclass(frozen=True)
class CandidateSet:
    """Candidate events counted together on the selection half, in bulk.

    ``on_x[i]`` and ``on_x_prime[i]`` are how many selection rows of each side the i-th event
    holds; ``event(i)`` builds that event (only the few chosen are ever built).
    """

    on_x: np.ndarray
    on_x_prime: np.ndarray
    event: Callable[[int], Event]

    def __len__(self) -> int:
        return len(self.on_x)


@dataclass(frozen=True)
class Context:
    """What every source reads of one proposal, computed once: the build half (as drawn, as
    rows, its float samples and their pooled matrix), the selection half, the columns'
    statistics and names, and the distinguisher's settings."""

    raw_build: tuple[np.ndarray, np.ndarray]
    build: tuple[_Rows, _Rows]
    sel: tuple[_Rows, _Rows]
    plan: CertificationPlan
    n_thresholds: int
    membership: int
    classifier: bool
    matrices: tuple[np.ndarray, np.ndarray]
    pooled: np.ndarray
    names: list[str]
    columns: _Columns

    @classmethod
    def of(
        cls,
        raw_build: tuple[np.ndarray, np.ndarray],
        build: tuple[_Rows, _Rows],
        sel: tuple[_Rows, _Rows],
        plan: CertificationPlan,
        *,
        n_thresholds: int,
        membership: int,
        classifier: bool,
    ) -> Context:
        matrices = (build[0].sample, build[1].sample)
        pooled = np.vstack(matrices)
        names = column_names(raw_build[0])
        columns = _columns(matrices, pooled)
        return cls(
            raw_build, build, sel, plan, n_thresholds, membership, classifier,
            matrices, pooled, names, columns,
        )  # fmt: skip

    @property
    def width(self) -> int:
        """Columns of a row (record fields of several values count once per value)."""
        return int(self.pooled.shape[1])

    @property
    def most_different(self) -> list[int]:
        """The ``MAX_COORDINATES`` columns whose sides differ most, in column order."""
        return sorted(int(j) for j in self.columns.ranked[:MAX_COORDINATES])


class EventSource(Protocol):
    """One source of candidate events (exact outcomes, coordinates, float cells, summaries,
    cells, index membership, classifier scores).

    ``candidates`` reads the build half to choose what to count and counts it on the
    selection half; it never sees certification outputs.  Sources run in the order of
    ``proposer.SOURCES``, which is part of a seed's result (ties rank the earlier first).
    """

    def candidates(self, ctx: Context) -> list[CandidateSet]: ...
