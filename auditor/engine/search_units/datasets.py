"""Where a dataset mechanism's outputs move most: a climb over neighbouring datasets.

How much one record moves a statistic may depend on the other records (an edge adds as many
wedges as its ends have neighbours), and a mechanism that gets its sensitivity wrong leaks
only on pairs with that structure, which fixed and random pairs meet by luck.  So before the
pairs are screened, the certifier climbs from a few random pairs (``Trial.explore``): each
step draws one random move (a record changed, added or removed) and keeps it when the two
datasets' outputs lie at least as far apart as before.  How far apart: the sum over output
columns of the squared Welch t statistic of their means (``shift_score``), as a statistic's
sensitivity is the largest move of its value.

Every state is probed with the same seeds (one for each side), so an additive mechanism's
noise is the same at every state and the climb compares what the records change, not the
noise.  The climbs share the probes by successive halving, and the pairs the best two end
at join the candidates, screened with them.  The probes choose pairs as screening outputs do:
nothing drawn here certifies anything, and no alpha is spent.

Reference: Kong et al., "DP-Auditorium" (IEEE S&P 2024), which searches datasets for the
pair its testers tell apart best.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from auditor.core.trials import Trial
from auditor.engine.search_units.prober import Prober
from auditor.statistics.events.vector_events import as_matrix

if TYPE_CHECKING:
    from auditor.core.trials import Explorer

#: outputs drawn on each dataset of a state probed (with common noise, a few suffice)
DATASET_PROBE = 128
#: the share of a trial's budget (per side) the climbs may draw
SEARCH_SHARE = 0.5
#: states probed at most in all (time: each is two calls of the adapter)
MAX_PROBES = 1024
#: states probed per start, at least: fewer starts when the budget is small, none below
MIN_STEPS = 16
#: the squared t statistic of a column whose two sides are constant and differ
APART = 1e6

Pair = tuple[Any, Any, str]
#: draws ``DATASET_PROBE`` outputs on a dataset, with the seed of ``side`` (0 or 1), or
#: None if the adapter failed there
Probe = Callable[[Any, int], np.ndarray | None]


def probes_for(budget: int) -> int:
    """States a trial of ``budget`` outputs per side may probe."""
    return min(MAX_PROBES, int(budget * SEARCH_SHARE) // DATASET_PROBE)


def climb(explorer: Explorer, probe: Probe, probes: int, rng: np.random.Generator) -> list[Pair]:
    """The pairs the best climbs from ``explorer``'s starts end at, ``probes`` states probed
    in all.

    Successive halving, as in screening: every climb takes the same number of steps, the
    better half (by score) goes on with twice as many, and so on until two are left; each
    round costs about the same.  Climbs from as many starts as get ``MIN_STEPS`` probes each;
    the last two's pairs are returned (those that kept a move)."""
    starts = list(explorer.starts())[: max(0, probes // MIN_STEPS)]
    climbs = [c for c in (_Climb.at(explorer, probe, s) for s in starts) if c is not None]
    rounds = max(1, math.ceil(math.log2(max(1, len(climbs)))))
    per_round = max(0, probes - len(starts)) // rounds
    alive = climbs
    for _ in range(rounds):
        for c in alive:
            for _ in range(per_round // len(alive)):
                c.step(explorer, probe, rng)
        if len(alive) > 2:
            alive = sorted(alive, key=lambda c: -c.score)[: max(2, len(alive) // 2)]
    return [explorer.pair(c.state) for c in alive if c.kept]


class _Climb:
    """One climb: its state, the state's two datasets and their outputs, its score, and
    whether it moved from its start."""

    def __init__(self, state: Any, probed: _Probed, score: float) -> None:
        self.state, self.probed, self.score, self.kept = state, probed, score, False

    @classmethod
    def at(cls, explorer: Explorer, probe: Probe, state: Any) -> _Climb | None:
        """A climb from ``state``; None if the adapter fails there (or its two outputs'
        columns differ)."""
        probed = _probe(explorer, probe, state, None)
        score = None if probed is None else shift_score(probed[0][1], probed[1][1])
        return None if probed is None or score is None else cls(state, probed, score)

    def step(self, explorer: Explorer, probe: Probe, rng: np.random.Generator) -> None:
        """One random move, kept when its outputs lie at least as far apart."""
        moved = explorer.moved(self.state, rng)
        if moved is None:
            return
        probed = _probe(explorer, probe, moved, self.probed)
        score = None if probed is None else shift_score(probed[0][1], probed[1][1])
        if probed is not None and score is not None and score >= self.score:
            self.state, self.probed, self.score, self.kept = moved, probed, score, True


#: a state's two datasets, each with its key and its outputs
_Probed = tuple[tuple[bytes, np.ndarray], tuple[bytes, np.ndarray]]


def _probe(explorer: Explorer, probe: Probe, state: Any, last: _Probed | None) -> _Probed | None:
    """The outputs of ``state``'s two datasets; a dataset the ``last`` state had on the same
    side (a move that left it alone) is not drawn again: its seed is the same."""
    sides = []
    for side, query in enumerate(explorer.pair(state)[:2]):
        a = np.asarray(query)
        key = repr((a.dtype.str, a.shape)).encode() + a.tobytes()
        if last is not None and last[side][0] == key:
            sides.append(last[side])
            continue
        out = probe(query, side)
        if out is None:
            return None
        sides.append((key, out))
    return sides[0], sides[1]


def shift_score(a: np.ndarray, b: np.ndarray) -> float | None:
    """How far apart two samples' column means lie: the sum over columns of the squared Welch
    t statistic (a column with NaN or infinite values also as how often it has them); None
    when the outputs do not have the same columns."""
    fa, fb = _columns(a, b)
    if fa.shape[1] != fb.shape[1] or len(fa) < 2 or len(fb) < 2:
        return None
    d = fa.mean(axis=0) - fb.mean(axis=0)
    se2 = fa.var(axis=0, ddof=1) / len(fa) + fb.var(axis=0, ddof=1) / len(fb)
    spread = se2 > 0
    t2 = np.where(spread, d * d / np.where(spread, se2, 1.0), np.where(d != 0, APART, 0.0))
    return float(np.sum(t2))


def _columns(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both samples as float columns: finite values (others as 0), and for each column that
    has a NaN or an infinity on either side, an indicator of them."""
    ma, mb = as_matrix(a), as_matrix(b)
    if ma.shape[1] != mb.shape[1]:
        return ma, mb
    bad_a, bad_b = ~np.isfinite(ma), ~np.isfinite(mb)
    odd = bad_a.any(axis=0) | bad_b.any(axis=0)

    def laid_out(m: np.ndarray, bad: np.ndarray) -> np.ndarray:
        return np.hstack([np.where(bad, 0.0, m), bad[:, odd].astype(float)])

    return laid_out(ma, bad_a), laid_out(mb, bad_b)


class DatasetSearch:
    """The trial with the pairs that climbs over datasets end at as further candidates (the
    probes spend no alpha)."""

    def applies(self, trial: Trial) -> bool:
        return trial.explore is not None

    def search(self, trial: Trial, prober: Prober) -> Trial:
        assert trial.explore is not None

        def probe(query: Any, side: int) -> np.ndarray | None:
            # every state with the same seed per side: common noise
            return prober.probe(query, DATASET_PROBE, "datasets", side)

        spec = prober.spec
        rng = np.random.default_rng(prober.seed("datasets", "moves"))
        found = climb(trial.explore, probe, probes_for(prober.config.budget_for(spec)), rng)
        return trial.with_candidates(found).accepted_by(spec) or trial
