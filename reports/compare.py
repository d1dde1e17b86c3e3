"""``dp-audit compare A B``: two report.json files side by side.

Typical uses: a textbook float mechanism against its exact counterpart, or one library
release against the next.  Writes ``compare.md`` (one table), ``compare.png`` (ε lower bounds
against claims) and ``compare.csv`` (through pandas, one row per adapter) to a folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reports.evidence import as_float
from reports.markdown import md_escape
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


def comparison_rows(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per adapter in either report (A's order first); missing sides are None."""
    by_a = {str(r["adapter"]): r for r in a.get("results") or []}
    by_b = {str(r["adapter"]): r for r in b.get("results") or []}
    names = list(by_a) + [n for n in by_b if n not in by_a]
    rows = []
    for name in names:
        ra, rb = by_a.get(name), by_b.get(name)
        either = ra or rb
        assert either is not None
        claim = either.get("claim") or {}

        def bound(r: dict[str, Any] | None) -> float | None:
            if r is None or r["verdict"] == "error":
                return None
            return as_float(r.get("epsilon_lower_bound"))

        lb_a, lb_b = bound(ra), bound(rb)
        rows.append(
            {
                "adapter": name,
                "family": either.get("family"),
                "claim_epsilon": claim.get("epsilon"),
                "claim_delta": claim.get("delta"),
                "verdict_a": ra["verdict"] if ra else None,
                "verdict_b": rb["verdict"] if rb else None,
                "epsilon_lower_bound_a": lb_a,
                "epsilon_lower_bound_b": lb_b,
                "change": (lb_b - lb_a) if lb_a is not None and lb_b is not None else None,
                "attack_a": ra.get("attack") if ra else None,
                "attack_b": rb.get("attack") if rb else None,
                "samples_a": ra.get("samples") if ra else None,
                "samples_b": rb.get("samples") if rb else None,
            }
        )
    return rows


def _cell(value: Any, *, signed: bool = False) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:+.4g}" if signed else f"{value:.4g}"
    return md_escape(value)


def render_comparison_markdown(
    rows: list[dict[str, Any]], labels: tuple[str, str], a: dict[str, Any], b: dict[str, Any]
) -> str:
    """The side-by-side table, with each report's seed, budget and alpha above it."""
    la, lb = (md_escape(label) for label in labels)
    lines = [
        "# dp-audit comparison",
        "",
        f"- A = {la}: seed {a.get('seed')}, budget {a.get('budget')}, alpha {a.get('alpha')}",
        f"- B = {lb}: seed {b.get('seed')}, budget {b.get('budget')}, alpha {b.get('alpha')}",
        "",
        "| adapter | claim (ε, δ) | verdict A | verdict B | ε_lb A | ε_lb B | change | attack A | attack B |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        claim = f"({_cell(row['claim_epsilon'])}, {_cell(row['claim_delta'])})"
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
        "result (error, or the adapter is not in that report). change = B − A.",
    ]
    return "\n".join(lines) + "\n"


def write_comparison(
    a: dict[str, Any], b: dict[str, Any], labels: tuple[str, str], out: Path
) -> list[Path]:
    """Write compare.md, compare.png and compare.csv into ``out``; return their paths."""
    import pandas as pd

    from reports.plots import compare_png

    rows = comparison_rows(a, b)
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    out = Path(out)
    return [
        write_atomic(out / "compare.md", render_comparison_markdown(rows, labels, a, b)),
        write_atomic(out / "compare.png", compare_png(rows, labels)),
        write_atomic(out / "compare.csv", frame.to_csv(index=False)),
    ]
