"""The reference mechanisms are negative controls: the harness must not find a violation.

Soundness check of both sides at once: if a reference sampler were wrong (or the runner
unsound), a certified violation would show up here.  The runner's certification holds at
family-wise level alpha = 0.05 over the whole run, so a false "violation" on a correct
mechanism has probability <= 0.05 per seed; with the fixed seed the outcome is deterministic.
"""

from __future__ import annotations

import pytest

from auditor.adapters.reference import builtin_adapters
from auditor.core.results import Verdict


@pytest.mark.parametrize("budget", [5_000, pytest.param(200_000, marks=pytest.mark.slow)])
def test_reference_adapters_pass_their_own_audit(budget: int) -> None:
    from attacks import load_attacks
    from auditor.core.configs import AuditConfig
    from auditor.engine.runner import run_audit

    config = AuditConfig(budget=budget, seed=11)
    report = run_audit(builtin_adapters(), load_attacks(config.attacks), config)
    verdicts = {r.adapter: r.verdict for r in report.results}
    assert len(verdicts) == len(builtin_adapters())
    assert all(v is Verdict.NO_VIOLATION for v in verdicts.values()), verdicts
    for r in report.results:
        assert r.epsilon_lower_bound is None or r.epsilon_lower_bound <= 1.0 + 1e-9
