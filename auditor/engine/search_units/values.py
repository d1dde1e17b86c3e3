"""Which values of a large local domain to pair: those whose outputs stand apart.

Under local DP any two values are neighbours, and a randomizer that mishandles one value (a
code listed twice, a bucket edge counted in two buckets, one category reported with the whole
budget) leaks only on the pairs that hold it.  A domain of more than a few values has too many
pairs to screen, and its ends, its middle and their neighbours meet such a value only by luck.
So before the pairs are screened, the outputs are probed at up to ``MAX_PROBE_VALUES`` values spread
over the domain (``auditor.core.trials.probed_values``) (every value of a smaller domain), ``VALUE_PROBE`` outputs each, and each
value's outputs are summarised by the frequencies of a few features: each output column's
value where it takes few values, else the pooled quantile bin it falls in.  A value whose
frequencies lie far from the pooled ones (a chi-square statistic, robustly standardised across
the values: the protocol's own differences between values are common to all of them) stands
apart; the few that stand apart most are paired with the value, among those that do not, whose
frequencies lie farthest from theirs, and with each other.

The probes choose pairs as screening outputs do: nothing drawn here certifies anything, and no
alpha is spent.  A symmetric protocol has no value that stands apart, and adds no pair.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from auditor.core.trials import Trial
from auditor.engine.search_units.prober import Prober
from auditor.statistics.events.vector_events import as_matrix

#: outputs drawn at each value probed (fewer for wide outputs; see ``outputs_per_value``)
VALUE_PROBE = 256
#: output cells (outputs x columns) the probes hold in all, at most
MAX_CELLS = 2**24
#: a column with at most this many distinct values is read by its values, else by bins
FEW_VALUES = 64
#: quantile bins of a column with more distinct values
BINS = 8
#: values that stand apart, at most, that get pairs
MAX_APART = 4
#: robust z-score (median and MAD across the values) above which a value stands apart
APART_Z = 5.0
#: probes that may fail (the adapter raised or timed out) before the search gives up
MAX_FAILURES = 3

Pair = tuple[Any, Any, str]


def outputs_per_value(values: int, width: int, total: int) -> int:
    """Outputs drawn at each value: ``VALUE_PROBE``, fewer when the cells would pass
    ``MAX_CELLS`` or the outputs ``total`` (a trial's budget: a slow library's too), at least
    32."""
    return int(max(32, min(VALUE_PROBE, MAX_CELLS // max(1, values * width), total // values)))


#: how a column is read: by its ``levels`` (distinct values), or by bins between ``levels``
#: (quantile cuts) with "no answer" (NaN) a bin of its own
ColumnReading = tuple[np.ndarray, bool]


def _reading(col: np.ndarray) -> ColumnReading:
    """How to read a column, from its pooled values (NaN as inf)."""
    distinct = np.unique(col)
    if len(distinct) <= FEW_VALUES:
        return distinct, False
    return np.unique(np.quantile(col[np.isfinite(col)], np.arange(1, BINS) / BINS)), True


def _features(rows: np.ndarray, readings: list[ColumnReading]) -> np.ndarray:
    """Frequencies of each column's levels or bins in ``rows``."""
    parts = []
    for j, (levels, binned) in enumerate(readings):
        col = np.nan_to_num(rows[:, j], nan=np.inf)
        if binned:
            bins = np.where(np.isinf(col), len(levels) + 1, np.searchsorted(levels, col))
            parts.append(np.bincount(bins, minlength=len(levels) + 2) / len(col))
        else:
            parts.append((col[:, None] == levels[None, :]).mean(axis=0))
    return np.concatenate(parts)


def apart_pairs(values: Sequence[Any], outputs: Sequence[np.ndarray]) -> list[Pair]:
    """Pairs of the values (``outputs[i]`` drawn at ``values[i]``, equally many each) whose
    outputs stand apart, each with the value farthest from it among those that do not and
    with each other; [] when none stands apart."""
    rows = [as_matrix(o) for o in outputs]
    if len(rows) < 3 or any(r.shape[1:] != rows[0].shape[1:] for r in rows):
        return []
    pooled = np.nan_to_num(np.vstack(rows), nan=np.inf)
    readings = [_reading(pooled[:, j]) for j in range(pooled.shape[1])]
    f = np.array([_features(r, readings) for r in rows])
    mean = f.mean(axis=0)
    spread = mean * (1.0 - mean)
    keep = spread > 0
    if not keep.any():
        return []
    n = np.array([len(r) for r in rows], dtype=float)[:, None]
    z = (f[:, keep] - mean[keep]) / np.sqrt(spread[keep])
    statistic = (n * z * z).sum(axis=1)  # chi-square-like, about the feature count if alike
    centre = float(np.median(statistic))
    mad = 1.4826 * float(np.median(np.abs(statistic - centre)))
    if mad <= 0:
        return []
    score = (statistic - centre) / mad
    apart = [int(i) for i in np.argsort(-score)[:MAX_APART] if score[i] > APART_Z]
    pairs: list[Pair] = []
    seen: set[frozenset[Any]] = set()

    def add(i: int, k: int, why: str) -> None:
        key = frozenset((values[i], values[k]))
        if i != k and key not in seen:
            seen.add(key)
            pairs.append((values[i], values[k], f"values {values[i]} and {values[k]} ({why})"))

    # partners among the values that do not stand apart: two that do may stand apart alike
    usual = np.flatnonzero(score <= APART_Z)
    for i in apart:
        far = int(usual[np.argmax(((z[usual] - z[i]) ** 2).sum(axis=1))])
        add(i, far, f"value {values[i]}'s outputs stand apart among {len(values)} probed")
    for a, i in enumerate(apart):
        for k in apart[a + 1 :]:
            add(i, k, f"both stand apart among {len(values)} probed")
    return pairs


#: draws outputs at one value, or None if the adapter failed there
Probe = Callable[[Any, int], np.ndarray | None]


def probe_apart(probe: Probe, values: Sequence[Any], total: int) -> list[Pair]:
    """:func:`apart_pairs` on outputs drawn by ``probe`` at each of ``values``, about
    ``total`` in all (a value whose probe fails is left out, and after ``MAX_FAILURES`` the
    search gives up; the first value's first outputs tell the output's width)."""
    if len(values) < 3:
        return []
    first = probe(values[0], 32)
    if first is None:
        return []
    n = outputs_per_value(len(values), as_matrix(first).shape[1], total)
    kept: list[tuple[Any, np.ndarray]] = []
    failed = 0
    for v in values:
        out = probe(v, n)
        if out is not None:
            kept.append((v, out))
        elif (failed := failed + 1) >= MAX_FAILURES:
            return []  # an adapter that fails or hangs here keeps the pairs it has
    return apart_pairs([v for v, _ in kept], [o for _, o in kept])


class ValueSearch:
    """The trial with pairs of the local values whose outputs stand apart among those probed
    as further candidates (the probes spend no alpha)."""

    def applies(self, trial: Trial) -> bool:
        return bool(trial.probe_values)

    def search(self, trial: Trial, prober: Prober) -> Trial:
        def probe(value: Any, n: int) -> np.ndarray | None:
            return prober.probe(value, n, "value", value)

        known = {frozenset((p[0], p[1])) for p in trial.pairs}
        total = prober.config.budget_for(prober.spec)
        found = probe_apart(probe, trial.probe_values, total)
        return trial.with_candidates([p for p in found if frozenset(p[:2]) not in known])
