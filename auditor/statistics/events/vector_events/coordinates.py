"""The coordinate source: each of the most different coordinates (or record fields) of a row,
searched like a scalar output."""

from __future__ import annotations

import numpy as np

from auditor.statistics.events.vector_events.base import CandidateSet, Context
from auditor.statistics.events.vector_events.rows import as_matrix, projection_code
from auditor.statistics.events.vector_events.scalar import search_projections


class Column:
    def __init__(self, index: int, text: str) -> None:
        self.index, self.text = index, text

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return as_matrix(y)[:, self.index]

    def code_prelude(self) -> str:
        return projection_code(f"as_matrix(y)[:, {self.index}]")


class CoordinateSource:
    """The ``MAX_COORDINATES`` most different coordinates, each alone."""

    def candidates(self, ctx: Context) -> list[CandidateSet]:
        return search_projections([Column(j, ctx.names[j]) for j in ctx.most_different], ctx)
