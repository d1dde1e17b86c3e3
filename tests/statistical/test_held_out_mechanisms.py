"""Held-out mechanisms (bench/held_out_mechanisms.py, written without sight of our test
mechanisms): the correct ones are never called broken at the default budget, and the broken
ones the first run found stay found."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from attacks import load_attacks
from auditor.core.configs import AuditConfig, EngineConfig
from auditor.core.results import Verdict
from auditor.engine.runner import run_audit

FILE = Path(__file__).resolve().parents[2] / "bench" / "held_out_mechanisms.py"


@pytest.mark.slow
def test_held_out_correct_mechanisms_pass_and_the_found_broken_ones_stay_found():
    spec = importlib.util.spec_from_file_location("held_out_mechanisms", FILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    config = AuditConfig(seed=0)
    report = run_audit(module.ADAPTERS, load_attacks(None), config, engine=EngineConfig())
    verdicts = {r.adapter: r.verdict for r in report.results}
    assert all(r.error is None for r in report.results), [r.error for r in report.results]
    correct = [a.name for a in module.ADAPTERS if ".correct(" in a.name]
    assert len(correct) == 7
    assert all(verdicts[name] is Verdict.NO_VIOLATION for name in correct), verdicts
    found = ["noisy_min.half_noise", "dataset_hist.add_remove_scale", "em_median.no_half"]
    found.append("rr4.binary_formula")
    for part in found:
        (name,) = [n for n in verdicts if part in n]
        assert verdicts[name] is Verdict.VIOLATION, (name, verdicts[name])
