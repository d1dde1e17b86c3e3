"""diffprivlib's ``tools`` with vector or dataset outputs: histograms, quantiles, percentiles,
median (the opt-in group).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters._provenance import (
    as_integer,
)
from auditor.adapters.base import keywords
from auditor.adapters.diffprivlib_adapters.common import BOUNDS, EPSILON, DiffprivlibAdapter
from auditor.adapters.diffprivlib_adapters.tools import RECORDS, tools_reproducer
from auditor.core.source import literal
from auditor.core.space import Choice, Range


class _VectorTool(DiffprivlibAdapter):
    """A ``diffprivlib.tools`` function on a dataset with declared bounds, one release per call.

    Releases that are vectors (a histogram's counts, several quantiles) use the kinds contract:
    ``input_kind = "dataset"``, ``output_kind`` with ``output_length`` = the release's length.
    """

    input_kind = "dataset"
    delta = 0.0
    #: the default relation of these tools: add or remove one record (a histogram's counts are
    #: calibrated to sensitivity 1, which only holds for add/remove)
    neighbours = "add_remove"
    output_kind = "real"

    def __init__(self, epsilon: float) -> None:
        super().__init__()
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        self.epsilon = float(epsilon)

    #: the ``diffprivlib.tools`` function released
    _function = ""
    #: whether it returns ``(counts, edges)``, of which the counts are released
    _edges = False
    _reproducer_imports = "BudgetAccountant, tools"
    #: ``_records`` in the reproducer
    _records_source = RECORDS

    def _records(self, query: Any) -> np.ndarray:
        return np.asarray(query, dtype=np.float64).ravel()

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The function's positional arguments after the data, and its keyword arguments but
        ``random_state`` and ``accountant``."""
        raise NotImplementedError

    def _release(self, data: np.ndarray, accountant: Any) -> Any:
        from diffprivlib import tools

        positional, keyword = self._arguments()
        release = getattr(tools, self._function)(
            data, *positional, **keyword, random_state=self._random_state, accountant=accountant
        )
        return release[0] if self._edges else release

    def _reproducer_code(self) -> str:
        positional, keyword = self._arguments()
        arguments = [*map(literal, positional), *keywords(**keyword)]
        width = getattr(self, "output_length", 1)
        return tools_reproducer(self._function, arguments, self._records_source, width, self._edges)

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query``: shape (n,) or (n, output_length)."""
        from diffprivlib import BudgetAccountant

        data = self._records(query)
        accountant = BudgetAccountant()  # private: the default one would record every release
        width = getattr(self, "output_length", 1)
        out = np.empty((n, width), dtype=np.float64)
        for i in range(n):
            out[i] = np.ravel(self._release(data, accountant))
        return out[:, 0] if width == 1 else out


def _bounds(domain: tuple[float, float], name: str = "domain") -> tuple[float, float]:
    lo, hi = float(domain[0]), float(domain[1])
    if not lo < hi:
        raise ValueError(f"{name}={domain!r} must have lower < upper")
    return lo, hi


class ToolsHistogram(_VectorTool):
    """``diffprivlib.tools.histogram`` over ``bins`` equal bins of ``domain``: numpy's counts,
    then ``GeometricTruncated(epsilon, sensitivity=1, lower=0)`` on each count.

    Claim: epsilon-DP (the docstring: noise "added using GeometricTruncated to satisfy
    differential privacy"; ``range`` given, so no ``PrivacyLeakWarning``).  Sensitivity 1 per
    histogram is the add/remove relation: one record moves one count by 1.
    """

    name = "diffprivlib.tools.histogram"
    output_kind = "integer"
    _function, _edges = "histogram", True
    space = {
        "epsilon": EPSILON,
        "bins": Range(2, 64, log=True, integer=True),
        "domain": BOUNDS,
    }

    def __init__(
        self, epsilon: float = 1.0, bins: int = 10, domain: tuple[float, float] = (0.0, 10.0)
    ) -> None:
        super().__init__(epsilon)
        self.output_length = as_integer(bins, "bins")
        self.domain = _bounds(domain)
        self.description = (
            f"diffprivlib.tools.histogram(bins={self.output_length}, range={self.domain}): "
            "numpy counts + GeometricTruncated(sensitivity=1) per bin; epsilon-DP per its "
            "docstring; add/remove neighbours"
        )

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (), {"epsilon": self.epsilon, "bins": self.output_length, "range": self.domain}


class ToolsHistogramdd(_VectorTool):
    """``diffprivlib.tools.histogramdd`` on records of ``len(bins)`` columns, counts flattened
    in C order (the first column's bin varies slowest); the same noise as the 1-D histogram.

    Claim: epsilon-DP for the whole table (its docstring), add/remove neighbours.
    """

    name = "diffprivlib.tools.histogramdd"
    output_kind = "integer"
    _function, _edges = "histogramdd", True
    _records_source = "np.asarray(query, dtype=np.float64)"
    #: two columns: bins per column, and one (lower, upper) per column
    space = {
        "epsilon": EPSILON,
        "bins": Choice(((3, 3), (2, 8), (6, 6))),
        "domain": Choice(
            (((0.0, 1.0), (0.0, 1.0)), ((-10.0, 10.0), (0.0, 1.0)), ((0.0, 1e6), (-1e3, 1e3)))
        ),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        bins: tuple[int, ...] = (3, 3),
        domain: tuple[tuple[float, float], ...] = ((0.0, 1.0), (0.0, 1.0)),
    ) -> None:
        super().__init__(epsilon)
        self.bins = tuple(as_integer(b, "bins") for b in bins)
        if len(domain) != len(self.bins):
            raise ValueError(f"domain={domain!r} needs one (lower, upper) per column")
        self.domain = tuple(_bounds(d) for d in domain)
        self.columns = len(self.bins)
        self.output_length = int(np.prod(self.bins))
        self.description = (
            f"diffprivlib.tools.histogramdd(bins={self.bins}, range={list(self.domain)}): "
            "numpy counts + GeometricTruncated(sensitivity=1) per cell; epsilon-DP per its "
            "docstring; add/remove neighbours"
        )

    def _records(self, query: Any) -> np.ndarray:
        data = np.asarray(query, dtype=np.float64)
        if data.ndim != 2 or data.shape[1] != self.columns:
            raise ValueError(f"dataset must have shape (m, {self.columns}), got {data.shape}")
        return data

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (), {"epsilon": self.epsilon, "bins": self.bins, "range": list(self.domain)}


class ToolsQuantile(_VectorTool):
    """``diffprivlib.tools.quantile`` of several quantiles at once: Smith's exponential
    mechanism (intervals between the clipped, sorted records, weighted by length), each
    quantile with ``epsilon / len(quantiles)``; a uniform point of the chosen interval.

    Claim: epsilon-DP "over the entire output, with epsilon split evenly between each output
    value" (its docstring).  The utility ``-|i - q n|`` moves by at most 1 when a record is
    added or removed as well as when one is replaced, so add/remove is declared.
    """

    name = "diffprivlib.tools.quantile"
    _function = "quantile"
    space = {
        "epsilon": EPSILON,
        "quantiles": Choice(((0.25, 0.5, 0.75), (0.1, 0.9), (0.01, 0.5, 0.99))),
        "domain": BOUNDS,
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        quantiles: tuple[float, ...] = (0.25, 0.5, 0.75),
        domain: tuple[float, float] = (0.0, 100.0),
    ) -> None:
        super().__init__(epsilon)
        self.quantiles = tuple(float(q) for q in quantiles)
        self.output_length = len(self.quantiles)
        self.domain = _bounds(domain)
        self.description = (
            f"diffprivlib.tools.quantile(quant={list(self.quantiles)}, bounds={self.domain}): "
            "exponential mechanism over intervals (Smith 2011), epsilon split evenly; "
            "add/remove neighbours"
        )

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (list(self.quantiles),), {"epsilon": self.epsilon, "bounds": self.domain}


class ToolsPercentile(_VectorTool):
    """``diffprivlib.tools.percentile`` of one percentile (quantile ``percent / 100``): one real.

    Claim: epsilon-DP (its docstring), add/remove neighbours as for the quantile.
    """

    name = "diffprivlib.tools.percentile"
    _function = "percentile"
    space = {"epsilon": EPSILON, "percent": Range(0.0, 100.0), "domain": BOUNDS}

    def __init__(
        self,
        epsilon: float = 1.0,
        percent: float = 90.0,
        domain: tuple[float, float] = (0.0, 100.0),
    ) -> None:
        super().__init__(epsilon)
        self.domain = _bounds(domain)
        self.percent = float(percent)
        self.description = (
            f"diffprivlib.tools.percentile(percent={self.percent:g}, bounds={self.domain}): "
            "exponential mechanism over intervals (Smith 2011); add/remove neighbours"
        )

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (self.percent,), {"epsilon": self.epsilon, "bounds": self.domain}


class ToolsMedian(ToolsPercentile):
    """``diffprivlib.tools.median``: the 0.5 quantile, one real; epsilon-DP, add/remove."""

    name = "diffprivlib.tools.median"
    _function = "median"
    space = {"epsilon": EPSILON, "domain": BOUNDS}

    def __init__(self, epsilon: float = 1.0, domain: tuple[float, float] = (0.0, 100.0)) -> None:
        super().__init__(epsilon, 50.0, domain)
        self.description = (
            f"diffprivlib.tools.median(bounds={self.domain}): exponential mechanism over "
            "intervals (Smith 2011); add/remove neighbours"
        )

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (), {"epsilon": self.epsilon, "bounds": self.domain}
