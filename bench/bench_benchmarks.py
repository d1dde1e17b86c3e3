"""The testers' benchmark mechanisms at their papers' epsilon, beside the published figures.

For each mechanism of ``auditor.adapters.benchmarks`` (StatDP's and DP-Sniper's benchmarks,
claimed epsilon 0.1): our verdict, certified epsilon lower bound (family-wise confidence 0.95
over the whole run of that mechanism) and wall time, beside DP-Sniper's best bound and StatDP's
bound re-verified on fresh samples, both as reported in DP-Sniper's artifact logs (DP-Sniper
states its bounds at confidence 0.9), and DP-Sniper's wall time for the same mechanism.

Certification is fixed-n (``--no-early-stop``): the peers report the bound of their full
sample, and an audit that stops at the first look certifying a violation reports that look's
(smaller) bound.  ``--early-stop`` shows the default behaviour instead.

``--grid`` takes the floating-point effects out: every real output is rounded to a multiple
of 2^-6 (coarse for noise of scale 10 and more), so only the statistics count; run it with
``--budget`` at the peers' output counts (DP-Sniper certifies on 2 x 10^8 outputs per input;
10^7 already shows the trend).

``--seeds K`` audits each mechanism with seeds S, ..., S + K - 1 and shows every bound (the
pair and event choices are noisy: one seed is one draw of them), their mean, and the mean
time.

``--match-time`` gives each mechanism a tenth of the published time instead of one budget: the
time of the tool whose figure is the best published one (StatDP's search plus verification,
or DP-Sniper's logistic-regression run).  The budget is found from timings alone: an audit at
``--budget``, one at four times it if that fits, then up to two more, each at the budget a
straight line through the last two timings puts at 80 % of the allowance (at most 2 x 10^8,
the peers' largest output count; the second line corrects the first, which the small
budgets' screening steepens).  The bound shown is the last audit's, which is an audit like any other at its budget:
no choice looked at a bound.  Its time is shown beside the allowance, and the time of all the
row's audits beside that.

Run: ``python bench/bench_benchmarks.py [--budget N] [--grid] [--only SUBSTRING] [--seed S]
[--seeds K] [--match-time]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# dp-audit itself is imported in main(): the audit's worker processes re-run this script's top
# level (as any multiprocessing child does), and would otherwise each import the whole tool
# again, a second or two that a `dp-audit run`, whose script is two lines, never pays.

GRID = 2.0**-6


class OnGrid:
    """An adapter whose real outputs are rounded to multiples of ``GRID`` (post-processing:
    as private as the adapter, with no float artefacts left)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "_inner":  # unpickling asks before _inner is set
            raise AttributeError(name)
        return getattr(self._inner, name)

    def sample(self, query: Any, n: int) -> Any:
        out = np.asarray(self._inner.sample(query, n))
        if out.dtype.names is not None:
            out = out.copy()
            for field in out.dtype.names:
                if np.issubdtype(out.dtype[field], np.floating):
                    out[field] = np.round(out[field] / GRID) * GRID
            return out
        if np.issubdtype(out.dtype, np.floating):
            return np.round(out / GRID) * GRID
        return out


#: the largest budget ``--match-time`` gives (the peers' largest output count per input)
MAX_BUDGET = 200_000_000
#: ``--match-time`` aims at this share of the allowance (timings vary from run to run)
AIM = 0.8
#: the second audit is this many times the first's budget
STEP = 4
#: ``--match-time`` audits each mechanism at most this many times (the last one counts)
MAX_AUDITS = 4


def published(name: str) -> tuple[str, str, float | None, str, float | None]:
    """Both tools' figures as text, the best one, the tool that published it and its seconds."""
    from auditor.adapters.benchmarks import PUBLISHED_FIGURES, PUBLISHED_SECONDS

    figures = PUBLISHED_FIGURES.get(name)
    if figures is None:
        return "–", "–", None, "–", None
    sniper, statdp = figures
    sniper_s, statdp_s = PUBLISHED_SECONDS.get(name, (None, None))
    known = [
        (f, tool, t)
        for f, tool, t in ((sniper, "DP-Sniper", sniper_s), (statdp, "StatDP", statdp_s))
        if f is not None
    ]
    fmt = lambda v: "–" if v is None else f"{v:g}"  # noqa: E731
    if not known:
        return fmt(sniper), fmt(statdp), None, "–", None
    best, tool, seconds = max(known, key=lambda k: k[0])
    return fmt(sniper), fmt(statdp), best, tool, seconds


