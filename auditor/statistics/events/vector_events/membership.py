"""The membership source: for index-set outputs (top-k), whether index j is among a row's."""

from __future__ import annotations

import numpy as np

from auditor.statistics.events.vector_events.base import CandidateSet, Context
from auditor.statistics.events.vector_events.rows import as_matrix, projection_code
from auditor.statistics.events.vector_events.scalar import search_projections


class Membership:
    """Whether index ``j`` is among a row's indices (top-k outputs)."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.text = f"index {index} is in the output"

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return np.asarray((as_matrix(y) == self.index).any(axis=1), dtype=float)

    def code_prelude(self) -> str:
        return projection_code(
            f"np.asarray((as_matrix(y) == {self.index}).any(axis=1), dtype=float)"
        )


class MembershipSource:
    """ "index j is in the output" for each of the distinguisher's ``membership`` indices."""

    def candidates(self, ctx: Context) -> list[CandidateSet]:
        return search_projections([Membership(j) for j in range(ctx.membership)], ctx)
