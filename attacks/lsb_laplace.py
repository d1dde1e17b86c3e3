"""Least-significant-bit attack on floating-point Laplace (Mironov 2012).

The textbook ``f(x) + Lap(b)`` in doubles reaches a porous set of outputs that depends on
f(x).  With neighbours x and x' (distance = the sensitivity), an output that the sampler
cannot produce at x' proves the input was x.  The event "output is not reachable from x'" has
probability about 0.8 at x and exactly 0 at x', so pure DP fails with epsilon = infinity; the
certified bound grows like ln(n).

The sampler is not known in advance: :func:`attacks.laplace_models.candidate_models` lists
every modelled structure (numpy's, the inverse CDF, random-sign log U), logarithm (C library or
numpy SIMD, log or log1p) and scale formula (``D/e``, ``D*(1/e)``, ``1/(e/D)``, ``L/(e/D)``, ...).
The first model, most specific first, that explains every training output at both inputs is
used; if none does, the attack proposes nothing.

Assumptions:
    The implementation uses one of the modelled samplers.  A model is used only when it
    validates on the training split: 100 % of the outputs drawn at each input must be judged
    reachable from that input.  Soundness never depends on the model: events are certified on
    fresh samples.

References:
    Mironov, "On significance of the least significant bits for differential privacy",
    CCS 2012, sections 4.5-4.7.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np

from attacks import laplace_models
from attacks.float_pair import (
    FloatPairDistinguisher,
    PerCoordinate,
    float_inputs,
    float_training,
    float_trial,
    per_coordinate_outputs,
    vector_pair,
)
from attacks.laplace_models import LaplaceSamplerModel, candidate_models
from auditor.core.claims import Family
from auditor.core.source import event_code, literal
from auditor.core.spec import AdapterSpec
from auditor.core.trials import CertificationPlan, Event, Trial

#: training outputs per side used to reject a model cheaply before the full check
_QUICK = 256


#: the sampler models' module as standalone source, read when this module is loaded (the file
#: on disk may change later); a reproducer embeds it to apply the event without dp-audit
_MODELS_SOURCE = inspect.getsource(laplace_models).replace(
    "from __future__ import annotations\n", ""
)


def unreachable_event(model: LaplaceSamplerModel, loc: float) -> Event:
    """The event "output is a double the model cannot produce at ``loc``"."""

    def unreachable(y: np.ndarray) -> np.ndarray:
        return ~model.reachable(y, loc)

    code = event_code(
        f"~MODEL.reachable(np.asarray(x, dtype=np.float64), {literal(float(loc))})",
        f"{_MODELS_SOURCE}\n\nMODEL = {model.constructor()}",
    )
    return Event(
        f"output is a double that {model.label} cannot produce at input {loc!r}",
        unreachable,
        white_box=True,
        code=code,
    )


def validates(model: LaplaceSamplerModel, outputs: np.ndarray, loc: float) -> bool:
    """True when every output is reachable from ``loc`` under ``model`` (cheap rejection first)."""
    return bool(
        model.reachable(outputs[:_QUICK], loc).all() and model.reachable(outputs, loc).all()
    )


def select_model(
    models: list[LaplaceSamplerModel],
    train_x: np.ndarray,
    x: float,
    train_x_prime: np.ndarray,
    x_prime: float,
) -> LaplaceSamplerModel | None:
    """The first model that explains all training outputs at both inputs, or None."""
    floats = float_training(train_x, train_x_prime)
    if floats is None:
        return None
    a, b = floats
    for model in models:
        # both quick checks before either full one: a wrong model usually fails in 256 outputs
        if (
            validates(model, a[:_QUICK], x)
            and validates(model, b[:_QUICK], x_prime)
            and validates(model, a, x)
            and validates(model, b, x_prime)
        ):
            return model
    return None


@dataclass
class LSBDistinguisher(FloatPairDistinguisher):
    """Picks the sampler model that explains every training output, then proposes its holes.

    ``chosen`` records the model picked by the last ``propose`` (None: no model validated).
    """

    models: list[LaplaceSamplerModel]
    chosen: LaplaceSamplerModel | None = field(default=None, compare=False)

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        self.chosen = select_model(self.models, train_x, self.x, train_x_prime, self.x_prime)
        if self.chosen is None:
            return []
        return [unreachable_event(self.chosen, self.x_prime)]


class LSBLaplaceAttack:
    """Mironov's attack on additive mechanisms that add float Laplace noise."""

    name = "lsb-laplace"
    description = (
        "Mironov's least-significant-bit attack on floating-point Laplace (white-box sampler "
        "models, chosen by self-validation)"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        return (spec.family is Family.ADDITIVE and bool(spec.sensitivity)) or (
            per_coordinate_outputs(spec)
        )

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        assert spec.sensitivity is not None
        step = float(spec.sensitivity)
        pair = float_inputs(spec, step)
        if pair is None:
            return []  # the bounds are narrower than one sensitivity
        x, x_prime = pair
        if spec.family is not Family.ADDITIVE:
            return [self._vector_trial(spec, x, x_prime)]
        models = candidate_models(spec.sensitivity, spec.claim.epsilon)
        how = (
            f"(one sensitivity apart); {len(models)} float Laplace sampler models, validated on "
            "training outputs"
        )
        return [float_trial(x, x_prime, LSBDistinguisher(x, x_prime, models), how)]

    def _vector_trial(self, spec: AdapterSpec, x: float, x_prime: float) -> Trial:
        """Every moved coordinate attacked alone; noise calibrated to the move or, under L∞,
        to the L1 sensitivity of moving all m entries."""
        step = abs(x_prime - x)
        vx, vx_prime, moved = vector_pair(spec, x, x_prime)
        models = candidate_models(step, spec.claim.epsilon)
        if len(moved) > 1:
            models += candidate_models(step * len(moved), spec.claim.epsilon)
        parts = {j: LSBDistinguisher(x, x_prime, models) for j in moved}
        return Trial(
            x=vx,
            x_prime=vx_prime,
            distinguisher=PerCoordinate(parts),
            description=(
                f"{len(vx)} queries at {x!r}, {len(moved)} moved to {x_prime!r}; {len(models)} "
                "float Laplace sampler models per coordinate, validated on training outputs"
            ),
        )
