"""Trainings per second of the DP-SGD training audit (issue #50 Deliver 4): the same seeded
audit of Opacus's correct configuration in this process and on the engine's Dask backend (a
LocalCluster of ``--workers`` processes, one thread each), side by side in one run.

For each threat model (white-box steps, final model) and each round (``--rounds``, the
engines interleaved so that a change in the machine's load hits them alike), one audit at
``--budget`` trainings per side with futility off, so every engine runs the same trainings:
the same seed gives the same verdict and bound on every backend, which the script checks.
Printed: the trainings per second of each engine (audit wall time, the cluster's start-up
included; the start-up of an empty cluster is printed on its own), and the ratio Dask /
in-process.  A plain loop of trainings
without the engine gives the in-process ceiling.

Run: ``nice -n 19 python bench/bench_training_scale.py [--budget 1024] [--workers 2]
[--rounds 2]`` (needs the ``opacus`` and ``dask[distributed]`` extras).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attacks import load_attacks  # noqa: E402
from auditor.core.configs import AuditConfig, EngineConfig  # noqa: E402
from auditor.engine.runner import run_audit  # noqa: E402


def audit(adapter: Any, budget: int, engine: EngineConfig) -> tuple[float, int, str, float]:
    """(seconds, trainings, verdict, bound) of one seeded audit on ``engine``."""
    t0 = time.perf_counter()
    config = AuditConfig(budget=budget, seed=0, futility=0.0)
    result = run_audit([adapter], load_attacks(None), config, engine=engine).results[0]
    bound = result.best.estimate.bound if result.best is not None else 0.0
    if result.error:
        raise SystemExit(f"{adapter.name} on {engine.backend}: {result.error}")
    return time.perf_counter() - t0, result.samples, str(result.verdict), float(bound)


def cluster_start(workers: int) -> float:
    """Seconds to start and close a LocalCluster like the backend's (workers import torch
    only when the first task arrives, so this is the cluster alone)."""
    from distributed import Client, LocalCluster

    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True)
    with cluster, Client(cluster):
        pass
    return time.perf_counter() - t0


def plain_rate(adapter: Any, n: int) -> float:
    """Trainings per second of ``adapter.sample`` alone, in this process."""
    adapter.seed(0)
    t0 = time.perf_counter()
    adapter.sample(1, n)
    return n / (time.perf_counter() - t0)


def main() -> None:
    from auditor.adapters.opacus_training import Training

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=int, default=1024, help="trainings per side")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    engines = {
        "in-process": EngineConfig.in_process(),
        f"dask {args.workers}": EngineConfig(backend="dask", workers=args.workers),
    }
    adapters = [Training("correct"), Training("correct", observe="final")]
    print(
        f"budget {args.budget} trainings per side, futility off, seed 0, {args.rounds} rounds; "
        f"LocalCluster start-up and close: {cluster_start(args.workers):.1f} s"
    )
    for adapter in adapters:
        print(f"{adapter.name}: plain loop {plain_rate(adapter, 200):.1f} trainings/s")
        rates: dict[str, list[float]] = {name: [] for name in engines}
        seen: dict[str, tuple[str, float]] = {}
        for _ in range(args.rounds):
            for name, engine in engines.items():
                seconds, trainings, verdict, bound = audit(adapter, args.budget, engine)
                rates[name].append(trainings / seconds)
                seen[name] = (verdict, bound)
                print(
                    f"  {name:12} {trainings:6d} trainings {seconds:7.1f} s "
                    f"{trainings / seconds:6.1f}/s  {verdict} stretch {bound:.4f}",
                    flush=True,
                )
        same = len(set(seen.values())) == 1
        base, other = (statistics.median(r) for r in rates.values())
        print(
            f"  median trainings/s: in-process {base:.1f}, {list(engines)[1]} {other:.1f}: "
            f"ratio {other / base:.2f}; same verdict and bound on both: {same}"
        )


if __name__ == "__main__":
    main()
