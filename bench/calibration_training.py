"""Calibration of the DP-SGD training audit (issue #50): seeded audits of Opacus's *correct*
configuration (``auditor.adapters.opacus_training``) across configurations, counting false
violations.

The grid crosses noise multiplier (0.8, 1.5), steps (2, 4), sample rate (1/2: batch 32 of 64;
1/4: batch 16), threat model (white-box steps, final model) and accountant (PRV, RDP): 32
configurations, each audited with ``--seeds`` seeds (default 2: 64 audits).  Every audit runs
the default attacks at ``--budget`` trainings per side, α = 0.05, in this process; futility is
off by default (``--futility``) so that every audit goes through all its certification looks,
the strictest test of the run's α.  The claim is the accountant's own profile, which is an
upper bound for the correct training, so every violation is a false one: their count out of N
with the exact Clopper-Pearson 95 % upper limit of their rate must stay consistent with α.

Results are JSON lines (``--out``, resumable: audits already there are skipped); the table is
printed at the end (``--table`` prints it from the file alone).

Run: ``nice -n 19 python bench/calibration_training.py [--budget 512] [--seeds 2]
[--out /tmp/calibration_training.jsonl]`` (needs the ``opacus`` extra).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attacks import load_attacks  # noqa: E402
from auditor.core.configs import AuditConfig  # noqa: E402
from auditor.engine.runner import run_audit  # noqa: E402
from auditor.statistics.clopper_pearson import cp_upper  # noqa: E402

ALPHA = 0.05


def configurations() -> list[dict[str, Any]]:
    """The 32 configurations of the correct training (module docstring)."""
    grid = itertools.product((0.8, 1.5), (2, 4), (32, 16), ("steps", "final"), ("prv", "rdp"))
    return [
        {
            "noise_multiplier": noise,
            "steps": steps,
            "batch_size": batch,
            "observe": observe,
            "accountant": accountant,
        }
        for noise, steps, batch, observe, accountant in grid
    ]


def key(params: dict[str, Any], seed: int) -> str:
    return json.dumps({**params, "seed": seed}, sort_keys=True)


def audit(params: dict[str, Any], seed: int, budget: int, futility: float) -> dict[str, Any]:
    """One seeded audit of the correct training with ``params``: verdict, stretch, time."""
    from auditor.adapters.opacus_training import Training

    t0 = time.perf_counter()
    adapter = Training("correct", **params)
    claim_seconds = time.perf_counter() - t0
    config = AuditConfig(budget=budget, seed=seed, alpha=ALPHA, futility=futility)
    result = run_audit([adapter], load_attacks(None), config).results[0]
    best = result.best
    return {
        "key": key(params, seed),
        **params,
        "seed": seed,
        "verdict": str(result.verdict),
        "stretch": None if best is None else float(best.estimate.bound),
        "trainings": int(result.samples),
        "seconds": time.perf_counter() - t0,
        "claim_seconds": claim_seconds,
        "error": result.error,
    }


def table(rows: list[dict[str, Any]]) -> str:
    """The Markdown table: per threat model x accountant, then overall."""
    lines = [
        "| configurations | audits | false violations | 95 % upper limit of the rate | "
        "largest stretch | median stretch | trainings per audit | seconds per audit |",
        "|---|---|---|---|---|---|---|---|",
    ]
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        name = f"{'white-box' if r['observe'] == 'steps' else 'final model'}, {r['accountant']}"
        groups.setdefault(name, []).append(r)
    for name, group in [*sorted(groups.items()), ("all", rows)]:
        n = len(group)
        k = sum(r["verdict"] == "violation" for r in group)
        stretches = sorted(r["stretch"] or 0.0 for r in group)
        lines.append(
            f"| {name} | {n} | {k} | {cp_upper(k, n, ALPHA):.3f} | {stretches[-1]:.3f} | "
            f"{stretches[len(stretches) // 2]:.3f} | "
            f"{sum(r['trainings'] for r in group) / n:,.0f} | "
            f"{sum(r['seconds'] for r in group) / n:.0f} |"
        )
    errors = sum(bool(r["error"]) for r in rows)
    lines.append("")
    lines.append(f"errors: {errors}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, default=512, help="trainings per side")
    parser.add_argument("--seeds", type=int, default=2, help="seeds per configuration")
    parser.add_argument("--futility", type=float, default=0.0)
    parser.add_argument("--out", default="/tmp/calibration_training.jsonl")
    parser.add_argument("--table", action="store_true", help="print the table from --out only")
    args = parser.parse_args()
    out = Path(args.out)
    done = {}
    if out.exists():
        for line in out.read_text().splitlines():
            row = json.loads(line)
            done[row["key"]] = row
    if not args.table:
        print(
            f"budget {args.budget} trainings per side, alpha {ALPHA}, futility {args.futility:g}",
            flush=True,
        )
        for seed in range(args.seeds):
            for params in configurations():
                if key(params, seed) in done:
                    continue
                row = audit(params, seed, args.budget, args.futility)
                done[row["key"]] = row
                with out.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                stretch = "-" if row["stretch"] is None else f"{row['stretch']:.3f}"
                print(
                    f"{row['key']}: {row['verdict']} stretch {stretch}, {row['trainings']} "
                    f"trainings, {row['seconds']:.0f} s",
                    flush=True,
                )
    print(table(list(done.values())))


if __name__ == "__main__":
    main()
