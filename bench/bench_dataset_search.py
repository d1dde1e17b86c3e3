"""The climbs over datasets, side by side: held-out sets of dataset mechanisms audited with and
without them in one run, each adapter's verdict, bound and the audit's wall time.

Usage::

    python bench/bench_dataset_search.py                 # sets 17, 18 and 19 (about 10 minutes)
    python bench/bench_dataset_search.py --set 19        # one set
    python bench/bench_dataset_search.py --budget 50000  # another budget

Each set is audited as its slow test audits it (every adapter together, the default attacks,
seed 0, ``EngineConfig()``), once as dp-audit runs and once with ``Trial.explore`` switched off
on the pair search's trials (the fixed and random pairs alone).  A bound is in the claim's own
parameter where the claim is a curve (μ, ρ, the Rényi scale), else ε.  "found" counts the
broken twins certified as violations; a correct one called a violation would be a false alarm
and is counted apart.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

import attacks.pair_search as pair_search  # noqa: E402
from attacks import load_attacks  # noqa: E402
from auditor.core.configs import AuditConfig, EngineConfig  # noqa: E402
from auditor.core.results import Verdict  # noqa: E402
from auditor.engine.runner import run_audit  # noqa: E402


def load(number: int) -> Any:
    path = BENCH.parent / "tests" / "corpus" / f"held_out_mechanisms_{number}.py"
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def audit(adapters: list[Any], budget: int, climbs: bool) -> tuple[dict[str, Any], float]:
    """Each adapter's result, and the audit's wall time, with or without the climbs."""
    trials = pair_search.PairSearchAttack.trials
    if not climbs:
        pair_search.PairSearchAttack.trials = lambda self, spec, rng: [  # type: ignore[method-assign]
            replace(t, explore=None) for t in trials(self, spec, rng)
        ]
    try:
        start = time.perf_counter()
        report = run_audit(
            adapters, load_attacks(None), AuditConfig(seed=0, budget=budget), engine=EngineConfig()
        )
        return {r.adapter: r for r in report.results}, time.perf_counter() - start
    finally:
        pair_search.PairSearchAttack.trials = trials  # type: ignore[method-assign]


def bound(result: Any) -> str:
    best = result.best
    if result.error is not None:
        return "error"
    if best is None:
        return "-"
    found = best.to_dict()
    parameter = found.get("parameter")
    value = found["claim_bound"] if parameter else found["epsilon_lower_bound"]
    return f"{parameter or 'eps'} {value:.4g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", type=int, action="append", dest="sets", help="held-out set")
    parser.add_argument("--budget", type=int, default=AuditConfig().budget)
    args = parser.parse_args()
    for number in args.sets or [17, 18, 19]:
        module = load(number)
        without, t0 = audit(module.ADAPTERS, args.budget, climbs=False)
        with_, t1 = audit(module.ADAPTERS, args.budget, climbs=True)
        print(
            f"\nset {number} (budget {args.budget:,}): without the climbs {t0:.0f} s, with {t1:.0f} s"
        )
        print(f"| {'adapter':40s} | {'without':>22s} | {'with':>22s} | true |")
        print(f"|{'-' * 42}|{'-' * 24}|{'-' * 24}|------|")
        found, alarms = [0, 0], [0, 0]
        for adapter in module.ADAPTERS:
            name = adapter.name
            cells = []
            for i, results in enumerate((without, with_)):
                r = results[name]
                violation = r.verdict is Verdict.VIOLATION
                if violation and adapter.broken:
                    found[i] += 1
                if violation and not adapter.broken:
                    alarms[i] += 1
                cells.append(("VIOLATION " if violation else "") + bound(r))
            true = getattr(module, "TRUE_VALUES", {}).get(name, "")
            print(f"| {name:40s} | {cells[0]:>22s} | {cells[1]:>22s} | {true} |")
        broken = sum(1 for a in module.ADAPTERS if a.broken)
        print(
            f"broken found: {found[0]} / {broken} without the climbs, {found[1]} / {broken} with; "
            f"correct ones called violations: {alarms[0]} without, {alarms[1]} with"
        )


if __name__ == "__main__":
    main()
