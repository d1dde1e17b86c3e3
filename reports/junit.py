"""JUnit XML for CI: one test case per adapter and claim.

A certified violation is a ``<failure>`` whose message states it; an adapter that raised, timed
out or returned malformed output is an ``<error>`` (its text ends with the traceback behind
the error, when the report has one); "no violation found" passes, with the
power statement (what the budget could have detected) as ``<system-out>``.  Built-in targets
skipped because their library is missing are ``<skipped>`` cases.  CI systems (GitHub Actions
test reporters, GitLab, Jenkins) read this format.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

from auditor.core.text import printable
from reports.epsilon_by_delta import summary_text
from reports.evidence import as_float, curve_text, statements
from reports.missing import shown
from reports.root_cause import cause_text
from reports.view import AdapterReport, Report, parse_report, parse_result

#: characters XML 1.0 cannot carry, even escaped
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _text(value: Any) -> str:
    return _INVALID_XML.sub("?", str(value))


def _g(x: Any) -> str:
    return f"{as_float(x):.4g}"


def _key_values(mapping: Mapping[str, Any]) -> str:
    """``n0 = 2000, k0 = 17``: a mapping as a CI log shows it, not as Python's repr."""
    return ", ".join(f"{key} = {value}" for key, value in mapping.items())


def case_name(r: Mapping[str, Any]) -> str:
    """``<adapter> claims (epsilon=1, delta=0)``, or ``<adapter> claims 1-GDP`` for a curve
    claim: one test case per adapter and claim (of a report.json result)."""
    return _case_name(parse_result(r))


def _case_name(r: AdapterReport) -> str:
    claim = r.claim
    if claim is None:
        return f"{r.adapter} (claim unknown)"
    if claim.is_curve and claim.description:
        return f"{r.adapter} claims {claim.description}"
    return f"{r.adapter} claims (epsilon={_g(claim.epsilon)}, delta={_g(claim.delta)})"


def violation_message(r: Mapping[str, Any]) -> str:
    """One line stating the violation and the numbers it rests on (of a report.json result)."""
    return _violation_message(parse_result(r))


def _violation_message(r: AdapterReport) -> str:
    assert r.claim is not None, "a violation has a claim"
    claimed = _g(r.claim.epsilon)
    queries = None if r.queries is None else list(r.queries)
    if r.is_exact_white_box:
        probabilities = ""
        if r.probabilities is not None:
            p0, p1 = r.probabilities
            probabilities = f"; probabilities {_key_values({'p0': p0, 'p1': p1})}"
        return (
            f"claim violated (white-box, exact probabilities from the adapter's probabilities()): "
            f"epsilon {'= inf' if r.unbounded else '>= ' + _g(r.epsilon_lower_bound)} "
            f"> claimed {claimed} (attack {r.attack}, inputs {queries}{probabilities})"
        )
    ev = r.event_evidence
    counts = f"; counts {ev.k0}/{ev.n0} on x vs {ev.k1}/{ev.n1} on x'" if ev else ""
    curve = curve_text(r, _g)
    if curve is not None:
        return f"claim violated: certified {curve} (attack {r.attack}, inputs {queries}){counts}"
    return (
        f"claim violated: certified epsilon >= {_g(r.epsilon_lower_bound)} > claimed "
        f"{claimed} (attack {r.attack}, inputs {queries}){counts}"
    )


def _details(r: AdapterReport) -> str:
    lines = [f"verdict: {r.verdict}"]
    fields = {
        "attack": r.attack,
        "queries": None if r.queries is None else list(r.queries),
        "event": r.event,
        "counts": None if r.counts is None else _key_values(r.counts.to_dict()),
        "alpha": r.alpha,
        "point_estimate": r.point_estimate,
        "error": r.error,
    }
    lines += [f"{key}: {value}" for key, value in fields.items() if value is not None]
    labels = {"delta": "delta bound"}
    lines += [f"{labels.get(what, what)}: {text}" for what, text in statements(r, _g)]
    if by_delta := summary_text(r, _g):
        lines.append(f"epsilon by delta: {by_delta}")
    lines.append(f"outputs drawn: {r.samples or 0}")
    cause = cause_text(r)
    if cause:
        lines.append(f"root cause: {cause}")
    return "\n".join(lines)


def render_junit(data: dict[str, Any]) -> str:
    """The report as a JUnit XML document (str)."""
    report = parse_report(data)
    results = report.results
    failures = sum(r.verdict == "violation" for r in results)
    errors = sum(r.verdict == "error" for r in results)
    suites = ET.Element("testsuites", name="dp-audit")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name="dp-audit",
        tests=str(len(results) + len(report.skipped)),
        failures=str(failures),
        errors=str(errors),
        skipped=str(len(report.skipped)),
        time=f"{float(report.wall_seconds or 0.0):.3f}",
        timestamp=_text(shown(report.started, "junit")),
    )
    _properties(suite, report)
    for r in results:
        _case(suite, r)
    for note in report.skipped:
        case = ET.SubElement(suite, "testcase", classname="dp-audit.skipped", name=_text(note))
        ET.SubElement(case, "skipped", message=_text(note))
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )


def _properties(suite: ET.Element, report: Report) -> None:
    props = ET.SubElement(suite, "properties")
    for key, value in (
        ("run_id", report.run_id),
        ("seed", report.seed),
        ("alpha", report.alpha),
        ("budget", report.budget),
    ):
        ET.SubElement(props, "property", name=key, value=_text(shown(value, "junit")))
    for name, version in report.versions.items():
        ET.SubElement(props, "property", name=f"version.{_text(name)}", value=_text(version))


def _case(suite: ET.Element, r: AdapterReport) -> None:
    """One adapter's test case: a failure (violation), an error, or a pass with its details."""
    case = ET.SubElement(
        suite,
        "testcase",
        classname=_text(f"dp-audit.{r.family or 'unknown'}"),
        name=_text(_case_name(r)),
        time=f"{float(r.seconds or 0.0):.3f}",
    )
    if r.verdict == "violation":
        message = _violation_message(r)
        failure = ET.SubElement(case, "failure", message=_text(message), type="PrivacyViolation")
        failure.text = _text(message + "\n" + _details(r))
    elif r.verdict == "error":
        message = f"adapter error: {r.error}"
        error = ET.SubElement(case, "error", message=_text(message), type="AdapterError")
        text = _details(r)
        if r.error_traceback:
            rows = r.error_traceback.split("\n")
            text += "\n\ntraceback:\n" + "\n".join(printable(row) for row in rows)
        error.text = _text(text)
    else:
        ET.SubElement(case, "system-out").text = _text(_details(r))
