"""A value the report leaves out is written with one mark per format (``reports/missing.py``),
and JUnit writes mappings as ``key = value`` text, not as Python reprs."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from reports.html import render_html
from reports.junit import render_junit, violation_message
from reports.markdown import render_markdown
from reports.missing import MISSING, shown


def _without_provenance(report_dict: dict[str, Any]) -> dict[str, Any]:
    """The fixture's report with its run id, seed, timing and test count left out."""
    data = {k: v for k, v in report_dict.items() if k not in ("run_id", "seed", "timing")}
    mc = {k: v for k, v in report_dict["multiple_comparisons"].items() if k != "tests"}
    return {**data, "multiple_comparisons": mc}


def test_shown_keeps_values_and_marks_none() -> None:
    assert shown(0, "junit") == 0 and shown("", "markdown") == ""
    assert [shown(None, fmt) for fmt in ("markdown", "html", "junit")] == ["–", "–", ""]


def test_markdown_marks_missing_provenance_with_an_en_dash(report_dict: dict[str, Any]) -> None:
    text = render_markdown(_without_provenance(report_dict))
    assert "over – tests), seed –," in text
    assert "- started –, wall time – s" in text
    assert "?" not in re.sub(r"`[^`]*`", "", text.split("## Provenance")[1])
    assert "None" not in text


def test_html_marks_missing_provenance_with_an_en_dash(report_dict: dict[str, Any]) -> None:
    page = render_html(_without_provenance(report_dict))
    provenance = page.split("<h2>Provenance</h2>")[1]
    for label in ("run", "seed", "started"):
        assert re.search(rf"<dt>{label}</dt>\s*<dd>{MISSING['html']}</dd>", provenance), label
    assert "—" not in provenance and ">?<" not in provenance and "None" not in provenance


def test_junit_leaves_missing_properties_empty(report_dict: dict[str, Any]) -> None:
    root = ET.fromstring(render_junit(_without_provenance(report_dict)))
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["run_id"] == props["seed"] == ""
    suite = root.find("testsuite")
    assert suite is not None and suite.get("timestamp") == ""
    stated = {**report_dict, "run_id": "r1"}
    present = {
        p.get("name"): p.get("value") for p in ET.fromstring(render_junit(stated)).iter("property")
    }
    assert present["run_id"] == "r1" and present["seed"] == str(report_dict["seed"])


@pytest.mark.parametrize("tag", ["system-out", "failure"])
def test_junit_details_write_counts_as_key_value_text(
    report_dict: dict[str, Any], tag: str
) -> None:
    root = ET.fromstring(render_junit(report_dict))
    texts = [e.text or "" for e in root.iter(tag)]
    counted = [r for r in report_dict["results"] if r["counts"]]
    assert texts and counted
    lines = [line for text in texts for line in text.split("\n") if line.startswith("counts: ")]
    assert lines, tag
    for line in lines:
        assert re.fullmatch(r"counts: n0 = \d+, k0 = \d+, n1 = \d+, k1 = \d+", line), line
    assert not any("{" in text or "'n0'" in text for text in texts)


def test_junit_white_box_message_writes_probabilities_as_key_value_text(
    report_dict: dict[str, Any],
) -> None:
    lsb = next(r for r in report_dict["results"] if r["attack"] == "lsb-laplace")
    exact = {
        **lsb,
        "estimator": "white-box-exact",
        "white_box": True,
        "probabilities": {"p0": 0.25, "p1": 0.0},
    }
    message = violation_message(exact)
    assert message.endswith("; probabilities p0 = 0.25, p1 = 0.0)"), message
    assert violation_message({**exact, "probabilities": None}).endswith("inputs [0.0, 1.0])")
