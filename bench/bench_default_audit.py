"""The default audit (``dp-audit run`` with no flags) on this machine: budgets reached and wall time,
per adapter kind (vectorised / per-call), optionally side by side with the old loop budget.

Usage::

    python bench/bench_default_audit.py               # the default audit once (about 5 minutes)
    python bench/bench_default_audit.py --old         # then the 0.2 settings too (about 4 more)
    python bench/bench_default_audit.py --only per-call   # per-call adapters alone
    python bench/bench_default_audit.py --adapter 'opendp.*' --adapter 'pydp.*'   # a subset

The audit runs exactly as ``dp-audit run`` runs it: every built-in adapter (loaded by target, so
workers load their own copies), the default attacks, ``AuditConfig()`` and ``EngineConfig()``
(local worker processes, one per CPU up to 8).  ``--old`` reruns it with the settings of 0.2:
``loop_budget=20_000`` and no futility check (the scheduling stays the current one).

For each kind the table shows the configured budget (outputs per side per trial), how many
trials were planned (those that sample), how many certified on the whole budget ("full":
training plus certification of the trial's finding equal the budget) and how many the futility
check cut ("cut"), the outputs drawn per side per planned trial (mean: total outputs / 2 /
trials; trials after an adapter's first violation are not run, and pair-search screening
counts too), the total outputs drawn (both sides, every stage) and the summed seconds of the
kind's adapters (they overlap: adapters run concurrently).  The wall time is the whole audit's, as ``timing.wall_seconds`` in report.json;
``dp-audit run`` adds the time to write the report files (a few seconds).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attacks import load_attacks  # noqa: E402
from auditor.core.configs import AuditConfig, EngineConfig  # noqa: E402
from auditor.core.results import AuditReport  # noqa: E402
from auditor.engine.runner import _plan, run_audit  # noqa: E402
from dp_audit.cli import _collect_adapters  # noqa: E402

KINDS = ("vectorised", "per-call")
#: the settings of 0.2 (issue #19): a tenth of the budget for per-call adapters, no futility
OLD = {"loop_budget": 20_000, "futility": 0.0}


def kind_of(adapter: Any) -> str:
    return "vectorised" if getattr(adapter, "vectorised", True) else "per-call"


@dataclass
class KindRow:
    adapters: int = 0
    budget: set[int] = field(default_factory=set)
    trials: int = 0
    full: int = 0
    short: int = 0
    outputs: int = 0
    seconds: float = 0.0


def short_trials(notes: tuple[str, ...]) -> int:
    for note in notes:
        if note.startswith("futility: "):
            return int(note.split()[1])
    return 0


def audit(
    label: str, config: AuditConfig, only: str, targets: list[str] | None
) -> tuple[AuditReport, dict[str, KindRow]]:
    adapters, skipped, origins = _collect_adapters(targets)
    if only != "all":
        adapters = [a for a in adapters if kind_of(a) == only]
        origins = {name: t for name, t in origins.items() if name in {a.name for a in adapters}}
    attacks = load_attacks(None)
    rows = {kind: KindRow() for kind in KINDS}
    for adapter in adapters:
        planned = _plan(adapter, attacks, config.seed)
        row = rows[kind_of(adapter)]
        row.adapters += 1
        if planned.spec is not None:
            row.budget.add(config.budget_for(planned.spec))
            row.trials += sum(1 for _, t in planned.trials if t.distinguisher.max_events > 0)
    print(f"[{label}] auditing {len(adapters)} adapters ...", file=sys.stderr, flush=True)
    started = time.perf_counter()
    report = run_audit(
        adapters, attacks, config, skipped=skipped, engine=EngineConfig(), targets=origins
    )
    wall = time.perf_counter() - started
    print(f"[{label}] done in {wall:.1f} s", file=sys.stderr, flush=True)
    kinds = {a.name: kind_of(a) for a in adapters}
    for result in report.results:
        row = rows[kinds[result.adapter]]
        row.outputs += result.samples
        row.seconds += result.seconds
        row.short += short_trials(result.notes)
        budget = max(row.budget, default=0)
        for finding in result.findings:
            if finding.n_certify:  # white-box evidence samples nothing
                row.full += finding.n_train + finding.n_certify >= budget
    return report, rows


def table(label: str, report: AuditReport, rows: dict[str, KindRow]) -> list[str]:
    lines = [
        f"{label}: wall {report.wall_seconds:.1f} s, {len(report.results)} adapters, "
        f"exit code {report.exit_code}",
        f"  {'kind':<11}{'adapters':>9}{'budget/side':>13}{'trials':>8}{'full':>6}{'cut':>6}"
        f"{'outputs/side/trial':>20}{'outputs':>14}{'adapter-s':>11}",
    ]
    for kind in KINDS:
        row = rows[kind]
        if not row.adapters:
            continue
        budget = "/".join(f"{b:,}" for b in sorted(row.budget)) or "-"
        per_trial = f"{row.outputs // (2 * row.trials):,}" if row.trials else "-"
        lines.append(
            f"  {kind:<11}{row.adapters:>9}{budget:>13}{row.trials:>8}{row.full:>6}"
            f"{row.short:>6}{per_trial:>20}{row.outputs:>14,}{row.seconds:>11.1f}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--old", action="store_true", help="also run the 0.2 settings (loop budget 20,000)"
    )
    parser.add_argument("--only", choices=("all", *KINDS), default="all")
    parser.add_argument(
        "--adapter",
        action="append",
        metavar="TARGET",
        help="as dp-audit run --adapter (repeatable; default: every built-in)",
    )
    args = parser.parse_args(argv)

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    engine = EngineConfig()
    print(f"cpus: {cpus}, workers: {engine.n_workers}, backend: {engine.backend}")
    runs = [("current defaults (loop budget 200,000, futility 0.2)", AuditConfig())]
    if args.old:
        runs.append(("old settings (0.2: loop budget 20,000, no futility)", AuditConfig(**OLD)))
    out: list[str] = []
    for label, config in runs:
        report, rows = audit(label, config, args.only, args.adapter)
        out += table(label, report, rows)
        print("\n".join(out[-(2 + sum(1 for r in rows.values() if r.adapters)) :]), flush=True)
    if len(runs) > 1:
        print("\nside by side:")
        print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
