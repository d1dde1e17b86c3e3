"""The human-readable report in Markdown: verdicts first, then the evidence for each."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from auditor.core.text import printable
from reports.epsilon_by_delta import summary_text, table_rows
from reports.evidence import (
    bound_text,
    cells_lines,
    claim_text,
    curve_text,
    query_text,
    statements,
    test_text,
    white_box_bound_sentence,
)
from reports.missing import MISSING, shown
from reports.root_cause import cause_of
from reports.search_section import reproducer_path, search_rows, search_summary
from reports.tradeoff_plot import tradeoff_filename
from reports.view import AdapterReport, BaselineView, Report, parse_report
from reports.view_fields import SearchView


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
        return MISSING["markdown"]
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


VERDICT_TEXT = {
    "violation": "**VIOLATION**",
    "no_violation": "no violation found",
    "error": "ERROR",
}


def _white_box_lines(r: AdapterReport) -> list[str]:
    """Evidence lines for an estimate computed from the adapter's probability oracle."""
    assert r.queries is not None
    q0, q1 = r.queries
    p0, p1 = r.probabilities or (None, None)
    bound = white_box_bound_sentence(r, _num, "'")
    return [
        f"- inputs: x = {md_escape(query_text(q0))}, x' = {md_escape(query_text(q1))} (attack {md_escape(r.attack)})",
        f"- event: {md_escape(r.event)} (white-box)",
        f"- WHITE-BOX finding from the adapter's own probabilities(query), no sampling and no "
        f"error probability: P[event | x] = {_num(p0, 6)}, P[event | x'] = {_num(p1, 6)}; "
        f"valid if probabilities() describes sample()",
        f"- {bound}",
    ]


def render_markdown(data: dict[str, Any]) -> str:
    """The report as a Markdown document (str)."""
    report = parse_report(data)
    lines = _header_lines(report) + _table_rows(report)
    # a figure file's name is the adapter's reduced to safe characters: link it only when no
    # other result's reduces to the same (the set then numbers them -2, -3, ...)
    names = Counter(tradeoff_filename(r.adapter) for r in report.results)
    for r in report.results:
        lines += _result_lines(r, figures=names[tradeoff_filename(r.adapter)] == 1)
    lines += _provenance_lines(report)
    return "\n".join(lines) + "\n"


def _header_lines(report: Report) -> list[str]:
    """The title, what the run's confidence and verdicts mean, and the summary table's head."""
    alpha, budget = report.alpha, report.budget
    assert alpha is not None and budget is not None, "a report to render states alpha and budget"
    return [
        "# dp-audit report",
        "",
        f"Family-wise confidence {1 - alpha:.4g} (alpha = {alpha:g}, "
        f"{report.method or 'bonferroni'} over {shown(report.tests, 'markdown')} tests), seed {shown(report.seed, 'markdown')}, "
        f"budget {budget:,} outputs per input per trial."
        + (f" Run `{report.run_id}`." if report.run_id else ""),
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
            if any(r.is_curve for r in report.results)
            else []
        ),
        "| adapter | claim (ε, δ) | verdict | ε lower bound | attack | event |",
        "|---|---|---|---|---|---|",
    ]


def _table_rows(report: Report) -> list[str]:
    """The summary table's rows, one per adapter."""
    lines: list[str] = []
    for r in report.results:
        bound = curve_text(r, _num, implied=False) or bound_text(r, _num)
        lines.append(
            f"| {md_escape(r.adapter)} | {md_escape(claim_text(r, _num))} | "
            f"{_verdict(r)} | "
            f"{md_escape(bound) if r.verdict != 'error' else MISSING['markdown']} | "
            f"{md_escape(r.attack or MISSING['markdown'])} | "
            f"{md_escape(r.event or r.error or MISSING['markdown'])} |"
        )
    return lines


def _verdict(r: AdapterReport) -> str:
    return VERDICT_TEXT.get(str(r.verdict), str(r.verdict))


def _result_lines(r: AdapterReport, figures: bool = True) -> list[str]:
    """One adapter's section of the report (``figures``: link the figure files ``dp-audit run``
    writes beside it; off when another result has the same name)."""
    lines: list[str] = []
    lines += ["", f"## {md_escape(r.adapter)}", ""]
    if r.library:
        lines.append(f"- library: {md_escape(r.library)} {md_escape(r.library_version or '')}")
    lines.append(f"- verdict: {_verdict(r)}")
    if r.is_curve:
        lines.append(f"- claim: {md_escape(claim_text(r, _num))}")
    if r.error:
        lines.append(f"- error: {md_escape(r.error)}")
    if r.is_exact_white_box and r.queries:
        lines += _white_box_lines(r)
    elif r.counts:
        lines += _counts_lines(r)
    for what, text in statements(r, _num):  # the δ bound's text names itself
        lines.append(f"- {md_escape(text)}" if what == "delta" else f"- {what}: {md_escape(text)}")
    lines.append(f"- outputs drawn: {r.samples or 0:,}")
    if r.configuration is not None:
        values = ", ".join(f"{k}={v}" for k, v in r.configuration.items())
        lines.append(f"- configuration searched: {md_escape(values)}")
    if script := reproducer_path(r):
        lines.append(f"- reproduce: `python {script}` (needs no dp-audit)")
    if r.verdict == "error" and r.error_traceback:
        lines += ["", "Traceback behind the error:", "", *fenced(r.error_traceback)]
    lines += _epsilon_by_delta_lines(r, figures)
    lines += _root_cause_lines(r)
    return lines