def next_budget(timings: list[tuple[int, float]], allowance: float) -> int | None:
    """The budget a straight line through the last two ``(budget, seconds)`` timings puts at
    ``AIM`` of the allowance, two significant digits, at most ``MAX_BUDGET``; None when it is
    not a quarter above the largest budget timed (not worth another audit).

    With one timing, or two less than a factor 2 apart in budget (within each other's noise),
    the line goes through the origin, which overstates the time of a larger budget.  Its
    slope is at least a quarter of the last audit's seconds per output: a busy machine would
    otherwise make it flat and the next budget unbounded."""
    b1, t1 = timings[-1]
    slope = t1 / b1
    if len(timings) > 1 and b1 >= 2 * timings[-2][0]:
        b0, t0 = timings[-2]
        slope = max((t1 - t0) / (b1 - b0), slope / 4)
    budget = min(MAX_BUDGET, (AIM * allowance - (t1 - slope * b1)) / slope)
    if budget < 1.25 * b1:
        return None
    digits = 10 ** max(0, int(np.log10(budget)) - 1)
    return int(budget // digits * digits)


def main() -> None:
    from attacks import load_attacks
    from auditor.adapters.benchmarks import builtin_adapters
    from auditor.core.configs import AuditConfig, EngineConfig
    from auditor.engine.runner import run_audit

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=200_000, help="outputs per side per trial")
    parser.add_argument("--grid", action="store_true", help="round real outputs to 2^-6")
    parser.add_argument("--only", default="", help="only mechanisms whose name contains this")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, default=1, help="seeds per mechanism, from --seed")
    parser.add_argument(
        "--early-stop", action="store_true", help="stop at the first look that certifies"
    )
    parser.add_argument(
        "--conditional-test",
        action="store_true",
        help="certify pure epsilon claims by the conditional test (docs/estimators.md 1.1)",
    )
    parser.add_argument(
        "--match-time",
        action="store_true",
        help="give each mechanism a tenth of the published time (see the module docstring)",
    )
    args = parser.parse_args()
    adapters = [a for a in builtin_adapters() if args.only in a.name]
    seeds = list(range(args.seed, args.seed + max(1, args.seeds)))
    print(
        "Benchmark mechanisms, "
        + (
            f"a tenth of the published time each (first audit at {args.budget:,})"
            if args.match_time
            else f"budget {args.budget:,} per side per trial"
        )
        + ", "
        + (f"seed {args.seed}" if len(seeds) == 1 else f"seeds {seeds[0]}-{seeds[-1]}")
        + (", outputs on a 2^-6 grid" if args.grid else "")
        + (", early stop" if args.early_stop else ", fixed-n")
        + (", conditional test" if args.conditional_test else "")
    )
    print(
        "| mechanism | claim | verdict | ε_lb | budget | seconds | DP-Sniper | StatDP | "
        "ε_lb / best published | its tool's seconds | seconds / (those / 10) | all audits' seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    looks = {} if args.early_stop else {"looks": ((1.0, 1.0),)}

    def audit(subject: Any, budget: int, seed: int) -> tuple[Any, float]:
        t0 = time.perf_counter()
        report = run_audit(
            [subject],
            load_attacks(None),
            AuditConfig(budget=budget, seed=seed, conditional_test=args.conditional_test, **looks),
            engine=EngineConfig(),
        )
        (result,) = report.results
        return result, time.perf_counter() - t0

    total = 0.0
    for adapter in adapters:
        subject = OnGrid(adapter) if args.grid else adapter
        sniper, statdp, best, tool, best_seconds = published(adapter.name)
        bounds, verdicts, times, budgets, spent = [], [], [], [], 0.0
        for seed in seeds:
            budget, timings = args.budget, []
            while True:
                r, seconds = audit(subject, budget, seed)
                timings.append((budget, seconds))
                spent += seconds
                if not args.match_time or best_seconds is None or len(timings) == MAX_AUDITS:
                    break
                following = next_budget(timings, best_seconds / 10)
                if following is None:
                    break
                budget = min(following, STEP * budget) if len(timings) == 1 else following
            bounds.append(r.epsilon_lower_bound)
            verdicts.append(r.verdict.value if r.error is None else f"error: {r.error[:60]}")
            times.append(seconds)
            budgets.append(budget)
        total += spent
        bound, seconds = float(np.mean(bounds)), float(np.mean(times))
        ratio = f"{bound / best:.3f}" if best else "–"
        peer_text = f"{best_seconds:g} ({tool})" if best_seconds else "–"
        time_ratio = f"{seconds / (best_seconds / 10):.2f}" if best_seconds else "–"
        verdict = " / ".join(dict.fromkeys(verdicts))
        shown = f"{bound:.5g}"
        if len(seeds) > 1:
            shown = f"{bound:.5g} (" + " / ".join(f"{b:.5g}" for b in bounds) + ")"
        budget_text = " / ".join(f"{b / 1e6:g}M" for b in dict.fromkeys(budgets))
        print(
            f"| {adapter.name} | {adapter.epsilon:g} | {verdict} | {shown} | {budget_text} | "
            f"{seconds:.1f} | {sniper} | {statdp} | {ratio} | {peer_text} | {time_ratio} | "
            f"{spent / len(seeds):.0f} |"
        )
    print(f"\ntotal wall time {total:.0f} s for {len(adapters)} mechanisms")


if __name__ == "__main__":
    main()
