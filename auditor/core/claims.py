"""The privacy claim an implementation makes, and the four families of mechanisms.

:class:`PrivacyClaim` is the (epsilon, delta) claim every adapter states; it also speaks the
interface of :class:`auditor.core.claim_kinds.Claim` (trade-off curve, event test, certified
bound), so an event found by an attack is judged the same way for every kind of claim.  The
few numerical helpers every kind shares (the tolerance, the (epsilon, delta) trade-off curve,
the checks of a confidence corner) live here, below ``claim_kinds``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
import numpy.typing as npt

from auditor.core.errors import InvalidArgument

#: relative tolerance of every "is the corner below the curve" comparison: a claim is called
#: violated only when the certified bound exceeds the claimed value by more than this (plus
#: ``ABS_TOLERANCE``), so floating-point error can only hide a violation, never invent one
REL_TOLERANCE = 1e-12
#: absolute part of the tolerance (parameters and probabilities are O(1) or smaller)
ABS_TOLERANCE = 1e-15

FloatArray = npt.NDArray[np.float64]


class Family(StrEnum):
    """How an attack talks to an implementation: the query it sends and the output it gets.

    ``additive``: query is the true answer f(D) (a number); outputs are numbers.
    ``selection``: query is a utility vector of k numbers; outputs are indices in [0, k).
    ``binary``: query is a bit; outputs are bits.
    ``dataset``: query is a 1-D array of records in a declared domain; outputs are numbers,
    NaN standing for the "no answer" symbol ⊥.
    """

    ADDITIVE = "additive"
    SELECTION = "selection"
    BINARY = "binary"
    DATASET = "dataset"


@dataclass(frozen=True)
class PrivacyClaim:
    """What an implementation promises: (epsilon, delta)-differential privacy.

    Raises:
        InvalidArgument: epsilon is not a finite number > 0, or delta is not in [0, 1).
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        eps, delta = self.epsilon, self.delta
        if (
            isinstance(eps, bool)
            or not isinstance(eps, int | float)
            or not math.isfinite(eps)
            or eps <= 0
        ):
            raise InvalidArgument(f"epsilon={eps!r} must be a finite number > 0")
        if (
            isinstance(delta, bool)
            or not isinstance(delta, int | float)
            or not (0.0 <= delta < 1.0)
        ):
            raise InvalidArgument(f"delta={delta!r} must be a number in [0, 1)")
        object.__setattr__(self, "epsilon", float(eps))
        object.__setattr__(self, "delta", float(delta))

    def to_dict(self) -> dict[str, float]:
        return {"epsilon": self.epsilon, "delta": self.delta}

    # -- the Claim interface (auditor.core.claim_kinds.Claim) --------------------------------

    @property
    def kind(self) -> str:
        """``"pure"`` when delta == 0, else ``"approx"``."""
        return "pure" if self.delta == 0.0 else "approx"

    @property
    def parameter(self) -> str:
        """Certified bounds are epsilon lower bounds at the claim's own delta."""
        return "epsilon"

    @property
    def value(self) -> float:
        return self.epsilon

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """f_{eps,delta}(a), never above the true curve (KOV15; DRS19 Prop. 2.5)."""
        return eps_delta_tradeoff(check_levels(a), self.epsilon, self.delta)

    def delta_for_epsilon(self, epsilon: float) -> float:
        """The tight delta(e) of every (eps0, delta0)-DP pair: sup_S P(S) - e^e Q(S).

        The worst pair for (eps0, delta0) (Kairouz, Oh, Viswanath 2015, KOV15) puts mass
        delta0 where only P lives and randomised response with e^eps0 on the rest, so
        ``delta(e) = delta0 + (1 - delta0) (e^eps0 - e^e)_+ / (1 + e^eps0)``; equivalently
        ``sup_a 1 - e^e a - f_{eps0,delta0}(a)`` (DRS19 Prop. 2.12), whose sup is at the kink
        a = (1 - delta0) / (1 + e^eps0).  (``delta0 + (1 - delta0)(1 - e^(e - eps0))`` is an upper
        value but not tight: at e = 0 it gives 1 - e^-eps0 instead of tanh(eps0 / 2).)
        Exactly delta0 for e >= eps0; a relative 1e-12 high otherwise (an upper value).
        """
        e = check_epsilon_arg(epsilon)
        if e >= self.epsilon:
            return self.delta
        # (e^eps0 - e^e) / (1 + e^eps0) = -expm1(e - eps0) / (1 + e^-eps0)
        frac = -math.expm1(e - self.epsilon) / (1.0 + math.exp(-self.epsilon))
        return min(1.0, round_up(self.delta + (1.0 - self.delta) * frac))

    def epsilon_for_delta(self, delta: float) -> float:
        """The smallest epsilon >= 0 with ``delta_for_epsilon(epsilon) <= delta`` (inf if none)."""
        d = check_delta_arg(delta)
        if d < self.delta:
            return math.inf
        if self.delta_for_epsilon(0.0) <= d:
            return 0.0
        if d == self.delta:
            return self.epsilon
        # invert delta0 + (1 - delta0)(e^eps0 - e^e)/(1 + e^eps0) = d for e
        inner = math.exp(self.epsilon) - (d - self.delta) * (1.0 + math.exp(self.epsilon)) / (
            1.0 - self.delta
        )
        e = math.log(inner) if inner > 0 else 0.0
        return min(self.epsilon, smallest_valid_epsilon(self.delta_for_epsilon, e, d))

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        """The largest epsilon at this delta the corner still refutes (0.0 if none).

        The corner (a, b) = (p1_hi, 1 - p0_lo) lies below f_{eps,delta} iff one of its two
        branches is above it: ``1 - delta - e^eps a > b``, i.e. eps < ln((p0_lo - delta)/p1_hi)
        (the estimator's formula, ``auditor.statistics.clopper_pearson``), or
        ``e^-eps (1 - delta - a) > b``, i.e. eps < ln((1 - delta - p1_hi)/(1 - p0_lo)) (the
        complement event read the other way round: P[M(x') not in S] <= e^eps P[M(x) not in S]
        + delta).  The bound is the larger of the two; each is increasing in p0_lo and
        decreasing in p1_hi, so the corner is the worst point of the confidence box.
        """
        p0, p1 = check_corner(p0_lo, p1_hi)
        return max(event_epsilon(p0, p1, self.delta), 0.0)

    def violated(self, p0_lo: float, p1_hi: float) -> bool:
        """The corner lies strictly below f_{eps,delta} (beyond the tolerance).

        f_{eps,delta} is symmetric (f = f^-1), so the test of the corner against f also covers
        the reversed reading T(M(x'), M(x)) >= f the definition asks for.
        """
        return exceeds(self.certified(p0_lo, p1_hi), self.epsilon)

    def with_value(self, v: float) -> PrivacyClaim:
        return PrivacyClaim(v, self.delta)

    def describe(self) -> str:
        if self.delta == 0.0:
            return f"{self.epsilon:g}-DP"
        return f"({self.epsilon:g}, {self.delta:g})-DP"


