"""The float-cell source: the (sign, binade, last mantissa bits) cell of each most different
real coordinate, searched as outcomes one side never reached (Mironov 2012)."""

from __future__ import annotations

import numpy as np

from auditor.statistics.events.bit_events import cell_keys, cell_keys_code, describe_cell
from auditor.statistics.events.vector_events.base import CandidateSet, Context
from auditor.statistics.events.vector_events.rows import as_matrix, projection_code
from auditor.statistics.events.vector_events.scalar import search_projections


class FloatCell:
    """The float cell of one real coordinate: sign, binade and last mantissa bits
    (``bit_events.cell_keys``), NaN for no answer.  An output vector whose coordinate sits in
    a cell the other input never reaches is impossible there (Mironov 2012), also when the
    coordinate answers no query of its own (a quantile, a statistic of a dataset)."""

    outcomes_only = True  # a threshold on a cell key means nothing
    #: only cells one side never reached in training: a float leak shows as cells impossible
    #: on one input; a cell both reach is a coarse value bin, which the coordinate's own
    #: thresholds cover, and hundreds of them would let sampling noise pick the events
    one_sided = True

    def __init__(self, index: int, name: str) -> None:
        self.index, self.text = index, f"float cell of {name}"

    def __call__(self, y: np.ndarray) -> np.ndarray:
        v = as_matrix(y)[:, self.index]
        return np.where(np.isfinite(v), cell_keys(v).astype(float), np.nan)

    @staticmethod
    def describe_value(key: float) -> str:
        return "none" if np.isnan(key) else describe_cell(int(key))

    def code_prelude(self) -> str:
        return projection_code(
            "np.where(np.isfinite(v), cell_keys(v).astype(float), np.nan)",
            f"v = as_matrix(y)[:, {self.index}]\n    ",
            constants=cell_keys_code(),
        )


class FloatCellSource:
    """The float cells of the most different coordinates that are not integer."""

    def candidates(self, ctx: Context) -> list[CandidateSet]:
        chosen = [j for j in ctx.most_different if not ctx.columns.integral[j]]
        return search_projections([FloatCell(j, ctx.names[j]) for j in chosen], ctx)
