"""White-box extras run in the main process; one that hangs gets the engine's timeout and ends
as an ``error``, and the rest of the audit goes on."""

from __future__ import annotations

import time

import bad_adapters

from attacks import load_attacks
from auditor import AuditConfig, run_audit
from auditor.adapters.textbook import NaiveExponential
from auditor.core.configs import EngineConfig


class HangingOracle(NaiveExponential):
    """Samples fine, but its ``probabilities`` white-box extra never returns."""

    def probabilities(self, query):
        time.sleep(3600)


def test_a_hanging_probabilities_oracle_is_an_error_and_the_audit_goes_on():
    adapters = [HangingOracle(1.0, name="bad.hanging_oracle"), bad_adapters.GoodGeometric()]
    start = time.monotonic()
    report = run_audit(
        adapters,
        load_attacks(["truncated-addition", "black-box"]),
        AuditConfig(budget=2000, seed=4),
        engine=EngineConfig(backend="local", workers=1, timeout=1.0),
    )
    assert time.monotonic() - start < 60
    hanging, good = report.results
    assert hanging.verdict.value == "error"
    assert (
        "adapter 'bad.hanging_oracle': the white-box check of attack 'truncated-addition' did "
        "not return within 1 s" in hanging.error
    )
    assert good.verdict.value == "no_violation"
