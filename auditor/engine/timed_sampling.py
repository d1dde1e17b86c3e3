"""Opt-in timing measurements: single-output calls, interleaved, each with its duration.

The ordinary sampling path (``auditor.engine.sampling.draw``) asks for outputs in large batches and
never looks at the clock.  A timing attack needs one duration per output, so a distinguisher
that sets ``timed = True`` gets, for each of its two neighbouring inputs, ``n`` rows
``(output, nanoseconds)`` from ``n`` calls ``sample(query, 1)`` instead.

What keeps the comparison fair between the two inputs:

* the calls alternate between the inputs, in a random order inside each pair (so drift of the
  machine's speed, caches warming up or a neighbour process waking affect both inputs alike);
* a few warm-up calls per input are made and thrown away before measuring;
* the garbage collector is paused during the measured loop (and restored afterwards).

Assumptions (stated in every timing finding): the durations of calls are independent and
identically distributed given the input; timings are machine- and load-dependent, so a timing
finding says "this implementation on this machine", not "this algorithm".

References:
    Jin, Huang, Lu, Chakraborty, Dong, "Are We There Yet? Timing and Floating-Point Attacks on
    Differential Privacy Systems" (IEEE S&P 2022).
"""

from __future__ import annotations

import gc
import time
from typing import Any

import numpy as np

from auditor.core.errors import adapter_code
from auditor.core.spec import AdapterSpec
from auditor.engine.sampling import check_outputs

#: discarded calls per input before measuring
WARM_UP_CALLS = 8


def is_timed(distinguisher: Any) -> bool:
    """Whether ``distinguisher`` opted in to timed draws (attribute ``timed = True``)."""
    return getattr(distinguisher, "timed", False) is True


def _call(spec: AdapterSpec, query: Any) -> tuple[float, int]:
    adapter = spec.adapter
    with adapter_code(f"adapter {spec.name!r}: sample"):
        start = time.perf_counter_ns()
        raw = adapter.sample(query, 1)
        elapsed = time.perf_counter_ns() - start
    out = check_outputs(spec, query, 1, raw)
    return float(out[0]), elapsed


def draw_timed_pair(
    spec: AdapterSpec, x: Any, x_prime: Any, n: int, entropy: int
) -> tuple[np.ndarray, np.ndarray]:
    """``n`` timed single-output calls on each of ``x`` and ``x_prime``, interleaved.

    The adapter is seeded once with ``entropy`` (when it can be); the order inside each pair of
    calls is drawn from a generator seeded with ``entropy`` as well.

    Returns:
        Two float arrays of shape ``(n, 2)``: column 0 the output, column 1 the call's wall
        time in nanoseconds (``time.perf_counter_ns``).

    Raises:
        AdapterRaised, AdapterOutputError: as for ordinary draws.
    """
    if spec.seedable:
        with adapter_code(f"adapter {spec.name!r}: seed"):
            spec.adapter.seed(int(entropy))
    queries = (x, x_prime)
    x_first = np.random.default_rng(entropy).random(n) < 0.5
    rows = np.empty((2, n, 2), dtype=float)
    for _ in range(WARM_UP_CALLS):
        _call(spec, x)
        _call(spec, x_prime)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for i in range(n):
            order = (0, 1) if x_first[i] else (1, 0)
            for side in order:
                rows[side, i] = _call(spec, queries[side])
    finally:
        if was_enabled:
            gc.enable()
    return rows[0], rows[1]
