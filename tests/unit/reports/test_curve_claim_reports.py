"""Reports of curve claims (μ-GDP, ρ-zCDP): the trade-off figure, the wording of bounds in the
claim's own parameter, the schema, and ``compare`` / ``--baseline`` across point and curve
claims.  The figure and words are checked on a real run (seeded): Gaussians with too little
noise for their GDP / zCDP claim, a correct one, a point-claim violation and an error."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest

from attacks import load_attacks
from auditor.core.claim_kinds import GaussianDP, ZeroConcentratedDP
from auditor.core.configs import AuditConfig
from auditor.engine.runner import run_audit
from auditor.statistics.exact import WHITE_BOX_ESTIMATOR
from dp_audit.cli import _verdict_line, main
from reports.baseline import compare_with_baseline, exit_code_with_baseline
from reports.compare import comparison_rows, render_comparison_markdown
from reports.evidence import TradeoffEvidence, claim_object, curve_bound_text
from reports.figure_base import EVENT_COLOUR
from reports.html import render_html
from reports.json_report import load_report, render_json, report_schema
from reports.junit import case_name, render_junit, violation_message
from reports.markdown import render_markdown
from reports.tradeoff_plot import corner_style, tradeoff_files, tradeoff_png


class Gaussian:
    """q + N(0, sigma^2), rounded to 2^-20: exactly (1/sigma)-GDP and (1/(2 sigma^2))-zCDP."""

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


class WeakResponse:
    """Randomized response keeping the bit with probability 0.9 (ε ln 9), claiming ε = 0.5."""

    family = "binary"
    epsilon, delta = 0.5, 0.0
    name = "rr.too-weak"

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query: Any, n: int) -> np.ndarray:
        keep = self._rng.random(n) < 0.9
        return np.where(keep, int(query), 1 - int(query)).astype(np.int64)


class Raises:
    name = "broken.raises"
    family = "binary"
    epsilon, delta = 1.0, 0.0

    def sample(self, query: Any, n: int) -> np.ndarray:
        raise RuntimeError("boom")


@pytest.fixture(scope="module")
def curve_report() -> dict[str, Any]:
    adapters = [
        Gaussian("gauss.gdp-short", 0.6, GaussianDP(1.0)),  # true mu 1.67 > 1
        Gaussian("gauss.gdp-ok", 1.0, GaussianDP(1.0)),
        Gaussian("gauss.zcdp-short", 0.5, ZeroConcentratedDP(0.5)),  # true rho 2 > 0.5
        WeakResponse(),  # a point claim, violated
        Raises(),
    ]
    # the first look that certifies: tightened, the zCDP violation's best bound comes from
    # the cells, which have no one-event trade-off figure
    config = AuditConfig(budget=20_000, seed=0, tighten=False)
    data = run_audit(adapters, load_attacks(None), config).to_dict()
    verdicts = {r["adapter"]: r["verdict"] for r in data["results"]}
    assert verdicts == {
        "gauss.gdp-short": "violation",
        "gauss.gdp-ok": "no_violation",
        "gauss.zcdp-short": "violation",
        "rr.too-weak": "violation",
        "broken.raises": "error",
    }, verdicts
    return json.loads(render_json(data))  # what dp-audit run writes to disk


def _by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["adapter"]: r for r in report["results"]}


def _red_pixels(png: bytes) -> int:
    """Pixels of the figure drawn in EVENT_COLOUR itself (the shading below the curve is a
    pale blend of it, so only the violating corner and its legend entry count)."""
    from matplotlib import image

    rgb = image.imread(io.BytesIO(png), format="png")[..., :3]
    red = np.array([int(EVENT_COLOUR[i : i + 2], 16) / 255 for i in (1, 3, 5)])
    return int(np.count_nonzero(np.all(np.abs(rgb - red) < 0.02, axis=-1)))


# -- the trade-off figure --------------------------------------------------------------------


def test_tradeoff_png_for_curve_claims_and_none_without_counts(
    curve_report: dict[str, Any],
) -> None:
    by = _by_name(curve_report)
    for name in ("gauss.gdp-short", "gauss.gdp-ok", "gauss.zcdp-short", "rr.too-weak"):
        png = tradeoff_png(by[name])
        assert png is not None and png.startswith(b"\x89PNG"), name
    assert tradeoff_png(by["broken.raises"]) is None
    white_box = {
        **by["gauss.gdp-short"],
        "estimator": WHITE_BOX_ESTIMATOR,
        "white_box": True,
        "counts": {"n0": 0, "k0": 0, "n1": 0, "k1": 0},
        "probabilities": {"p0": 0.5, "p1": 0.0},
    }
    assert tradeoff_png(white_box) is None


def test_the_violating_corner_is_red_and_a_passing_one_is_not(
    curve_report: dict[str, Any],
) -> None:
    by = _by_name(curve_report)
    bad, good = by["gauss.gdp-short"], by["gauss.gdp-ok"]
    ev = TradeoffEvidence.from_result(bad)
    assert ev is not None
    # the corner is recomputed from counts exactly as the certification computed it
    assert ev.certified == bad["claim_bound"] and bad["parameter"] == "mu"
    a, b = ev.corner
    assert (a, b) == (ev.p1_high, 1.0 - ev.p0_low)
    assert ev.p1_low <= ev.alpha_hat <= ev.p1_high and 1 - ev.p0_high <= ev.beta_hat <= b
    assert b < ev.curve_at_corner == float(GaussianDP(1.0).tradeoff(a))
    assert ev.violating and ev.below
    assert corner_style(ev, "gdp") == (EVENT_COLOUR, "violating point: corner below the curve")

    ok = TradeoffEvidence.from_result(good)
    assert ok is not None and ok.certified == good["claim_bound"]
    assert ok.corner[1] >= ok.curve_at_corner
    assert not ok.violating and not ok.below
    colour, label = corner_style(ok, "gdp")
    assert colour != EVENT_COLOUR and "violating" not in label

    bad_png, good_png = tradeoff_png(bad), tradeoff_png(good)
    assert bad_png is not None and good_png is not None
    assert _red_pixels(bad_png) > 20 and _red_pixels(good_png) == 0


def test_corner_logic_on_counts_either_side_of_the_curve() -> None:
    """The same claim, counts whose corner is clearly below / above the 1-GDP curve."""
    claim = {"kind": "gdp", "mu": 1.0, "report_delta": 1e-6, "epsilon": 4.9, "delta": 1e-6}

    def result(k0: int, k1: int) -> dict[str, Any]:
        return {
            "adapter": "synthetic",
            "claim": {**claim, "description": "1-GDP"},
            "counts": {"n0": 100_000, "k0": k0, "n1": 100_000, "k1": k1},
            "alpha": 1e-4,
            "alpha_split": 0.5,
            "estimator": "clopper-pearson",
        }

    # P = 0.9 vs 0.3: Phi^-1(0.9) - Phi^-1(0.3) = 1.81 > 1; P = 0.6 vs 0.4: 0.51 < 1
    below = TradeoffEvidence.from_result(result(90_000, 30_000))
    above = TradeoffEvidence.from_result(result(60_000, 40_000))
    assert below is not None and below.violating and below.below
    assert above is not None and not above.violating and not above.below
    assert corner_style(below, "gdp")[0] == EVENT_COLOUR
    assert corner_style(above, "gdp")[0] != EVENT_COLOUR


def test_claim_objects_are_rebuilt_from_report_dicts(curve_report: dict[str, Any]) -> None:
    by = _by_name(curve_report)
    assert claim_object(by["gauss.gdp-short"]) == GaussianDP(1.0)
    assert claim_object(by["gauss.zcdp-short"]) == ZeroConcentratedDP(0.5)
    point = claim_object(by["rr.too-weak"])
    assert point is not None and (point.kind, point.epsilon) == ("pure", 0.5)
    assert claim_object({"claim": None}) is None
    assert claim_object({"claim": {"kind": "gdp", "mu": -1.0}}) is None


def test_tradeoff_files_are_written_for_curve_claims_only(curve_report: dict[str, Any]) -> None:
    files = tradeoff_files(curve_report)
    assert sorted(files) == [
        "tradeoff-gauss.gdp-ok.png",
        "tradeoff-gauss.gdp-short.png",
        "tradeoff-gauss.zcdp-short.png",
    ]
    assert all(png.startswith(b"\x89PNG") for png in files.values())
    hostile = {
        "results": [
            {**curve_report["results"][0], "adapter": "../<x>/..//"},
            {**curve_report["results"][0], "adapter": "<x>"},
        ]
    }
    assert sorted(tradeoff_files(hostile)) == ["tradeoff-x-2.png", "tradeoff-x.png"]


# -- words ---------------------------------------------------------------------------------


def test_bounds_are_stated_in_the_claims_own_parameter(curve_report: dict[str, Any]) -> None:
    by = _by_name(curve_report)
    gdp, zcdp = by["gauss.gdp-short"], by["gauss.zcdp-short"]

    def num(x: Any) -> str:
        return f"{float(x):.4g}"

    text = curve_bound_text(gdp, num)
    assert text is not None
    assert text.startswith(f"μ ≥ {gdp['claim_bound']:.4g} for a claimed 1-GDP; ")
    assert f"ε ≥ {gdp['epsilon_lower_bound']:.4g} at δ = 1e-06" in text
    assert f"the claim implies ε ≤ {gdp['claim']['epsilon']:.4g}" in text
    assert curve_bound_text(by["rr.too-weak"], num) is None

    line = _verdict_line(gdp)
    assert "gauss.gdp-short: μ ≥ " in line and "for a claimed 1-GDP" in line
    assert "ρ ≥ " in _verdict_line(zcdp) and "for a claimed 0.5-zCDP" in _verdict_line(zcdp)
    # a point claim keeps its words
    rr = by["rr.too-weak"]
    assert _verdict_line(rr) == (
        f"     violation  rr.too-weak: epsilon >= {rr['epsilon_lower_bound']:.4g} (claim 0.5)"
    )

    md = render_markdown(curve_report)
    assert f"| gauss.gdp-short | 1-GDP (implies ({gdp['claim']['epsilon']:.4g}, 1e-06)) |" in md
    assert f"μ ≥ {gdp['claim_bound']:.4g} for a claimed 1-GDP" in md
    assert f"ρ ≥ {zcdp['claim_bound']:.4g} for a claimed 0.5-zCDP" in md
    assert f"| rr.too-weak | (0.5, 0) | **VIOLATION** | {rr['epsilon_lower_bound']:.4g} |" in md

    message = violation_message(gdp)
    assert message.startswith(f"claim violated: certified μ ≥ {gdp['claim_bound']:.4g}")
    assert "ρ ≥" in violation_message(zcdp)
    assert violation_message(rr).startswith(
        f"claim violated: certified epsilon >= {rr['epsilon_lower_bound']:.4g} > claimed 0.5"
    )
    assert case_name(gdp) == "gauss.gdp-short claims 1-GDP"
    assert case_name(rr) == "rr.too-weak claims (epsilon=0.5, delta=0)"
    assert "certified μ ≥" in render_junit(curve_report)


def test_html_shows_the_tradeoff_figure_for_curve_claims(curve_report: dict[str, Any]) -> None:
    page = render_html(curve_report)
    assert 'alt="trade-off curve of gauss.gdp-short"' in page
    assert 'alt="trade-off curve of gauss.zcdp-short"' in page
    assert "trade-off curve of rr.too-weak" not in page  # a point claim: the ε plots say it
    assert "could not be drawn" not in page
    gdp = _by_name(curve_report)["gauss.gdp-short"]
    assert f"μ ≥ {gdp['claim_bound']:.4g} for a claimed 1-GDP" in page


# -- schema, compare, baseline ---------------------------------------------------------------


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(report_schema())


def test_report_with_curve_claims_validates(validator: Any, curve_report: dict[str, Any]) -> None:
    assert [e.message for e in validator.iter_errors(curve_report)] == []
    assert load_report(json.dumps(curve_report))["results"]


@pytest.mark.parametrize(
    "break_it",
    [
        lambda r: r["claim"].pop("mu"),
        lambda r: r["claim"].update(kind="gpd"),
        lambda r: r["claim"].update(mu=0),
        lambda r: r.pop("parameter"),
        lambda r: r["findings"][0].pop("parameter"),
    ],
)
def test_schema_rejects_broken_curve_claims(
    validator: Any, curve_report: dict[str, Any], break_it: Any
) -> None:
    data = copy.deepcopy(curve_report)
    r = _by_name(data)["gauss.gdp-short"]
    assert r["findings"][0].get("claim_bound") is not None
    break_it(r)
    assert list(validator.iter_errors(data))


def _as_point_claims(report: dict[str, Any]) -> dict[str, Any]:
    """The same report as an earlier run auditing the (ε, δ) points the claims imply."""
    old = copy.deepcopy(report)
    for r in old["results"]:
        claim = r.get("claim") or {}
        if "kind" in claim:
            r["claim"] = {"epsilon": claim["epsilon"], "delta": claim["delta"]}
            r["verdict"] = "no_violation" if r["verdict"] == "violation" else r["verdict"]
            r.pop("claim_bound", None)
            r.pop("parameter", None)
            for f in r["findings"]:
                f.pop("claim_bound", None)
                f.pop("parameter", None)
    return old


def test_baseline_between_point_and_curve_claims(curve_report: dict[str, Any]) -> None:
    old = _as_point_claims(curve_report)
    section = compare_with_baseline(curve_report, old, path="old.json")
    new = {g["adapter"]: g for g in section["regressions"]}
    assert set(new) == {"gauss.gdp-short", "gauss.zcdp-short"}
    assert "certified μ ≥" in new["gauss.gdp-short"]["message"]
    assert "certified ρ ≥" in new["gauss.zcdp-short"]["message"]
    assert section["accepted"] and section["accepted"][0]["adapter"] == "rr.too-weak"
    assert exit_code_with_baseline({**curve_report, "baseline": section}) == 1
    # the other way round: the curve claims' violations were in the baseline, now fixed
    back = compare_with_baseline(old, curve_report, path="new.json")
    assert back["regressions"] == [] and set(back["fixed"]) == {
        "gauss.gdp-short",
        "gauss.zcdp-short",
    }
    data = {**curve_report, "baseline": section}
    assert load_report(render_json(data))["baseline"]["regressions"]


def test_compare_between_point_and_curve_claims(
    tmp_path: Path, curve_report: dict[str, Any], capsys: Any
) -> None:
    old = _as_point_claims(curve_report)
    (tmp_path / "a.json").write_text(render_json(old))
    (tmp_path / "b.json").write_text(render_json(curve_report))
    out = tmp_path / "cmp"
    assert (
        main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--out", str(out)])
        == 0
    )
    capsys.readouterr()
    table = (out / "compare.md").read_text()
    eps = _by_name(curve_report)["gauss.gdp-short"]["claim"]["epsilon"]
    assert (
        f"| gauss.gdp-short | A ({eps:.4g}, 1e-06); B 1-GDP (implies ({eps:.4g}, 1e-06)) |" in table
    )
    assert "| rr.too-weak | (0.5, 0) |" in table
    assert "A curve claim (μ-GDP, ρ-zCDP, …)" in table
    rows = comparison_rows(curve_report, curve_report)
    assert "A curve claim" in render_comparison_markdown(rows, ("a", "b"), old, old)
    assert (out / "compare.png").read_bytes().startswith(b"\x89PNG")


ADAPTER = """
import numpy as np


