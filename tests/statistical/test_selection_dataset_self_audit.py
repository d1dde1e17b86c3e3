"""The exact selection and dataset reference adapters are negative controls: no violation.

The runner certifies at family-wise level alpha = 0.05 per run, so a false "violation" on a
correct mechanism has probability <= 0.05 per seed; with the fixed seed the outcome is
deterministic.  A violation here means a reference sampler or the runner is wrong.
"""

from __future__ import annotations

import pytest

from auditor.adapters.reference_dataset import builtin_adapters as dataset_adapters
from auditor.adapters.reference_selection import builtin_adapters as selection_adapters
from auditor.core.results import Verdict


@pytest.mark.parametrize("budget", [5_000, pytest.param(100_000, marks=pytest.mark.slow)])
def test_selection_and_dataset_reference_adapters_pass_their_own_audit(budget: int) -> None:
    from attacks import load_attacks
    from auditor.core.configs import AuditConfig
    from auditor.engine.runner import run_audit

    adapters = selection_adapters() + dataset_adapters()
    claims = {a.name: a.epsilon for a in adapters}
    config = AuditConfig(budget=budget, seed=12)
    report = run_audit(adapters, load_attacks(config.attacks), config)
    verdicts = {r.adapter: r.verdict for r in report.results}
    assert set(verdicts) == set(claims)
    assert all(v is Verdict.NO_VIOLATION for v in verdicts.values()), verdicts
    for r in report.results:
        assert r.epsilon_lower_bound is None or r.epsilon_lower_bound <= claims[r.adapter] + 1e-9
