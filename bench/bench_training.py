"""DP-SGD trainings audited end to end: Opacus's correct configuration against its own
accountant, and the misconfigurations (``auditor.adapters.opacus_training``).

Each adapter gets one audit with every default attack (on a one-bit input only the pair
search applies) at ``--budget`` trainings per side, in this process, one thread.  Printed per
adapter: the verdict; the certified stretch of the accountant's profile, which is also
certified ε / accountant ε at the profile point where the counts refute the most (its δ
named); the certified ε and the accountant's ε at δ = 1e-5; the trainings run, the seconds
and trainings per second.  A stretch above 1 is a violation: the training is less private
than the accountant states.

Then the one-run audit of the correct configuration (``--one-run M`` canaries in a single
training, Steinke-Nasr-Jagielski bound) beside the accountant's epsilon.

Run: ``python bench/bench_training.py [--budget 8192] [--seed 0] [--only correct,...]
[--one-run 1000]`` (needs the ``opacus`` extra).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attacks import load_attacks  # noqa: E402
from auditor.core.claims import event_epsilon  # noqa: E402
from auditor.core.configs import AuditConfig  # noqa: E402
from auditor.engine.runner import run_audit  # noqa: E402
from auditor.statistics.clopper_pearson import cp_lower, cp_upper  # noqa: E402

REPORT_DELTA = 1e-5


def best_point(estimate: Any, claim: Any) -> tuple[float, float, float]:
    """(delta_k, certified eps at delta_k, accountant eps at delta_k) where the event's
    Clopper-Pearson corner refutes the most of the profile (the point behind the stretch)."""
    c = estimate.counts
    p0 = cp_lower(c.k0, c.n0, estimate.alpha * estimate.alpha_split)
    p1 = cp_upper(c.k1, c.n1, estimate.alpha * (1.0 - estimate.alpha_split))
    best = (0.0, 0.0, 0.0, 0.0)
    for eps, delta in claim.delta_of_eps:
        r = event_epsilon(p0, p1, delta)
        if eps > 0 and r / eps > best[0]:
            best = (r / eps, delta, r, eps)
    return best[1], best[2], best[3]


def audit(adapter: Any, budget: int, seed: int, futility: float) -> dict[str, Any]:
    t0 = time.perf_counter()
    config = AuditConfig(budget=budget, seed=seed, futility=futility)
    report = run_audit([adapter], load_attacks(None), config)
    seconds = time.perf_counter() - t0
    result = report.results[0]
    row: dict[str, Any] = {
        "adapter": adapter.name,
        "verdict": str(result.verdict),
        "trainings": result.samples,
        "seconds": seconds,
        "accountant_eps": adapter.claim.epsilon_for_delta(REPORT_DELTA),
        "stretch": 0.0,
        "at_delta": float("nan"),
        "certified_at": 0.0,
        "accountant_at": float("nan"),
        "eps_lb": 0.0,
    }
    if result.best is not None:
        est = result.best.estimate
        delta_k, certified, accountant = best_point(est, adapter.claim)
        row.update(
            stretch=est.bound,
            at_delta=delta_k,
            certified_at=certified,
            accountant_at=accountant,
            eps_lb=est.epsilon_lower_bound if est.delta == REPORT_DELTA else float("nan"),
        )
    if result.error:
        row["verdict"] += f" ({result.error})"
    return row


def one_run(m: int, seed: int) -> None:
    """The one-run audit of the correct configuration: one training, ``m`` canaries."""
    from auditor.adapters.opacus_training import one_run_audit

    t0 = time.perf_counter()
    r = one_run_audit(m, seed=seed, delta=REPORT_DELTA)
    print(
        f"one-run audit, {m} canaries in one training: {r.right} of {r.guesses} guesses right, "
        f"eps >= {r.epsilon_lower_bound:.3f} at delta {r.delta:g} (alpha {r.alpha:g}), "
        f"accountant eps {r.accountant_epsilon:.3f}, {time.perf_counter() - t0:.0f} s"
    )


def main() -> None:
    from auditor.adapters.opacus_training import builtin_adapters

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, default=8192, help="trainings per side")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--only", default="", help="comma-separated variant or adapter names (default: all)"
    )
    parser.add_argument(
        "--one-run", type=int, default=1000, help="canaries of the one-run audit (0: none)"
    )
    parser.add_argument(
        "--futility",
        type=float,
        default=0.0,
        help="the run's futility level (default 0: every audit draws its whole budget, so the "
        "correct training's bound is measured at the budget; dp-audit run's default stops a "
        "trial whose training split shows no violation is reachable)",
    )
    args = parser.parse_args()
    wanted = {w for w in args.only.split(",") if w}
    adapters = [a for a in builtin_adapters() if not wanted or wanted & {a.variant, a.name}]
    print(
        f"budget {args.budget} trainings per side, seed {args.seed}, futility "
        f"{args.futility:g}, one thread"
    )
    head = (
        f"{'adapter':42} {'verdict':13} {'stretch':>7} {'at delta':>9} {'cert eps':>8} "
        f"{'acct eps':>8} | {'eps_lb@1e-5':>11} {'acct@1e-5':>9} | {'trainings':>9} "
        f"{'seconds':>7} {'per s':>6}"
    )
    print(head)
    for adapter in adapters:
        r = audit(adapter, args.budget, args.seed, args.futility)
        print(
            f"{r['adapter']:42} {r['verdict']:13} {r['stretch']:7.3f} {r['at_delta']:9.2g} "
            f"{r['certified_at']:8.3f} {r['accountant_at']:8.3f} | {r['eps_lb']:11.3f} "
            f"{r['accountant_eps']:9.3f} | {r['trainings']:9d} {r['seconds']:7.0f} "
            f"{r['trainings'] / r['seconds']:6.1f}",
            flush=True,
        )
    if args.one_run:
        one_run(args.one_run, args.seed)


if __name__ == "__main__":
    main()
