"""Probing local values for pairs whose outputs stand apart (``auditor.engine.value_search``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.core.trials import Trial
from auditor.engine.search_units.prober import Prober
from auditor.engine.value_search import probe_apart


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
