"""The self-contained HTML report: one file, inline CSS, plots as data-URI PNGs.

The page references nothing outside itself (no scripts, no style sheets, no web fonts, no
remote images), so it can be mailed to a client or attached to a CI run and opened offline.
Every string that comes from an adapter, an attack or the report file goes through
``html.escape``.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from html import escape
from typing import Any

from auditor.core.text import printable
from reports import epsilon_by_delta_plot, plots, tradeoff_plot
from reports.epsilon_by_delta import summary_text, table_rows
from reports.evidence import (
    as_float,
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
from reports.view import (
    AdapterReport,
    BaselineView,
    EventEvidence,
    Regression,
    Report,
    parse_report,
)
from reports.view_fields import SearchView

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:1100px;
 padding:0 1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{margin-top:2.2rem;border-bottom:1px solid #ddd}
h3{margin-top:1.6rem;word-break:break-all}
table{border-collapse:collapse;width:100%;font-size:.9rem;margin:.8rem 0}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:.6rem;font-weight:600;font-size:.85rem}
.violation{background:#fde2e1;color:#a40e0e}.no_violation{background:#e3f4e1;color:#1c6b17}
.error{background:#fff1cc;color:#7a5600}.regression{background:#a40e0e;color:#fff}
.note{color:#555;font-size:.9rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}
dt{font-weight:600}dd{margin:0;word-break:break-word}code{background:#f4f4f4;padding:0 .2rem}
img{max-width:100%;height:auto;display:block;margin:.6rem 0}
.plots{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start}
pre{background:#f4f4f4;padding:.5rem;overflow-x:auto;font-size:.8rem;margin:.3rem 0}
summary{cursor:pointer}
"""

VERDICT_TEXT = {"violation": "VIOLATION", "no_violation": "no violation found", "error": "error"}


def _img(png: bytes | None, alt: str) -> str:
    if not png:
        return ""
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def _num(x: Any, digits: int = 4) -> str:
    if x is None:
        return MISSING["html"]
    if isinstance(x, float | str):
        try:
            value = as_float(x)
            if value in (float("inf"), float("-inf")):
                return "∞" if value > 0 else "−∞"
            return escape(f"{value:.{digits}g}")
        except ValueError:
            return escape(str(x))
    return escape(str(x))


def _badge(verdict: str) -> str:
    return (
        f'<span class="badge {escape(verdict)}">{escape(VERDICT_TEXT.get(verdict, verdict))}</span>'
    )


def _claim(r: AdapterReport) -> str:
    return escape(claim_text(r, _num))


def _bound_cell(r: AdapterReport) -> str:
    """The verdict table's bound: ε (as ever) or, for a curve claim, its own parameter."""
    if r.verdict == "error":
        return MISSING["html"]
    return escape(curve_text(r, _num, implied=False) or bound_text(r, _num))


def _inputs(r: AdapterReport) -> tuple[str, str]:
    assert r.queries is not None
    q0, q1 = r.queries
    return (
        "inputs",
        f"x = <code>{escape(query_text(q0))}</code>, x′ = <code>{escape(query_text(q1))}</code>",
    )


def _dl(items: list[tuple[str, str]]) -> str:
    return "<dl>" + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"


def _plot_or_note(make: Callable[[], bytes | None], alt: str) -> str:
    """A figure; a failure to draw one is shown as a note, never a failed report."""
    try:
        return _img(make(), alt)
    except Exception as exc:  # noqa: BLE001 - a figure is decoration; the numbers are the report
        return f'<p class="note">figure "{escape(alt)}" could not be drawn: {escape(type(exc).__name__)}</p>'


def _adapter_section(i: int, r: AdapterReport, regression: Regression | None) -> str:
    name = escape(r.adapter)
    parts = [f'<section><h3 id="{escape(_anchor(i, r))}">{name} {_badge(str(r.verdict))}</h3>']
    if regression:
        parts.append(
            f'<p><span class="badge regression">REGRESSION</span> {escape(regression.message)}</p>'
        )
    curve = r.is_curve
    items = [
        ("family", escape(r.family or MISSING["html"])),
        ("claim" if curve else "claim (ε, δ)", _claim(r)),
    ]
    if r.library:
        items.append(("library", escape(f"{r.library} {r.library_version or ''}")))
    if r.error:
        items.append(("error", f"<code>{escape(r.error)}</code>"))
    if r.verdict == "error" and r.error_traceback:
        items.append(("traceback", _traceback_block(r.error_traceback)))
    ev = r.event_evidence
    if r.is_exact_white_box and r.queries:
        items += _white_box_items(r)
    if ev is not None:
        items += _event_items(r, ev, curve)
    else:
        items += _estimate_items(r)
    items += _statement_items(r)
    parts.append(_dl(items))
    if ev is not None or (r.is_cells and r.output_sample):
        parts += _figure_parts(r, curve)
    if cause := _root_cause_html(r):
        parts.append(cause)
    parts.append("</section>")
    return "\n".join(parts)


