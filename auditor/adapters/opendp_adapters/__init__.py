"""Adapters for the OpenDP library, 0.16 API (``pip install dp-audit[libs]``).

Each adapter builds one OpenDP measurement and takes its privacy claim from the library itself
(``measurement.map(d_in)``), so the audit tests what OpenDP states, not what we assume.  Where
OpenDP offers a vector domain (Laplace, geometric, Gaussian) one call on a vector of ``n`` copies
of the query releases ``n`` independent outputs (``vectorised = True``); selection, randomized
response and the dataset pipeline are called once per output.

OpenDP draws from the operating system's CSPRNG and cannot be seeded, so these adapters have no
``seed``.  The library is imported lazily; :func:`builtin_adapters` raises ``ImportError`` when
it is missing.  Building a measurement needs ``dp.enable_features("contrib")``, a process-wide
switch that OpenDP requires for these constructors.

The adapters live one measurement family a module (``noise``, ``selection``, ``local``,
``datasets``, ``vectors``; ``common`` holds what they share); this package names them all.

References:
    The OpenDP Library, https://opendp.org (proof documents linked from each constructor).
"""

from __future__ import annotations

from typing import Any

from auditor.adapters.opendp_adapters.common import _prelude, invoke_many
from auditor.adapters.opendp_adapters.datasets import ClampedSum, CountByCategories, PrivateQuantile
from auditor.adapters.opendp_adapters.local import RandomizedResponseBitvec, RandomizedResponseBool
from auditor.adapters.opendp_adapters.noise import (
    Gaussian,
    GaussianZCDP,
    Geometric,
    Laplace,
    LaplaceInteger,
)
from auditor.adapters.opendp_adapters.selection import NoisyMax, NoisyTopK, NoisyTopKMonotonic
from auditor.adapters.opendp_adapters.vectors import VectorGaussian, VectorLaplace

__all__ = [
    "ClampedSum",
    "CountByCategories",
    "Gaussian",
    "GaussianZCDP",
    "Geometric",
    "Laplace",
    "LaplaceInteger",
    "NoisyMax",
    "NoisyTopK",
    "NoisyTopKMonotonic",
    "PrivateQuantile",
    "RandomizedResponseBitvec",
    "RandomizedResponseBool",
    "VectorGaussian",
    "VectorLaplace",
    "builtin_adapters",
    "invoke_many",
    "vector_adapters",
]


def builtin_adapters() -> list[Any]:
    """OpenDP's measurements at their default audit parameters (raises ImportError if absent)."""
    _prelude()
    return [
        Laplace(),
        LaplaceInteger(),
        Geometric(),
        Gaussian(),
        GaussianZCDP(),
        NoisyMax(),
        RandomizedResponseBool(),
        ClampedSum(),
    ]


def vector_adapters() -> list[Any]:
    """OpenDP's vector, sequence and dataset-output measurements (opt-in, like every library
    vector group: several call the library once per output)."""
    _prelude()
    return [
        VectorLaplace(),
        VectorGaussian(),
        CountByCategories(),
        NoisyTopK(),
        NoisyTopKMonotonic(),
        PrivateQuantile(),
        RandomizedResponseBitvec(),
        ClampedSum(max_contributions=3),  # user-level: one user's up to 3 records
    ]
