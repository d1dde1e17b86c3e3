"""The futility projection against what the trial then reaches: is a cut ever wrong?

Usage: ``python bench/bench_futility_projection.py [--sets 24 25] [--benchmarks] [--seeds 2]
[--budget 200000] [--futility 0.2]``

The futility check (``Certifier._optimistic_bound``) cuts a trial when no proposed event, at
the favourable edge of its ``1 - futility`` training intervals, would certify a violation at
the final look.  This bench audits real mechanisms with the check *measured but never acted
on*: the projection (``hope``) is recorded for every trial and the trial goes on to every
look, so what it reaches is known.  A projection is wrong when ``hope <= claim`` (the trial
would have been cut) yet the trial certifies a violation; the table counts those, per
mechanism and in all, with the projection's margin (reached - hope) over all trials.

Mechanisms: the held-out sets named (their broken and correct twins) and, with
``--benchmarks``, the testers' benchmark suite on the 2^-6 grid (``bench_benchmarks.OnGrid``).
A few minutes per set and seed on two cores.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def _held_out(number: int) -> list[Any]:
    path = ROOT / "bench" / f"held_out_mechanisms_{number}.py"
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.ADAPTERS)


def _measured(futility: float) -> list[tuple[str, float, float]]:
    """Patch the certifier so the check runs and records, but never cuts; return the list
    ``(trial, hope, reached)`` the patched runs append to."""
    from auditor.engine import certify, trial_stages

    rows: list[tuple[str, float, float]] = []
    hopes: dict[int, float] = {}
    optimistic = certify.Certifier._optimistic_bound
    run = trial_stages.TrialStages.run

    def record(self: Any, *args: Any, **kwargs: Any) -> float:
        hopes[id(self)] = optimistic(self, *args, **kwargs)
        return float("inf")  # never cut

    def run_and_compare(self: Any) -> Any:
        certifier, trial = self.certifier, self.trial
        hopes.pop(id(certifier), None)
        finding = run(self)
        if id(certifier) in hopes:
            reached = finding.estimate.bound if finding is not None else 0.0
            text = trial.description[:50]
            rows.append((f"{certifier.spec.name} / {text}", hopes[id(certifier)], reached))
        return finding

    certify.Certifier._optimistic_bound = record  # type: ignore[method-assign]
    trial_stages.TrialStages.run = run_and_compare  # type: ignore[method-assign]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, nargs="*", default=[24])
    parser.add_argument("--benchmarks", action="store_true")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--budget", type=int, default=200_000)
    parser.add_argument("--futility", type=float, default=0.2)
    args = parser.parse_args(argv)

    from attacks import load_attacks
    from auditor.core.configs import AuditConfig, EngineConfig
    from auditor.engine.runner import run_audit

    adapters = [a for n in args.sets for a in _held_out(n)]
    if args.benchmarks:
        from bench_benchmarks import OnGrid

        from auditor.adapters.benchmarks import builtin_adapters

        adapters += [OnGrid(a) for a in builtin_adapters()]
    rows = _measured(args.futility)
    t0 = time.perf_counter()
    claims: dict[str, float] = {}
    for seed in range(args.seeds):
        config = AuditConfig(seed=seed, budget=args.budget, futility=args.futility, tighten=False)
        # the certifier runs in this process (workers only sample): the patch holds
        report = run_audit(adapters, load_attacks(None), config, engine=EngineConfig())
        claims.update({r.adapter: r.claim.value for r in report.results if r.claim})
    wrong = [(t, h, r) for t, h, r in rows if h <= claims[t.split(" / ")[0]] < r]
    cut = [(t, h, r) for t, h, r in rows if h <= claims[t.split(" / ")[0]]]
    margin = np.array([r - h for _, h, r in rows])
    print(
        f"{len(rows)} trials checked ({len(adapters)} mechanisms x {args.seeds} seed(s), "
        f"futility {args.futility:g}, budget {args.budget:,}, {time.perf_counter() - t0:.0f} s)"
    )
    print(f"would be cut: {len(cut)}; of those certified a violation all the same: {len(wrong)}")
    if len(margin):
        q = np.quantile(margin, [0.5, 0.9, 0.99, 1.0])
        print(
            "reached - hope over all trials: median {:.3g}, 90% {:.3g}, 99% {:.3g}, max "
            "{:.3g}".format(*q)
        )
    for t, h, r in wrong:
        print(f"  WRONG CUT  {t}: projected {h:.4g}, reached {r:.4g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
