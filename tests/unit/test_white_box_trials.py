"""Trials with a white-box ``exact`` check: run before sampling, no alpha, labelled in reports."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np

from attacks.selection_common import FixedAndLearnedEvents, NoEvents, index_set_event
from auditor.core.configs import AuditConfig
from auditor.core.results import ExactEvidence, Verdict
from auditor.core.trials import Trial
from auditor.engine.runner import run_audit
from auditor.statistics.exact import WHITE_BOX_ESTIMATOR, exact_estimate
from reports.html import render_html
from reports.json_report import render_json
from reports.junit import render_junit
from reports.markdown import render_markdown

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "reports" / "schema" / "report.schema.json"


class Uniform:
    name, family, epsilon, delta, sensitivity = "uniform", "selection", 1.0, 0.0, 1.0

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        return self._rng.integers(0, len(query), size=n)


class OneTrial:
    description = "test attack"

    def __init__(self, exact, distinguisher, name="one-trial"):
        self.name, self._exact, self._d = name, exact, distinguisher

    def applies_to(self, spec):
        return True

    def trials(self, spec, rng):
        x, xp = np.zeros(3), np.ones(3)
        return [Trial(x, xp, self._d, "zeros vs ones", exact=self._exact)]


def _evidence(p0, p1):
    return lambda spec: ExactEvidence(
        np.zeros(3), np.ones(3), exact_estimate(p0, p1, spec.claim.delta, "output == 1")
    )


CONFIG = AuditConfig(budget=2000, seed=0)


def test_an_exact_violation_needs_no_samples_and_no_alpha():
    report = run_audit([Uniform()], [OneTrial(_evidence(0.2, 0.0), NoEvents())], CONFIG)
    (r,) = report.results
    assert r.verdict is Verdict.VIOLATION and r.samples == 0
    assert report.tests == 0
    d = json.loads(render_json(report.to_dict()))["results"][0]
    assert d["white_box"] and d["unbounded"] and d["estimator"] == WHITE_BOX_ESTIMATOR
    assert 0.0 < d["alpha"] < 1.0  # the report schema wants every alpha in (0, 1)
    assert 0.0 < d["findings"][0]["alpha"] < 1.0
    assert d["counts"] == {"n0": 0, "k0": 0, "n1": 0, "k1": 0}
    assert "∞ (white-box)" in render_markdown(report.to_dict())


def test_a_finite_exact_bound_below_the_claim_is_kept_and_sampling_goes_on():
    events = FixedAndLearnedEvents([index_set_event([0], 3)], learned=0)
    report = run_audit([Uniform()], [OneTrial(_evidence(0.3, 0.2), events)], CONFIG)
    (r,) = report.results
    assert r.verdict is Verdict.NO_VIOLATION
    assert r.samples == 2 * CONFIG.budget
    assert report.tests == 2
    # the uniform sampler shows no loss, so the exact ln(1.5) stays the best
    assert r.best.estimate.white_box
    assert abs(r.epsilon_lower_bound - np.log(1.5)) < 1e-12
    md = render_markdown(report.to_dict())
    assert "(white-box)" in md and "WHITE-BOX finding" in md


def test_no_evidence_and_no_events_is_no_finding():
    report = run_audit([Uniform()], [OneTrial(lambda spec: None, NoEvents())], CONFIG)
    (r,) = report.results
    assert r.verdict is Verdict.NO_VIOLATION and r.findings == () and r.samples == 0


def test_every_renderer_labels_an_unbounded_white_box_violation():
    report = run_audit([Uniform()], [OneTrial(_evidence(0.2, 0.0), NoEvents())], CONFIG)
    data = json.loads(render_json(report.to_dict()))
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.validate(data, schema)
    html = render_html(data)
    assert "∞ (white-box)" in html and "WHITE-BOX evidence" in html
    assert "white-box" in render_junit(data) and "epsilon = inf" in render_junit(data)
