"""Black-box search for selection mechanisms: opposite moves, a few k and shapes, learned events.

The worst case for the exponential mechanism and report-noisy-max is not "one utility moves":
it is many outcomes moving by the full sensitivity in *opposite* directions, so that the gap
between two groups of outcomes changes by twice the sensitivity.  That is exactly what the
factor 1/2 in ``exp(eps*u/(2*sensitivity))`` pays for; an implementation that drops it (weights
``exp(eps*u/sensitivity)``) or report-noisy-max with Laplace noise calibrated for monotone
queries (scale ``sensitivity/eps``) loses up to 2*epsilon on such pairs.

Each trial draws, with the attack's rng, a number of outcomes k, a base vector (all equal, or
spread within one sensitivity) and a sign pattern (one up and the rest down, one down and the
rest up, half and half, random signs); x is the base and x' moves every utility by the full
sensitivity in its sign's direction.  Events are outcome sets learned on a training split
(``DataDrivenEvents``) and certified on fresh samples.  Declared ``utility_bounds`` are
respected: utilities stay inside them (the move shrinks if the range is narrower than twice
the sensitivity).

Assumptions:
    None about the implementation; only the declared sensitivity.

References:
    McSherry & Talwar (FOCS 2007), exponential mechanism; Dwork & Roth (2014), section 3.3,
    report-noisy-max; Ding et al., "Detecting Violations of Differential Privacy" (CCS 2018).
"""

from __future__ import annotations

import math

import numpy as np

from attacks.selection_common import (
    bounds_note,
    declared_neighbours,
    middle,
    outcome_counts,
    pull_within,
    within,
)
from auditor.core.claims import Family
from auditor.core.spec import AdapterSpec
from auditor.core.trials import Trial
from auditor.statistics.events.event_selection import DataDrivenEvents

#: numbers of outcomes the search draws from
K_CHOICES = (2, 3, 8, 32, 100)
#: sign patterns of the move from x to x'
SHAPES = ("one up, rest down", "one down, rest up", "half up, half down", "random signs")
#: base vectors x
BASES = ("equal", "spread")
#: trials per adapter (each costs 2 x budget outputs)
N_TRIALS = 4


def signs_for(shape: str, k: int, rng: np.random.Generator) -> np.ndarray:
    """+-1 per outcome; always at least one of each sign."""
    if shape == "one up, rest down":
        signs = -np.ones(k)
        signs[0] = 1.0
    elif shape == "one down, rest up":
        signs = np.ones(k)
        signs[0] = -1.0
    elif shape == "half up, half down":
        signs = np.where(np.arange(k) < (k + 1) // 2, 1.0, -1.0)
    elif shape == "random signs":
        signs = rng.choice([-1.0, 1.0], size=k)
        signs[0], signs[-1] = 1.0, -1.0
        signs = rng.permutation(signs)
    else:
        raise ValueError(f"shape={shape!r} must be one of {SHAPES}")
    return signs


def search_pair(
    k: int,
    shape: str,
    base: str,
    sensitivity: float,
    bounds: tuple[float, float] | None,
    rng: np.random.Generator,
    integer: bool = False,
) -> tuple[np.ndarray, np.ndarray, float]:
    """x (the base) and x' = x + step * signs, with |step| <= sensitivity and inside bounds;
    whole numbers throughout when ``integer``.

    Returns (x, x_prime, step).
    """
    centre, room = middle(bounds)
    step = min(sensitivity, room)
    spread = min(sensitivity, room - step) if base == "spread" else 0.0
    if integer:
        centre, step, spread = math.floor(centre), math.floor(step), math.floor(spread)
        offsets = rng.integers(-spread, spread + 1, size=k) if spread > 0 else np.zeros(k)
    else:
        offsets = rng.uniform(-spread, spread, size=k) if spread > 0 else np.zeros(k)
    x = centre + offsets.astype(float)
    x_prime = pull_within(x, x + step * signs_for(shape, k, rng), step)
    if bounds is not None:
        x_prime = np.clip(x_prime, bounds[0], bounds[1])  # clipping only moves towards x
    return x, x_prime, float(step)


class SelectionSearchAttack:
    """Randomised opposite-move neighbours for selection mechanisms, events learned from data."""

    name = "selection-search"
    description = (
        "black-box: utility vectors whose outcomes move by the full sensitivity in opposite "
        "directions (catches a missing 1/2, too little noise), outcome-set events learned on a "
        "training split"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        return spec.family is Family.SELECTION

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        assert spec.sensitivity is not None
        bounds = spec.utility_bounds
        counts = [k for k in outcome_counts(spec, K_CHOICES) if k >= 2]
        combos = [(k, shape, base) for k in counts for shape in SHAPES for base in BASES]
        chosen = rng.choice(len(combos), size=min(N_TRIALS, len(combos)), replace=False)
        trials = []
        for index in chosen:
            k, shape, base = combos[int(index)]
            x, x_prime, step = search_pair(
                k, shape, base, spec.sensitivity, bounds, rng, spec.integer_queries
            )
            if step <= 0 or not (
                within(x, bounds)
                and within(x_prime, bounds)
                and declared_neighbours(spec, x, x_prime)
            ):
                continue
            trials.append(
                Trial(
                    x=x,
                    x_prime=x_prime,
                    distinguisher=DataDrivenEvents(),
                    description=(
                        f"selection search: k={k}, {base} base utilities, x' moves them by "
                        f"{step:g} ({shape})" + bounds_note(bounds)
                    ),
                )
            )
        return trials
