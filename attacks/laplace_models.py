"""Exact models of floating-point Laplace samplers, for membership tests.

A model answers "could the implementation output exactly ``y`` when the true answer is
``loc``?".  Every branch of a textbook sampler is a monotone map from the integer index ``k``
of its uniform ``U = k * 2**-53`` to a double, so the preimage of ``y`` is an interval of ``k``
and membership is decided by bisection over ``k`` (about 53 evaluations per branch).

Bisection runs vectorised with ``numpy.log``.  numpy's SIMD ``log`` is not always the C
library's correctly rounded ``log`` that the samplers call, so the final decision re-evaluates
the few ``k`` around the bisection point with ``math.log`` (the C library's).  An imperfect
model can only make the attack weaker, never unsound: the events it proposes are certified on
fresh samples like any other.

References:
    Mironov, "On significance of the least significant bits for differential privacy" (CCS 2012).
    numpy ``distributions.c::random_laplace`` (the branch structure modelled here).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_LIBM_LOG = np.frompyfunc(math.log, 1, 1)
_TWO53 = 2.0**-53
_HALF = 1 << 52
_TOP = (1 << 53) - 1


def _libm_log(x: np.ndarray) -> np.ndarray:
    return _LIBM_LOG(x).astype(np.float64)


@dataclass(frozen=True)
class NumpyLaplaceModel:
    """numpy's Laplace sampler with location ``loc`` (or noise added to ``loc`` afterwards).

    ``U = k * 2**-53``; ``U >= 0.5``: ``loc - scale*log(2.0 - U - U)``; ``0 < U < 0.5``:
    ``loc + scale*log(U + U)``.  Adding the noise to the value afterwards, as textbook code
    does, computes the same doubles.
    """

    scale: float
    label: str = "numpy Laplace"

    def _low(self, k: np.ndarray, loc: float, log=np.log) -> np.ndarray:
        u = k.astype(np.float64) * _TWO53
        return loc + self.scale * log(u + u)

    def _high(self, k: np.ndarray, loc: float, log=np.log) -> np.ndarray:
        u = k.astype(np.float64) * _TWO53
        return loc - self.scale * log((2.0 - u) - u)

    def reachable(self, y: np.ndarray, loc: float) -> np.ndarray:
        """Boolean array: which outputs ``y`` this sampler can produce at ``loc``."""
        y = np.asarray(y, dtype=np.float64)
        hit = np.zeros(y.shape, dtype=bool)
        for branch, lo_k, hi_k in ((self._low, 1, _HALF - 1), (self._high, _HALF, _TOP)):
            lo = np.full(y.shape, lo_k, dtype=np.int64)
            hi = np.full(y.shape, hi_k, dtype=np.int64)
            while True:
                open_ = lo < hi
                if not open_.any():
                    break
                mid = (lo + hi) // 2
                above = branch(mid, loc) >= y
                hi = np.where(open_ & above, mid, hi)
                lo = np.where(open_ & ~above, mid + 1, lo)
            for offset in (-2, -1, 0, 1, 2):
                k = np.clip(lo + offset, lo_k, hi_k)
                todo = ~hit
                if todo.any():
                    hit[todo] |= branch(k[todo], loc, log=_libm_log) == y[todo]
        return hit


def candidate_models(sensitivity: float, epsilon: float) -> list[NumpyLaplaceModel]:
    """The scales textbook code computes for Laplace(sensitivity / epsilon), deduplicated."""
    scales = {sensitivity / epsilon, sensitivity * (1.0 / epsilon), 1.0 / (epsilon / sensitivity)}
    return [NumpyLaplaceModel(scale=s) for s in sorted(scales)]
