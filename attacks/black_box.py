"""Black-box attack: standard neighbouring inputs for each family, events learned from data.

Needs no model of the implementation.  It catches wrong calibration (too little noise, a
missing 1/2 in the exponential mechanism, wrong randomized-response probabilities) and
noiseless releases, through the model-free distinguisher in
``auditor.estimators.event_selection``.

Assumptions:
    None about the implementation; only the declared sensitivity / neighbouring relation.

References:
    Ding et al., "Detecting Violations of Differential Privacy" (CCS 2018).
"""

from __future__ import annotations

import math

import numpy as np

from auditor.claims import Family
from auditor.estimators.event_selection import DataDrivenEvents
from auditor.trials import Trial
from auditor.validation import AdapterSpec


def _dataset_pairs(spec: AdapterSpec) -> list[tuple[np.ndarray, np.ndarray, str]]:
    assert spec.domain is not None
    lo, hi = spec.domain
    base = np.full(10, (lo + hi) / 2.0)
    if spec.neighbours == "replace":
        changed = base.copy()
        changed[0] = hi
        other = base.copy()
        other[0] = lo
        return [
            (base, changed, "10 records at the domain midpoint; one replaced by the upper bound"),
            (other, changed, "one record moved from the lower to the upper bound"),
        ]
    return [
        (
            base,
            np.append(base, hi),
            "10 records at the domain midpoint, plus one at the upper bound",
        ),
        (
            np.full(10, lo),
            np.append(np.full(10, lo), hi),
            "10 records at the lower bound, plus one at the upper bound",
        ),
    ]


class BlackBoxAttack:
    """Standard neighbours per family, events chosen on a training split."""

    name = "black-box"
    description = "model-free: standard neighbouring inputs, threshold/outcome events learned on a training split"

    def applies_to(self, spec: AdapterSpec) -> bool:
        return True

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        d = DataDrivenEvents()
        family = spec.family
        if family is Family.ADDITIVE:
            assert spec.sensitivity is not None
            step = math.floor(spec.sensitivity) if spec.integer_queries else spec.sensitivity
            if step <= 0:
                return []
            x_prime = int(step) if spec.integer_queries else float(step)
            return [Trial(0, x_prime, d, f"inputs 0 and {x_prime!r} (one sensitivity apart)")]
        if family is Family.BINARY:
            return [Trial(0, 1, d, "bits 0 and 1")]
        if family is Family.SELECTION:
            assert spec.sensitivity is not None
            s, k = spec.sensitivity, 4
            zeros = np.zeros(k)
            apart = np.array([s] + [-s] * (k - 1))
            return [
                Trial(
                    zeros,
                    apart,
                    d,
                    f"{k} equal utilities vs the first up and the rest down by the sensitivity",
                ),
                Trial(
                    zeros,
                    np.array([s] + [0.0] * (k - 1)),
                    d,
                    f"{k} equal utilities vs the first up by the sensitivity",
                ),
            ]
        return [Trial(x, xp, d, text) for x, xp, text in _dataset_pairs(spec)]
