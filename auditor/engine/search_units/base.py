"""Moving a vector trial's base to where its outputs respond (``auditor.engine.base_search``)."""

from __future__ import annotations

import functools

import numpy as np

from auditor.core.claim_kinds import is_point
from auditor.core.trials import Trial
from auditor.engine.base_search import BASE_PROBE, response_bases
from auditor.engine.search_units.prober import Prober


class BaseSearch:
    """The trial moved to the middle of where its outputs respond to the base, if its own
    base is far off it, with the uniform moves towards the ends of that response as further
    candidates; if nothing responds to a uniform base, moved to the middle of the response to
    its first entry alone (the probes spend no alpha)."""

    def applies(self, trial: Trial) -> bool:
        return trial.rebase is not None

    def search(self, trial: Trial, prober: Prober) -> Trial:
        rebase = trial.rebase
        assert rebase is not None
        step = prober.spec.sensitivity or 1.0

        def probe(base: float | None, spike: bool = False) -> np.ndarray | None:
            moved = trial if base is None else rebase(base, spike=spike)
            if moved is None:
                return None  # no pattern fits there: probing stops in that direction
            where = (
                "base",
                "start" if base is None else repr(base),
                *(("spike",) if spike else ()),
            )
            return prober.probe(moved.x, BASE_PROBE, *where)

        response = response_bases(probe, step)
        if not response.responds and np.size(trial.x) > 1:
            spiked = response_bases(functools.partial(probe, spike=True), step)
            moved = None if spiked.middle is None else rebase(spiked.middle, spike=True)
            return trial if moved is None else keep_start(trial, moved, prober)
        middle = None if response.middle is None else rebase(response.middle)
        if middle is None:
            return trial
        # a start off the response makes the base the search's guess: the ends are as good a
        # one for a loss that adds up over the queries (see END_LEVELS; under L1 with integer
        # moves no uniform pattern fits)
        uniform = [rebase(b, uniform=True) for b in response.ends]
        moved = middle.with_candidates([p for u in uniform if u is not None for p in u.pairs])
        return keep_start(trial, moved, prober)


def keep_start(start: Trial, moved: Trial, prober: Prober) -> Trial:
    """``moved`` with the starting base's pairs (``start``'s) as further candidates under a
    point claim with delta > 0: the base search goes where outputs respond to the queries,
    and an output one neighbour never shows (a release, an index, "none") lives where they do
    not -- a gap or threshold test that passes on one side only.  Screening ranks them all by
    what they could certify."""
    claim = prober.spec.claim
    if not is_point(claim) or claim.delta <= 0:
        return moved
    return moved.with_candidates(start.pairs)