def _statement_items(r: AdapterReport) -> list[tuple[str, str]]:
    """The rows after the evidence: δ bound, tightening, power, notes, outputs, reproducer."""
    labels = {"delta": "δ bound"}
    items = [(labels.get(what, what), escape(text)) for what, text in statements(r, _num)]
    items.append(("outputs drawn", f"{int(r.samples or 0):,}"))
    if r.configuration is not None:
        values = ", ".join(f"{k}={v}" for k, v in r.configuration.items())
        items.append(("configuration searched", escape(values)))
    if script := reproducer_path(r):
        items.append(("reproduce", f"<code>python {escape(script)}</code> (needs no dp-audit)"))
    items.append(("time", f"{_num(r.seconds)} s"))
    return items


def _event_items(r: AdapterReport, ev: EventEvidence, curve: bool) -> list[tuple[str, str]]:
    """A counted event's rows: inputs, event, counts, the bound and how it was computed."""
    items: list[tuple[str, str]] = []
    items += [
        ("attack", escape(str(r.attack))),
        _inputs(r),
        ("event", escape(str(r.event)) + (" (white-box)" if r.white_box else "")),
        (
            "counts",
            f"{ev.k0:,} of {ev.n0:,} outputs on x; {ev.k1:,} of {ev.n1:,} on x′",
        ),
        (
            "certified bound",
            (
                f"ε ≥ <b>{_num(ev.lower)}</b> at significance {_num(ev.alpha)} "
                f"({escape(test_text(r, _num))})"
            )
            if ev.conditional
            else (
                f"ε ≥ <b>{_num(ev.lower)}</b> at significance {_num(ev.alpha)} (Clopper-Pearson, "
                f"{_num(r.alpha_split or 0.5)} of α on the limit for x, the rest on x′): "
                f"ln((p0_low − δ)/p1_high) = ln(({_num(ev.p0_low)} − {_num(ev.delta)})"
                f"/{_num(ev.p1_high)})"
            ),
        ),
        (
            "event interval",
            f"[{_num(ev.lower)}, {_num(ev.upper)}]; point estimate {_num(ev.point)}",
        ),
    ]
    if curve:
        # the bound the verdict rests on, in the claim's own parameter, before the ε lines
        items.insert(
            -2,
            (
                "certified bound (claim)",
                f"<b>{escape(curve_text(r, _num) or '')}</b>, at significance "
                f"{_num(r.alpha)}: where the Clopper-Pearson corner (p1_high, 1 − "
                "p0_low) lies against the claimed trade-off curve (figure below)",
            ),
        )
    return items


def _estimate_items(r: AdapterReport) -> list[tuple[str, str]]:
    """The rows of a result without a counted event: cells, or another white-box estimate."""
    items: list[tuple[str, str]] = []
    if r.is_cells and r.counts and r.queries:
        how, cut = cells_lines(r, _num)
        items += [
            ("attack", escape(str(r.attack))),
            _inputs(r),
            ("cells", escape(str(r.event))),
            (
                "certified bound (claim)",
                f"<b>{escape(curve_text(r, _num) or '')}</b>, {escape(how)}",
            ),
            ("best cut", escape(cut)),
        ]
    elif not r.is_exact_white_box and r.counts and not r.is_sampled:
        # another white-box estimate (e.g. white-box-sensitivity): no counts to show
        items += [
            ("attack", escape(str(r.attack))),
            _inputs(r),
            ("event", escape(str(r.event)) + " (white-box)"),
            (
                "white-box bound",
                f"ε ≥ <b>{_num(r.epsilon_lower_bound)}</b> (estimator "
                f"{escape(str(r.estimator))}: no sampling error; the event states its "
                "assumption)",
            ),
        ]
    return items


