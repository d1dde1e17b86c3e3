"""The LSB attack end to end: model selection by self-validation, then certified events.

Runs are seeded, hence deterministic.  Over seeds, the textbook runs fail only if the event
("unreachable from x'") is hit by fewer than ~20 % of ~6000 outputs at x although its
probability is ~0.8 (chance < 1e-100); the exact mechanisms get no event at all.
"""

from __future__ import annotations

import numpy as np
import pytest
from float_mechanisms import (
    DiscretisedLaplace,
    DividedLaplace,
    ExpovariateLaplace,
    GeneratorLaplace,
    LegacyLaplace,
    NumpyInverseCDFLaplace,
    PythonInverseCDFLaplace,
    RandomSignLogULaplace,
    ScalarNumpyInverseCDFLaplace,
    ScipyLaplace,
    SnappingLike,
    TextbookGaussian,
)

from attacks import load_attacks
from attacks.laplace_models import (
    INVERSE_CDF_SAMPLER,
    LIBM_LOG,
    LOG_U_SAMPLER,
    NUMPY_LOG,
    NUMPY_SAMPLER,
    ScaleOp,
    candidate_models,
)
from attacks.lsb_laplace import LSBDistinguisher, select_model
from auditor.adapters.textbook import TextbookLaplace
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.core.trials import CertificationPlan
from auditor.engine.runner import run_audit

PLAN = CertificationPlan(n=1000, alpha=0.01, epsilon=1.0, delta=0.0)


def training(mech, n: int = 5000) -> tuple[np.ndarray, np.ndarray]:
    mech.seed(11)
    a = mech.sample(0.0, n)
    mech.seed(12)
    return a, mech.sample(mech.sensitivity, n)


@pytest.mark.parametrize(
    ("mech", "sampler", "log", "op"),
    [
        (GeneratorLaplace(0.1), NUMPY_SAMPLER, LIBM_LOG, ScaleOp("mul", 10.0)),
        (LegacyLaplace(1.0), NUMPY_SAMPLER, LIBM_LOG, ScaleOp("mul", 1.0)),
        (DividedLaplace(0.1), NUMPY_SAMPLER, LIBM_LOG, ScaleOp("div", 0.1)),
        (PythonInverseCDFLaplace(0.5), INVERSE_CDF_SAMPLER, LIBM_LOG, ScaleOp("mul", 2.0)),
        (NumpyInverseCDFLaplace(0.5), INVERSE_CDF_SAMPLER, NUMPY_LOG, ScaleOp("mul", 2.0)),
        (ScalarNumpyInverseCDFLaplace(0.5), INVERSE_CDF_SAMPLER, NUMPY_LOG, ScaleOp("mul", 2.0)),
        (RandomSignLogULaplace(0.5), LOG_U_SAMPLER, NUMPY_LOG, ScaleOp("mul", 2.0)),
        (ScipyLaplace(0.3), NUMPY_SAMPLER, LIBM_LOG, ScaleOp("mul", 1 / 0.3)),
        (ExpovariateLaplace(0.1), LOG_U_SAMPLER, LIBM_LOG, ScaleOp("div", 0.1)),
        (
            GeneratorLaplace(0.7, sensitivity=3.0),
            NUMPY_SAMPLER,
            LIBM_LOG,
            ScaleOp("mul", 3.0 / 0.7),
        ),
    ],
    ids=[
        "generator",
        "legacy",
        "divided",
        "py-invcdf",
        "np-invcdf",
        "np-scalar-invcdf",
        "log-u",
        "scipy",
        "expovariate",
        "sensitivity-3",
    ],
)
def test_select_model_picks_the_implementation(mech, sampler, log, op) -> None:
    a, b = training(mech)
    model = select_model(
        candidate_models(mech.sensitivity, mech.epsilon), a, 0.0, b, mech.sensitivity
    )
    assert model is not None
    assert (model.sampler, model.log, model.scale) == (sampler, log, op)


@pytest.mark.parametrize("formula", ["d/e", "d*(1/e)", "1/(e/d)"])
def test_select_model_finds_the_scale_formula(formula: str) -> None:
    d, e = 7.0, 0.9  # the three formulas give three different doubles here
    scale = {"d/e": d / e, "d*(1/e)": d * (1 / e), "1/(e/d)": 1 / (e / d)}[formula]
    assert len({d / e, d * (1 / e), 1 / (e / d)}) == 3
    rng = np.random.default_rng(4)
    a = rng.laplace(0.0, scale, 5000)
    b = d + rng.laplace(0.0, scale, 5000)
    model = select_model(candidate_models(d, e), a, 0.0, b, d)
    assert model is not None and model.scale == ScaleOp("mul", scale)


@pytest.mark.parametrize(
    "mech", [TextbookGaussian(1.0), SnappingLike(1.0)], ids=["gaussian", "snapping"]
)
def test_no_model_validates_for_other_noise(mech) -> None:
    a, b = training(mech, 2000)
    d = LSBDistinguisher(0.0, 1.0, candidate_models(1.0, mech.epsilon))
    assert d.propose(a, b, PLAN) == []
    assert d.chosen is None


def test_integer_outputs_get_no_event() -> None:
    d = LSBDistinguisher(0.0, 1.0, candidate_models(1.0, 1.0))
    assert d.propose(np.arange(10), np.arange(10), PLAN) == []


def test_the_proposed_event_never_fires_at_the_other_input() -> None:
    mech = GeneratorLaplace(1.0)
    a, b = training(mech)
    (event,) = LSBDistinguisher(0.0, 1.0, candidate_models(1.0, 1.0)).propose(a, b, PLAN)
    mech.seed(99)
    assert not event(mech.sample(1.0, 20_000)).any()
    mech.seed(98)
    assert event(mech.sample(0.0, 20_000)).mean() > 0.7


def audit(adapter, budget: int = 100_000, attack: str = "lsb-laplace", **config):
    report = run_audit(
        [adapter], load_attacks([attack]), AuditConfig(budget=budget, seed=3, **config)
    )
    return report.results[0]


@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_textbook_laplace_certified_at_1e5(epsilon: float) -> None:
    result = audit(TextbookLaplace(epsilon=epsilon))
    assert result.verdict is Verdict.VIOLATION
    assert result.best.estimate.epsilon_lower_bound >= 5.0  # measured 6.6 (first look, n = 5938)
    assert result.best.estimate.counts.k1 == 0


def test_python_inverse_cdf_violation_with_the_right_model() -> None:
    result = audit(PythonInverseCDFLaplace(1.0), budget=20_000)
    assert result.verdict is Verdict.VIOLATION
    assert INVERSE_CDF_SAMPLER.label in result.best.estimate.event
    assert LIBM_LOG.label in result.best.estimate.event
    assert result.best.estimate.white_box


@pytest.mark.parametrize(
    "mech",
    [SnappingLike(1.0), DiscretisedLaplace(), TextbookGaussian(1.0)],
    ids=["snapping", "discretised", "gaussian"],
)
def test_no_violation_without_a_validated_model(mech) -> None:
    result = audit(mech, budget=20_000)
    assert result.verdict is Verdict.NO_VIOLATION
    assert result.best is None