class Gaussian:
    family = "additive"
    sensitivity = 1.0
    epsilon, delta = 20.0, 1e-5  # a point claim loose enough to pass

    def __init__(self):
        self.name = "user.gaussian"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        return float(query) + self._rng.normal(0.0, 0.5, size=n)  # mu = 2


GAUSSIAN = Gaussian()
"""


def test_cli_run_writes_the_tradeoff_png_and_gates_on_a_baseline(
    tmp_path: Path, capsys: Any
) -> None:
    (tmp_path / "user_gaussian.py").write_text(ADAPTER)
    target = f"{tmp_path / 'user_gaussian.py'}:GAUSSIAN"
    common = ["run", "--adapter", target, "--budget", "4000"]
    assert main([*common, "--out", str(tmp_path / "old")]) == 0
    written = sorted(p.name for p in (tmp_path / "old").iterdir())
    assert "report.json" in written and not [n for n in written if n.startswith("tradeoff-")]
    capsys.readouterr()
    baseline = ["--baseline", str(tmp_path / "old" / "report.json")]
    code = main([*common, "--claim", "gdp:mu=1", "--out", str(tmp_path / "new"), *baseline])
    assert code == 1
    err = capsys.readouterr().err
    assert "violation  user.gaussian: μ ≥ " in err and "for a claimed 1-GDP" in err
    assert (
        "REGRESSION  user.gaussian: new violation (baseline verdict no_violation), certified μ ≥"
        in err
    )
    png = tmp_path / "new" / "tradeoff-user.gaussian.png"
    assert png.read_bytes().startswith(b"\x89PNG")
    report = load_report((tmp_path / "new" / "report.json").read_text())
    assert report["results"][0]["parameter"] == "mu"
