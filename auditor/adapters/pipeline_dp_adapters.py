"""Adapters for PipelineDP (``pip install pipeline-dp``; imported as ``pipeline_dp``).

PipelineDP's ``DPEngine.aggregate`` computes per-partition aggregates of a dataset, bounding
each privacy unit's contributions and adding noise through python-dp.  One release here is one
``aggregate`` call on the local backend (``pipeline_dp.LocalBackend``) with a fresh budget
accountant, exactly as a user runs it; the call loops in Python, so ``vectorised = False``.
The noise comes from python-dp's secure generator, which cannot be seeded: no ``seed``.

A record is one privacy unit contributing one row to one partition: the dataset is a 1-D array
of partition keys, integers in ``0 .. partitions - 1`` (``max_partitions_contributed = 1``,
``max_contributions_per_partition = 1``, so bounding drops nothing).  Adding or removing a record
is adding or removing a privacy unit: the add/remove relation.  The release is the vector of
noisy counts, one per partition key in order.  With ``max_partitions_contributed`` the records
carry privacy ids instead, users hold any number of rows and PipelineDP's contribution
bounding is audited too.

PipelineDP is imported lazily; :func:`builtin_adapters` raises ``ImportError`` when it is
missing (the loader reports it as skipped).

References:
    PipelineDP, https://pipelinedp.io (``DPEngine.aggregate``, ``NaiveBudgetAccountant``);
    Desfontaines, Voss, Gipson, Mandayam, "Differentially private partition selection",
    PoPETs 2022 (private partition selection).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer, installed_version
from auditor.adapters.base import NamedRepr

__all__ = ["CountPerPartition", "builtin_adapters"]


class CountPerPartition(NamedRepr):
    """``DPEngine.aggregate(metrics=[COUNT], noise_kind=LAPLACE)`` over ``partitions`` keys.

    ``public_partitions=True``: every key is released (``public_partitions`` given), a noisy
    count each, in key order; claim ``(epsilon, 0)``, the accountant's total budget.
    ``False``: the keys are chosen privately from the data, and each release is what
    PipelineDP returns, a mapping key → noisy count of the keys it released (an open key set,
    ``output_kind = "keyed"``: a key it released outside ``0 .. partitions - 1`` would count
    too, ``auditor.core.keyed``); claim ``(epsilon, delta)``, the accountant's total budget
    split by PipelineDP between selection and counting.

    ``max_partitions_contributed=k``: records are rows ``(privacy id, partition key)`` and a
    user may hold any number of them (``user_column = 0``); PipelineDP's own contribution
    bounding keeps at most k keys per user and one row per key, and calibrates the noise to
    k.  The audit adds and removes whole users, so the bounding itself is under test.
    """

    library = "pipeline-dp"
    vectorised = False
    input_kind = "dataset"
    neighbours = "add_remove"
    output_kind = "real"

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 0.0,
        partitions: int = 5,
        public_partitions: bool = True,
        max_partitions_contributed: int | None = None,
    ) -> None:
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        if not 0 <= delta < 1 or (not public_partitions and delta == 0):
            raise ValueError(f"delta={delta!r} must be in [0, 1) (> 0 for private partitions)")
        self.library_version = installed_version("pipeline-dp")
        self.epsilon, self.delta = float(epsilon), float(delta)
        self.output_length = as_integer(partitions, "partitions")
        self.domain: Any = (0, self.output_length - 1)
        self.public_partitions = bool(public_partitions)
        if not self.public_partitions:  # the released keys are part of the output
            self.output_kind, self.value_kind = "keyed", "real"
            self.keys = tuple(range(self.output_length))
        which = "public" if self.public_partitions else "private"
        self.name = f"pipeline_dp.count_{which}_partitions"
        units = "one row per privacy unit"
        self.max_partitions, self.columns = 1, 1
        self.user_column: int | None = None
        if max_partitions_contributed is not None:
            # records (privacy id, partition key): PipelineDP bounds each user itself
            self.max_partitions = as_integer(
                max_partitions_contributed, "max_partitions_contributed"
            )
            self.columns, self.user_column = 2, 0
            self.domain = ((0, 10**6), (0, self.output_length - 1))
            self.name += f"(max_partitions_contributed={self.max_partitions})"
            units = f"rows (privacy id, key), each user bounded to {self.max_partitions} keys"
        self.description = (
            f"pipeline_dp DPEngine.aggregate(COUNT, LAPLACE) on LocalBackend, {which} "
            f"partitions 0..{self.output_length - 1}, {units}; claim = the "
            "NaiveBudgetAccountant's total (epsilon, delta)"
        )

    def _release(self, pipeline_dp: Any, rows: list[tuple[int, int]]) -> dict[Any, float]:
        """One ``aggregate`` call: the keys released, each with its noisy count."""
        accountant = pipeline_dp.NaiveBudgetAccountant(
            total_epsilon=self.epsilon, total_delta=self.delta
        )
        engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
        params = pipeline_dp.AggregateParams(
            noise_kind=pipeline_dp.NoiseKind.LAPLACE,
            metrics=[pipeline_dp.Metrics.COUNT],
            max_partitions_contributed=self.max_partitions,
            max_contributions_per_partition=1,
        )
        extractors = pipeline_dp.DataExtractors(
            privacy_id_extractor=lambda row: row[0],
            partition_extractor=lambda row: row[1],
            value_extractor=lambda row: 0,
        )
        public = list(range(self.output_length)) if self.public_partitions else None
        result = engine.aggregate(rows, params, extractors, public_partitions=public)
        accountant.compute_budgets()
        # lazy on the local backend: runs here
        return {key: float(metrics.count) for key, metrics in result}

    def sample(self, query: Any, n: int) -> Any:
        """``n`` releases on dataset ``query`` (partition keys): shape (n, partitions), or
        ``n`` mappings key → count for private partitions."""
        import pipeline_dp

        if self.user_column is None:
            keys = [as_integer(x, "record") for x in np.asarray(query).ravel()]
            rows = list(enumerate(keys))  # privacy unit i contributes one row to keys[i]
        else:
            records = np.asarray(query).reshape(-1, 2)
            rows = [(as_integer(u, "privacy id"), as_integer(k, "key")) for u, k in records]
        hi = self.output_length - 1
        if any(not 0 <= k <= hi for _, k in rows):
            raise ValueError(f"partition keys must be in 0..{hi}")
        releases = [self._release(pipeline_dp, rows) for _ in range(n)]
        if not self.public_partitions:
            return releases
        out = np.empty((n, self.output_length), dtype=np.float64)
        for i, release in enumerate(releases):
            out[i] = [release[k] for k in range(self.output_length)]
        return out


def builtin_adapters() -> list[Any]:
    """PipelineDP's counts per partition (raises ImportError if the library is absent)."""
    import pipeline_dp  # noqa: F401  (ImportError here means: skipped, install the extra)

    return [
        CountPerPartition(epsilon=1.0, public_partitions=True),
        CountPerPartition(epsilon=1.0, delta=1e-5, public_partitions=False),
        CountPerPartition(epsilon=1.0, public_partitions=True, max_partitions_contributed=2),
    ]
