"""The human-readable report in Markdown: verdicts first, then the evidence for each."""

from __future__ import annotations

import re
from typing import Any

from auditor.core.text import printable
from reports.evidence import (
    bound_text,
    cells_lines,
    claim_text,
    curve_bound_text,
    delta_bound_text,
    is_cells,
    is_curve_claim,
    is_exact_white_box,
    is_sampled,
    query_text,
    test_text,
    tightened_text,
    white_box_bound_sentence,
)
from reports.root_cause import root_cause
from reports.search_section import reproducer_path, search_rows, search_summary


def md_escape(text: Any) -> str:
    """Make adapter-provided text inert in Markdown (tables, HTML, code spans)."""
    s = str(text)
    for ch, rep in (
        ("&", "&amp;"),
        ("<", "&lt;"),
        (">", "&gt;"),
        ("|", "\\|"),
        ("`", "\\`"),
        ("*", "\\*"),
        ("_", "\\_"),
        ("[", "\\["),
        ("]", "\\]"),
    ):
        s = s.replace(ch, rep)
    return s.replace("\n", " ")


def fenced(text: Any, info: str = "text") -> list[str]:
    """``text`` as a fenced code block whose fence no run of backticks in it can close;
    control characters escaped line by line (a report.json may come from anywhere)."""
    rows = [printable(row) for row in str(text).split("\n")]
    longest = max((len(run) for run in re.findall("`+", "\n".join(rows))), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, *rows, fence]


def _num(x: Any, digits: int = 4) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


VERDICT_TEXT = {
    "violation": "**VIOLATION**",
    "no_violation": "no violation found",
    "error": "ERROR",
}


def _white_box_lines(r: dict[str, Any]) -> list[str]:
    """Evidence lines for an estimate computed from the adapter's probability oracle."""
    q0, q1 = r["queries"]
    p = r.get("probabilities") or {}
    bound = white_box_bound_sentence(r, _num, "'")
    return [
        f"- inputs: x = {md_escape(query_text(q0))}, x' = {md_escape(query_text(q1))} (attack {md_escape(r['attack'])})",
        f"- event: {md_escape(r['event'])} (white-box)",
        f"- WHITE-BOX finding from the adapter's own probabilities(query), no sampling and no "
        f"error probability: P[event | x] = {_num(p.get('p0'), 6)}, P[event | x'] = {_num(p.get('p1'), 6)}; "
        f"valid if probabilities() describes sample()",
        f"- {bound}",
    ]


def render_markdown(report: dict[str, Any]) -> str:
    lines = _header_lines(report) + _table_rows(report)
    for r in report["results"]:
        lines += _result_lines(r)
    lines += _provenance_lines(report)
    return "\n".join(lines) + "\n"


def _header_lines(report: dict[str, Any]) -> list[str]:
    """The title, what the run's confidence and verdicts mean, and the summary table's head."""
    mc = report.get("multiple_comparisons", {})
    return [
        "# dp-audit report",
        "",
        f"Family-wise confidence {1 - report['alpha']:.4g} (alpha = {report['alpha']:g}, "
        f"{mc.get('method', 'bonferroni')} over {mc.get('tests', '?')} tests), seed {report['seed']}, "
        f"budget {report['budget']:,} outputs per input per trial."
        + (f" Run `{report['run_id']}`." if report.get("run_id") else ""),
        "",
        "A *violation* is certified: with the confidence above, the mechanism's epsilon is at least the "
        "lower bound shown, which exceeds its claim. *No violation found* means nothing was found at this "
        "budget; it does not mean the mechanism is private.",
        "",
        *(
            [
                "A claim stated as a curve (μ-GDP, ρ-zCDP, Rényi DP, a δ(ε) profile, f-DP) is judged "
                "on the whole curve: its bound is in the claim's own parameter (μ ≥ …, ρ ≥ …); the ε "
                "beside it is what the same counts certify at the claim's report δ.",
                "",
            ]
            if any(is_curve_claim(r) for r in report["results"])
            else []
        ),
        "| adapter | claim (ε, δ) | verdict | ε lower bound | attack | event |",
        "|---|---|---|---|---|---|",
    ]


def _table_rows(report: dict[str, Any]) -> list[str]:
    """The summary table's rows, one per adapter."""
    lines: list[str] = []
    for r in report["results"]:
        bound = curve_bound_text(r, _num, implied=False) or bound_text(r, _num)
        lines.append(
            f"| {md_escape(r['adapter'])} | {md_escape(claim_text(r, _num))} | "
            f"{VERDICT_TEXT.get(r['verdict'], r['verdict'])} | "
            f"{md_escape(bound) if r['verdict'] != 'error' else '–'} | "
            f"{md_escape(r.get('attack') or '–')} | "
            f"{md_escape(r.get('event') or r.get('error') or '–')} |"
        )
    return lines


def _result_lines(r: dict[str, Any]) -> list[str]:
    """One adapter's section of the report."""
    lines: list[str] = []
    lines += ["", f"## {md_escape(r['adapter'])}", ""]
    lib = r.get("library") or {}
    if lib.get("name"):
        lines.append(f"- library: {md_escape(lib['name'])} {md_escape(lib.get('version', ''))}")
    lines.append(f"- verdict: {VERDICT_TEXT.get(r['verdict'], r['verdict'])}")
    if is_curve_claim(r):
        lines.append(f"- claim: {md_escape(claim_text(r, _num))}")
    if r.get("error"):
        lines.append(f"- error: {md_escape(r['error'])}")
    if is_exact_white_box(r) and r.get("queries"):
        lines += _white_box_lines(r)
    elif r.get("counts"):
        lines += _counts_lines(r)
    if delta := delta_bound_text(r, _num):
        lines.append(f"- {md_escape(delta)}")
    if tightened := tightened_text(r, _num):
        lines.append(f"- tightened: {md_escape(tightened)}")
    power = r.get("power")
    if power and power.get("statement"):
        lines.append(f"- power: {md_escape(power['statement'])}")
    for note in r.get("notes", []):
        lines.append(f"- note: {md_escape(note)}")
    lines.append(f"- outputs drawn: {r.get('samples', 0):,}")
    if r.get("configuration"):
        values = ", ".join(f"{k}={v}" for k, v in r["configuration"]["parameters"].items())
        lines.append(f"- configuration searched: {md_escape(values)}")
    if script := reproducer_path(r):
        lines.append(f"- reproduce: `python {script}` (needs no dp-audit)")
    if r.get("verdict") == "error" and r.get("error_traceback"):
        lines += ["", "Traceback behind the error:", "", *fenced(r["error_traceback"])]
    lines += _root_cause_lines(r)
    return lines


