"""Adapters for IBM's diffprivlib (``pip install dp-audit[libs]``).

diffprivlib's mechanisms release one value per ``randomise`` call, so every adapter here loops in
Python (``vectorised = False``).  All of them accept a ``random_state``: ``seed(entropy)`` hands
them a ``numpy.random.RandomState`` derived from the entropy; until then the library's own
default is used (``secrets.SystemRandom`` for mechanisms, numpy's global state for ``tools``).

diffprivlib is imported lazily: importing this module is cheap, and :func:`builtin_adapters`
raises ``ImportError`` when the library is missing (the loader reports it as skipped).

The adapters live one kind a module (``noise``, ``selection``, ``tools``, ``vector_tools``;
``common`` holds what they share); this package names them all.

References:
    Holohan et al., "Diffprivlib: The IBM Differential Privacy Library", arXiv:1907.02444 (2019).
"""

from __future__ import annotations

from typing import Any

from auditor.adapters.diffprivlib_adapters.noise import (
    Gaussian,
    GaussianAnalytic,
    GaussianAnalyticGDP,
    GaussianGDP,
    Geometric,
    Laplace,
    LaplaceBoundedDomain,
    LaplaceTruncated,
    Snapping,
)
from auditor.adapters.diffprivlib_adapters.selection import Binary, Exponential
from auditor.adapters.diffprivlib_adapters.tools import ToolsMean, ToolsSum
from auditor.adapters.diffprivlib_adapters.vector_tools import (
    ToolsHistogram,
    ToolsHistogramdd,
    ToolsMedian,
    ToolsPercentile,
    ToolsQuantile,
)

__all__ = [
    "Binary",
    "Exponential",
    "Gaussian",
    "GaussianAnalytic",
    "GaussianAnalyticGDP",
    "GaussianGDP",
    "Geometric",
    "Laplace",
    "LaplaceBoundedDomain",
    "LaplaceTruncated",
    "Snapping",
    "ToolsHistogram",
    "ToolsHistogramdd",
    "ToolsMean",
    "ToolsMedian",
    "ToolsPercentile",
    "ToolsQuantile",
    "ToolsSum",
    "builtin_adapters",
    "vector_adapters",
]


def builtin_adapters() -> list[Any]:
    """diffprivlib's mechanisms at their default audit parameters (raises ImportError if absent)."""
    import diffprivlib  # noqa: F401  (ImportError here means: skipped, install the extra)

    return [
        Laplace(),
        LaplaceTruncated(),
        LaplaceBoundedDomain(),
        Geometric(),
        Gaussian(),
        GaussianGDP(),
        GaussianAnalytic(),
        GaussianAnalyticGDP(),
        Snapping(),
        Exponential(),
        Binary(),
        ToolsSum(),
        ToolsMean(),
    ]


def vector_adapters() -> list[Any]:
    """diffprivlib's tools with vector or dataset outputs (opt-in: one library call per
    output makes each a minute or more at the default budget)."""
    import diffprivlib  # noqa: F401  (ImportError here means: skipped, install the extra)

    return [
        ToolsHistogram(),
        ToolsHistogramdd(),
        ToolsQuantile(),
        ToolsPercentile(),
        ToolsMedian(),
    ]