def _epsilon_by_delta_lines(r: AdapterReport, figures: bool) -> list[str]:
    """A curve claim's "ε by δ" subsection: the figures' files and the table
    (``reports.epsilon_by_delta``); none for a result without its points."""
    rows = table_rows(r, _num)
    if not rows:
        return []
    from reports.epsilon_by_delta_plot import epsilon_by_delta_filename

    lines = [
        "",
        "### ε by δ",
        "",
        md_escape(summary_text(r, _num) or ""),
        "",
        "The best event's Clopper-Pearson limits read at each δ of the claim: every row holds "
        "together with the verdict at the run's confidence (no α of its own).",
    ]
    if figures:
        lines += [
            "",
            f"![ε by δ]({epsilon_by_delta_filename(r.adapter)}) "
            f"![trade-off]({tradeoff_filename(r.adapter)})",
        ]
    lines += ["", "| δ | certified ε ≥ | claimed ε | certified / claimed |", "|---|---|---|---|"]
    for delta, certified, claimed, ratio, violating in rows:
        mark = "**" if violating else ""
        lines.append(f"| {delta} | {mark}{certified}{mark} | {claimed} | {mark}{ratio}{mark} |")
    return lines


def _counts_lines(r: AdapterReport) -> list[str]:
    """A sampled (or white-box estimated) result's inputs, event, counts and bound."""
    lines: list[str] = []
    c = r.counts
    assert c is not None and r.queries is not None
    q0, q1 = r.queries
    lines += [
        f"- inputs: x = {md_escape(query_text(q0))}, x' = {md_escape(query_text(q1))} (attack {md_escape(r.attack)})",
        f"- event: {md_escape(r.event)}" + (" (white-box)" if r.white_box else ""),
    ]
    if r.is_cells:
        how, cut = cells_lines(r, _num)
        lines += [
            f"- certified {md_escape(curve_text(r, _num) or '')} ({md_escape(how)})",
            f"- best cut: {md_escape(cut)}",
        ]
    elif not r.is_sampled:
        # a white-box estimate: no samples, no significance level (see its event)
        lines.append(
            f"- white-box ε ≥ {_num(r.epsilon_lower_bound)} (estimator "
            f"{md_escape(r.estimator)}: no sampling error; the event states its assumption)"
        )
    else:
        curve = curve_text(r, _num)
        if curve is not None:
            lines.append(
                f"- certified {md_escape(curve)} (at significance {_num(r.alpha)}: the "
                "Clopper-Pearson corner against the claimed trade-off curve)"
            )
        lines += [
            f"- counts: {c.k0:,} of {c.n0:,} outputs on x, {c.k1:,} of {c.n1:,} on x'",
            f"- certified ε ≥ {_num(r.epsilon_lower_bound)} at significance {_num(r.alpha)} "
            f"({md_escape(test_text(r, _num))}); point estimate {_num(r.point_estimate)}",
        ]
    return lines


def _provenance_lines(report: Report) -> list[str]:
    """Baseline, search, skipped targets and provenance: what follows the adapters."""
    lines: list[str] = []
    lines += _baseline_lines(report.baseline)
    lines += _search_lines(report.search)
    if report.skipped:
        lines += ["", "## Skipped", ""] + [f"- {md_escape(s)}" for s in report.skipped]
    versions = ", ".join(f"{k} {v}" for k, v in report.versions.items())
    lines += ["", "## Provenance", "", f"- versions: {md_escape(versions)}"]
    if report.platform:
        plat = report.platform.items()
        lines.append("- platform: " + md_escape(", ".join(f"{k} {v}" for k, v in plat)))
    if report.settings:
        settings = report.settings.items()
        lines.append(
            "- settings: "
            + md_escape(", ".join(f"{k}={shown(v, 'markdown')}" for k, v in settings))
        )
    lines.append(
        f"- started {md_escape(shown(report.started, 'markdown'))}, "
        f"wall time {shown(report.wall_seconds, 'markdown')} s"
    )
    return lines


def _root_cause_lines(r: AdapterReport) -> list[str]:
    """A violation's "Root cause" subsection (reports/root_cause/); none without one."""
    found = cause_of(r)
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


def _baseline_lines(baseline: BaselineView | None) -> list[str]:
    if baseline is None:
        return []
    regressions = baseline.regressions
    lines = [
        "",
        "## Baseline",
        "",
        f"Compared with {md_escape(shown(baseline.path, 'markdown'))} (margin {_num(baseline.margin)}): "
        f"**{len(regressions)} regression(s)**, {len(baseline.accepted)} known violation(s) "
        f"accepted, {len(baseline.fixed)} fixed.",
        "",
    ]
    lines += [f"- REGRESSION: {md_escape(g.message)}" for g in regressions]
    lines += [f"- fixed: {md_escape(name)}" for name in baseline.fixed]
    lines += [f"- missing from this run: {md_escape(name)}" for name in baseline.missing]
    return lines


def _search_lines(search: SearchView | None) -> list[str]:
    if search is None:
        return []
    lines = ["", "## Parameter search", "", *(md_escape(t) for t in search_summary(search))]
    for adapter in search.adapters:
        head, rows = search_rows(adapter)
        lines += ["", md_escape(head), ""]
        lines += [
            "| configuration | at screening | bound / claim | certified |",
            "|---|---|---|---|",
        ]
        lines += [f"| {' | '.join(md_escape(c) for c in row)} |" for row in rows]
    return lines
