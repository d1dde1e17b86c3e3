from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from reports.junit import case_name, render_junit


def _cases(xml_text: str) -> dict[str, ET.Element]:
    root = ET.fromstring(xml_text)
    return {case.get("name", ""): case for case in root.iter("testcase")}


def test_junit_has_failures_exactly_for_violations(report_dict: dict[str, Any]) -> None:
    xml_text = render_junit(report_dict)
    cases = _cases(xml_text)
    results = report_dict["results"]
    assert len(cases) == len(results) + len(report_dict["skipped"])
    failed = {name for name, c in cases.items() if c.find("failure") is not None}
    errored = {name for name, c in cases.items() if c.find("error") is not None}
    skipped = {name for name, c in cases.items() if c.find("skipped") is not None}
    assert failed == {case_name(r) for r in results if r["verdict"] == "violation"}
    assert errored == {case_name(r) for r in results if r["verdict"] == "error"}
    assert skipped == set(report_dict["skipped"])
    assert len(failed) == 2 and len(errored) == 1  # the fixture covers each kind
    suite = ET.fromstring(xml_text).find("testsuite")
    assert suite is not None
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("2", "1", "1")


def test_failure_message_states_the_violation(report_dict: dict[str, Any]) -> None:
    cases = _cases(render_junit(report_dict))
    lsb = next(r for r in report_dict["results"] if r["attack"] == "lsb-laplace")
    failure = cases[case_name(lsb)].find("failure")
    assert failure is not None
    message = failure.get("message", "")
    assert message.startswith("claim violated: certified epsilon >= ")
    assert f"{lsb['epsilon_lower_bound']:.4g} > claimed 1" in message
    assert "lsb-laplace" in message
    c = lsb["counts"]
    assert f"counts {c['k0']}/{c['n0']} on x vs {c['k1']}/{c['n1']} on x'" in message
    error = cases["broken.raises claims (epsilon=1, delta=0)"].find("error")
    assert error is not None and "boom" in error.get("message", "")


def test_hostile_text_survives_as_text(report_dict: dict[str, Any]) -> None:
    """Names and errors with markup or control characters still give well-formed XML."""
    nasty = "<script>alert(1)</script> & \x07bell"
    data = {
        **report_dict,
        "results": [
            {**r, "adapter": nasty + str(i), "error": nasty if r["error"] else None}
            for i, r in enumerate(report_dict["results"])
        ],
    }
    cases = _cases(render_junit(data))
    assert any(name.startswith("<script>alert(1)</script> & ?bell") for name in cases)
