"""Exactness of the floating-point Laplace sampler models (membership tests by bisection).

All tests are deterministic (fixed seeds).  The self-support tests cannot fail by chance: a
model that is the implementation judges every output reachable, by construction.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from float_mechanisms import (
    DividedLaplace,
    GeneratorLaplace,
    LegacyLaplace,
    NumpyInverseCDFLaplace,
    PythonInverseCDFLaplace,
    RandomSignLogULaplace,
    TextbookGaussian,
)

from attacks.laplace_models import (
    INVERSE_CDF_SAMPLER,
    LIBM_LOG,
    LOG_U_SAMPLER,
    NUMPY_LOG,
    NUMPY_SAMPLER,
    LaplaceSamplerModel,
    ScaleOp,
    candidate_models,
    numpy_laplace_model,
    scale_ops,
)

N = 20_000


def draw(mech, query: float, n: int = N, seed: int = 7) -> np.ndarray:
    mech.seed(seed)
    return mech.sample(query, n)


@pytest.mark.parametrize("loc", [0.0, 1.0, -3.5, 1e6])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 7.0])
def test_numpy_model_explains_every_generator_output(epsilon: float, loc: float) -> None:
    mech = GeneratorLaplace(epsilon)
    assert numpy_laplace_model(mech.scale).reachable(draw(mech, loc), loc).all()


def test_numpy_model_explains_legacy_randomstate_outputs() -> None:
    mech = LegacyLaplace(0.5)
    for loc in (0.0, 1.0):
        assert numpy_laplace_model(mech.scale).reachable(draw(mech, loc), loc).all()


@pytest.mark.parametrize(
    ("mech", "model"),
    [
        (
            GeneratorLaplace(0.3),
            LaplaceSamplerModel(NUMPY_SAMPLER, LIBM_LOG, ScaleOp("mul", 1 / 0.3)),
        ),
        (
            PythonInverseCDFLaplace(0.3),
            LaplaceSamplerModel(INVERSE_CDF_SAMPLER, LIBM_LOG, ScaleOp("mul", 1 / 0.3)),
        ),
        (
            NumpyInverseCDFLaplace(0.3),
            LaplaceSamplerModel(INVERSE_CDF_SAMPLER, NUMPY_LOG, ScaleOp("mul", 1 / 0.3)),
        ),
        (
            RandomSignLogULaplace(0.3),
            LaplaceSamplerModel(LOG_U_SAMPLER, NUMPY_LOG, ScaleOp("mul", 1 / 0.3)),
        ),
        (DividedLaplace(0.1), LaplaceSamplerModel(NUMPY_SAMPLER, LIBM_LOG, ScaleOp("div", 0.1))),
    ],
    ids=["generator", "python-inverse-cdf", "numpy-inverse-cdf", "log-u", "divided"],
)
def test_each_sampler_has_a_model_with_full_self_support(mech, model) -> None:
    for loc in (0.0, 1.0):
        assert model.reachable(draw(mech, loc), loc).all()


@pytest.mark.parametrize(
    ("mech", "wrong"),
    [
        # numpy's upper branch rounds (2.0 - U) - U, the inverse CDF's 1 - 2|u| is exact
        (
            GeneratorLaplace(0.3),
            LaplaceSamplerModel(INVERSE_CDF_SAMPLER, LIBM_LOG, ScaleOp("mul", 1 / 0.3)),
        ),
        # C-library log vs numpy's SIMD log
        (
            PythonInverseCDFLaplace(0.3),
            LaplaceSamplerModel(INVERSE_CDF_SAMPLER, NUMPY_LOG, ScaleOp("mul", 1 / 0.3)),
        ),
        (
            NumpyInverseCDFLaplace(0.3),
            LaplaceSamplerModel(INVERSE_CDF_SAMPLER, LIBM_LOG, ScaleOp("mul", 1 / 0.3)),
        ),
        # log(U) on the 2^-53 grid is not the numpy structure
        (
            RandomSignLogULaplace(0.3),
            LaplaceSamplerModel(NUMPY_SAMPLER, NUMPY_LOG, ScaleOp("mul", 1 / 0.3)),
        ),
        # division by 0.1 is not multiplication by 10.0
        (DividedLaplace(0.1), numpy_laplace_model(10.0)),
        (GeneratorLaplace(0.1), LaplaceSamplerModel(NUMPY_SAMPLER, LIBM_LOG, ScaleOp("div", 0.1))),
        # a scale one ulp off
        (GeneratorLaplace(1.0), numpy_laplace_model(math.nextafter(1.0, 2.0))),
    ],
    ids=[
        "numpy-vs-invcdf",
        "libm-vs-simd",
        "simd-vs-libm",
        "logu-vs-numpy",
        "div-vs-mul",
        "mul-vs-div",
        "scale-ulp",
    ],
)
def test_a_model_that_does_not_match_fails_self_validation(mech, wrong) -> None:
    y = draw(mech, 0.0)
    assert not wrong.reachable(y, 0.0).all()


def test_no_model_explains_gaussian_noise() -> None:
    mech = TextbookGaussian(1.0)
    y = draw(mech, 0.0, 2000)
    for model in candidate_models(1.0, 1.0):
        assert not model.reachable(y, 0.0).all()


def test_most_outputs_at_zero_are_unreachable_from_one() -> None:
    mech = GeneratorLaplace(1.0)
    y = draw(mech, 0.0)
    frac = 1 - numpy_laplace_model(1.0).reachable(y, 1.0).mean()
    assert frac > 0.7  # measured ~0.8 (Mironov's porous support)


def test_membership_matches_brute_force_around_known_outputs() -> None:
    """Outputs built from known uniforms are reachable; their neighbour doubles are judged
    exactly as a brute-force scan of the uniforms around them judges them."""
    scale, loc = 2.5, 0.75
    model = numpy_laplace_model(scale)
    rng = np.random.default_rng(3)
    ks = rng.integers(1, (1 << 53) - 1, 300)
    for k in ks.tolist():
        u = k * 2.0**-53
        y = loc - scale * math.log(2.0 - u - u) if u >= 0.5 else loc + scale * math.log(u + u)
        assert model.reachable(np.array([y]), loc)[0]
        for y2 in (math.nextafter(y, math.inf), math.nextafter(y, -math.inf)):
            found = False
            for k2 in range(k - 64, k + 65):
                if not 0 < k2 < 1 << 53:
                    continue
                v = k2 * 2.0**-53
                z = (
                    loc - scale * math.log(2.0 - v - v)
                    if v >= 0.5
                    else loc + scale * math.log(v + v)
                )
                found |= z == y2
            if found:
                assert model.reachable(np.array([y2]), loc)[0]
            elif abs(y2 - loc) > 4 * scale:
                # far in the tail consecutive uniforms are many ulps apart: a 129-uniform scan
                # covers every candidate, so the model must agree it is unreachable
                assert not model.reachable(np.array([y2]), loc)[0]


def test_scale_ops_validate_and_deduplicate() -> None:
    assert len(scale_ops(1.0, 0.3)) == len(set(scale_ops(1.0, 0.3)))
    assert ScaleOp("mul", 10.0) in scale_ops(1.0, 0.1)
    assert ScaleOp("div", 0.1) in scale_ops(1.0, 0.1)
    assert ScaleOp("muldiv", 3.0, 0.1) in scale_ops(3.0, 0.1)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="epsilon="):
            scale_ops(1.0, bad)
        with pytest.raises(ValueError, match="sensitivity="):
            scale_ops(bad, 1.0)
