"""Strict adapters (bench/strict_adapters.py): 113 correct mechanisms of every input and
output kind, each refusing any input its declaration does not allow, are all audited -- no
``error`` (an attack sent an undeclared input: 11 of them did on 2026-11-27) and, being
correct, no violation."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from attacks import load_attacks
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.engine.runner import run_audit

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.slow
def test_every_strict_adapter_is_audited_without_error_or_violation():
    spec = importlib.util.spec_from_file_location("strict_adapters", BENCH / "strict_adapters.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert len(module.ADAPTERS) == 113
    report = run_audit(module.ADAPTERS, load_attacks(None), AuditConfig(budget=20_000, seed=0))
    errors = {r.adapter: r.error for r in report.results if r.error is not None}
    assert not errors
    flagged = [r.adapter for r in report.results if r.verdict is not Verdict.NO_VIOLATION]
    assert not flagged
