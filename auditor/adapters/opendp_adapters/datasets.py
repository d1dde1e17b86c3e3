"""OpenDP's measurements on a dataset of records: clamped sum, count by categories, quantile."""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer
from auditor.adapters.base import call_source, keywords
from auditor.adapters.opendp_adapters.common import (
    BOUNDS,
    EPSILON,
    FLOAT_VECTORS,
    OpenDPAdapter,
    _prelude,
    check_epsilon,
    invoke_many,
    release_rows,
    rows_sample,
)
from auditor.core.source import literal
from auditor.core.space import Range

#: the reproducer's ``sample`` of adapters called on a dataset of float records once per output
_RECORDS_SAMPLE = """
    def sample(query, n):
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        return np.fromiter((measurement(records) for _ in range(n)), np.float64, count=n)
    """


class ClampedSum(OpenDPAdapter):
    """Pipeline ``then_clamp(domain) >> then_sum() >> then_laplace(scale)`` on float records.

    The neighbour relation is OpenDP's ``symmetric_distance`` with d_in = ``max_contributions``
    (1: add or remove one record; k: one user's up to k records).  The scale is OpenDP's binary
    search for the smallest one meeting ε at that d_in; the float sum's rounding error is part
    of OpenDP's own sensitivity (CSVW22).

    Sampled in one call (``vectorised``): the pipeline's clamp >> sum, OpenDP's own
    transformation, once per dataset, then ``n`` copies of that sum through OpenDP's Laplace on
    a float vector at the calibrated scale, which adds independent noise to every entry by the
    same sampler the scalar step uses (a test compares the two laws; the reproducer calls the
    whole pipeline once per output).  Per-output calls cost five times as much.
    """

    name = "opendp.clamped_sum"
    vectorised = True
    family = "dataset"
    delta = 0.0
    neighbours = "add_remove"
    description = "opendp clamp >> sum (float, rounding-aware sensitivity) >> laplace"
    space = {"epsilon": EPSILON, "domain": BOUNDS}
    _reproducer_sample = _RECORDS_SAMPLE

    def __init__(
        self,
        epsilon: float = 1.0,
        domain: tuple[float, float] = (0.0, 1.0),
        max_contributions: int = 1,
    ) -> None:
        super().__init__()
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")
        if not (isinstance(max_contributions, int) and max_contributions >= 1):
            raise ValueError(f"max_contributions={max_contributions!r} must be a whole number >= 1")
        self.max_contributions = max_contributions
        if max_contributions > 1:
            self.name = f"opendp.clamped_sum(max_contributions={max_contributions})"
        self._target_epsilon = float(epsilon)
        self.epsilon = float(self._measurement.map(max_contributions))

    def _chain(self, dp: Any, scale: float) -> Any:
        space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()
        return space >> dp.t.then_clamp(self.domain) >> dp.t.then_sum() >> dp.m.then_laplace(scale)

    def with_parameters(self, **values: Any) -> ClampedSum:
        """The same per-user relation at another point of ``space``."""
        return type(self)(**values, max_contributions=self.max_contributions)

    def _build(self, dp: Any) -> Any:
        return self._calibrated(dp, self.max_contributions, self._target_epsilon)

    def _measurement_source(self) -> str:
        clamp, scale = literal(self.domain), literal(self._calibrated_scale())
        return (
            f"space = {FLOAT_VECTORS}, dp.symmetric_distance()\n"
            f"clamped_sum = space >> dp.t.then_clamp({clamp}) >> dp.t.then_sum()\n"
            f"measurement = clamped_sum >> dp.m.then_laplace({scale})"
        )

    @property
    def _sum_then_noise(self) -> tuple[Any, Any]:
        """The pipeline's transformation and its Laplace step on float vectors (n at once)."""
        if self.__dict__.get("_pieces") is None:
            dp, scale = _prelude(), self._calibrated_scale()
            space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()
            clamped_sum = space >> dp.t.then_clamp(self.domain) >> dp.t.then_sum()
            floats = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
            self._pieces = (clamped_sum, dp.m.make_laplace(*floats, scale=scale))
        return self._pieces

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (1-D records; clamped to ``domain`` by OpenDP)."""
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        if n == 0:
            return np.empty(0, dtype=np.float64)
        clamped_sum, noise = self._sum_then_noise
        return np.asarray(noise([clamped_sum(records)] * n), dtype=np.float64)

    def sample_per_call(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases by the whole pipeline, one call each (what users call; the test of
        ``sample``'s law compares against it)."""
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        measurement = self._measurement
        return np.fromiter((measurement(records) for _ in range(n)), np.float64, count=n)


