"""``dp-audit compare`` keeps a white-box ∞ as ∞ (issue #52, probe 15): report.json holds a
finite stand-in (about 708) for an unbounded estimate, which must not reach compare.md or
compare.csv as a number, nor flatten compare.png's other bars."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from dp_audit.cli import main
from reports.compare_plot import axis_extent


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> tuple[Path, Path]:
    """Report A: one adapter with a finite bound; report B: the same adapter unbounded."""
    folder = tmp_path_factory.mktemp("compare")
    out = folder / "run"
    args = ["run", "--adapter", "reference.geometric", "--budget", "2000", "--backend", "inline"]
    assert main([*args, "--quiet", "--out", str(out)]) == 0
    data = json.loads((out / "report.json").read_text())
    r = data["results"][0]
    r.update(verdict="violation", epsilon_lower_bound=1.5)
    (folder / "a.json").write_text(json.dumps(data))
    r.update(
        epsilon_lower_bound=708.3964185322641,
        unbounded=True,
        white_box=True,
        estimator="white-box-exact",
    )
    (folder / "b.json").write_text(json.dumps(data))
    return folder / "a.json", folder / "b.json"


def test_compare_keeps_infinity(tmp_path, reports):
    a, b = reports
    out = tmp_path / "cmp"
    assert main(["compare", str(a), str(b), "--out", str(out)]) == 0
    table = (out / "compare.md").read_text()
    assert "708" not in table
    assert "| 1.5 | ∞ (white-box) | +∞ |" in table
    row = pd.read_csv(out / "compare.csv").iloc[0]
    assert row["epsilon_lower_bound_a"] == 1.5
    assert math.isinf(row["epsilon_lower_bound_b"]) and math.isinf(row["change"])
    assert (out / "compare.png").read_bytes().startswith(b"\x89PNG")


def test_the_figure_axis_spans_the_finite_bounds_only():
    rows = [
        {"epsilon_lower_bound_a": 0.5, "epsilon_lower_bound_b": math.inf, "claim_epsilon": 1.0},
        {"epsilon_lower_bound_a": 2.0, "epsilon_lower_bound_b": 1.0, "claim_epsilon": 1.0},
    ]
    log, infinity, _ = axis_extent(rows)
    assert not log and 2.0 < infinity < 5.0  # ∞ drawn just past the largest finite value
    rows.append({"epsilon_lower_bound_a": 700.0, "epsilon_lower_bound_b": None, "claim_epsilon": 1})
    assert axis_extent(rows)[0]  # values over three decades: a logarithmic axis
