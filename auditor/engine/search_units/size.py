"""Moving a dataset trial to the size where its outputs change (``auditor.engine.size_search``)."""

from __future__ import annotations

import numpy as np

from auditor.core.trials import Trial
from auditor.engine.search_units.prober import Prober
from auditor.engine.size_search import SIZE_PROBE, threshold_size


class SizeSearch:
    """The trial with the pair at the dataset size where its outputs change screened first,
    if they do (the probes spend no alpha)."""

    def applies(self, trial: Trial) -> bool:
        return trial.resize is not None

    def search(self, trial: Trial, prober: Prober) -> Trial:
        resize = trial.resize
        assert resize is not None

        def probe(size: int) -> np.ndarray | None:
            return prober.probe(resize(size).x, SIZE_PROBE, "size", size)

        spec = prober.spec
        size = threshold_size(probe, smallest=spec.min_records)
        resized = None if size is None else resize(size - 1).accepted_by(spec)
        return trial if resized is None else resized