def _figure_parts(r: AdapterReport, curve: bool) -> list[str]:
    """The figures of a result with outputs to show, and a note where its sample is missing."""
    parts: list[str] = []
    label = r.adapter
    figures = [
        _plot_or_note(lambda: plots.distributions_png(r), f"output distributions of {label}"),
        _plot_or_note(lambda: plots.porosity_png(r), f"low-order bits of outputs of {label}"),
        _plot_or_note(lambda: plots.event_png(r), f"event probabilities of {label}"),
    ]
    if curve:
        figures.append(
            _plot_or_note(
                lambda: tradeoff_plot.result_tradeoff_png(r), f"trade-off curve of {label}"
            )
        )
        figures.append(
            _plot_or_note(
                lambda: epsilon_by_delta_plot.result_epsilon_by_delta_png(r),
                f"certified and claimed ε by δ of {label}",
            )
        )
    parts.append('<div class="plots">' + "".join(figures) + "</div>")
    parts.append(_epsilon_by_delta_table(r))
    if not r.output_sample:
        parts.append(
            '<p class="note">No output sample in this report: distributions not shown.</p>'
        )
    return parts


VIOLATION_ROW = ' class="violation"'


def _epsilon_by_delta_table(r: AdapterReport) -> str:
    """A curve claim's certified and claimed ε at each of its δ (``reports.epsilon_by_delta``),
    collapsed under its one-line summary; empty without points."""
    rows = table_rows(r, _num)
    if not rows:
        return ""
    body = "".join(
        f"<tr{VIOLATION_ROW if bad else ''}><td>{escape(d)}</td><td>{escape(c)}</td>"
        f"<td>{escape(e)}</td><td>{escape(q)}</td></tr>"
        for d, c, e, q, bad in rows
    )
    return (
        f"<details><summary>ε by δ: {escape(summary_text(r, _num) or '')}</summary>"
        "<p>The best event's Clopper-Pearson limits read at each δ of the claim: every row "
        "holds together with the verdict at the run's confidence (no α of its own).</p>"
        "<table><thead><tr><th>δ</th><th>certified ε ≥</th><th>claimed ε</th>"
        f"<th>certified / claimed</th></tr></thead><tbody>{body}</tbody></table></details>"
    )


def _root_cause_html(r: AdapterReport) -> str:
    """A violation's "Root cause" subsection: the sentence, exact hex examples and, for a
    statistical finding, the empirical privacy-loss plot; "" without one."""
    found = cause_of(r)
    if found is None:
        return ""
    parts = ["<h4>Root cause</h4>", f"<p>{escape(str(found['sentence']))}</p>"]
    if found.get("examples"):
        shown = ", ".join(f"<code>{escape(e)}</code>" for e in found["examples"])
        parts.append(
            f"<p>Outputs at x in the event, exact (<code>float.fromhex</code> reads them back): "
            f"{shown}</p>"
        )
    if found["finding"] == "statistical":
        parts.append(
            _plot_or_note(
                lambda: plots.result_privacy_loss_png(r), f"empirical privacy loss of {r.adapter}"
            )
        )
    return "\n".join(parts)


def _traceback_block(text: Any) -> str:
    """The traceback behind an error, collapsed; control characters escaped line by line."""
    shown = "\n".join(printable(row) for row in str(text).split("\n"))
    return f"<details><summary>show the traceback</summary><pre>{escape(shown)}</pre></details>"


def _white_box_items(r: AdapterReport) -> list[tuple[str, str]]:
    """Evidence of a white-box finding: exact probabilities from the adapter's oracle."""
    p0, p1 = r.probabilities or (None, None)
    bound = white_box_bound_sentence(r, _num, "′")
    return [
        ("attack", escape(str(r.attack))),
        _inputs(r),
        ("event", escape(str(r.event)) + " (white-box)"),
        (
            "WHITE-BOX evidence",
            "exact probabilities from the adapter's own probabilities(query), no sampling: "
            f"P[event | x] = {_num(p0)}, P[event | x′] = {_num(p1)}; "
            "valid if probabilities() describes sample()",
        ),
        ("bound", escape(bound)),
    ]


def _anchor(i: int, r: AdapterReport) -> str:
    """A unique, inert fragment id: the position plus the name's letters and digits."""
    return f"adapter-{i}-" + "".join(ch if ch.isalnum() else "-" for ch in r.adapter)


def _summary_table(results: tuple[AdapterReport, ...]) -> str:
    rows = [
        "<table><thead><tr><th>adapter</th><th>claim (ε, δ)</th><th>verdict</th>"
        "<th>ε lower bound</th><th>attack</th><th>event / error</th></tr></thead><tbody>"
    ]
    for i, r in enumerate(results):
        rows.append(
            f'<tr><td><a href="#{escape(_anchor(i, r))}">{escape(r.adapter)}</a></td>'
            f"<td>{_claim(r)}</td><td>{_badge(str(r.verdict))}</td>"
            f'<td class="num">{_bound_cell(r)}</td>'
            f"<td>{escape(r.attack or MISSING['html'])}</td>"
            f"<td>{escape(r.event or r.error or MISSING['html'])}</td></tr>"
        )
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _baseline_section(baseline: BaselineView | None) -> str:
    if baseline is None:
        return ""
    regressions = baseline.regressions
    path = shown(baseline.path, "html")
    head = (
        f"<h2>Baseline</h2><p>Compared with <code>{escape(path)}</code> "
        f"(margin {_num(baseline.margin)}): {len(regressions)} regression(s).</p>"
    )
    if not regressions:
        return head
    items = "".join(f"<li>{escape(g.message)}</li>" for g in regressions)
    return head + f"<ul>{items}</ul>"


