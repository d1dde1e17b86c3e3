from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from dp_audit.cli import main
from reports.compare import COLUMNS, comparison_rows
from reports.json_report import render_json


def test_compare_writes_table_figure_and_csv(
    tmp_path: Path, report_dict: dict[str, Any], capsys: Any
) -> None:
    other = json.loads(render_json(report_dict))
    other["results"] = [r for r in other["results"] if r["adapter"] != "rr.too-weak"]
    other["results"][0]["epsilon_lower_bound"] = 1.25
    # a name matplotlib would parse as (broken) mathtext must stay literal
    other["results"].append({**other["results"][-1], "adapter": "only.in.b $x^{$"})
    (tmp_path / "a.json").write_text(render_json(report_dict))
    (tmp_path / "b.json").write_text(json.dumps(other))
    out = tmp_path / "cmp"
    assert (
        main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--out", str(out)])
        == 0
    )
    assert capsys.readouterr().out.split() == [
        str(out / f) for f in ("compare.md", "compare.png", "compare.csv")
    ]
    frame = pd.read_csv(out / "compare.csv")
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) == len(report_dict["results"]) + 1
    lsb = frame.set_index("adapter").loc["textbook.laplace(eps=1)"]
    a_bound = report_dict["results"][0]["epsilon_lower_bound"]
    assert (
        abs(lsb["epsilon_lower_bound_a"] - a_bound) < 1e-9 and lsb["epsilon_lower_bound_b"] == 1.25
    )
    assert abs(lsb["change"] - (1.25 - a_bound)) < 1e-9
    assert pd.isna(frame.set_index("adapter").loc["rr.too-weak", "verdict_b"])
    table = (out / "compare.md").read_text()
    assert "| textbook.laplace(eps=1) | (1, 0) | violation | violation |" in table
    assert "&lt;script&gt;" in table and "<script>" not in table
    assert (out / "compare.png").read_bytes().startswith(b"\x89PNG")


def test_comparison_rows_mark_errors_as_missing(report_dict: dict[str, Any]) -> None:
    rows = {r["adapter"]: r for r in comparison_rows(report_dict, report_dict)}
    assert rows["broken.raises"]["epsilon_lower_bound_a"] is None
    assert rows["rr.too-weak"]["change"] == 0.0
