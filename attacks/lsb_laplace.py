"""Least-significant-bit attack on floating-point Laplace (Mironov 2012).

The textbook ``f(x) + Lap(b)`` in doubles reaches a porous set of outputs that depends on
f(x).  With neighbours x and x' (distance = the sensitivity), an output that the sampler
cannot produce at x' proves the input was x.  The event "output is not reachable from x'" has
probability about 0.8 at x and exactly 0 at x', so pure DP fails with epsilon = infinity; the
certified bound grows like ln(n).

Assumptions:
    The implementation uses one of the modelled samplers.  A model is used only when it
    validates on the training split: 100 % of the outputs drawn at each input must be judged
    reachable from that input.  Otherwise the attack proposes nothing.

References:
    Mironov, "On significance of the least significant bits for differential privacy",
    CCS 2012, sections 4.5-4.7.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attacks.laplace_models import NumpyLaplaceModel, candidate_models
from auditor.claims import Family
from auditor.trials import CertificationPlan, Event, Trial
from auditor.validation import AdapterSpec


def unreachable_event(model: NumpyLaplaceModel, loc: float) -> Event:
    return Event(
        f"output is a double that {model.label} (scale {model.scale!r}) cannot produce at input {loc!r}",
        lambda y, m=model, loc=loc: ~m.reachable(y, loc),
        white_box=True,
    )


@dataclass
class LSBDistinguisher:
    """Picks the sampler model that explains every training output, then proposes its holes."""

    x: float
    x_prime: float
    models: list[NumpyLaplaceModel]
    max_events: int = 2
    train_fraction: float = 0.05

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        if not (
            np.issubdtype(train_x.dtype, np.floating)
            and np.issubdtype(train_x_prime.dtype, np.floating)
        ):
            return []
        for model in self.models:
            if (
                model.reachable(train_x, self.x).all()
                and model.reachable(train_x_prime, self.x_prime).all()
            ):
                return [unreachable_event(model, self.x_prime), unreachable_event(model, self.x)]
        return []


class LSBLaplaceAttack:
    """Mironov's attack on additive mechanisms that add float Laplace noise."""

    name = "lsb-laplace"
    description = (
        "Mironov's least-significant-bit attack on floating-point Laplace (white-box sampler model)"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        return spec.family is Family.ADDITIVE

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        assert spec.sensitivity is not None
        x, x_prime = 0.0, float(spec.sensitivity)
        models = candidate_models(spec.sensitivity, spec.claim.epsilon)
        return [
            Trial(
                x=x,
                x_prime=x_prime,
                distinguisher=LSBDistinguisher(x, x_prime, models),
                description=f"inputs {x!r} and {x_prime!r} (one sensitivity apart); numpy Laplace sampler model",
            )
        ]