def log_ratio(num: float, den: float) -> float:
    """ln(num / den) for num > 0 (inf when den <= 0); -inf when num <= 0 (no bound).

    The bound an event gives on epsilon through one inequality P(S) <= e^eps Q(S) + delta,
    with num = P(S) - delta and den = Q(S).
    """
    if num <= 0.0:
        return -math.inf
    if den <= 0.0:
        return math.inf
    return math.log(num / den)


# -- helpers shared by every claim kind (auditor.core.claim_kinds) ----------------------------

#: an upper bound of the rounding error of ``(1.0 - p) - delta`` for p, delta in [0, 1]: two
#: subtractions of numbers <= 1, each off by at most half an ulp of 1
_COMPLEMENT_ERROR = 2.0**-52


def event_epsilon(p0: float, p1: float, delta: float) -> float:
    """The larger of the two epsilon bounds an event gives at ``delta`` (-inf if neither).

    ``ln((p0 - delta) / p1)``, the estimator's formula, exactly as it computes it (p0 - delta
    is within half an ulp of its value: exact by Sterbenz's lemma when p0 <= 2 delta), and
    ``ln((1 - delta - p1) / (1 - p0))``, the complement event read the other way round, with
    its numerator lowered and its denominator raised by their rounding errors (1 - delta - p1
    can cancel to a tiny number; 1 - p0 is exact for p0 >= 1/2).
    """
    num = (1.0 - p1) - delta - _COMPLEMENT_ERROR
    den = (1.0 - p0) + (0.0 if p0 >= 0.5 else _COMPLEMENT_ERROR)
    return max(log_ratio(p0 - delta, p1), log_ratio(num, den))


