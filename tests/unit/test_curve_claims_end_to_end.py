"""Claims beyond one (epsilon, delta) point, audited end to end: a Gaussian against its μ-GDP
curve (caught with 15 % too little noise, where the point audit of the same promise sees
nothing), a Laplace mechanism against the zCDP claim its pure DP implies, ``--claim`` and
``assert_private(claim=...)``."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attacks import load_attacks
from auditor.core.claim_kinds import GaussianDP, ZeroConcentratedDP, parse_claim
from auditor.core.claims import PrivacyClaim
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.engine.runner import run_audit
from dp_audit.pytest_plugin import assert_private


class Gaussian:
    """q + N(0, sigma^2), rounded to 2^-20 (post-processing: the same curve, no float grid)."""

    family = "additive"
    sensitivity = 1.0

    def __init__(self, sigma: float, claim: object) -> None:
        self.sigma, self.claim = sigma, claim
        self.name = f"test.gaussian(sigma={sigma:g})"
        self._rng = np.random.default_rng(0)

    def seed(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def sample(self, query: float, n: int) -> np.ndarray:
        y = float(query) + self._rng.normal(0.0, self.sigma, size=n)
        return np.round(y * 2.0**20) / 2.0**20


class Laplace(Gaussian):
    def sample(self, query: float, n: int) -> np.ndarray:
        y = float(query) + self._rng.laplace(0.0, self.sigma, size=n)
        return np.round(y * 2.0**20) / 2.0**20


def audit(adapter: object, seed: int = 0, budget: int = 200_000, claim: object = None):
    config = AuditConfig(budget=budget, seed=seed, claim=claim)
    (result,) = run_audit([adapter], load_attacks(None), config).results
    return result


def test_too_little_noise_violates_the_gdp_curve_but_not_the_point_it_implies():
    mu = 1.0
    short = Gaussian(0.85 / mu, GaussianDP(mu))  # true mu = 1 / 0.85 = 1.18
    result = audit(short)
    assert result.verdict is Verdict.VIOLATION, result.to_dict()
    record = result.to_dict()
    assert record["parameter"] == "mu" and 1.0 < record["claim_bound"] < 1.0 / 0.85
    assert record["claim"]["kind"] == "gdp" and record["claim"]["mu"] == mu
    # the (eps, delta) point the same claim implies: its evidence sits in far tails
    point = PrivacyClaim(GaussianDP(mu).epsilon_for_delta(1e-5), 1e-5)
    assert audit(short, claim=point).verdict is Verdict.NO_VIOLATION


def test_a_correct_gaussian_passes_its_gdp_claim_with_a_tight_bound():
    result = audit(Gaussian(1.0, GaussianDP(1.0)))
    assert result.verdict is Verdict.NO_VIOLATION
    assert 0.85 < result.best.estimate.bound <= 1.0
    assert "mu" in result.power["statement"]


@pytest.mark.parametrize("seed", range(3))
def test_laplace_is_not_called_broken_as_the_zcdp_claim_its_pure_dp_implies(seed):
    eps = 1.0
    laplace = Laplace(1.0 / eps, PrivacyClaim(eps))
    result = audit(laplace, seed=seed, budget=50_000, claim=ZeroConcentratedDP(eps**2 / 2))
    assert result.verdict is Verdict.NO_VIOLATION, result.to_dict()
    # the same run against half the rho it implies is caught
    if seed == 0:
        strict = audit(laplace, budget=50_000, claim=ZeroConcentratedDP(eps**2 / 8))
        assert strict.verdict is Verdict.VIOLATION


def test_assert_private_takes_a_claim_of_any_kind():
    assert_private(Gaussian(1.0, PrivacyClaim(5.0, 1e-5)), budget=50_000, claim="gdp:mu=1")
    with pytest.raises(AssertionError):
        assert_private(Gaussian(0.5, PrivacyClaim(5.0, 1e-5)), budget=50_000, claim="gdp:mu=1")


def test_cli_claim_option_parses_and_rejects_with_the_syntax():
    from auditor.core.errors import InvalidArgument
    from dp_audit.cli import build_parser

    args = build_parser().parse_args(["run", "--claim", "zcdp:rho=0.5,delta=1e-5"])
    assert args.claim == parse_claim("zcdp:rho=0.5,delta=1e-5")
    assert args.claim.delta == 1e-5
    with pytest.raises(InvalidArgument, match="gdp takes no key 'sigma'") as info:
        build_parser().parse_args(["run", "--claim", "gdp:sigma=1"])
    assert "gdp:mu=1" in str(info.value)


def test_white_box_evidence_is_stated_in_the_curve_parameter() -> None:
    # exact probabilities are judged by the curve's own test (mu from (p0, p1)), not as an
    # epsilon compared with mu; evidence without probabilities (a sensitivity ratio) is dropped
    import dataclasses

    from auditor.adapters.textbook import NaiveExponential
    from auditor.core.claim_kinds import GaussianDP
    from auditor.core.configs import AuditConfig
    from auditor.core.results import EpsilonEstimate, EventCounts, ExactEvidence
    from auditor.core.spec import check_adapter
    from auditor.core.trials import Trial
    from auditor.engine.certify import Certifier
    from auditor.statistics.exact import exact_estimate

    claim = GaussianDP(1.0)
    spec = dataclasses.replace(check_adapter(NaiveExponential()), claim=claim)
    certifier = Certifier(spec, AuditConfig(), 1e-3, lambda n: None)

    class Attack:
        name = "exact"

    def finding(estimate: EpsilonEstimate):
        trial = Trial(0, 1, None, "pair", exact=lambda s: ExactEvidence(0, 1, estimate))  # type: ignore[arg-type]
        return certifier._exact(Attack(), trial)  # type: ignore[arg-type]

    zeroed = finding(exact_estimate(2.2e-16, 0.0, claim.delta, "zeroed"))
    assert zeroed is not None and zeroed.estimate.claim_bound == math.inf
    assert zeroed.estimate.violates(claim)
    mild = finding(exact_estimate(0.5, 0.3, claim.delta, "mild"))
    assert mild is not None and mild.estimate.parameter == "mu"
    assert mild.estimate.claim_bound == pytest.approx(claim.certified(0.5, 0.3))
    assert not mild.estimate.violates(claim)
    ratio = EpsilonEstimate(3.0, 3.0, 0.0, 0.0, "ratio", EventCounts(0, 0, 0, 0), white_box=True)
    assert finding(ratio) is None


def test_pytest_failure_message_states_a_curve_bound_in_its_parameter() -> None:
    from dp_audit.pytest_plugin import failure_message

    claim = {"kind": "gdp", "mu": 1.0, "report_delta": 1e-6, "epsilon": 4.88, "delta": 1e-6}
    result = {
        "adapter": "a", "verdict": "violation", "claim": {**claim, "description": "1-GDP"},
        "claim_bound": 1.2, "parameter": "mu", "epsilon_lower_bound": 0.5,
        "counts": {"k0": 9, "n0": 10, "k1": 0, "n1": 10}, "queries": [0, 1],
    }  # fmt: skip
    text = failure_message(result, 0.05, 0, 100)
    assert "μ ≥ 1.2 for a claimed 1-GDP" in text and "epsilon >=" not in text


def test_a_zcdp_claim_a_third_too_small_is_caught_on_cells_and_reported_as_such():
    # N(0, 1) noise is exactly 0.5-zCDP; claimed at 0.5 / 1.3, no single event's Bernoulli
    # divergence reaches the claim at this budget (about 2/pi of rho), the cells do
    from reports import RENDERERS
    from reports.reproducer import NotReproducible, render_reproducer

    short = Gaussian(1.0, ZeroConcentratedDP(0.5 / 1.3))
    report = run_audit([short], load_attacks(None), AuditConfig(budget=200_000, seed=0))
    (result,) = report.results
    assert result.verdict is Verdict.VIOLATION, result.to_dict()
    record = result.to_dict()
    assert record["estimator"] == "clopper-pearson-cells"
    assert 0.5 / 1.3 < record["claim_bound"] <= 0.5
    assert " cells of " in record["event"] and "outputs per cell on x:" in record["event"]
    assert record["epsilon_lower_bound"] > 0.0  # the (eps, delta) statement of the same box
    data = report.to_dict()
    md = RENDERERS["md"][1](data)
    assert "- best cut:" in md and "simultaneous Clopper-Pearson limits" in md
    assert "best cut" in RENDERERS["html"][1](data)
    with pytest.raises(NotReproducible, match="several cells"):
        render_reproducer(data["results"][0], "mechanism = None")
    # the same noise against its true rho: no violation
    assert audit(Gaussian(1.0, ZeroConcentratedDP(0.5))).verdict is Verdict.NO_VIOLATION


def test_a_profile_table_that_stops_above_the_report_delta_is_audited_not_an_error():
    """An accountant's table ending at delta = 1e-5 implies no epsilon at 1e-6; the attacks that
    set a noise scale from the claim read its last point instead of failing on infinity.  The
    Gaussian with sigma = 3.73 (delta(1) = 1e-5, delta(0.5) = 4.1e-3) keeps the true table and
    breaks one that says 1e-3 at 0.5."""
    true = parse_claim("profile:0.5=5e-3,1=1e-5")
    assert (true.epsilon, true.delta) == (1.0, 1e-5)
    result = audit(Gaussian(3.7306, true))
    assert result.error is None and result.verdict is Verdict.NO_VIOLATION, result.to_dict()
    broken = audit(Gaussian(3.7306, parse_claim("profile:0.5=1e-3,1=1e-5")), budget=1_000_000)
    assert broken.error is None and broken.verdict is Verdict.VIOLATION, broken.to_dict()
