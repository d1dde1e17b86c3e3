"""The "Root cause" section: float grids and hex examples, the empirical privacy-loss region.

Real, seeded runs: the textbook Gaussian (a double added in floating point, broken by the
precision attack), a Laplace with three times too little noise whose outputs are snapped to a
common 2^-10 grid (so only its values can give it away: a statistical finding), the same
mechanism with enough noise (no violation), and the naive exponential mechanism (a white-box
finding from exact probabilities, with no output sample).
"""

from __future__ import annotations

import copy
import math
import re
from typing import Any

import numpy as np
import pytest

from attacks import load_attacks
from attacks.precision import coarsest_grid as precision_coarsest_grid
from auditor.adapters.textbook import NaiveExponential, TextbookGaussian
from auditor.core.configs import AuditConfig
from auditor.engine.runner import run_audit
from auditor.statistics.events.bit_events import coarsest_grid
from reports.html import render_html
from reports.junit import render_junit
from reports.markdown import render_markdown
from reports.plots import privacy_loss_png
from reports.root_cause import float_root_cause, loss_region, root_cause, root_cause_text


class SnappedLaplace:
    """Laplace noise of scale ``1/true_epsilon`` claiming epsilon 1, outputs rounded to
    multiples of 2^-10 (post-processing: no float leak, the values alone tell)."""

    family = "additive"
    epsilon, delta, sensitivity = 1.0, 0.0, 1.0

    def __init__(self, true_epsilon: float, name: str) -> None:
        self.scale = 1.0 / true_epsilon
        self.name = name
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query: Any, n: int) -> np.ndarray:
        y = float(query) + self._rng.laplace(0.0, self.scale, n)
        return np.round(y * 1024.0) / 1024.0


def _report(adapters: list[Any], attacks: list[str] | None, budget: int) -> dict[str, Any]:
    config = AuditConfig(budget=budget, seed=0)
    return run_audit(adapters, load_attacks(attacks), config).to_dict()


def _result(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in report["results"] if r["adapter"] == name)


@pytest.fixture(scope="module")
def precision_report() -> dict[str, Any]:
    return _report([TextbookGaussian(epsilon=0.5, delta=1e-5)], ["precision"], 20_000)


@pytest.fixture(scope="module")
def statistical_report() -> dict[str, Any]:
    adapters = [SnappedLaplace(3.0, "snapped.too-little-noise"), SnappedLaplace(0.5, "snapped.ok")]
    return _report(adapters, None, 8_000)


def test_coarsest_grid_lives_with_the_float_representation_utilities() -> None:
    assert precision_coarsest_grid is coarsest_grid
    assert coarsest_grid(np.array([0.75, 1.5, -3.0, 0.0])) == 0.25


def test_precision_finding_names_the_grids_and_exact_examples(
    precision_report: dict[str, Any],
) -> None:
    r = precision_report["results"][0]
    assert r["verdict"] == "violation" and r["attack"] == "precision"
    found = float_root_cause(r)
    assert found is not None and found["kind"] == "grid"
    sentence = found["sentence"]
    x, x_prime = r["queries"]
    # from 1.0 = 2^0 every output 1.0 + noise is a multiple of 2^-53, the attack's theory grid
    assert found["grid_x_prime"] == 2.0**-53
    assert f"from input {x_prime} every output seen is a multiple of 2^-53" in sentence
    assert f"off the 2^-53 grid (as fine as 2^{found['grid_x_exponent']})" in sentence
    assert found["grid_x"] < 2.0**-53
    stated = re.search(r"every output seen is a multiple of 2\^(-?\d+)", sentence)
    assert stated is not None
    grid = math.ldexp(1.0, int(stated.group(1)))
    sample = r["output_sample"]
    on_x = {v for v, hit in zip(sample["x"], sample["in_event_x"], strict=True) if hit}
    assert all(math.fmod(v, grid) == 0 for v in sample["x_prime"])
    assert 1 <= len(found["examples"]) <= 3
    for text in found["examples"]:
        value = float.fromhex(text)
        assert value in on_x  # an output at x in the event, exactly
        assert math.fmod(value, grid) != 0  # off the grid every output at x' lies on
    c = r["counts"]
    assert found["fraction_x"] == c["k0"] / c["n0"] and found["fraction_x_prime"] == 0.0
    assert f"{c['k0']:,} of {c['n0']:,} outputs at {x}" in sentence
    # a float finding is not explained by output regions
    assert loss_region(r) is None and privacy_loss_png(r) is None


def test_precision_root_cause_reaches_every_format(precision_report: dict[str, Any]) -> None:
    found = root_cause(precision_report["results"][0])
    assert found is not None
    md = render_markdown(precision_report)
    assert "### Root cause" in md
    assert all(f"`{e}`" in md for e in found["examples"])
    page = render_html(precision_report)
    assert "<h4>Root cause</h4>" in page
    assert all(f"<code>{e}</code>" in page for e in found["examples"])
    xml = render_junit(precision_report)
    assert "root cause: Outputs at input 0.0 reach doubles off the 2^-53 grid" in xml


