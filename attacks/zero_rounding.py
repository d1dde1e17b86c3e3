"""Zero-rounding attack on the floating-point exponential mechanism (Ilvento 2020, attack 1).

``numpy.exp`` returns exactly 0.0 below about e^-745.13.  A naive exponential mechanism that
exponentiates raw utilities (no max-shift / log-sum-exp) therefore gives outcomes whose weight
underflows probability exactly 0.  Choose utilities at the edge: outcome 0 at u (weight the
smallest subnormals, still > 0) and the other k-1 outcomes one sensitivity worse (weights 0.0)
on x, and every outcome at u on x'.  On x the output is always 0; on x' it is uniform, so
"output != 0" has probability 0 versus (k-1)/k and pure DP fails with epsilon = infinity.
A mechanism that shifts utilities by their best value before exponentiating is unaffected.

The attack does not know the implementation's convention or scale, so it tries both utility
conventions (higher-is-better ``exp(+c*u)`` and loss ``exp(-c*u)``) and a few weight scales
``c``: the textbook ``eps/(2*sensitivity)``, the missing-1/2 ``eps/sensitivity`` and, when the
sensitivity is not 1, ``eps/2`` (sensitivity ignored).  For each, u puts outcome 0 in the
middle of the underflow window, so small differences in how ``c*u`` is rounded do not matter.

Every pair moves each utility by at most the declared sensitivity.  Declared
``utility_bounds`` are respected: the mechanism clamps utilities outside them, so a pair that
would need such utilities is not tried (and no trial is returned when none fits).

Assumptions:
    None for soundness (events are certified on fresh samples).  Power needs weights of the
    form exp(+-c*u) in float64 with one of the scales above and no shift of the utilities.

References:
    Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential Privacy",
    CCS 2020, section 3 (zero rounding); code cilvento/b2_exponential_mechanism, naive.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from attacks.selection_common import (
    CONVENTIONS,
    Convention,
    FixedAndLearnedEvents,
    bounds_note,
    index_set_event,
    largest_move,
    outcome_counts,
    pull_within,
    within,
)
from auditor.core.claims import Family
from auditor.core.spec import AdapterSpec
from auditor.core.trials import Trial

#: numbers of outcomes tried; the larger makes "output != 0" likely on x' ((k-1)/k).  The
#: textbook scale gets the large k and the missing-1/2 scale the small one, so each mechanism
#: is tried at both sizes without doubling the trials (each costs 2 x budget outputs).
K_LARGE, K_SMALL = 100, 10


def _smallest_nonzero_exponent() -> float:
    """The smallest double z with ``numpy.exp(z) > 0`` (about -745.1332), by bisection."""
    lo, hi = -800.0, -700.0  # exp(lo) == 0, exp(hi) > 0
    while True:
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            return hi
        if np.exp(mid) > 0.0:
            hi = mid
        else:
            lo = mid


UNDERFLOW_EDGE = _smallest_nonzero_exponent()


@dataclass(frozen=True)
class WeightScale:
    """A hypothesis about the implementation's weights ``exp(sign * factor * u)``."""

    label: str
    factor: float
    #: number of outcomes tried with this scale
    k: int


def weight_scales(epsilon: float, sensitivity: float) -> list[WeightScale]:
    """The scales tried: textbook, missing 1/2, and (sensitivity != 1) sensitivity ignored."""
    scales = [
        WeightScale("eps*u/(2*sensitivity) (textbook)", epsilon / (2.0 * sensitivity), K_LARGE),
        WeightScale("eps*u/sensitivity (missing 1/2)", epsilon / sensitivity, K_SMALL),
    ]
    if sensitivity != 1.0:
        scales.append(WeightScale("eps*u/2 (sensitivity ignored)", epsilon / 2.0, K_LARGE))
    return scales


def edge_utility(
    scale: WeightScale, convention: Convention, sensitivity: float, integer: bool = False
) -> float | None:
    """Utility u with ``exp(sign*c*u) > 0`` and ``exp(sign*c*(u - sign*sensitivity)) == 0``
    (a whole number when ``integer``: the window is ``sensitivity >= 1`` wide, so it holds one).

    u sits in the middle of the window (in exponent space the window has width
    ``c * sensitivity``).  Returns None when float64 rounding leaves no such u.
    """
    c, s = scale.factor, convention.sign
    z = UNDERFLOW_EDGE + c * sensitivity / 2.0
    u = s * z / c
    if not math.isfinite(u):
        return None
    for candidate in (float(round(u)), math.floor(u), math.ceil(u)) if integer else (u,):
        worse = _worse(candidate, convention, sensitivity)
        if np.exp(s * c * candidate) > 0.0 and np.exp(s * c * worse) == 0.0:
            return float(candidate)
    return None


def _worse(u: float, convention: Convention, sensitivity: float) -> float:
    """``u`` made worse by the sensitivity, at most the sensitivity away exactly."""
    return float(pull_within([u], [u - convention.sign * sensitivity], sensitivity)[0])


def zero_rounding_pair(
    u: float, convention: Convention, sensitivity: float, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """x: outcome 0 at u, the rest one sensitivity worse; x': all at u."""
    x = np.full(k, _worse(u, convention, sensitivity))
    x[0] = u
    return x, np.full(k, u)


class ZeroRoundingAttack:
    """Ilvento's zero-rounding (underflow) attack on selection mechanisms."""

    name = "zero-rounding"
    description = (
        "utilities at the float64 exp underflow edge: the other outcomes' weights are exactly "
        "0.0 on one neighbour only (Ilvento 2020)"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        return spec.family is Family.SELECTION

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        assert spec.sensitivity is not None
        step, bounds = largest_move(spec), spec.utility_bounds
        if step <= 0:
            return []  # no integer move within the sensitivity
        trials = []
        for convention in CONVENTIONS:
            # the weights' scale is the declared sensitivity's; the move may be smaller
            for scale in weight_scales(spec.claim.epsilon, spec.sensitivity):
                u = edge_utility(scale, convention, step, spec.integer_queries)
                if u is None:
                    continue
                (k,) = outcome_counts(spec, (scale.k,))
                if k < 2:
                    continue  # one outcome: nothing to select
                x, x_prime = zero_rounding_pair(u, convention, step, k)
                if within(x, bounds) and within(x_prime, bounds):
                    trials.append(_trial(x, x_prime, u, scale, convention, bounds))
        return trials


def _trial(
    x: np.ndarray,
    x_prime: np.ndarray,
    u: float,
    scale: WeightScale,
    convention: Convention,
    bounds: tuple[float, float] | None,
) -> Trial:
    k = len(x)
    events = [index_set_event(np.arange(1, k), k), index_set_event([0], k)]
    worse = "lower" if convention.sign > 0 else "higher"
    return Trial(
        x=x,
        x_prime=x_prime,
        distinguisher=FixedAndLearnedEvents(events),
        description=(
            f"zero rounding, {convention.name} utilities, weights "
            f"exp({'+' if convention.sign > 0 else '-'}{scale.label}): k={k}; x has outcome 0 "
            f"at u={u!r} and the others {worse} by the sensitivity, x' has all at u; the "
            f"others' weights underflow to 0.0 on x only" + bounds_note(bounds)
        ),
    )