def exceeds(certified: float, value: float) -> bool:
    """``certified > value`` beyond the tolerance: the one comparison behind every ``violated``."""
    return certified > value * (1.0 + REL_TOLERANCE) + ABS_TOLERANCE


def lower_curve(f: FloatArray) -> FloatArray:
    """A computed curve lowered by the tolerance and clipped to [0, 1]: never above the truth."""
    return np.clip(f - REL_TOLERANCE * np.abs(f) - ABS_TOLERANCE, 0.0, 1.0)


def round_up(x: float) -> float:
    """``x`` raised by the relative tolerance: an upper value of a delta computed in floats."""
    return x + abs(x) * REL_TOLERANCE if x != 0.0 else 0.0


def eps_delta_tradeoff(a: FloatArray, epsilon: Any, delta: Any) -> FloatArray:
    """max(0, 1 - delta - e^eps a, e^-eps (1 - delta - a)), lowered by the tolerance.

    ``epsilon`` and ``delta`` may be arrays broadcasting against ``a`` (Kairouz, Oh,
    Viswanath 2015; DRS19 Prop. 2.5, after Wasserman & Zhou 2010).
    """
    eps = np.asarray(epsilon, dtype=np.float64)
    dlt = np.asarray(delta, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        # e^eps * a with 0 * inf read as 0 (a = 0 with an overflowing e^eps)
        scaled = np.where(a > 0.0, np.exp(eps) * a, 0.0)
        f = np.maximum(np.maximum(1.0 - dlt - scaled, np.exp(-eps) * (1.0 - dlt - a)), 0.0)
    return lower_curve(np.asarray(f, dtype=np.float64))


def profile_tradeoff(a: FloatArray, epsilons: FloatArray, deltas: FloatArray) -> FloatArray:
    """sup over the given (eps_k, delta_k) of f_{eps_k,delta_k}(a) (DRS19 Prop. 2.12).

    A sup over finitely many points of a privacy profile is below the sup over all of them,
    so the curve is conservative.
    """
    out = np.zeros_like(a, dtype=np.float64)
    for e, d in zip(epsilons.tolist(), deltas.tolist(), strict=True):
        out = np.maximum(out, eps_delta_tradeoff(a, e, d))
    return out


def check_levels(a: npt.ArrayLike) -> FloatArray:
    """``a`` as a float array of type-I error levels in [0, 1].

    Raises:
        InvalidArgument: a value is not a number in [0, 1].
    """
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"a={a!r} must be numbers in [0, 1]") from exc
    if not np.all((arr >= 0.0) & (arr <= 1.0)):
        raise InvalidArgument(f"a={a!r} must be numbers in [0, 1]")
    return arr


def _number(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, int | float | np.floating | np.integer)


def check_probability(x: Any, name: str) -> float:
    """``x`` as a float in [0, 1]; InvalidArgument naming ``name`` otherwise."""
    if not _number(x) or not (0.0 <= float(x) <= 1.0):
        raise InvalidArgument(f"{name}={x!r} must be a number in [0, 1]")
    return float(x)


def check_corner(p0_lo: Any, p1_hi: Any) -> tuple[float, float]:
    """The confidence corner (p0_lo, p1_hi) as floats in [0, 1].

    Raises:
        InvalidArgument: either is not a number in [0, 1].
    """
    return check_probability(p0_lo, "p0_lo"), check_probability(p1_hi, "p1_hi")


def check_epsilon_arg(epsilon: Any) -> float:
    """An epsilon at which a delta is asked: a finite number >= 0."""
    if not _number(epsilon) or not math.isfinite(float(epsilon)) or float(epsilon) < 0:
        raise InvalidArgument(f"epsilon={epsilon!r} must be a finite number >= 0")
    return float(epsilon)


def check_delta_arg(delta: Any) -> float:
    """A delta at which an epsilon is asked: a number in [0, 1]."""
    return check_probability(delta, "delta")


def smallest_valid_epsilon(delta_of: Callable[[float], float], start: float, delta: float) -> float:
    """``start`` raised until ``delta_of(epsilon) <= delta``: rounding made safe for the claim.

    ``start`` is a computed root of ``delta_of(e) = delta``; the step doubles from a relative
    1e-15, so a root off by rounding is fixed in a few calls.  inf if none below 2^60.
    """
    e = max(start, 0.0)
    step = max(e * 1e-15, 1e-18)
    while delta_of(e) > delta:
        e += step
        step *= 2.0
        if e > 2.0**60:
            return math.inf
    return e
