"""Power of the floating-point attacks at realistic budgets (certified bounds, fixed seeds).

The textbook float Laplace at 1e6 samples per side, one look: the LSB event has probability
~0.8 at x and exactly 0 at x', so the certified bound is ln(0.8 n / ln(2/alpha')) ~ 12; the
test asks for 10.  Failing by chance needs k0 < 0.25 n at p = 0.8 (probability < 1e-100).
Smaller versions at 1e5 live in tests/unit/attacks.
"""

from __future__ import annotations

import pytest
from float_mechanisms import PythonInverseCDFLaplace, TextbookGaussian

from attacks import load_attacks
from auditor.adapters.textbook import TextbookLaplace
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.engine.runner import run_audit

ONE_LOOK = ((1.0, 1.0),)


def audit(adapter, attack: str, budget: int):
    config = AuditConfig(budget=budget, loop_budget=budget, seed=21, looks=ONE_LOOK)
    return run_audit([adapter], load_attacks([attack]), config).results[0]


# ~3 s each (2e6 exact membership tests): under the ~20 s threshold, so in the default suite
@pytest.mark.parametrize("epsilon", [0.1, 1.0])
def test_lsb_certifies_ten_within_a_million(epsilon: float) -> None:
    result = audit(TextbookLaplace(epsilon=epsilon), "lsb-laplace", 1_000_000)
    assert result.verdict is Verdict.VIOLATION
    assert result.best.estimate.epsilon_lower_bound >= 10.0  # measured 12.1
    assert result.best.estimate.counts.k1 == 0
    assert result.samples <= 2_000_000


@pytest.mark.slow
def test_precision_bound_grows_like_log_n_on_gaussian() -> None:
    small = audit(TextbookGaussian(1.0), "precision", 20_000).best.estimate
    large = audit(TextbookGaussian(1.0), "precision", 400_000).best.estimate
    assert small.counts.k1 == large.counts.k1 == 0
    # 20x the samples, zero hits on the impossible side: the bound rises by about ln(20) ~ 3
    assert large.epsilon_lower_bound - small.epsilon_lower_bound > 2.5


@pytest.mark.slow
def test_lsb_python_inverse_cdf_at_larger_budget() -> None:
    result = audit(PythonInverseCDFLaplace(0.5), "lsb-laplace", 200_000)
    assert result.verdict is Verdict.VIOLATION
    assert result.best.estimate.epsilon_lower_bound >= 9.0
