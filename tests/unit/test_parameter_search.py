"""Parameter-space search: a mechanism broken only in part of its space is found, with the
configuration named; the same search over a correct mechanism certifies nothing."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from attacks import load_attacks
from auditor.adapters.base import SeededAdapter
from auditor.core.configs import AuditConfig
from auditor.core.errors import InvalidArgument
from auditor.core.space import Choice, Configurable, Configured, Range, design, label
from auditor.engine.parameter_search import SearchConfig, configurations, search_audit


class CappedSensitivityLaplace(SeededAdapter, Configurable):
    """Discrete Laplace at scale sensitivity/epsilon -- with the sensitivity silently capped
    at ``cap`` ("defensive" clamping): for sensitivities above the cap the noise is too small.
    Correct at its defaults."""

    family = "additive"
    integer_queries = True
    space = {
        "epsilon": Range(0.2, 4.0, log=True),
        "sensitivity": Range(1, 256, log=True, integer=True),
    }

    def __init__(self, epsilon: float = 1.0, sensitivity: int = 1, cap: float = 16) -> None:
        super().__init__()
        self.epsilon, self.delta, self.sensitivity = float(epsilon), 0.0, int(sensitivity)
        self.cap = cap
        self.name = "test.capped-laplace" if math.isfinite(cap) else "test.laplace"

    def with_parameters(self, **values: Any) -> Any:
        return type(self)(cap=self.cap, **values)

    def sample(self, query: Any, n: int) -> np.ndarray:
        scale = min(self.sensitivity, self.cap) / self.epsilon
        p = -math.expm1(-1.0 / scale)
        return int(query) + self._rng.geometric(p, n) - self._rng.geometric(p, n)


def run_search(adapter: Any, seed: int = 0) -> Any:
    config = AuditConfig(budget=40_000, seed=seed, attacks=("black-box",))
    search = SearchConfig(configurations=16, finalists=2, screen_budget=5_000)
    return search_audit([adapter], load_attacks(["black-box"]), config, search)


def test_a_mechanism_broken_in_a_region_is_found_with_its_configuration() -> None:
    report = run_search(CappedSensitivityLaplace())
    violations = [r for r in report.results if r.verdict.value == "violation"]
    assert violations, [(r.adapter, r.epsilon_lower_bound) for r in report.results]
    for r in violations:
        assert r.configuration["adapter"] == "test.capped-laplace"
        # only configurations past the cap are broken, and the name says which one it was
        assert r.configuration["parameters"]["sensitivity"] > 16
        assert f"sensitivity={r.configuration['parameters']['sensitivity']}" in r.adapter
    summary = report.to_dict()["search"]
    (searched,) = summary["adapters"]
    assert searched["screened"] == 16 and len(searched["finalists"]) == 2
    assert "certifies nothing" in summary["alpha"]


def test_the_same_search_over_a_correct_mechanism_finds_nothing() -> None:
    report = run_search(CappedSensitivityLaplace(cap=math.inf))
    assert all(r.verdict.value == "no_violation" for r in report.results)
    assert len(report.results) == 2


def test_screening_and_certification_draw_different_outputs() -> None:
    # the finalists are certified on the run's own seed, the screening on a derived one: the
    # same configuration's screening and final results differ in their counts
    from auditor.engine.runner import run_audit

    plan = configurations(CappedSensitivityLaplace(cap=math.inf), 4, seed=0)
    first = plan.screened[0].adapter
    config = AuditConfig(budget=5_000, seed=0, attacks=("black-box",))
    final = run_audit([first], load_attacks(["black-box"]), config)
    report = run_search(CappedSensitivityLaplace(cap=math.inf))
    screening_seed = report.to_dict()["search"]["screening_seed"]
    assert screening_seed != config.seed and final.results[0].best is not None


def test_the_design_covers_each_parameter_evenly_and_is_seeded() -> None:
    space = {"epsilon": Range(0.01, 10, log=True), "dtype": Choice(("float64", "float32"))}
    points = design(space, 32, seed=7)
    assert points == design(space, 32, seed=7) and points != design(space, 32, seed=8)
    logs = np.log10([p["epsilon"] for p in points])
    # a Sobol design puts about n/4 points in each quarter of the log range
    quarters = np.histogram(logs, bins=4, range=(-2, 1))[0]
    assert quarters.min() >= 6, quarters
    assert {p["dtype"] for p in points} == {"float64", "float32"}


def test_rejected_configurations_are_counted_not_audited() -> None:
    class Picky(CappedSensitivityLaplace):
        def with_parameters(self, **values: Any) -> Any:
            if values["epsilon"] > 1:
                raise ValueError("epsilon above 1 is not supported")
            return super().with_parameters(**values)

    plan = configurations(Picky(), 16, seed=0)
    rejected = [s for s in plan.screened if s.rejected]
    assert rejected and all("not supported" in str(s.rejected) for s in rejected)
    assert all(s.adapter.configuration["parameters"]["epsilon"] > 1 for s in rejected)


def test_configured_adapters_are_named_after_their_point_and_forward_the_rest() -> None:
    adapter = CappedSensitivityLaplace(epsilon=0.5, sensitivity=3)
    configured = Configured("test.capped-laplace", adapter, {"epsilon": 0.5, "sensitivity": 3})
    assert configured.name == "test.capped-laplace[epsilon=0.5,sensitivity=3]"
    assert configured.epsilon == 0.5 and configured.sample(0, 5).shape == (5,)
    assert label({"epsilon": 0.0123456789}) == "epsilon=0.0123457"


def test_a_bad_space_is_a_clear_error() -> None:
    class Broken(CappedSensitivityLaplace):
        space = {"epsilon": (0.1, 1.0)}  # type: ignore[dict-item]

    with pytest.raises(InvalidArgument, match="Range"):
        configurations(Broken(), 4, seed=0)
    with pytest.raises(InvalidArgument, match="low > 0"):
        Range(0.0, 1.0, log=True)


def test_a_search_report_is_valid_json_under_the_schema() -> None:
    import json

    import jsonschema

    from reports.json_report import render_json, report_schema

    report = run_search(CappedSensitivityLaplace())
    data = json.loads(render_json(report.to_dict()))
    jsonschema.Draft202012Validator(report_schema()).validate(data)
    assert data["search"]["adapters"][0]["finalists"]
    assert all(r["configuration"] and r["replay"] for r in data["results"])
