"""Climbing over datasets for pairs whose outputs differ (``auditor.engine.dataset_search``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.core.trials import Trial
from auditor.engine.dataset_search import DATASET_PROBE, climb, probes_for
from auditor.engine.search_units.prober import Prober


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
