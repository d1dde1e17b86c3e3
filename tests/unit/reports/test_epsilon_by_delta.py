"""A curve claim read at each of its δ (``reports.epsilon_by_delta``): report.json's
``epsilon_by_delta``, the table in report.md and report.html, the figure, the JUnit line.

Checked on a real seeded run: a Gaussian with too little noise for the δ(ε) profile it claims
(a table, as an accountant states it), a correct one, one with a μ-GDP claim (no table: read at
the default δ) and a point claim (no such section)."""

from __future__ import annotations

import io
import json
import math
from typing import Any

import numpy as np
import pytest
from scipy import stats

from attacks import load_attacks
from auditor.core.claim_kinds import GaussianDP, PrivacyProfile
from auditor.core.configs import AuditConfig
from auditor.engine.runner import run_audit
from reports.epsilon_by_delta import DEFAULT_DELTAS
from reports.epsilon_by_delta_plot import epsilon_by_delta_png, figure_files
from reports.figure_base import EVENT_COLOUR
from reports.html import render_html
from reports.json_report import load_report, render_json
from reports.junit import render_junit
from reports.markdown import render_markdown

MU = 1.0  # the profile claimed: the Gaussian mechanism's of sigma 1 (mu = 1)


def gaussian_delta(eps: float, mu: float) -> float:
    """The exact δ(ε) of the Gaussian mechanism with mu = sensitivity / sigma (BDRS 2018)."""
    return float(
        stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
    )


TABLE = tuple((float(e), gaussian_delta(float(e), MU)) for e in np.linspace(0.0, 6.0, 13))


class Gaussian:
    """q + N(0, sigma^2), rounded to 2^-20 (post-processing)."""

    family = "additive"
    sensitivity = 1.0

    def __init__(self, name: str, sigma: float, claim: object) -> None:
        self.name, self.sigma, self.claim = name, sigma, claim
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query: Any, n: int) -> np.ndarray:
        y = float(query) + self._rng.normal(0.0, self.sigma, size=n)
        return np.round(y * 2.0**20) / 2.0**20


class Response:
    """Randomized response keeping the bit with probability 0.75 (ε = ln 3), claiming it."""

    family = "binary"
    epsilon, delta = math.log(3.0), 0.0
    name = "rr.point"

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query: Any, n: int) -> np.ndarray:
        keep = self._rng.random(n) < 0.75
        return np.where(keep, int(query), 1 - int(query)).astype(np.int64)


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    profile = PrivacyProfile(TABLE, name="gaussian sigma 1")
    adapters = [
        Gaussian("gauss.profile-short", 0.5, profile),  # true mu 2 > 1
        Gaussian("gauss.profile-ok", 1.0, profile),
        Gaussian("gauss.gdp-ok", 1.0, GaussianDP(1.0)),
        Response(),
    ]
    data = run_audit(adapters, load_attacks(None), AuditConfig(budget=20_000, seed=0)).to_dict()
    verdicts = [r["verdict"] for r in data["results"]]
    assert verdicts == ["violation", "no_violation", "no_violation", "no_violation"], verdicts
    return load_report(render_json(data))  # what dp-audit run writes, checked by the schema


def _by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["adapter"]: r for r in report["results"]}


