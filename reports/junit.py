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
from typing import Any

from auditor.core.text import printable
from reports.evidence import (
    EventEvidence,
    as_float,
    curve_bound_text,
    delta_bound_text,
    is_curve_claim,
    is_exact_white_box,
    tightened_text,
)
from reports.root_cause import root_cause_text

#: characters XML 1.0 cannot carry, even escaped
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _text(value: Any) -> str:
    return _INVALID_XML.sub("?", str(value))


def _g(x: Any) -> str:
    return f"{as_float(x):.4g}"


def case_name(r: dict[str, Any]) -> str:
    """``<adapter> claims (epsilon=1, delta=0)``, or ``<adapter> claims 1-GDP`` for a curve
    claim: one test case per adapter and claim."""
    claim = r.get("claim")
    if not claim:
        return f"{r['adapter']} (claim unknown)"
    if is_curve_claim(r) and claim.get("description"):
        return f"{r['adapter']} claims {claim['description']}"
    return f"{r['adapter']} claims (epsilon={_g(claim['epsilon'])}, delta={_g(claim['delta'])})"


def violation_message(r: dict[str, Any]) -> str:
    """One line stating the violation and the numbers it rests on."""
    claim = r["claim"]
    if is_exact_white_box(r):
        return (
            f"claim violated (white-box, exact probabilities from the adapter's probabilities()): "
            f"epsilon {'= inf' if r.get('unbounded') else '>= ' + _g(r['epsilon_lower_bound'])} "
            f"> claimed {_g(claim['epsilon'])} (attack {r.get('attack')}, inputs "
            f"{r.get('queries')}; probabilities {r.get('probabilities')})"
        )
    ev = EventEvidence.from_result(r)
    counts = f"; counts {ev.k0}/{ev.n0} on x vs {ev.k1}/{ev.n1} on x'" if ev else ""
    curve = curve_bound_text(r, _g)
    if curve is not None:
        return (
            f"claim violated: certified {curve} (attack {r.get('attack')}, inputs "
            f"{r.get('queries')}){counts}"
        )
    return (
        f"claim violated: certified epsilon >= {_g(r['epsilon_lower_bound'])} > claimed "
        f"{_g(claim['epsilon'])} (attack {r.get('attack')}, inputs {r.get('queries')}){counts}"
    )


def _details(r: dict[str, Any]) -> str:
    lines = [f"verdict: {r['verdict']}"]
    for key in ("attack", "queries", "event", "counts", "alpha", "point_estimate", "error"):
        if r.get(key) is not None:
            lines.append(f"{key}: {r[key]}")
    if delta := delta_bound_text(r, _g):
        lines.append(f"delta bound: {delta}")
    if tightened := tightened_text(r, _g):
        lines.append(f"tightened: {tightened}")
    power = r.get("power") or {}
    if power.get("statement"):
        lines.append(f"power: {power['statement']}")
    lines += [f"note: {n}" for n in r.get("notes") or []]
    lines.append(f"outputs drawn: {r.get('samples', 0)}")
    cause = root_cause_text(r)
    if cause:
        lines.append(f"root cause: {cause}")
    return "\n".join(lines)


def render_junit(report: dict[str, Any]) -> str:
    """The report as a JUnit XML document (str)."""
    results = list(report.get("results") or [])
    skipped = list(report.get("skipped") or [])
    failures = sum(r["verdict"] == "violation" for r in results)
    errors = sum(r["verdict"] == "error" for r in results)
    wall = (report.get("timing") or {}).get("wall_seconds", 0.0)
    suites = ET.Element("testsuites", name="dp-audit")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name="dp-audit",
        tests=str(len(results) + len(skipped)),
        failures=str(failures),
        errors=str(errors),
        skipped=str(len(skipped)),
        time=f"{float(wall or 0.0):.3f}",
        timestamp=_text((report.get("timing") or {}).get("started", "")),
    )
    props = ET.SubElement(suite, "properties")
    for key in ("run_id", "seed", "alpha", "budget"):
        ET.SubElement(props, "property", name=key, value=_text(report.get(key)))
    for name, version in (report.get("versions") or {}).items():
        ET.SubElement(props, "property", name=f"version.{_text(name)}", value=_text(version))
    for r in results:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=_text(f"dp-audit.{r.get('family') or 'unknown'}"),
            name=_text(case_name(r)),
            time=f"{float((r.get('timing') or {}).get('seconds') or 0.0):.3f}",
        )
        if r["verdict"] == "violation":
            message = violation_message(r)
            failure = ET.SubElement(
                case, "failure", message=_text(message), type="PrivacyViolation"
            )
            failure.text = _text(message + "\n" + _details(r))
        elif r["verdict"] == "error":
            message = f"adapter error: {r.get('error')}"
            error = ET.SubElement(case, "error", message=_text(message), type="AdapterError")
            text = _details(r)
            if r.get("error_traceback"):
                rows = str(r["error_traceback"]).split("\n")
                text += "\n\ntraceback:\n" + "\n".join(printable(row) for row in rows)
            error.text = _text(text)
        else:
            ET.SubElement(case, "system-out").text = _text(_details(r))
    for note in skipped:
        case = ET.SubElement(suite, "testcase", classname="dp-audit.skipped", name=_text(note))
        ET.SubElement(case, "skipped", message=_text(note))
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )
