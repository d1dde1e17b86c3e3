"""Choosing distinguishing events on vector, sequence and record outputs.

One output is a row: d numbers (a noisy histogram, an SVT answer pattern, a RAPPOR bit
vector), k indices (top-k) or named parts (index and value).  Candidates come from these
sources, all built on one half of the training split and scored on the other by the bound
each is predicted to certify at the planned certification size (``predicted_scores``):

* **exact outcomes** — when the rows take few distinct values (answer patterns, bit vectors,
  index sets), rows are ranked by their empirical likelihood ratio and every top-ranked union
  is a candidate (Neyman–Pearson on the empirical distribution); discrete rows wider than a
  few columns (a bit vector, a histogram) also on their most different columns alone; rows
  that are discrete only in part (released values beside an answer pattern) are ranked the
  same way on their discrete part: the integer columns, which real columns are answered, and
  both;
* **projections** — each of the most different coordinates (or record fields), the sum, the
  largest and smallest entry, the position of the largest, the number of entries above their
  column's median (the sign test: under Laplace noise it follows the likelihood ratio, the sum
  does not) and the same count on the row's increments (prefix sums unmixed), the number of
  unanswered entries,
  membership of each index (index sets), the difference direction of the two sides' means,
  and how far every moved entry has gone towards one side at once (the box in which each
  entry's loss adds up, as under composition); each projection is searched like a scalar
  output (thresholds, outcomes);
* **cells** — for rows with a discrete part (an index, an answer pattern) beside other
  values, thresholds on a value among the rows of one outcome of the part (a gap that leaks
  in one index's tail);
* **a learned classifier** — a scikit-learn logistic regression (and, outside quick
  proposals, a gradient-boosted tree model) over the whole row; thresholds on its score are candidates
  (DP-Sniper's idea, without its probability floor that caps the bound at ln(1/c));
* **float cells** — the (sign, binade, last mantissa bits) cell of each of those coordinates
  that is real, searched as outcomes: a float output vector leaks through the representation
  of any coordinate, also one that answers no query of its own (Mironov 2012);
* **support edges** — for every projection and score, "beyond every training output of one
  side" (``> max``, ``< min``): a region one neighbour reaches and the other never does, whose
  certified bound keeps growing with n instead of stopping near the claim.

Counting is vectorised (sorted values and cumulative sums), so thousands of candidates cost
one pass over the selection half; Event objects are built only for the chosen few.

Assumptions:
    None about the implementation.  Integer-valued rows are treated as discrete; NaN is "no
    answer".

References:
    Ding et al., StatDP (CCS 2018): events selected on a separate batch.
    Bichsel et al., DP-Sniper (S&P 2021): thresholds on a classifier's score.

The package: one module per source of candidates, each behind the protocol of ``base``
(``EventSource``: a :class:`~base.Context` in, named :class:`~base.CandidateSet` counts out) --
``outcomes``, ``coordinates``, ``float_cells``, ``summaries``, ``cells``, ``membership``,
``classifier``; ``scalar`` searches one number per row (thresholds, support edges, outcome
unions) for them, ``rows`` and ``counting`` hold the training rows and count on them, and
``proposer`` ranks every source's candidates (``SOURCES``, in a fixed order).
"""

from __future__ import annotations

from auditor.statistics.events.vector_events.base import (
    MAX_COORDINATES,
    MAX_DISCRETE_VALUES,
    N_THRESHOLDS,
    CandidateSet,
    Context,
    EventSource,
)
from auditor.statistics.events.vector_events.cells import (
    CELL_COLUMNS,
    CELL_LEVELS,
    CELL_PARTS,
    CELL_ROWS,
    MIN_CELL,
    CellSource,
    Within,
    cells,
    in_part,
)
from auditor.statistics.events.vector_events.classifier import (
    MAX_BOOSTED_COLUMNS,
    MAX_FIT,
    ClassifierSource,
    Score,
)
from auditor.statistics.events.vector_events.coordinates import (
    Column,
    CoordinateSource,
)
from auditor.statistics.events.vector_events.float_cells import (
    FloatCell,
    FloatCellSource,
)
from auditor.statistics.events.vector_events.membership import (
    Membership,
    MembershipSource,
)
from auditor.statistics.events.vector_events.outcomes import (
    MAX_OUTCOMES,
    DiscretePart,
    OutcomeSource,
    RowKey,
    discrete_parts,
)
from auditor.statistics.events.vector_events.proposer import (
    SOURCES,
    VectorEvents,
)
from auditor.statistics.events.vector_events.rows import (
    FLOAT_VALUES,
    VISIBLE_GAP,
    as_matrix,
    column_names,
    integral_columns,
    record_columns,
    row_keys,
)
from auditor.statistics.events.vector_events.scalar import (
    KeyIn,
    Threshold,
    value_keys,
)
from auditor.statistics.events.vector_events.summaries import (
    AboveMedian,
    Linear,
    Reduce,
    SummarySource,
    Toward,
    reduce_rows,
    row_increments,
)

__all__ = [
    "AboveMedian",
    "CELL_COLUMNS",
    "CELL_LEVELS",
    "CELL_PARTS",
    "CELL_ROWS",
    "CandidateSet",
    "CellSource",
    "ClassifierSource",
    "Column",
    "Context",
    "CoordinateSource",
    "DiscretePart",
    "EventSource",
    "FLOAT_VALUES",
    "FloatCell",
    "FloatCellSource",
    "KeyIn",
    "Linear",
    "MAX_BOOSTED_COLUMNS",
    "MAX_COORDINATES",
    "MAX_DISCRETE_VALUES",
    "MAX_FIT",
    "MAX_OUTCOMES",
    "MIN_CELL",
    "Membership",
    "MembershipSource",
    "N_THRESHOLDS",
    "OutcomeSource",
    "Reduce",
    "RowKey",
    "SOURCES",
    "Score",
    "SummarySource",
    "Threshold",
    "Toward",
    "VISIBLE_GAP",
    "VectorEvents",
    "Within",
    "as_matrix",
    "cells",
    "column_names",
    "discrete_parts",
    "in_part",
    "integral_columns",
    "record_columns",
    "reduce_rows",
    "row_increments",
    "row_keys",
    "value_keys",
]