def _search_section(search: SearchView | None) -> str:
    if search is None:
        return ""
    parts = ["<h2>Parameter search</h2>"]
    parts += [f"<p>{escape(t)}</p>" for t in search_summary(search)]
    for adapter in search.adapters:
        head, rows = search_rows(adapter)
        body = "".join(
            "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows
        )
        parts.append(
            f"<p>{escape(head)}</p><table><thead><tr><th>configuration</th><th>at screening</th>"
            f"<th>bound / claim</th><th>certified</th></tr></thead><tbody>{body}</tbody></table>"
        )
    return "\n".join(parts)


def _provenance(report: Report) -> str:
    settings = report.settings.items()
    rows = [
        ("run", escape(report.run_id or MISSING["html"])),
        ("seed", _num(report.seed)),
        ("alpha (family-wise)", _num(report.alpha)),
        ("budget", f"{int(report.budget or 0):,} outputs per input per trial"),
        ("tests (Bonferroni)", f"{_num(report.tests)}, per-test α {_num(report.per_test_alpha)}"),
        ("versions", escape(", ".join(f"{k} {v}" for k, v in report.versions.items()))),
        ("platform", escape(", ".join(f"{k} {v}" for k, v in report.platform.items()))),
        ("settings", escape(", ".join(f"{k}={shown(v, 'html')}" for k, v in settings))),
        ("started", escape(shown(report.started, "html"))),
        ("wall time", f"{_num(report.wall_seconds)} s"),
    ]
    return "<h2>Provenance</h2>" + _dl(rows)


def render_html(data: dict[str, Any]) -> str:
    """The whole report as one HTML document (str)."""
    report = parse_report(data)
    results = report.results
    assert report.alpha is not None, "a report to render states its alpha"
    alpha = float(report.alpha)
    baseline = report.baseline
    by_adapter = {g.adapter: g for g in (baseline.regressions if baseline else ())}
    counts = {v: sum(r.verdict == v for r in results) for v in VERDICT_TEXT}
    summary = ", ".join(f"{counts[v]} {VERDICT_TEXT[v]}" for v in VERDICT_TEXT if counts[v])
    intro = (
        f"<p>{len(results)} adapter(s): {escape(summary) or 'none'}. Family-wise confidence "
        f"{_num(1 - alpha)} (α = {_num(alpha)}), seed {_num(report.seed)}, budget "
        f"{int(report.budget or 0):,} outputs per input per trial.</p>"
        '<p class="note">A <b>violation</b> is certified: with the confidence above, the '
        "mechanism's ε is at least the lower bound shown, which exceeds its claim. <b>No violation "
        "found</b> means nothing was found at this budget; it does not mean the mechanism is "
        "private.</p>"
    )
    if any(r.is_curve for r in results):
        intro += (
            '<p class="note">A claim stated as a curve (μ-GDP, ρ-zCDP, Rényi DP, a δ(ε) profile, '
            "f-DP) is judged on the whole curve: its bound is in the claim's own parameter (μ ≥ …, "
            "ρ ≥ …), and the ε shown beside it is what the same counts certify at the claim's "
            "report δ, next to the ε the claim implies there.</p>"
        )
    body = [
        "<h1>dp-audit report</h1>",
        intro,
        _summary_table(results),
        _plot_or_note(lambda: plots.epsilon_png(results), "epsilon lower bounds against claims"),
        _baseline_section(baseline),
        _search_section(report.search),
        "<h2>Adapters</h2>",
        *(_adapter_section(i, r, by_adapter.get(r.adapter)) for i, r in enumerate(results)),
    ]
    if report.skipped:
        body.append(
            "<h2>Skipped</h2><ul>"
            + "".join(f"<li>{escape(s)}</li>" for s in report.skipped)
            + "</ul>"
        )
    body.append(_provenance(report))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>dp-audit report</title><style>{CSS}</style></head><body>\n"
        + "\n".join(b for b in body if b)
        + "\n</body></html>\n"
    )
