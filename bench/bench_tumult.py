"""Outputs per second of Tumult Analytics on Spark local[2]: one job per output vs batched.

Usage: ``python bench/bench_tumult.py [--records 100] [--single 5] [--batches 1024 16384]``
(needs the ``tumult`` extra and Java 17).

One Spark session (``auditor.adapters.tumult_adapters.spark_session``) serves both ways, so
the JVM's start is paid once, before anything is timed (one warm-up call each way).  For
``tumult.count`` on a dataset of ``--records`` rows, it times ``--single`` outputs with one
``Session.evaluate`` each (``batched=False``) and then one ``sample`` of each size in
``--batches`` (one evaluate over the replicated table), and prints outputs per second and
the ratio to one job per output, measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auditor.adapters import tumult_adapters as ta  # noqa: E402


def timed(adapter: ta.TumultQuery, data: np.ndarray, n: int) -> float:
    """Seconds for ``adapter.sample(data, n)``."""
    start = time.perf_counter()
    out = adapter.sample(data, n)
    assert len(out) == n
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100)
    parser.add_argument("--single", type=int, default=5)
    parser.add_argument("--batches", type=int, nargs="+", default=[1024, 16384, 65536])
    args = parser.parse_args()
    data = np.arange(args.records) % len(ta.REGIONS)
    single, batched = ta.TumultQuery("count", batched=False), ta.TumultQuery("count")
    timed(single, data, 1)  # start the JVM, warm both paths
    timed(batched, data, 16)
    load = os.getloadavg()[0]
    seconds = timed(single, data, args.single)
    base = args.single / seconds
    print(f"load average {load:.1f}; {args.records} records; Spark local[2]")
    print(f"{'way':<28}{'outputs':>9}{'seconds':>10}{'outputs/s':>12}{'ratio':>9}")
    print(f"{'one job per output':<28}{args.single:>9}{seconds:>10.1f}{base:>12.2f}{1:>9.0f}")
    for n in args.batches:
        seconds = timed(batched, data, n)
        rate = n / seconds
        print(f"{'batched (one job)':<28}{n:>9}{seconds:>10.1f}{rate:>12.1f}{rate / base:>9.0f}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    ta.stop_spark()


if __name__ == "__main__":
    main()
