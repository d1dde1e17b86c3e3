"""Timing attack (opt-in): call durations that depend on the noise leak the input.

An exact sampler whose loop count grows with |noise| (the discrete Laplace and Gaussian
samplers built from Bernoulli trials, for instance) releases ``x + noise`` in a time that
depends on ``noise = output − x``.  The output alone is private; the pair (output, time) is
not: on x = 0 the output 0 means noise 0 (fast), on x' = 1 it means noise −1 (slower).  So
this attack's events are joint: "output in a cell and the call took less (more) than τ",
with cells and thresholds chosen on a training split, and time-only thresholds as well.

The runner collects timings only for distinguishers that opt in (``timed = True``): it then
makes single-output calls, alternating between the two inputs in random order, and records
each call's duration (``auditor.engine.timed_sampling``).  The attack is opt-in too: it is not in
the default attack list and runs only with ``dp-audit run --attack timing``.

Assumptions:
    Call durations are independent and identically distributed given the input (the
    interleaving makes slow drift of the machine hit both inputs alike, but a finding is still
    only as good as this assumption).  Timings are machine- and load-dependent: a finding says
    "this implementation, on this machine, under this load", and a result without a finding
    says nothing about other machines.

References:
    Jin, Huang, Lu, Chakraborty, Dong, "Are We There Yet? Timing and Floating-Point Attacks on
    Differential Privacy Systems" (IEEE S&P 2022), section on timing side channels of
    discrete samplers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np

from auditor.core.claims import Family
from auditor.core.spec import AdapterSpec
from auditor.core.trials import CertificationPlan, Event, Trial
from auditor.statistics.clopper_pearson import predicted_lower_bound

#: events certified per timing trial
MAX_EVENTS = 4
#: output cells (most frequent values, or quantile bins of continuous outputs)
MAX_CELLS = 8
#: time thresholds per cell
TIME_QUANTILES = 16

CAVEAT = (
    "timing: per-call wall time of sample(query, 1), interleaved between the inputs; assumes "
    "i.i.d. call times; machine- and load-dependent"
)


#: appended to every timing event, so the caveat is printed wherever the event is
EVENT_CAVEAT = "[timing: assumes i.i.d. call times; machine- and load-dependent]"


def _fmt_ns(t: float) -> str:
    return f"{t / 1000:.4g} µs"


#: outputs an event looks at: a set of values, a range [lo, hi), or every output
Cell: TypeAlias = np.ndarray | tuple[float, float] | None


def _cells(y: np.ndarray) -> list[tuple[str, Cell]]:
    """Output cells: ("any output", None), single values, or half-open quantile bins."""
    cells: list[tuple[str, Cell]] = [("any output", None)]
    finite = y[np.isfinite(y)]
    if finite.size == 0:
        return cells
    values, counts = np.unique(finite, return_counts=True)
    if len(values) <= 4 * MAX_CELLS:
        for v in values[np.argsort(-counts, kind="stable")][:MAX_CELLS]:
            cells.append((f"output == {v:.6g}", np.array([v])))
        return cells
    edges = np.unique(np.quantile(finite, np.linspace(0, 1, MAX_CELLS + 1)))
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        cells.append((f"{lo:.6g} <= output < {hi:.6g}", (float(lo), float(hi))))
    return cells


def _in_cell(y: np.ndarray, cell: Cell) -> np.ndarray:
    if cell is None:
        return np.ones(len(y), dtype=bool)
    if isinstance(cell, tuple):
        inside: np.ndarray = (y >= cell[0]) & (y < cell[1])
        return inside
    return np.isin(y, cell)


def _event(text: str, cell: Cell, tau: float, slower: bool) -> Event:
    def predicate(
        rows: np.ndarray, cell: Cell = cell, tau: float = tau, slower: bool = slower
    ) -> np.ndarray:
        rows = np.asarray(rows, dtype=float)
        y, t = rows[:, 0], rows[:, 1]
        timed = t > tau if slower else t < tau
        return _in_cell(y, cell) & timed

    op = ">" if slower else "<"
    return Event(f"{text} and call time {op} {_fmt_ns(tau)} {EVENT_CAVEAT}", predicate)


@dataclass(frozen=True)
class JointTimingEvents:
    """Events on (output, call duration) pairs, chosen on a training split.

    Opts in to timed draws: the runner hands ``propose`` arrays of shape (n, 2), column 0 the
    output and column 1 the duration in nanoseconds.
    """

    max_events: int = MAX_EVENTS
    train_fraction: float = 0.3
    timed: bool = True

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        a, b = np.asarray(train_x, dtype=float), np.asarray(train_x_prime, dtype=float)
        if a.ndim != 2 or len(a) == 0 or len(b) == 0:
            return []
        pooled = np.concatenate([a, b])
        scored: list[tuple[float, float, Event]] = []
        for text, cell in _cells(pooled[:, 0]):
            inside = pooled[_in_cell(pooled[:, 0], cell), 1]
            if inside.size < 2:
                continue
            qs = np.linspace(0, 1, TIME_QUANTILES + 2)[1:-1]
            for tau in np.unique(np.quantile(inside, qs)):
                for slower in (True, False):
                    event = _event(text, cell, float(tau), slower)
                    p0, p1 = float(event(a).mean()), float(event(b).mean())
                    bound = max(
                        predicted_lower_bound(
                            p0, p1, plan.n, plan.alpha, plan.delta, claim=plan.claim
                        ),
                        predicted_lower_bound(
                            p1, p0, plan.n, plan.alpha, plan.delta, claim=plan.claim
                        ),
                    )
                    ratio = abs(math.log((p0 * len(a) + 0.5) / (p1 * len(b) + 0.5)))
                    scored.append((bound, ratio, event))
        scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
        return [event for _, _, event in scored[: self.max_events]]


class TimingAttack:
    """Neighbouring inputs of an additive mechanism, events on (output, call time)."""

    name = "timing"
    description = (
        "opt-in: per-call timings on neighbouring inputs (Jin et al. 2022); events on "
        "(output, call time); assumes i.i.d. timings, machine-dependent"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        return spec.family is Family.ADDITIVE

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        assert spec.sensitivity is not None
        step = math.floor(spec.sensitivity) if spec.integer_queries else spec.sensitivity
        if step <= 0:
            return []
        x_prime = int(step) if spec.integer_queries else float(step)
        return [Trial(0, x_prime, JointTimingEvents(), f"inputs 0 and {x_prime!r}; {CAVEAT}")]