def test_statistical_finding_names_the_output_region(statistical_report: dict[str, Any]) -> None:
    r = _result(statistical_report, "snapped.too-little-noise")
    assert r["verdict"] == "violation"
    assert float_root_cause(r) is None  # one grid for both inputs: no float leak
    found = loss_region(r)
    assert found is not None
    loss, excess = np.array(found["loss"]), np.array(found["excess"])
    # the claimed epsilon is 1; the true privacy loss is 3 below 0 and -3 above 1
    assert found["epsilon"] == 1.0
    assert np.array_equal(excess, loss > 1.0) and excess.any()
    # each bin's loss is the smoothed log ratio of its counts
    ca, cb = np.array(found["count_x"]) + 0.5, np.array(found["count_x_prime"]) + 0.5
    assert np.allclose(loss, np.log(ca / ca.sum()) - np.log(cb / cb.sum()))
    assert sum(found["count_x"]) == found["sample_x"] == len(r["output_sample"]["x"])
    region = found["regions"][0]
    assert region["count_x"] > region["count_x_prime"]
    pooled = r["output_sample"]["x"] + r["output_sample"]["x_prime"]
    x, x_prime = r["queries"]
    if x < x_prime:  # the loss exceeds 1 below 1/3 (towards x = 0), and -1 above 2/3
        assert region["lo"] == min(pooled) and region["hi"] < 0.7
        assert region["text"].startswith("outputs up to ")
    else:
        assert region["hi"] == max(pooled) and region["lo"] > 0.3
        assert region["text"].startswith("outputs of ") and region["text"].endswith(" and above")
    sentence = found["sentence"]
    c = r["counts"]
    assert sentence.startswith(f"The excess privacy loss sits in {region['text']}")
    assert "against the claimed ε = 1" in sentence
    assert "descriptive" in sentence
    assert f"{c['k0']:,} of {c['n0']:,} outputs at x against {c['k1']:,} of {c['n1']:,}" in sentence
    png = privacy_loss_png(r)
    assert png is not None and png.startswith(b"\x89PNG\r\n\x1a\n")
    page = render_html(statistical_report)
    assert 'alt="empirical privacy loss of snapped.too-little-noise"' in page
    assert "The excess privacy loss sits in" in render_markdown(statistical_report)


def test_no_root_cause_without_a_violation(statistical_report: dict[str, Any]) -> None:
    r = _result(statistical_report, "snapped.ok")
    assert r["verdict"] == "no_violation" and r["output_sample"]
    assert float_root_cause(r) is None and loss_region(r) is None
    assert root_cause(r) is None and privacy_loss_png(r) is None
    section = render_markdown(statistical_report).split("## snapped.ok")[1]
    assert "Root cause" not in section
    assert "root cause" not in render_junit({**statistical_report, "results": [r]})


def test_white_box_exact_finding_without_a_sample() -> None:
    report = _report([NaiveExponential()], ["truncated-addition"], 2_000)
    r = report["results"][0]
    assert r["verdict"] == "violation" and r["estimator"] == "white-box-exact"
    assert r["output_sample"] is None
    assert float_root_cause(r) is None and loss_region(r) is None
    assert root_cause_text(r) is None and privacy_loss_png(r) is None
    assert "Root cause" not in render_markdown(report) + render_html(report)
    assert "root cause" not in render_junit(report)


def test_vector_outputs_are_skipped(statistical_report: dict[str, Any]) -> None:
    r = copy.deepcopy(_result(statistical_report, "snapped.too-little-noise"))
    sample = r["output_sample"]
    sample["x"] = [[v, v] for v in sample["x"]]
    sample["x_prime"] = [[v, v] for v in sample["x_prime"]]
    assert float_root_cause(r) is None and loss_region(r) is None and root_cause(r) is None
    assert privacy_loss_png(r) is None


class RareValue(SnappedLaplace):
    """Snapped Laplace well within its claim, except that the value 50 comes out 10 times as often at
    inputs whose integer part is even (0.3 % of outputs) as at odd ones: a loss of ln 10 on
    one value, which no quantile bin of the sample isolates."""

    def sample(self, query: Any, n: int) -> np.ndarray:
        y = super().sample(query, n)
        rare = self._rng.random(n) < (0.003 if np.floor(float(query)) % 2 == 0 else 0.0003)
        return np.where(rare, 50.0, y)


def test_an_excess_narrower_than_any_bin_is_said_to_be_in_the_event_itself() -> None:
    report = _report([RareValue(0.2, "rare.value")], None, 100_000)
    r = _result(report, "rare.value")
    assert r["verdict"] == "violation"
    found = loss_region(r)
    assert found is not None and not found["regions"]
    assert "None of the" in found["sentence"]
    assert "narrower than a bin" in found["sentence"] and "as a whole" not in found["sentence"]
