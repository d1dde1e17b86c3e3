"""Sampling throughput of every installed built-in adapter, side by side in one run.

Usage: ``python bench/bench_adapters.py [--seconds 0.5] [--only SUBSTRING]``

For each adapter found through ``BUILTIN_TARGETS`` (a missing optional library is reported and
skipped), ``sample(query, n)`` is timed on a representative query of its family, with ``n``
grown until one call takes about ``--seconds``.  The baseline is numpy's raw
``Generator.laplace(0, 1, n)`` measured the same way in the same process; the table shows each
adapter's samples/s and how many times slower than that baseline it is.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auditor.adapters.builtin import BUILTIN_TARGETS  # noqa: E402

#: one representative query per family
QUERIES: dict[str, object] = {
    "additive": 3.0,
    "selection": np.array([0.0, 1.0, 2.0, 3.0]),
    "binary": 1,
    "dataset": np.full(100, 0.5),
}


def rate(draw: Callable[[int], object], seconds: float) -> float:
    """Samples per second of ``draw(n)``, with n doubled until one call takes ``seconds``."""
    n = 16
    while True:
        start = time.perf_counter()
        draw(n)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds or n >= 1 << 26:
            return n / elapsed
        n *= 2 if elapsed > seconds / 8 else 8


def load_adapters() -> tuple[list, list[str]]:
    adapters, notes = [], []
    for target, library, extra in BUILTIN_TARGETS:
        module_name, attr = target.split(":")
        try:
            adapters.extend(getattr(importlib.import_module(module_name), attr)())
        except ImportError as exc:
            hint = f" (pip install 'dp-audit[{extra}]')" if extra else ""
            notes.append(f"skipped {target}: {library} not available: {exc}{hint}")
    return adapters, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="target time per timed call")
    parser.add_argument("--only", default="", help="only adapters whose name contains this")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    before = rate(lambda n: rng.laplace(0.0, 1.0, n), args.seconds)
    adapters, notes = load_adapters()
    rows = []
    for adapter in adapters:
        if args.only not in adapter.name:
            continue
        query = QUERIES[adapter.family]
        if hasattr(adapter, "seed"):
            adapter.seed(1)
        try:
            r = rate(lambda n, a=adapter, q=query: a.sample(q, n), args.seconds)
        except Exception as exc:  # a benchmark reports, it does not stop
            notes.append(f"{adapter.name}: {type(exc).__name__}: {exc}")
            continue
        rows.append((adapter, r))
    after = rate(lambda n: rng.laplace(0.0, 1.0, n), args.seconds)
    baseline = max(before, after)  # measured before and after the adapters: keep the faster

    print(
        f"numpy Generator.laplace baseline: {baseline:,.0f} samples/s "
        f"(before {before:,.0f}, after {after:,.0f})"
    )
    header = (
        f"{'adapter':44s} {'family':9s} {'vec':3s} {'samples/s':>12s} {'x slower':>10s}  version"
    )
    print(header)
    print("-" * len(header))
    for adapter, r in sorted(rows, key=lambda row: -row[1]):
        vec = "yes" if getattr(adapter, "vectorised", False) else "no"
        library = f"{getattr(adapter, 'library', '?')} {getattr(adapter, 'library_version', '')}"
        print(
            f"{adapter.name:44s} {adapter.family:9s} {vec:3s} {r:12,.0f} {baseline / r:10.1f}  {library}"
        )
    for note in notes:
        print(note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
