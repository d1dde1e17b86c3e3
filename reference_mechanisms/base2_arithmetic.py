"""Exact arithmetic for the base-2 exponential mechanism: the privacy parameter and the weights.

The mechanism's weights are powers of a *dyadic* base ``(x / 2^y)^z``, so every weight and every
partial sum of weights is a finite binary fraction that MPFR represents exactly at a large enough
precision.  Weights are computed in a gmpy2 context with ``trap_inexact=True``: if a precision
bound were ever too small, the computation raises :class:`PrecisionError` instead of rounding
silently (Ilvento's "exact scope").  Two ways of choosing the precision are provided, as in the
reference code: an analytic bound and an empirical doubling search.

References:
    Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential Privacy", CCS 2020
    (base-2 privacy parameter eta = -z log2(x/2^y); ComputePrecision / CheckPrecision).
    Reference code: ``cilvento/b2dp`` (``params.rs``: ``Eta``; ``exactarithmetic.rs``) and the
    archived Python ``cilvento/b2_exponential_mechanism`` (``expmech.py``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import gmpy2
from gmpy2 import mpfr

__all__ = [
    "Eta",
    "PrecisionError",
    "analytic_precision",
    "empirical_precision",
    "eta_from_epsilon",
    "exact_weights",
    "iter_exact_weights",
]


class PrecisionError(ArithmeticError):
    """An MPFR operation that had to be exact was inexact: the working precision is too small."""


def _ceil_log2(x: int) -> int:
    return (x - 1).bit_length()


@dataclass(frozen=True)
class Eta:
    """Base-2 privacy parameter ``eta = -z * log2(x / 2^y)``; integers ``x, y, z > 0``, ``x < 2^y``.

    The mechanism's base is ``2^-eta = (x / 2^y)^z``, a dyadic rational in (0, 1).  An exponential
    mechanism whose integer utilities have sensitivity ``Delta`` and weights ``base^(-u)`` is
    ``2 * Delta * eta``-DP in base 2, i.e. ``epsilon = 2 * Delta * eta * ln 2`` in base e.

    Raises:
        ValueError: non-integer or non-positive x, y, z, or ``x >= 2^y``.
    """

    x: int
    y: int
    z: int = 1

    def __post_init__(self) -> None:
        for name in ("x", "y", "z"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{name}={v!r} must be a positive int")
        if self.x >= 1 << self.y:
            raise ValueError(f"x={self.x} must be < 2^y = {1 << self.y}")

    @property
    def base(self) -> Fraction:
        """``2^-eta = (x / 2^y)^z`` exactly."""
        return Fraction(self.x, 1 << self.y) ** self.z

    @property
    def eta(self) -> float:
        """``eta`` in bits (approximate float, for display only)."""
        return self.z * (self.y - math.log2(self.x))

    def eta_nats_bounds(self, precision: int = 256) -> tuple[mpfr, mpfr]:
        """Rigorous lower and upper bounds on ``eta * ln 2 = z * ln(2^y / x)`` (directed rounding)."""
        out = []
        for rnd in (gmpy2.RoundDown, gmpy2.RoundUp):
            with gmpy2.context(precision=precision, round=rnd):
                out.append(gmpy2.log(mpfr(1 << self.y) / self.x) * self.z)
        return out[0], out[1]

    def epsilon(self, sensitivity: Any = 1) -> float:
        """The base-e guarantee ``2 * ceil(Delta) * eta * ln 2``, as a float rounded *up*.

        ``ceil`` because randomized rounding to integers can turn a utility change of a
        non-integer ``Delta`` into an integer change of up to ``ceil(Delta)``.
        """
        d = math.ceil(Fraction(sensitivity))
        _, hi = self.eta_nats_bounds()
        with gmpy2.context(precision=256, round=gmpy2.RoundUp):
            v = hi * (2 * d)
        with gmpy2.context(precision=53, round=gmpy2.RoundUp):
            return float(+v)


def eta_from_epsilon(epsilon: float, sensitivity: Any = 1, *, tolerance: float = 1e-3) -> Eta:
    """The ``Eta`` (with ``z = 1``, ``x`` odd) whose guarantee is as close to ``epsilon`` as needed.

    Picks the smallest ``y`` such that the rigorous guarantee ``2 ceil(Delta) eta ln 2`` is
    ``<= epsilon`` and ``>= (1 - tolerance) epsilon`` (or the best found with ``y <= 62``).  The
    choice always *under*-approximates: ``Eta.epsilon(sensitivity) <= epsilon`` is guaranteed.

    Note the difference from the reference code: b2dp's ``Eta::from_epsilon(eps)`` targets
    ``-ln(base) = eta ln 2 <= eps`` (its granularity ~0.3), i.e. the *per-unit* parameter, and
    documents that a mechanism with utility sensitivity alpha is then ``2 alpha eta`` base-2 DP.
    Here ``epsilon`` is the *total* base-e guarantee ``2 ceil(Delta) eta ln 2``.

    Raises:
        ValueError: ``epsilon`` not finite and > 0, or no ``y <= 62`` gives a positive ``eta``
        within ``epsilon`` (epsilon below ~1e-17).
    """
    if not isinstance(epsilon, (int, float)) or not math.isfinite(epsilon) or epsilon <= 0:
        raise ValueError(f"epsilon={epsilon!r} must be finite and > 0")
    d = math.ceil(Fraction(sensitivity))
    if d <= 0:
        raise ValueError(f"sensitivity={sensitivity!r} must be > 0")
    beta = Fraction(epsilon) / (2 * d)  # target for eta * ln 2 = ln(2^y / x)
    best: Eta | None = None
    for y in range(1, 63):
        with gmpy2.context(precision=256, round=gmpy2.RoundUp):
            x = int(
                gmpy2.ceil(
                    gmpy2.exp(-gmpy2.mpfr(gmpy2.mpq(beta.numerator, beta.denominator))) * (1 << y)
                )
            )
        x = max(x, 1)
        # smallest x whose eta is provably <= beta
        while x < (1 << y) and Eta(x, y).epsilon(d) > epsilon:
            x += 1
        if x >= 1 << y:
            continue
        cand = Eta(x, y)
        if best is None or cand.epsilon(d) > best.epsilon(d):
            best = cand
        if cand.epsilon(d) >= (1 - tolerance) * epsilon:
            break
    if best is None:
        raise ValueError(f"epsilon={epsilon!r} is too small for a base-2 parameter with y <= 62")
    x, y = best.x, best.y
    while x % 2 == 0:  # x/2^y in lowest terms: fewer bits per weight
        x, y = x // 2, y - 1
    return Eta(x, y)


def _reduced(eta: Eta) -> tuple[int, int]:
    x, y = eta.x, eta.y
    while x % 2 == 0:
        x, y = x // 2, y - 1
    return x, y


def analytic_precision(eta: Eta, d_max: int, n_outcomes: int) -> int:
    """Bits that make every weight ``base^d`` (0 <= d <= d_max) and every sum of up to
    ``n_outcomes`` of them exact.

    Weights are multiples of ``2^(-y z d_max)`` (x odd after reduction) and sums are below
    ``n_outcomes``, so ``y z d_max + bitlen(n_outcomes) + 1`` bits suffice.  The returned bound,
    ``z d_max (y + ceil(log2 x)) + bitlen(n_outcomes) + 1``, mirrors Ilvento's formula
    ``(|u_max| + |u_min|) z (y + ceil(log2 x)) + max_O`` for utilities shifted to [0, d_max]
    (with ``log2`` of the outcome count instead of the count, which is what carries need).
    """
    x, y = _reduced(eta)
    return eta.z * d_max * (y + _ceil_log2(max(x, 2))) + int(n_outcomes).bit_length() + 1


def empirical_precision(eta: Eta, d_max: int, n_outcomes: int, start: int = 16) -> int:
    """Smallest ``start * 2^j`` at which a test workload runs with no inexact operation.

    Workload (Ilvento's CheckPrecision, shifted to d = u - u_best >= 0): the base, ``base^d`` for
    every d in [0, d_max], and ``n_outcomes * 1 + base^d_max``, the sum spanning the largest total
    and the smallest weight.  Since all weights are multiples of the lowest bit of ``base^d_max``,
    exactness of this sum implies exactness of every partial sum of weights.
    """
    p = int(start)
    if p < 2:
        raise ValueError(f"start={start!r} must be >= 2")
    while True:
        try:
            with gmpy2.context(precision=p, trap_inexact=True):
                b = _base_mpfr(eta)
                w = mpfr(1)
                for _ in range(d_max):
                    w = w * b
                _ = mpfr(n_outcomes) + w
            return p
        except gmpy2.InexactResultError:
            p *= 2


def _base_mpfr(eta: Eta) -> mpfr:
    """``(x / 2^y)^z`` in the current context (exact or trapped)."""
    return (mpfr(eta.x) / mpfr(1 << eta.y)) ** eta.z


def iter_exact_weights(eta: Eta, d_max: int, precision: int | None = None) -> Iterator[mpfr]:
    """Yield ``base^d`` for d = 0..d_max, each computed exactly (inexact operations trapped).

    ``base^d = x'^(zd) / 2^(y'zd)`` (``x'/2^y'`` in lowest terms), so its mantissa is the
    ``zd bitlen(x')``-bit integer ``x'^(zd)``.  With ``precision=None`` each weight gets exactly
    that analytic bound (plus one bit), so memory and time stay proportional to the weight's own
    size; the weights are built by repeated exact multiplication by the base.  With an explicit
    ``precision`` every operation uses it; too small a value raises :class:`PrecisionError`.
    """
    x, _ = _reduced(eta)
    mant_bits = eta.z * x.bit_length()
    d = 0
    try:
        with gmpy2.context(precision=precision or mant_bits + 1, trap_inexact=True):
            b = _base_mpfr(eta)
            w = mpfr(1)
        yield w
        for d in range(1, d_max + 1):
            p = precision if precision is not None else mant_bits * d + 1
            with gmpy2.context(precision=p, trap_inexact=True):
                w = w * b
            yield w
    except gmpy2.InexactResultError as exc:
        raise PrecisionError(
            f"precision={precision} bits is too small for the exact weight base^{d} "
            f"of eta=(x={eta.x}, y={eta.y}, z={eta.z})"
        ) from exc


def exact_weights(eta: Eta, d_max: int, precision: int | None = None) -> list[mpfr]:
    """``[base^0, ..., base^d_max]`` exactly, as mpfr (see :func:`iter_exact_weights`)."""
    return list(iter_exact_weights(eta, d_max, precision))
