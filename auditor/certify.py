"""Certifying one trial: training draw, event proposal, staged certification on fresh samples.

The training outputs are used only to choose events; the counts that decide a bound come from
samples drawn afterwards.  Each event is tested in both directions; each look of the staged
certification spends its own share of the test's alpha, so peeking never inflates the error.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from auditor.estimators.clopper_pearson import epsilon_lower_bound, epsilon_point_estimate
from auditor.interfaces import Attack
from auditor.results import EpsilonEstimate, EventCounts, Finding
from auditor.sampling import draw
from auditor.seeding import entropy
from auditor.timed_sampling import draw_timed_pair, is_timed
from auditor.trials import CertificationPlan, Event, Trial
from auditor.validation import AdapterSpec

if TYPE_CHECKING:
    from auditor.runner import AuditConfig


class Certifier:
    """Runs one trial: training draw, event proposal, staged certification."""

    def __init__(
        self,
        spec: AdapterSpec,
        config: AuditConfig,
        alpha_test: float,
        on_samples: Callable[[int], None],
    ):
        self.spec, self.config, self.alpha_test = spec, config, alpha_test
        self.on_samples = on_samples
        self.samples = 0

    def _draw(self, query: Any, n: int, *labels: object) -> np.ndarray:
        out = draw(self.spec, query, n, entropy(self.config.seed, self.spec.name, *labels))
        self.samples += n
        self.on_samples(n)
        return out

    def _draw_pair(
        self, trial: Trial, n: int, labels: Callable[[int], tuple[object, ...]]
    ) -> list[np.ndarray]:
        """``n`` outputs on each side; ``labels(side)`` names the draw for seeding.

        Distinguishers that opt in to timing (``timed = True``) get interleaved single-output
        calls with their durations instead (see ``auditor.timed_sampling``).
        """
        pair = (trial.x, trial.x_prime)
        if is_timed(trial.distinguisher):
            seed = entropy(self.config.seed, self.spec.name, *labels(0), "timed")
            out = draw_timed_pair(self.spec, pair[0], pair[1], n, seed)
            self.samples += 2 * n
            self.on_samples(2 * n)
            return list(out)
        return [self._draw(q, n, *labels(side)) for side, q in enumerate(pair)]

    def _exact(self, attack: Attack, trial: Trial) -> Finding | None:
        """Run the trial's white-box check (no sampling, no alpha), if it has one."""
        if trial.exact is None:
            return None
        evidence = trial.exact(self.spec)
        if evidence is None:
            return None
        return Finding(
            attack.name, trial.description, evidence.x, evidence.x_prime, evidence.estimate, 0, 0, 0
        )

    def run(self, attack: Attack, index: int, trial: Trial) -> Finding | None:
        spec, config = self.spec, self.config
        exact = self._exact(attack, trial)
        if exact is not None and exact.estimate.epsilon_lower_bound > spec.claim.epsilon:
            return exact
        d = trial.distinguisher
        if d.max_events <= 0:
            return exact
        budget = config.budget_for(spec)
        n_train = math.ceil(budget * d.train_fraction) if d.train_fraction > 0 else 0
        n_cert = budget - n_train
        plan = CertificationPlan(n_cert, self.alpha_test, spec.claim.epsilon, spec.claim.delta)
        label = (attack.name, index)
        train = [np.empty(0), np.empty(0)]
        if n_train:
            train = self._draw_pair(trial, n_train, lambda side: (*label, side, "train"))
        events: list[Event] = list(d.propose(train[0], train[1], plan))[: d.max_events]
        if not events:
            return exact
        k = np.zeros((2, len(events)), dtype=np.int64)
        drawn, batch_no, best = 0, 0, exact
        for look_no, (fraction, share) in enumerate(config.looks, start=1):
            target = max(1, round(fraction * n_cert))
            while drawn < target:
                size = min(config.batch_size, target - drawn)
                outs = self._draw_pair(
                    trial, size, lambda side, b=batch_no: (*label, side, "certify", b)
                )
                for side, out in enumerate(outs):
                    for j, event in enumerate(events):
                        k[side, j] += int(np.count_nonzero(event(out)))
                drawn += size
                batch_no += 1
            if drawn == 0:
                continue
            alpha_look = self.alpha_test * share
            for j, event in enumerate(events):
                for side in (0, 1):
                    k0, k1 = int(k[side, j]), int(k[1 - side, j])
                    lb = epsilon_lower_bound(k0, drawn, k1, drawn, alpha_look, spec.claim.delta)
                    if best is None or lb > best.estimate.epsilon_lower_bound:
                        x, x_prime = (
                            (trial.x, trial.x_prime) if side == 0 else (trial.x_prime, trial.x)
                        )
                        estimate = EpsilonEstimate(
                            epsilon_lower_bound=lb,
                            point_estimate=epsilon_point_estimate(
                                k0, drawn, k1, drawn, spec.claim.delta
                            ),
                            alpha=alpha_look,
                            delta=spec.claim.delta,
                            event=event.description,
                            counts=EventCounts(n0=drawn, k0=k0, n1=drawn, k1=k1),
                            white_box=event.white_box,
                        )
                        best = Finding(
                            attack.name,
                            trial.description,
                            x,
                            x_prime,
                            estimate,
                            n_train,
                            drawn,
                            look_no,
                        )
            if best is not None and best.estimate.epsilon_lower_bound > spec.claim.epsilon:
                break
        return best
