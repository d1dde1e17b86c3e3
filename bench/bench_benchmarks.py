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

Run: ``python bench/bench_benchmarks.py [--budget N] [--grid] [--only SUBSTRING] [--seed S]
[--seeds K]``.
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


def published(name: str) -> tuple[str, str, float | None]:
    from auditor.adapters.benchmarks import PUBLISHED_FIGURES

    figures = PUBLISHED_FIGURES.get(name)
    if figures is None:
        return "–", "–", None
    sniper, statdp = figures
    known = [f for f in (sniper, statdp) if f is not None]
    fmt = lambda v: "–" if v is None else f"{v:g}"  # noqa: E731
    return fmt(sniper), fmt(statdp), max(known) if known else None


def main() -> None:
    from attacks import load_attacks
    from auditor.adapters.benchmarks import PUBLISHED_SECONDS, builtin_adapters
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
    args = parser.parse_args()
    adapters = [a for a in builtin_adapters() if args.only in a.name]
    seeds = list(range(args.seed, args.seed + max(1, args.seeds)))
    print(
        f"Benchmark mechanisms, budget {args.budget:,} per side per trial, "
        + (f"seed {args.seed}" if len(seeds) == 1 else f"seeds {seeds[0]}-{seeds[-1]}")
        + (", outputs on a 2^-6 grid" if args.grid else "")
        + (", early stop" if args.early_stop else ", fixed-n")
    )
    print(
        "| mechanism | claim | verdict | ε_lb | seconds | DP-Sniper | StatDP | "
        "ε_lb / best published | DP-Sniper seconds | seconds / (DP-Sniper / 10) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    looks = {} if args.early_stop else {"looks": ((1.0, 1.0),)}
    total = 0.0
    for adapter in adapters:
        subject = OnGrid(adapter) if args.grid else adapter
        bounds, verdicts, times = [], [], []
        for seed in seeds:
            t0 = time.perf_counter()
            report = run_audit(
                [subject],
                load_attacks(None),
                AuditConfig(budget=args.budget, seed=seed, **looks),
                engine=EngineConfig(),
            )
            times.append(time.perf_counter() - t0)
            (r,) = report.results
            bounds.append(r.epsilon_lower_bound)
            verdicts.append(r.verdict.value if r.error is None else f"error: {r.error[:60]}")
        total += sum(times)
        bound, seconds = float(np.mean(bounds)), float(np.mean(times))
        sniper, statdp, best = published(adapter.name)
        ratio = f"{bound / best:.2f}" if best else "–"
        peer = PUBLISHED_SECONDS.get(adapter.name)
        peer_text = f"{peer:g}" if peer else "–"
        time_ratio = f"{seconds / (peer / 10):.2f}" if peer else "–"
        verdict = " / ".join(dict.fromkeys(verdicts))
        shown = f"{bound:.4g}"
        if len(seeds) > 1:
            shown = f"{bound:.4g} (" + " / ".join(f"{b:.4g}" for b in bounds) + ")"
        print(
            f"| {adapter.name} | {adapter.epsilon:g} | {verdict} | {shown} | "
            f"{seconds:.1f} | {sniper} | {statdp} | {ratio} | {peer_text} | {time_ratio} |"
        )
    print(f"\ntotal wall time {total:.0f} s for {len(adapters)} mechanisms")


if __name__ == "__main__":
    main()
