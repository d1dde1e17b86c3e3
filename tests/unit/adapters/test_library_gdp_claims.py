"""The ``.gdp`` adapters of diffprivlib's and python-dp's Gaussians: the μ-GDP curve their
documented N(0, σ²) noise promises, μ = Δ/σ with the library's own σ (skipped per library when
it is missing).

σ is checked three ways: μ·σ_library = Δ exactly; σ_library against the sample standard deviation
of 20,000 draws (relative standard error 1/sqrt(2n) = 0.5 %; the 3 % tolerance is 6 of them, so
a correct adapter fails < 1e-8, deterministic under diffprivlib's seed; python-dp has none); and,
for diffprivlib's classic Gaussian, against the closed form σ = Δ·sqrt(2 ln(1.25/δ))/ε.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from auditor.core.claim_kinds import GaussianDP
from auditor.core.spec import check_adapter

N = 20_000
TOLERANCE = 0.03  # 6 relative standard errors of a sample standard deviation at N


def _check_gdp(adapter, parent, library_sigma: float, sensitivity: float) -> None:
    """The claim is μ-GDP with μ = Δ/σ, the spec audits it, the draws have that σ."""
    assert isinstance(adapter.claim, GaussianDP)
    assert adapter.sigma == library_sigma
    assert adapter.claim.mu == pytest.approx(sensitivity / library_sigma, rel=1e-15)
    spec = check_adapter(adapter)
    assert spec.claim == adapter.claim and spec.claim.kind == "gdp"
    # the library is called with its own (ε, δ); epsilon/delta state the point μ-GDP implies
    assert (adapter.library_epsilon, adapter.library_delta) == (parent.epsilon, parent.delta)
    assert (adapter.epsilon, adapter.delta) == (adapter.claim.epsilon, adapter.claim.delta)
    x = adapter.sample(1.5, N)
    assert x.shape == (N,) and x.dtype == np.float64
    assert abs(x.mean() - 1.5) < 6 * library_sigma / math.sqrt(N)
    assert abs(x.std() / library_sigma - 1.0) < TOLERANCE
    # the description says which promise is audited
    assert "the N(0, σ²) noise its docs state, as μ-GDP with μ = Δ/σ" in adapter.description
    assert f"{adapter.claim.mu:.6g}" in adapter.description


# --- diffprivlib ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dpl():
    pytest.importorskip("diffprivlib")
    from auditor.adapters import diffprivlib_adapters

    return diffprivlib_adapters


@pytest.mark.parametrize(
    ("cls", "parent_cls", "name", "kwargs"),
    [
        ("GaussianGDP", "Gaussian", "diffprivlib.gaussian.gdp", {}),
        ("GaussianGDP", "Gaussian", "diffprivlib.gaussian.gdp", {"sensitivity": 2.0}),
        ("GaussianAnalyticGDP", "GaussianAnalytic", "diffprivlib.gaussian_analytic.gdp", {}),
        (
            "GaussianAnalyticGDP",
            "GaussianAnalytic",
            "diffprivlib.gaussian_analytic.gdp",
            {"epsilon": 2.0, "delta": 1e-6, "sensitivity": 0.5},
        ),
    ],
)
def test_diffprivlib_gaussians_claim_the_gdp_curve_of_their_noise(
    dpl, cls, parent_cls, name, kwargs
):
    adapter = getattr(dpl, cls)(**kwargs)
    parent = getattr(dpl, parent_cls)(**kwargs)
    assert isinstance(adapter, type(parent)) and adapter.name == name
    assert adapter.description.startswith(f"diffprivlib.mechanisms.{parent_cls} (")
    library_sigma = math.sqrt(parent._mechanism().variance(0.0))  # the library's own σ
    adapter.seed(2024)
    _check_gdp(adapter, parent, library_sigma, parent.sensitivity)
    # sampling is the parent's: the same seed gives the same draws
    adapter.seed(7)
    parent.seed(7)
    np.testing.assert_array_equal(adapter.sample(0.0, 50), parent.sample(0.0, 50))


def test_diffprivlib_classic_gaussian_mu_is_the_closed_form(dpl):
    eps, delta = 0.5, 1e-5
    mu = dpl.GaussianGDP(epsilon=eps, delta=delta, sensitivity=3.0).claim.mu
    assert mu == pytest.approx(eps / math.sqrt(2 * math.log(1.25 / delta)), rel=1e-12)


def test_diffprivlib_gdp_adapters_run_by_default(dpl):
    names = [a.name for a in dpl.builtin_adapters()]
    assert {"diffprivlib.gaussian.gdp", "diffprivlib.gaussian_analytic.gdp"} <= set(names)
    assert names.index("diffprivlib.gaussian.gdp") == names.index("diffprivlib.gaussian") + 1


# --- python-dp --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pdp():
    pytest.importorskip("pydp")
    from auditor.adapters import pydp_adapters

    return pydp_adapters


@pytest.mark.parametrize(
    "kwargs", [{}, {"epsilon": 0.5, "delta": 1e-6, "sensitivity": 2.0}], ids=["default", "other"]
)
def test_pydp_gaussian_claims_the_gdp_curve_of_its_noise(pdp, kwargs):
    from pydp.algorithms.numerical_mechanisms import GaussianMechanism

    adapter = pdp.GaussianMechanismGDP(**kwargs)
    parent = pdp.GaussianMechanism(**kwargs)
    assert isinstance(adapter, pdp.GaussianMechanism) and adapter.name == "pydp.gaussian.gdp"
    assert adapter.description.startswith("python-dp GaussianMechanism.add_noise (")
    library = GaussianMechanism(parent.epsilon, parent.delta, parent.sensitivity)
    _check_gdp(adapter, parent, float(library.std), parent.sensitivity)


def test_pydp_gdp_adapter_pickles_and_runs_by_default(pdp):
    import pickle

    names = [a.name for a in pdp.builtin_adapters()]
    assert names.index("pydp.gaussian.gdp") == names.index("pydp.gaussian") + 1
    copy = pickle.loads(pickle.dumps(pdp.GaussianMechanismGDP()))
    assert copy.claim == pdp.GaussianMechanismGDP().claim
    assert copy._object.epsilon == 1.0 and copy._object.delta == 1e-5
    assert copy.sample(0.0, 4).shape == (4,)
