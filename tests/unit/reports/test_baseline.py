from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dp_audit.cli import main
from reports.baseline import compare_with_baseline, exit_code_with_baseline


def _result(name: str, verdict: str, lb: float, k0: int, k1: int, n: int = 1000) -> dict[str, Any]:
    return {
        "adapter": name,
        "verdict": verdict,
        "claim": {"epsilon": 1.0, "delta": 0.0},
        "epsilon_lower_bound": lb,
        "point_estimate": lb,
        "alpha": 0.001,
        "counts": {"n0": n, "k0": k0, "n1": n, "k1": k1},
    }


def _report(*results: dict[str, Any]) -> dict[str, Any]:
    return {"results": list(results)}


def test_new_violation_is_a_regression() -> None:
    old = _report(_result("a", "no_violation", 0.2, 500, 400))
    new = _report(_result("a", "violation", 1.5, 800, 100))
    section = compare_with_baseline(new, old)
    assert [g["kind"] for g in section["regressions"]] == ["new_violation"]
    assert exit_code_with_baseline({**new, "baseline": section}) == 1


def test_new_adapter_with_violation_is_a_regression() -> None:
    section = compare_with_baseline(_report(_result("b", "violation", 2.0, 900, 50)), _report())
    assert section["regressions"][0]["old_verdict"] == "absent"
    assert section["new_adapters"] == ["b"]


def test_same_violation_is_accepted_and_exit_is_zero() -> None:
    r = _result("a", "violation", 1.5, 800, 100)
    new = _report(r)
    section = compare_with_baseline(new, _report(r))
    assert section["regressions"] == [] and [a["adapter"] for a in section["accepted"]] == ["a"]
    assert exit_code_with_baseline({**new, "baseline": section}) == 0


def test_bound_beyond_the_old_interval_is_a_regression() -> None:
    # old: 800/1000 vs 100/1000, event interval upper end ~ ln(0.83 / 0.075) ~ 2.4
    old = _report(_result("a", "violation", 1.5, 800, 100))
    within = _report(_result("a", "violation", 2.0, 850, 60))
    beyond = _report(_result("a", "violation", 4.0, 990, 5))
    assert compare_with_baseline(within, old)["regressions"] == []
    section = compare_with_baseline(beyond, old)
    assert [g["kind"] for g in section["regressions"]] == ["larger_bound"]
    assert 2.0 < section["regressions"][0]["threshold"] < 3.0
    # a margin larger than the gap accepts it
    assert compare_with_baseline(beyond, old, margin=2.0)["regressions"] == []


def test_unbounded_old_interval_never_counts_as_larger() -> None:
    old = _report(_result("a", "violation", 4.0, 900, 0))  # k1 = 0: upper end infinite
    new = _report(_result("a", "violation", 9.0, 99_000, 0, n=100_000))
    assert compare_with_baseline(new, old)["regressions"] == []


def test_a_cells_baseline_is_read_through_its_cut() -> None:
    """A zCDP / RDP bound certified on cells: its cut's own counts give the interval."""
    cells = {"estimator": "clopper-pearson-cells", "claim": {"rho": 0.1, "delta": 1e-6}}
    old = _report(_result("a", "violation", 1.2, 800, 100) | cells)
    beyond = _report(_result("a", "violation", 4.0, 990, 5) | cells)
    within = _report(_result("a", "violation", 1.8, 850, 60) | cells)
    section = compare_with_baseline(beyond, old)
    assert [g["kind"] for g in section["regressions"]] == ["larger_bound"]
    assert 2.0 < section["regressions"][0]["threshold"] < 3.0
    assert compare_with_baseline(within, old)["regressions"] == []


def test_fixed_and_errors() -> None:
    old = _report(_result("a", "violation", 1.5, 800, 100), _result("b", "no_violation", 0.1, 1, 1))
    new = _report(_result("a", "no_violation", 0.1, 500, 480), {**_result("b", "error", 0, 0, 0)})
    section = compare_with_baseline(new, old)
    assert section["fixed"] == ["a"] and section["regressions"] == []
    assert exit_code_with_baseline({**new, "baseline": section}) == 2
    with pytest.raises(ValueError, match="margin=-1"):
        compare_with_baseline(new, old, margin=-1)


ADAPTERS = """
import numpy as np

class Response:
    family = "binary"
    delta = 0.0
    def __init__(self, keep, epsilon):
        self.name, self.keep, self.epsilon = "mylib.response", keep, epsilon
        self._rng = np.random.default_rng(0)
    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)
    def sample(self, query, n):
        kept = self._rng.random(n) < self.keep
        return np.where(kept, query, 1 - query).astype(np.int64)

GOOD = Response(0.6, 1.0)   # epsilon ln(1.5) ~ 0.41 <= 1
BAD = Response(0.95, 1.0)   # epsilon ln(19) ~ 2.9 > 1
"""


def test_cli_baseline_gate(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "mylib_adapters.py").write_text(ADAPTERS)
    target = str(tmp_path / "mylib_adapters.py")
    common = ["run", "--budget", "4000", "--quiet"]
    assert main([*common, "--adapter", f"{target}:GOOD", "--out", str(tmp_path / "old")]) == 0
    old = tmp_path / "old" / "report.json"
    # the same adapter name now violates its claim: a regression, exit 1, noted in the report
    code = main(
        [
            *common,
            "--adapter",
            f"{target}:BAD",
            "--out",
            str(tmp_path / "new"),
            "--baseline",
            str(old),
        ]
    )
    assert code == 1
    new = json.loads((tmp_path / "new" / "report.json").read_text())
    assert [g["kind"] for g in new["baseline"]["regressions"]] == ["new_violation"]
    assert "REGRESSION" in (tmp_path / "new" / "report.md").read_text()
    # against itself the known violation is accepted: exit 0
    again = ["--out", str(tmp_path / "again"), "--baseline", str(tmp_path / "new" / "report.json")]
    assert main([*common, "--adapter", f"{target}:BAD", *again]) == 0
    assert (
        main([*common, "--adapter", f"{target}:BAD", "--baseline", str(tmp_path / "nope.json")])
        == 2
    )
    assert "cannot read" in capsys.readouterr().err
