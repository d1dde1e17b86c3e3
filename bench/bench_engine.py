"""Benchmark of the sampling engine; every ratio is measured side by side in this run.

    python bench/bench_engine.py            # everything (a few minutes on 2 cores)
    python bench/bench_engine.py --skip-memory --skip-default

Prints:
1. audit throughput / raw numpy Laplace throughput (target >= 0.5), one worker;
2. 2 workers / 1 worker, local processes and Dask LocalCluster (target >= 1.7);
3. wall time of the default ``python -m dp_audit run`` (target <= 300 s on 2 cores);
4. peak RSS of an audit of 1e8 samples per side (target < 2 GB).

Throughput counts the certification phase only (from the first to the last progress report),
so process and cluster start-up are excluded; they are printed separately.  Each engine runs
``--repeats`` times, interleaved with the others, and the median is printed with the range: one
run on a shared 2-core machine moves by 20 %.  A 2-vs-1 ratio is the median over the rounds of
each 2-worker run against the 1-worker run just before it (the pair saw the same load).  The
budget (5e7 per side) makes each run long enough (about 1.5 s at 2 workers) that it measures
throughput rather than the latency of a look's first and last chunks.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from auditor import AuditConfig, run_audit  # noqa: E402
from auditor.adapters.textbook import TextbookLaplace  # noqa: E402
from auditor.core.configs import EngineConfig  # noqa: E402
from auditor.core.trials import Trial  # noqa: E402
from auditor.statistics.events.event_selection import threshold_event  # noqa: E402


class FixedThresholds:
    """Eight threshold events fixed in advance (no training): measures the engine alone."""

    max_events = 8
    train_fraction = 0.0

    def propose(self, train_x, train_x_prime, plan):
        return [threshold_event(t, above) for t in (-1.0, 0.0, 0.5, 2.0) for above in (True, False)]


class FixedAttack:
    name = "bench-fixed"
    description = "fixed threshold events"

    def applies_to(self, spec):
        return True

    def trials(self, spec, rng):
        return [Trial(0.0, 1.0, FixedThresholds(), "0 vs 1")]


def raw_laplace(n: int) -> float:
    """numpy Laplace samples per second, in this process, 2^16 at a time."""
    rng = np.random.default_rng(0)
    chunk = 1 << 16
    start = time.perf_counter()
    for _ in range(n // chunk):
        rng.laplace(0.0, 1.0, size=chunk) + 0.0
    return n / (time.perf_counter() - start)


def _raw_worker(n: int, queue) -> None:
    """The engine's per-sample work without the engine: Laplace, the finiteness check and
    eight threshold counts, 2^18 outputs at a time."""
    rng = np.random.default_rng(0)
    chunk = 1 << 18
    start = time.perf_counter()
    for _ in range(max(1, n // chunk)):
        x = 0.0 + rng.laplace(0.0, 1.0, size=chunk)
        np.isfinite(x).all()
        for t in (-1.0, 0.0, 0.5, 2.0):
            np.count_nonzero(x > t)
            np.count_nonzero(x < t)
    queue.put(max(1, n // chunk) * chunk / (time.perf_counter() - start))


def raw_laplace_processes(n: int, processes: int) -> float:
    """Total raw numpy Laplace rate of ``processes`` processes at once: the hardware ceiling."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_raw_worker, args=(n, queue)) for _ in range(processes)]
    for p in procs:
        p.start()
    rates = [queue.get() for _ in procs]
    for p in procs:
        p.join()
    return sum(rates)


def audit_rate(budget: int, engine: EngineConfig, attacks=None) -> tuple[float, float]:
    """(samples per second between the first and last progress report, wall seconds)."""
    marks: list[tuple[float, int]] = []

    def progress(name, done, total):
        marks.append((time.perf_counter(), done))

    adapter = TextbookLaplace(1.0, name="bench.laplace")
    adapter.epsilon = 1000.0  # a claim no threshold event can break: the full budget runs
    start = time.perf_counter()
    run_audit(
        [adapter],
        attacks or [FixedAttack()],
        AuditConfig(budget=budget, seed=1),
        progress=progress,
        engine=engine,
        targets=None,
    )
    wall = time.perf_counter() - start
    (t0, d0), (t1, d1) = marks[0], marks[-1]
    return (d1 - d0) / (t1 - t0), wall