class CountByCategories(OpenDPAdapter):
    """``then_count_by_categories`` (one count per category plus a null category for records
    outside them) ``>> then_laplace`` on the integer counts (discrete Laplace).

    Records are integers in ``domain``; the categories are ``0 .. categories - 1`` and the
    domain's last value falls in the null category.  Neighbours: OpenDP's
    ``symmetric_distance`` with d_in = 1, i.e. add or remove one record.  The scale is OpenDP's
    binary search for ε; the claim is ``measurement.map(1)``.
    """

    name = "opendp.count_by_categories"
    input_kind = "dataset"
    neighbours = "add_remove"
    output_kind = "integer"
    delta = 0.0
    space = {"epsilon": EPSILON, "categories": Range(1, 64, log=True, integer=True)}

    def __init__(self, epsilon: float = 1.0, categories: int = 4) -> None:
        super().__init__()
        self._target_epsilon = check_epsilon(epsilon)
        self.categories = list(range(as_integer(categories, "categories")))
        self.domain = (0, len(self.categories))  # the last value: outside every category
        self.output_length = len(self.categories) + 1
        self.epsilon = float(self._measurement.map(1))
        self.description = (
            f"opendp then_count_by_categories(categories={self.categories}, null_category=True)"
            " >> then_laplace (discrete Laplace on i64 counts); claim from measurement.map(1)"
        )

    def _chain(self, dp: Any, scale: float) -> Any:
        space = dp.vector_domain(dp.atom_domain(T="i64")), dp.symmetric_distance()
        counts = dp.t.then_count_by_categories(
            categories=self.categories, null_category=True, MO=dp.L1Distance[int], TOA=int
        )
        return space >> counts >> dp.m.then_laplace(scale)

    def _build(self, dp: Any) -> Any:
        return self._calibrated(dp, 1, self._target_epsilon)

    def _measurement_source(self) -> str:
        arguments = keywords(categories=self.categories, null_category=True)
        counts = call_source(
            "counts = dp.t.then_count_by_categories",
            [*arguments, "MO=dp.L1Distance[int]", "TOA=int"],
        )
        scale = literal(self._calibrated_scale())
        return (
            'space = dp.vector_domain(dp.atom_domain(T="i64")), dp.symmetric_distance()\n'
            f"{counts}\nmeasurement = space >> counts >> dp.m.then_laplace({scale})"
        )

    def _sample_source(self) -> str:
        records = "[int(x) for x in np.asarray(query).ravel()]"
        return rows_sample("records", records, self.output_length)

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (integer records): shape (n, categories + 1)."""
        records = [as_integer(x, "record") for x in np.asarray(query).ravel()]
        return release_rows(self._measurement, records, n, self.output_length)


class PrivateQuantile(OpenDPAdapter):
    """``make_private_quantile`` (Smith's quantile scores over public candidates, selected by
    report-noisy-max) under ``symmetric_distance`` and ``max_divergence()``: one candidate per
    release.  Claim ``measurement.map(1)``: add or remove one record."""

    name = "opendp.private_quantile"
    input_kind = "dataset"
    neighbours = "add_remove"
    output_kind = "real"
    delta = 0.0
    _reproducer_sample = _RECORDS_SAMPLE
    space = {
        "epsilon": EPSILON,
        "alpha": Range(0.05, 0.95),
        "domain": BOUNDS,
        "candidates": Range(3, 201, log=True, integer=True),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        alpha: float = 0.5,
        domain: tuple[float, float] = (0.0, 100.0),
        candidates: int = 21,
    ) -> None:
        super().__init__()
        self._target_epsilon = check_epsilon(epsilon)
        self.alpha = float(alpha)
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")
        self.candidates = [float(c) for c in np.linspace(*self.domain, as_integer(candidates))]
        self.epsilon = float(self._measurement.map(1))
        self.description = (
            f"opendp make_private_quantile(alpha={self.alpha:g}, {len(self.candidates)} "
            f"candidates over {self.domain}), max_divergence; claim from measurement.map(1)"
        )

    def _chain(self, dp: Any, scale: float) -> Any:
        return dp.m.make_private_quantile(
            dp.vector_domain(dp.atom_domain(T=float, nan=False)),
            dp.symmetric_distance(),
            dp.max_divergence(),
            candidates=self.candidates,
            alpha=self.alpha,
            scale=scale,
        )

    def _build(self, dp: Any) -> Any:
        return self._calibrated(dp, 1, self._target_epsilon)

    def _measurement_source(self) -> str:
        candidates = call_source("candidates = ", [*map(literal, self.candidates)], "[]")
        space = [FLOAT_VECTORS, "dp.symmetric_distance()", "dp.max_divergence()"]
        arguments = [*space, "candidates=candidates"]
        arguments += keywords(alpha=self.alpha, scale=self._calibrated_scale())
        return f"{candidates}\n" + call_source(
            "measurement = dp.m.make_private_quantile", arguments
        )

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (1-D float records): one candidate each."""
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        return np.fromiter(invoke_many(self._measurement, records, n), np.float64, count=n)