def _counts_lines(r: dict[str, Any]) -> list[str]:
    """A sampled (or white-box estimated) result's inputs, event, counts and bound."""
    lines: list[str] = []
    c = r["counts"]
    q0, q1 = r["queries"]
    lines += [
        f"- inputs: x = {md_escape(query_text(q0))}, x' = {md_escape(query_text(q1))} (attack {md_escape(r['attack'])})",
        f"- event: {md_escape(r['event'])}" + (" (white-box)" if r.get("white_box") else ""),
    ]
    if is_cells(r):
        how, cut = cells_lines(r, _num)
        lines += [
            f"- certified {md_escape(curve_bound_text(r, _num) or '')} ({md_escape(how)})",
            f"- best cut: {md_escape(cut)}",
        ]
    elif not is_sampled(r):
        # a white-box estimate: no samples, no significance level (see its event)
        lines.append(
            f"- white-box ε ≥ {_num(r['epsilon_lower_bound'])} (estimator "
            f"{md_escape(r['estimator'])}: no sampling error; the event states its assumption)"
        )
    else:
        curve = curve_bound_text(r, _num)
        if curve is not None:
            lines.append(
                f"- certified {md_escape(curve)} (at significance {_num(r['alpha'])}: the "
                "Clopper-Pearson corner against the claimed trade-off curve)"
            )
        lines += [
            f"- counts: {c['k0']:,} of {c['n0']:,} outputs on x, {c['k1']:,} of {c['n1']:,} on x'",
            f"- certified ε ≥ {_num(r['epsilon_lower_bound'])} at significance {_num(r['alpha'])} "
            f"({md_escape(test_text(r, _num))}); point estimate {_num(r.get('point_estimate'))}",
        ]
    return lines


def _provenance_lines(report: dict[str, Any]) -> list[str]:
    """Baseline, search, skipped targets and provenance: what follows the adapters."""
    lines: list[str] = []
    lines += _baseline_lines(report.get("baseline"))
    lines += _search_lines(report.get("search"))
    if report.get("skipped"):
        lines += ["", "## Skipped", ""] + [f"- {md_escape(s)}" for s in report["skipped"]]
    versions = ", ".join(f"{k} {v}" for k, v in report.get("versions", {}).items())
    lines += ["", "## Provenance", "", f"- versions: {md_escape(versions)}"]
    plat = report.get("platform", {})
    if plat:
        lines.append("- platform: " + md_escape(", ".join(f"{k} {v}" for k, v in plat.items())))
    settings = report.get("settings", {})
    if settings:
        lines.append("- settings: " + md_escape(", ".join(f"{k}={v}" for k, v in settings.items())))
    timing = report.get("timing", {})
    lines.append(
        f"- started {md_escape(timing.get('started', '?'))}, wall time {timing.get('wall_seconds', '?')} s"
    )
    return lines


def _root_cause_lines(r: dict[str, Any]) -> list[str]:
    """A violation's "Root cause" subsection (reports/root_cause/); none without one."""
    found = root_cause(r)
    if found is None:
        return []
    lines = ["", "### Root cause", "", md_escape(found["sentence"])]
    if found.get("examples"):
        shown = ", ".join(f"`{e}`" for e in found["examples"])
        lines += [
            "",
            f"Outputs at x in the event, exact (`float.fromhex` reads them back): {shown}",
        ]
    if found["finding"] == "statistical":
        lines += ["", "The per-bin privacy loss is plotted in report.html."]
    return lines


def _baseline_lines(baseline: dict[str, Any] | None) -> list[str]:
    if not baseline:
        return []
    regressions = baseline.get("regressions") or []
    lines = [
        "",
        "## Baseline",
        "",
        f"Compared with {md_escape(baseline.get('path', ''))} (margin {_num(baseline.get('margin'))}): "
        f"**{len(regressions)} regression(s)**, {len(baseline.get('accepted') or [])} known violation(s) "
        f"accepted, {len(baseline.get('fixed') or [])} fixed.",
        "",
    ]
    lines += [f"- REGRESSION: {md_escape(g['message'])}" for g in regressions]
    lines += [f"- fixed: {md_escape(name)}" for name in baseline.get("fixed") or []]
    lines += [
        f"- missing from this run: {md_escape(name)}" for name in baseline.get("missing") or []
    ]
    return lines


def _search_lines(search: dict[str, Any] | None) -> list[str]:
    if not search:
        return []
    lines = ["", "## Parameter search", "", *(md_escape(t) for t in search_summary(search))]
    for adapter in search["adapters"]:
        head, rows = search_rows(adapter)
        lines += ["", md_escape(head), ""]
        lines += [
            "| configuration | at screening | bound / claim | certified |",
            "|---|---|---|---|",
        ]
        lines += [f"| {' | '.join(md_escape(c) for c in row)} |" for row in rows]
    return lines