def memory_child(budget: int, workers: int, attack: str) -> None:
    """Run one audit and print the peak RSS of this process and of its worker processes."""
    import threading

    try:
        import psutil
    except ImportError:  # comes with dask[distributed]; without it worker RSS is not measured
        psutil = None

    from attacks import load_attacks

    peaks: dict[int, int] = {}
    stop = threading.Event()

    def poll() -> None:
        if psutil is None:
            return
        me = psutil.Process()
        while not stop.is_set():
            for child in me.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    peaks[child.pid] = max(peaks.get(child.pid, 0), child.memory_info().rss)
            stop.wait(0.2)

    watcher = threading.Thread(target=poll, daemon=True)
    watcher.start()
    adapter = TextbookLaplace(1.0, name="bench.laplace")
    attacks = [FixedAttack()] if attack == "fixed" else load_attacks(["black-box"])
    # a claim no event can break at this budget, so that the whole budget is drawn
    adapter.epsilon = 1000.0
    start = time.perf_counter()
    report = run_audit(
        [adapter],
        attacks,
        AuditConfig(budget=budget, seed=1),
        engine=EngineConfig(backend="local", workers=workers),
    )
    wall = time.perf_counter() - start
    stop.set()
    watcher.join()
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    (r,) = report.results
    print(
        json.dumps(
            {
                "self_mb": self_kb / 1024,
                "worker_mb": max(peaks.values(), default=0) / 2**20,
                "wall": wall,
                "samples": r.samples,
                "verdict": r.verdict.value,
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=50_000_000, help="per side, throughput runs")
    parser.add_argument("--memory-budget", type=int, default=100_000_000)
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved runs per engine")
    parser.add_argument("--skip-default", action="store_true")
    parser.add_argument("--skip-dask", action="store_true")
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--memory-attack", default="fixed", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_budget, 2, args.memory_attack)
        return
    print(f"cpus: {os.cpu_count()}, budget {args.budget:,} per side, 8 fixed threshold events")

    # warm the fork server so that its one-off start-up is not charged to the first run
    audit_rate(200_000, EngineConfig(backend="local", workers=1))
    raw = raw_laplace(2 * args.budget)
    engines = {
        "in-process": EngineConfig.in_process(),
        "local 1": EngineConfig(backend="local", workers=1),
        "local 2": EngineConfig(backend="local", workers=2),
    }
    if not args.skip_dask:
        try:
            import distributed  # noqa: F401

            engines["dask 1"] = EngineConfig(backend="dask", workers=1)
            engines["dask 2"] = EngineConfig(backend="dask", workers=2)
        except ImportError:
            print("dask: not installed (pip install 'dp-audit[dask]')")
    # rounds interleave the engines, so that a change in the machine's load hits them alike
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in engines}
    ceilings = []
    for _ in range(args.repeats):
        ceilings.append(
            raw_laplace_processes(args.budget, 2) / raw_laplace_processes(args.budget, 1)
        )
        for name, engine in engines.items():
            runs[name].append(audit_rate(args.budget, engine))
    ceiling = float(np.median(ceilings))
    rate = {name: float(np.median([r for r, _ in found])) for name, found in runs.items()}
    wall = {name: float(np.median([w for _, w in found])) for name, found in runs.items()}

    def spread(name: str) -> str:
        rates = [r / 1e6 for r, _ in runs[name]]
        return f"({min(rates):.1f}-{max(rates):.1f})" if len(rates) > 1 else ""

    print(f"throughput: median of {args.repeats} interleaved runs (min-max)")
    print(f"raw numpy Laplace            {raw / 1e6:8.1f} M samples/s")
    print(
        f"same work without the engine, 2 processes vs 1: {ceiling:.2f}x  (this machine's "
        "ceiling for the 2-vs-1 ratios below)"
    )
    for name, what in (
        ("in-process", "in-process"),
        ("local 1", "local, 1 worker"),
        ("dask 1", "dask, 1 worker"),
    ):
        if name in rate:
            target = "  (target >= 0.5)" if name == "local 1" else ""
            print(
                f"audit, {what:<22}{rate[name] / 1e6:8.1f} M samples/s {spread(name):<12} "
                f"ratio to raw {rate[name] / raw:.2f}{target}"
            )
    for backend in ("local", "dask"):
        one, two = f"{backend} 1", f"{backend} 2"
        if two in rate:
            # each round's 2-worker run against the 1-worker run just before it: the pair saw
            # the same machine load, so the ratio varies less than a ratio of medians
            ratios = [b / a for (a, _), (b, _) in zip(runs[one], runs[two], strict=True)]
            print(
                f"audit, {backend + ', 2 workers':<22}{rate[two] / 1e6:8.1f} M samples/s "
                f"{spread(two):<12} 2 vs 1: {np.median(ratios):.2f}x "
                f"({min(ratios):.2f}-{max(ratios):.2f} over the rounds)  (target >= 1.7)"
            )
            print(
                f"  wall incl. start-up ({'LocalCluster' if backend == 'dask' else 'pool'}): "
                f"1 worker {wall[one]:.1f} s, 2 workers {wall[two]:.1f} s"
            )

    if not args.skip_default:
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "dp_audit", "run", "--quiet", "--out", out],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            wall = time.perf_counter() - start
            n = len(json.loads((Path(out) / "report.json").read_text())["results"])
        print(
            f"default `python -m dp_audit run`: {wall:.1f} s for {n} adapters, exit {proc.returncode} (target <= 300 s)"
        )

    if not args.skip_memory:
        for attack, what in (("fixed", "8 fixed events"), ("black-box", "black-box attack")):
            proc = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--memory-child",
                    "--memory-budget",
                    str(args.memory_budget),
                    "--memory-attack",
                    attack,
                ],
                capture_output=True,
                text=True,
                check=True,
            )
            m = json.loads(proc.stdout.strip().splitlines()[-1])
            print(
                f"audit of {args.memory_budget:.0e} samples per side ({what}, 2 workers): "
                f"peak RSS main {m['self_mb']:.0f} MB, largest worker {m['worker_mb']:.0f} MB, "
                f"{m['wall']:.0f} s, {m['samples']:,} samples, {m['verdict']} (target < 2048 MB)"
            )


if __name__ == "__main__":
    main()
