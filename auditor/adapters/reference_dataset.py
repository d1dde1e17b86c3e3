"""Built-in adapters for the exact Dwork–Roth chapter 7 mechanisms (dataset family; ⊥ = NaN).

Parameters are chosen so that a ~100k-sample audit of each adapter runs in well under 30 s on one
core for datasets of the size attacks use (tens of records):

* ``reference.ptr_median`` — propose-test-release A_dist with g = lower median; claim
  ``(epsilon, delta) = (1, 1e-3)``; records in [0, 100]; add/remove neighbours.  One noisy test
  per release: ~10^6 releases/s.
* ``reference.iqr_scale`` — Dwork–Roth's Scale algorithm (Alg. 12) with per-step epsilon 0.25,
  so the claim is ``(4 * 0.25, 1e-3) = (1, 1e-3)``; records in [0, 100]; add/remove neighbours.
  Four discrete-Laplace draws per release: ~3 * 10^5 releases/s.
* ``reference.subsample_aggregate`` — A_samp with f = floor(mean) of a subsample's (floored)
  records; claim ``(epsilon, delta) = (32, 0.2)``; records in [0, 10]; replace-one neighbours.
  The book's constants make the number of subsamples ``m = ln(n/delta) / q^2`` with
  ``q = epsilon / (64 ln(1/delta))``, and a release costs ``m * n`` exact coin flips.  This
  weak-looking claim keeps ``q ~ 0.31`` and ``m`` = 41 / 52 / 65 for n = 10 / 30 / 100 records:
  100k releases take ~1.2 / 2.7 / 9.5 s.  (With epsilon = 1, delta = 1e-3 the book's m would be
  ~10^6 subsamples per release: m grows like ``(64 ln(1/delta) / epsilon)^2 ln(n/delta)``.)

All three are exact (no float decides an output) and are negative controls: a correct audit must
never report a violation against them.
"""

from __future__ import annotations

from typing import Any

from auditor.adapters.reference import MechanismAdapter
from reference_mechanisms.iqr_scale import IQRScale
from reference_mechanisms.ptr import PTRMedian
from reference_mechanisms.subsample_aggregate import SubsampleAndAggregate

__all__ = [
    "IQRScaleAdapter",
    "PTRMedianAdapter",
    "SubsampleAggregateAdapter",
    "builtin_adapters",
]


class _DatasetAdapter(MechanismAdapter):
    family = "dataset"

    def __init__(self, mechanism: Any, epsilon: float, name: str) -> None:
        """``epsilon``: the claim (the Scale algorithm claims 4 times its step's epsilon)."""
        super().__init__(epsilon, delta=mechanism.delta)
        self.mechanism = mechanism
        self.domain = mechanism.domain
        self.name = name


class PTRMedianAdapter(_DatasetAdapter):
    """A_dist (propose-test-release) releasing the median, exact test; NaN for ⊥.

    References:
        Dwork, Roth, "The Algorithmic Foundations of Differential Privacy", 2014, §7.3 (A_dist).

    Assumptions:
        Neighbouring datasets differ by adding or removing one record in ``domain``.
    """

    neighbours = "add_remove"

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-3,
        domain: tuple[float, float] = (0.0, 100.0),
        name: str | None = None,
    ) -> None:
        mechanism = PTRMedian(epsilon, delta, domain)
        default = f"reference.ptr_median[eps={epsilon:g},delta={delta:g}]"
        super().__init__(mechanism, mechanism.epsilon, name or default)
        self.description = "propose-test-release median (Dwork-Roth A_dist), exact noisy test"


class IQRScaleAdapter(_DatasetAdapter):
    """Dwork–Roth Scale algorithm (Alg. 12) releasing the IQR; claim (4 eps_step, delta).

    References:
        Dwork, Roth, 2014, §7.2, Algorithm 12; Dwork, Lei, STOC 2009.

    Assumptions:
        Neighbouring datasets differ by adding or removing one record in ``domain``.
    """

    neighbours = "add_remove"

    def __init__(
        self,
        epsilon_step: float = 0.25,
        delta: float = 1e-3,
        domain: tuple[float, float] = (0.0, 100.0),
        name: str | None = None,
    ) -> None:
        mechanism = IQRScale(epsilon_step, delta, domain)
        claim = mechanism.claimed_epsilon
        default = f"reference.iqr_scale[eps={claim:g},delta={delta:g}]"
        super().__init__(mechanism, claim, name or default)
        self.description = "Dwork-Roth IQR Scale algorithm, two discretisations, exact PTR"


class SubsampleAggregateAdapter(_DatasetAdapter):
    """A_samp (subsample-and-aggregate, mode via PTR) with f = floor(mean); NaN for ⊥.

    References:
        Dwork, Roth, 2014, §7.3; Nissim, Raskhodnikova, Smith, STOC 2007.

    Assumptions:
        Neighbouring datasets have the same size and differ in one record in ``domain``.
    """

    neighbours = "replace"

    def __init__(
        self,
        epsilon: float = 32.0,
        delta: float = 0.2,
        domain: tuple[float, float] = (0.0, 10.0),
        name: str | None = None,
    ) -> None:
        mechanism = SubsampleAndAggregate(epsilon, delta, domain)
        default = f"reference.subsample_aggregate[eps={epsilon:g},delta={delta:g}]"
        super().__init__(mechanism, mechanism.epsilon, name or default)
        self.description = (
            f"Dwork-Roth A_samp, q={float(self.mechanism.q):.4g}, mode of floor(mean), exact PTR"
        )


def builtin_adapters() -> list[Any]:
    """The exact dataset-family adapters, listed under library ``dp-audit``."""
    return [
        PTRMedianAdapter(name="reference.ptr_median"),
        SubsampleAggregateAdapter(name="reference.subsample_aggregate"),
        IQRScaleAdapter(name="reference.iqr_scale"),
    ]
