"""Exact reference implementations of the mechanisms dp-audit audits (negative controls).

Every probability that decides an output is an exact comparison of uniform integers (CKS20
style), never a float; randomness is injected (``rng`` with ``.integers(low, high, size)``:
a seeded ``numpy.random.Generator`` in tests, :class:`SystemRandomness` by default).

Known limitation shared by all exact rejection samplers: the running time depends on the output
(timing side channel, Jin et al. S&P 2022); sample offline or under a fixed time budget where
that matters.
"""

from __future__ import annotations

from reference_mechanisms.base2_exponential import (
    Base2ExponentialMechanism,
    Eta,
    PrecisionError,
    eta_from_epsilon,
)
from reference_mechanisms.bernoulli import sample_bernoulli, sample_bernoulli_exp
from reference_mechanisms.discrete_gaussian import (
    calibrate_discrete_gaussian,
    discrete_gaussian_delta,
    discrete_gaussian_pmf,
    sample_discrete_gaussian,
)
from reference_mechanisms.discrete_laplace import (
    discrete_laplace_pmf,
    sample_discrete_laplace,
    sample_geometric,
    sample_geometric_exp,
)
from reference_mechanisms.float_noise import (
    calibrate_gaussian_float,
    sample_gaussian_float,
    sample_laplace_float,
)
from reference_mechanisms.geometric_rr import (
    rr_probability,
    sample_randomized_response,
    sample_two_sided_geometric,
    sample_two_sided_geometric_exp,
)
from reference_mechanisms.iqr_scale import IQRScale
from reference_mechanisms.noisy_max import NoisyTopK, ReportNoisyMaxWithValue
from reference_mechanisms.ptr import PTRMedian
from reference_mechanisms.quantile import ExponentialQuantile
from reference_mechanisms.randomness import IntegerSource, SystemRandomness
from reference_mechanisms.rappor import Rappor
from reference_mechanisms.report_noisy_max import ReportNoisyMax
from reference_mechanisms.snapping import sample_snapping, snapping_parameters
from reference_mechanisms.sparse_vector import AboveThreshold, SparseVector
from reference_mechanisms.subsample_aggregate import SubsampleAndAggregate
from reference_mechanisms.vector_noise import VectorDiscreteGaussian, VectorDiscreteLaplace

__all__ = [
    "AboveThreshold",
    "Base2ExponentialMechanism",
    "ExponentialQuantile",
    "NoisyTopK",
    "Rappor",
    "ReportNoisyMaxWithValue",
    "SparseVector",
    "VectorDiscreteGaussian",
    "VectorDiscreteLaplace",
    "Eta",
    "IQRScale",
    "IntegerSource",
    "PTRMedian",
    "PrecisionError",
    "ReportNoisyMax",
    "SubsampleAndAggregate",
    "SystemRandomness",
    "calibrate_discrete_gaussian",
    "calibrate_gaussian_float",
    "discrete_gaussian_delta",
    "discrete_gaussian_pmf",
    "discrete_laplace_pmf",
    "eta_from_epsilon",
    "rr_probability",
    "sample_bernoulli",
    "sample_bernoulli_exp",
    "sample_discrete_gaussian",
    "sample_discrete_laplace",
    "sample_gaussian_float",
    "sample_geometric",
    "sample_geometric_exp",
    "sample_laplace_float",
    "sample_randomized_response",
    "sample_snapping",
    "sample_two_sided_geometric",
    "sample_two_sided_geometric_exp",
    "snapping_parameters",
]
