"""Choosing distinguishing events from a training split (model-free).

Candidates are the events the Neyman-Pearson lemma points to for one-dimensional outputs:
tails ``{y > t}`` / ``{y < t}`` for continuous outputs, and for discrete outputs single
outcomes, tails, and unions of the outcomes with the largest estimated likelihood ratio.
Each candidate is scored by the bound it would certify at the planned certification size, so a
rare event with a huge ratio wins only when ``n`` is large enough to see it.

The chosen events are certified on fresh samples by the runner; nothing here touches them.

References:
    Ding et al., StatDP (CCS 2018): event selection on a separate batch.
    Bichsel et al., DP-Sniper (S&P 2021): threshold events on a one-dimensional score.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditor.estimators.clopper_pearson import predicted_lower_bound
from auditor.trials import CertificationPlan, Event

#: at most this many distinct values make an output "discrete"
MAX_DISCRETE_VALUES = 512


def _fmt(value: float) -> str:
    """Six significant digits, or as many as it takes to name the value exactly (2**33 + 1)."""
    short = f"{value:.6g}"
    if float(short) == value:
        return short
    as_float = float(value)
    return str(int(as_float)) if as_float.is_integer() else repr(as_float)


def _is_discrete(values: np.ndarray) -> bool:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return True
    if np.issubdtype(values.dtype, np.integer) or np.all(finite == np.round(finite)):
        return len(np.unique(finite)) <= 4 * MAX_DISCRETE_VALUES
    return len(np.unique(finite)) <= MAX_DISCRETE_VALUES


def threshold_event(t: float, above: bool) -> Event:
    if above:
        return Event(f"output > {_fmt(t)}", lambda y, t=t: np.asarray(y, dtype=float) > t)
    return Event(f"output < {_fmt(t)}", lambda y, t=t: np.asarray(y, dtype=float) < t)


def outcome_set_event(values: np.ndarray) -> Event:
    values = np.sort(np.asarray(values))
    if len(values) == 1:
        text = f"output == {_fmt(values[0])}"
    elif len(values) <= 8:
        text = "output in {" + ", ".join(_fmt(v) for v in values) + "}"
    else:
        shown = ", ".join(_fmt(v) for v in values[:6])
        text = f"output in a set of {len(values)} values {{{shown}, ...}}"
    return Event(text, lambda y, v=values: np.isin(y, v))


def bottom_event() -> Event:
    return Event("output is ⊥ (no answer, NaN)", lambda y: np.isnan(np.asarray(y, dtype=float)))


@dataclass
class DataDrivenEvents:
    """Model-free distinguisher for one-dimensional outputs of any family.

    Assumptions: none about the implementation; outputs are numbers (NaN meaning ⊥).
    """

    max_events: int = 8
    train_fraction: float = 0.2
    n_thresholds: int = 256

    def _candidates(self, a: np.ndarray, b: np.ndarray) -> list[Event]:
        pooled = np.concatenate([a, b])
        events: list[Event] = []
        if np.isnan(pooled).any():
            events.append(bottom_event())
        finite = pooled[np.isfinite(pooled)]
        if finite.size == 0:
            return events
        if _is_discrete(pooled):
            values = np.unique(finite)
            counts_a = np.array([np.count_nonzero(a == v) for v in values], dtype=float)
            counts_b = np.array([np.count_nonzero(b == v) for v in values], dtype=float)
            if len(values) <= MAX_DISCRETE_VALUES:
                events += [outcome_set_event(values[i : i + 1]) for i in range(len(values))]
            ratio = np.log((counts_a + 0.5) / (counts_b + 0.5))
            order = np.argsort(-ratio, kind="stable")
            for r in range(2, min(len(values), 64)):
                events.append(outcome_set_event(values[order[:r]]))
                events.append(outcome_set_event(values[order[-r:]]))
            cut_points = values[:-1]
            if len(cut_points) > self.n_thresholds:
                cut_points = np.unique(
                    np.quantile(cut_points, np.linspace(0, 1, self.n_thresholds))
                )
        else:
            qs = np.linspace(0, 1, self.n_thresholds + 2)[1:-1]
            cut_points = np.unique(np.quantile(finite, qs))
        for t in cut_points:
            events.append(threshold_event(float(t), above=True))
            events.append(threshold_event(float(t), above=False))
        return events

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        a = np.asarray(train_x, dtype=float)
        b = np.asarray(train_x_prime, dtype=float)
        scored = []
        for event in self._candidates(a, b):
            p0, p1 = float(event(a).mean()), float(event(b).mean())
            bound = max(
                predicted_lower_bound(p0, p1, plan.n, plan.alpha, plan.delta),
                predicted_lower_bound(p1, p0, plan.n, plan.alpha, plan.delta),
            )
            ratio = abs(np.log((p0 * len(a) + 0.5) / (p1 * len(b) + 0.5)))
            scored.append((bound, ratio, event))
        scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
        chosen: list[Event] = []
        seen: set[str] = set()
        for _, _, event in scored:
            if event.description not in seen:
                seen.add(event.description)
                chosen.append(event)
            if len(chosen) == self.max_events:
                break
        return chosen
