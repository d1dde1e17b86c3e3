"""Where a dataset mechanism changes what it releases as the dataset grows: the size to test.

Under add/remove neighbours the size of the dataset is private too, and a mechanism that
answers only datasets of at least k records ("too few records: None", a count below a
minimum reported as 0) releases it exactly: the datasets of k - 1 and k records give "None"
with probability 1 and 0, an unbounded privacy loss.  The pair search's fixed datasets (1,
20, 1,000 records, plus one) meet such a k only by luck, and k is the mechanism's business.
So before the pairs are screened, the outputs are probed at datasets of 1, 2, 4, 8, ...
records (all at the domain's midpoint; from ``min_records`` up, when declared).  If the
smallest dataset's output, or one of its columns (an "insufficient data" flag beside noisy
counts), is (almost) always the same -- its *usual* output -- the first
size where that output's share drops to 1/2 or below is bracketed by the doubling and found
by bisection; the pair of that size and one record less is screened with the others.  A noisy threshold (propose-test-release done right)
moves the usual output's share smoothly, and the pair found sits where it moves most.

The probes choose a pair as screening outputs do: nothing drawn here certifies anything, and
no alpha is spent.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from auditor.core.trials import Trial
from auditor.engine.search_units.prober import Prober
from auditor.statistics.events.vector_events import RowKey, as_matrix

#: outputs drawn at each size probed
SIZE_PROBE = 256
#: the largest dataset probed, in records
MAX_SIZE = 2**14
#: the single record's output must be its usual one at least this often (else it varies on
#: its own, and there is no "usual output" to lose)
USUAL = 0.9

#: draws ``SIZE_PROBE`` outputs on a dataset of that many records, or None if the adapter
#: failed there (probing stops)
Probe = Callable[[int], np.ndarray | None]


def threshold_size(probe: Probe, smallest: int = 1, largest: int = MAX_SIZE) -> int | None:
    """The first size (above ``smallest``, the fewest records the mechanism accepts, and at
    most ``largest``) at which a usual output at ``smallest`` records is given at most half
    of the time, or None when nothing is usual there or no size up to ``largest`` loses it.

    Usual outputs are looked for in the whole output and in each of its columns (record
    fields, coordinates): "insufficient data" beside noisy counts is a usual column of an
    output that is never the same twice."""
    first = _features(probe(smallest))
    if first is None:
        return None
    usual: dict[int, np.ndarray] = {}
    for i, keys in enumerate(first):
        values, counts = np.unique(keys, return_counts=True)
        if counts.max() >= USUAL * len(keys):
            usual[i] = values[int(counts.argmax())]
    if not usual:
        return None

    def lost(size: int) -> bool | None:
        """Whether a usual output is given at most half of the time (None: failed)."""
        at = _features(probe(size))
        if at is None:
            return None
        return any(np.count_nonzero(at[i] == u) <= len(at[i]) / 2 for i, u in usual.items())

    kept, size = smallest, 2 * smallest
    while size <= largest:
        found = lost(size)
        if found is None:
            return None
        if found:
            break
        kept, size = size, 2 * size
    else:
        return None  # kept up to the largest size probed
    while size - kept > 1:  # the usual output is kept at `kept` records, lost at `size`
        mid = (kept + size) // 2
        found = lost(mid)
        if found is None:
            break
        kept, size = (kept, mid) if found else (mid, size)
    return size


def _features(out: np.ndarray | None) -> list[np.ndarray] | None:
    """One key per output (NaN and -0.0 folded, so a "None" output has one key), then, for an
    output of several columns, one per column; None when nothing was drawn."""
    if out is None or not len(out):
        return None
    key, m = RowKey(), as_matrix(out)
    columns = [key(m[:, j : j + 1]) for j in range(m.shape[1])] if m.shape[1] > 1 else []
    return [key(m), *columns]


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
