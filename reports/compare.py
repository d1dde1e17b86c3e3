"""``dp-audit compare A B``: two report.json files side by side.

Typical uses: a textbook float mechanism against its exact counterpart, or one library
release against the next.  Writes ``compare.md`` (one table), ``compare.png`` (ε lower bounds
against claims) and ``compare.csv`` (through pandas, one row per adapter) to a folder.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reports.evidence import as_float, claim_text
from reports.markdown import md_escape
from reports.missing import MISSING, shown
from reports.view import AdapterReport, Report, parse_report
from reports.writing import write_atomic

COLUMNS = (
    "adapter",
    "family",
    "claim_epsilon",
    "claim_delta",
    "verdict_a",
    "verdict_b",
    "epsilon_lower_bound_a",
    "epsilon_lower_bound_b",
    "change",
    "attack_a",
    "attack_b",
    "samples_a",
    "samples_b",
)


def _claim_cell(ra: AdapterReport | None, rb: AdapterReport | None) -> str:
    """The claim as the table shows it: once when both reports agree, else A's and B's (a point
    claim in one report and a curve claim in the other, say)."""
    texts = [claim_text(r, _plain) for r in (ra, rb) if r is not None]
    if len(texts) == 2 and texts[0] != texts[1]:
        return f"A {texts[0]}; B {texts[1]}"
    return texts[0]


def comparison_rows(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per adapter in either report (A's order first); missing sides are None.

    ``claim_epsilon`` / ``claim_delta`` are A's claim when A has the adapter (a curve claim's
    implied point at its report δ); ``claim_text`` (not a CSV column) names both claims when
    they differ.  The ε lower bounds are each report's ε at its own claim's δ.  ``a``, ``b``:
    report.json dictionaries."""
    by_a, by_b = parse_report(a).by_adapter, parse_report(b).by_adapter
    names = list(by_a) + [n for n in by_b if n not in by_a]
    rows = []
    for name in names:
        ra, rb = by_a.get(name), by_b.get(name)
        either = ra or rb
        assert either is not None
        claim = either.claim
        lb_a, lb_b = _bound(ra), _bound(rb)
        rows.append(
            {
                "adapter": name,
                "family": either.family,
                "claim_epsilon": claim.epsilon if claim else None,
                "claim_delta": claim.delta if claim else None,
                "verdict_a": ra.verdict if ra else None,
                "verdict_b": rb.verdict if rb else None,
                "epsilon_lower_bound_a": lb_a,
                "epsilon_lower_bound_b": lb_b,
                "change": _change(lb_a, lb_b),
                "attack_a": ra.attack if ra else None,
                "attack_b": rb.attack if rb else None,
                "samples_a": ra.samples if ra else None,
                "samples_b": rb.samples if rb else None,
                "claim_text": _claim_cell(ra, rb),
                "curve_claim": any(r is not None and r.is_curve for r in (ra, rb)),
            }
        )
    return rows


def _bound(r: AdapterReport | None) -> float | None:
    """The certified ε lower bound; ∞ for an unbounded white-box estimate (report.json holds
    a finite stand-in there, about 708, which is not a bound to compare)."""
    if r is None or r.verdict == "error":
        return None
    if r.unbounded:
        return math.inf
    return as_float(r.epsilon_lower_bound)


def _change(a: float | None, b: float | None) -> float | None:
    """B − A; 0 when both are ∞ (the same white-box finding), ±∞ when one is."""
    if a is None or b is None:
        return None
    return 0.0 if a == b else b - a


def _plain(value: Any) -> str:
    if value is None:
        return MISSING["markdown"]
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _cell(value: Any, *, signed: bool = False) -> str:
    if value is None:
        return MISSING["markdown"]
    if isinstance(value, float):
        if math.isinf(value):
            return ("+∞" if value > 0 else "−∞") if signed else "∞ (white-box)"
        return f"{value:+.4g}" if signed else f"{value:.4g}"
    return md_escape(value)


def render_comparison_markdown(
    rows: list[dict[str, Any]],
    labels: tuple[str, str],
    a: Mapping[str, Any],
    b: Mapping[str, Any],
) -> str:
    """The side-by-side table, with each report's seed, budget and alpha above it."""
    la, lb = (md_escape(label) for label in labels)
    lines = [
        "# dp-audit comparison",
        "",
        f"- A = {la}: {_settings(parse_report(a))}",
        f"- B = {lb}: {_settings(parse_report(b))}",
        "",
        "| adapter | claim (ε, δ) | verdict A | verdict B | ε_lb A | ε_lb B | change | attack A | attack B |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        claim = (
            md_escape(row["claim_text"])
            if row.get("claim_text")
            else f"({_cell(row['claim_epsilon'])}, {_cell(row['claim_delta'])})"
        )
        lines.append(
            "| "
            + " | ".join(
                [
                    md_escape(row["adapter"]),
                    claim,
                    _cell(row["verdict_a"]),
                    _cell(row["verdict_b"]),
                    _cell(row["epsilon_lower_bound_a"]),
                    _cell(row["epsilon_lower_bound_b"]),
                    _cell(row["change"], signed=True),
                    _cell(row["attack_a"]),
                    _cell(row["attack_b"]),
                ]
            )
            + " |"
        )
    lines += [
        "",
        "ε_lb: certified lower bound (each report at its own family-wise confidence); – = no "
        "result (error, or the adapter is not in that report). change = B − A. ∞ (white-box): "
        "an outcome the mechanism's own probabilities give probability 0 on x′ (inf in "
        "compare.csv).",
    ]
    if any(row.get("curve_claim") for row in rows):
        lines.append(
            "A curve claim (μ-GDP, ρ-zCDP, …) is listed with the (ε, δ) point it implies at its "
            "report δ, and its ε_lb is what the counts certify at that δ; its bound in the "
            "claim's own parameter is in each report."
        )
    return "\n".join(lines) + "\n"


def _settings(report: Report) -> str:
    seed, budget, alpha = (shown(v, "markdown") for v in (report.seed, report.budget, report.alpha))
    return f"seed {seed}, budget {budget}, alpha {alpha}"


def write_comparison(
    a: Mapping[str, Any], b: Mapping[str, Any], labels: tuple[str, str], out: Path
) -> list[Path]:
    """Write compare.md, compare.png and compare.csv into ``out``; return their paths."""
    import pandas as pd

    from reports.compare_plot import compare_png

    rows = comparison_rows(a, b)
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    out = Path(out)
    return [
        write_atomic(out / "compare.md", render_comparison_markdown(rows, labels, a, b)),
        write_atomic(out / "compare.png", compare_png(rows, labels)),
        write_atomic(out / "compare.csv", frame.to_csv(index=False)),
    ]