def test_json_points_are_the_verdict_s_limits_read_at_each_delta_of_the_claim(report):
    """Recomputed here with scipy's beta quantiles: ln((p0_low − δ) / p1_high) (or the
    complement read the other way round) at the verdict's split, the table's ε at each δ; the
    largest certified / claimed ratio is the certified stretch the verdict rests on."""
    by = _by_name(report)
    for name in ("gauss.profile-short", "gauss.profile-ok"):
        r = by[name]
        points = r["epsilon_by_delta"]
        c, alpha, split = r["counts"], r["alpha"], r["alpha_split"]
        p0_low = stats.beta.ppf(alpha * split, c["k0"], c["n0"] - c["k0"] + 1)
        p1_high = stats.beta.ppf(1 - alpha * (1 - split), c["k1"] + 1, c["n1"] - c["k1"])
        assert [p["delta"] for p in points] == sorted({d for _, d in TABLE if d < 1}, reverse=True)
        ratios = []
        for p in points:
            d = p["delta"]
            direct = math.log((p0_low - d) / p1_high) if p0_low > d else -math.inf
            other = math.log((1 - p1_high - d) / (1 - p0_low)) if 1 - p1_high > d else -math.inf
            assert p["epsilon_lower_bound"] == pytest.approx(max(0.0, direct, other), abs=1e-6)
            claimed = min(e for e, dk in TABLE if dk <= d)
            assert p["claimed_epsilon"] == pytest.approx(claimed, rel=1e-12)
            if claimed > 0:
                ratios.append(p["epsilon_lower_bound"] / claimed)
            elif p["epsilon_lower_bound"] > 0:  # the eps = 0 point refuted: stretch infinite
                ratios.append(math.inf)
        assert max(ratios) == pytest.approx(float(r["claim_bound"]), rel=1e-6), name
        violating = [p for p in points if p["epsilon_lower_bound"] > p["claimed_epsilon"]]
        assert bool(violating) == (r["verdict"] == "violation"), name
    # no table: the default deltas and the report delta; a point claim has no such field
    gdp = by["gauss.gdp-ok"]["epsilon_by_delta"]
    assert [p["delta"] for p in gdp] == sorted({*DEFAULT_DELTAS, 1e-6}, reverse=True)
    assert all(p["epsilon_lower_bound"] <= p["claimed_epsilon"] for p in gdp)
    assert "epsilon_by_delta" not in by["rr.point"]


def test_markdown_html_and_junit_show_the_table_and_the_best_point(report):
    by = _by_name(report)
    short = by["gauss.profile-short"]
    best = max(  # here the eps = 0 point: certified / claimed is infinite
        (p for p in short["epsilon_by_delta"] if p["epsilon_lower_bound"] > 0),
        key=lambda p: (
            p["epsilon_lower_bound"] / p["claimed_epsilon"] if p["claimed_epsilon"] else math.inf
        ),
    )
    assert best["claimed_epsilon"] == 0.0
    md = render_markdown(report)
    section = md.split("## gauss.profile-short")[1].split("\n## ")[0]
    assert "### ε by δ" in section
    assert "![ε by δ](epsilon-by-delta-gauss.profile-short.png)" in section
    rows = [line for line in section.splitlines() if line.startswith("| ") and "δ" not in line]
    assert len(rows) == len(short["epsilon_by_delta"])
    assert any(row.count("**") == 4 for row in rows)  # a violating point, bold
    assert f"at δ = {best['delta']:.4g}" in section
    assert "### ε by δ" not in md.split("## rr.point")[1]
    ok_section = md.split("## gauss.profile-ok")[1].split("\n## ")[0]
    assert "### ε by δ" in ok_section and "**" not in ok_section.split("### ε by δ")[1]

    twice = render_markdown(
        {**report, "results": [short, {**short, "adapter": "gauss.profile short"}]}
    )
    assert twice.count("### ε by δ") == 2 and "![ε by δ]" not in twice  # one file name for both

    html = render_html(report)
    assert html.count("<summary>ε by δ:") == 3  # the three curve claims
    assert 'alt="certified and claimed ε by δ of gauss.profile-short"' in html
    assert '<tr class="violation"><td>' in html

    junit = render_junit(report)
    lines = [line for line in junit.splitlines() if "epsilon by delta:" in line]
    assert len(lines) == 3 and f"at δ = {best['delta']:.4g}" in lines[0]


def _red_pixels(png: bytes) -> int:
    from matplotlib import image

    rgb = image.imread(io.BytesIO(png), format="png")[..., :3]
    red = np.array([int(EVENT_COLOUR[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return int(np.count_nonzero(np.all(np.abs(rgb - red) < 0.02, axis=-1)))


def test_the_figure_marks_violating_points_and_is_a_file_of_the_set(report):
    by = _by_name(report)
    bad, good = (
        epsilon_by_delta_png(by["gauss.profile-short"]),
        epsilon_by_delta_png(by["gauss.profile-ok"]),
    )
    assert bad is not None and good is not None
    assert _red_pixels(bad) > 20 and _red_pixels(good) == 0
    assert epsilon_by_delta_png(by["rr.point"]) is None
    files = figure_files(json.loads(json.dumps(report)))
    assert sorted(n for n in files if n.startswith("epsilon-by-delta-")) == [
        "epsilon-by-delta-gauss.gdp-ok.png",
        "epsilon-by-delta-gauss.profile-ok.png",
        "epsilon-by-delta-gauss.profile-short.png",
    ]
    assert "tradeoff-gauss.profile-short.png" in files
