"""End-to-end audits of broken and correct selection mechanisms through ``run_audit``.

All adapters are written here, from the textbook formulas:

* ``IlventoNaiveEM``: Ilvento's naive.py -- weights np.exp(-(eps/2)*u) with no shift,
  normalise, cumulative sum, first index with c >= r.  ``shift=True`` subtracts the minimum
  utility first (the max-shift / log-sum-exp fix).
* ``FloatEM``: the textbook higher-is-better exponential mechanism with max-shift;
  ``half=False`` drops the 1/2 (weights exp(eps*u/sensitivity)).
* ``NoisyMax``: report-noisy-max with Laplace noise of scale ``factor * sensitivity/eps``;
  factor 2 is the general calibration, factor 1 is too little noise for utilities that move in
  opposite directions.

False-failure probability: "no violation" assertions fail only if some certified bound is
wrong, which happens with probability <= alpha = 0.05 over seeds (family-wise, by the runner's
Bonferroni split); "violation" assertions are power statements.  Seeds are fixed, so each test
is deterministic; the numbers quoted in comments were measured with these seeds.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from attacks import load_attacks
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.engine.runner import run_audit
from reports.json_report import render_json


class _Seeded:
    family = "selection"
    delta = 0.0

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)


class IlventoNaiveEM(_Seeded):
    sensitivity = 1.0

    def __init__(self, epsilon: float = 0.5, shift: bool = False, name: str = "") -> None:
        super().__init__()
        self.epsilon, self.shift = epsilon, shift
        self.name = name or ("ilvento.shifted" if shift else "ilvento.naive")

    def sample(self, query, n):
        u = np.asarray(query, dtype=float)
        if self.shift:
            u = u - u.min()  # the best (lowest) utility gets weight exp(0) = 1
        with np.errstate(all="ignore"):
            weights = np.exp(-(self.epsilon / 2.0) * u)
            cumulative = np.cumsum(weights / sum(weights.tolist()))
        r = self._rng.random(n)
        return np.minimum(np.searchsorted(cumulative, r, side="left"), len(u) - 1)


class FloatEM(_Seeded):
    def __init__(self, epsilon=1.0, sensitivity=1.0, half=True, name="") -> None:
        super().__init__()
        self.epsilon, self.sensitivity, self.half = epsilon, sensitivity, half
        self.name = name or ("float-em" if half else "float-em.missing-half")

    def sample(self, query, n):
        u = np.asarray(query, dtype=float)
        scale = self.epsilon / ((2.0 if self.half else 1.0) * self.sensitivity)
        z = scale * (u - u.max())
        p = np.exp(z) / np.exp(z).sum()
        return self._rng.choice(len(u), size=n, p=p)


class NoisyMax(_Seeded):
    def __init__(self, epsilon=1.0, sensitivity=1.0, factor=2.0, name="") -> None:
        super().__init__()
        self.epsilon, self.sensitivity, self.factor = epsilon, sensitivity, factor
        self.name = name or f"noisy-max(scale={factor:g}*sensitivity/eps)"

    def sample(self, query, n):
        u = np.asarray(query, dtype=float)
        b = self.factor * self.sensitivity / self.epsilon
        return np.argmax(u + self._rng.laplace(0.0, b, size=(n, len(u))), axis=1)


def _assert_violations_are_documented(report) -> None:
    data = json.loads(render_json(report.to_dict()))
    for r in data["results"]:
        if r["verdict"] == "violation":
            assert r["attack"] and r["event"]
            assert len(r["queries"]) == 2 and all(len(q) >= 2 for q in r["queries"])
            assert r["epsilon_lower_bound"] > r["claim"]["epsilon"]


def test_zero_rounding_breaks_the_naive_em_but_not_the_shifted_one():
    # measured (seed 11, budget 20k): naive eps_lb 3.23 on "output != 0" (249 of 250 on x', 0 of
    # 250 on x, certified at the pilot stage); shifted: best eps_lb 0.07 < 0.5
    report = run_audit(
        [IlventoNaiveEM(), IlventoNaiveEM(shift=True)],
        load_attacks(["zero-rounding"]),
        AuditConfig(budget=20_000, seed=11),
    )
    naive, shifted = report.results
    assert naive.verdict is Verdict.VIOLATION
    assert naive.best.attack == "zero-rounding"
    assert naive.best.estimate.counts.k1 == 0  # never leaves outcome 0 on x
    assert naive.epsilon_lower_bound > 2.0
    assert shifted.verdict is Verdict.NO_VIOLATION
    assert shifted.epsilon_lower_bound < 0.5
    _assert_violations_are_documented(report)


def test_zero_rounding_power_depends_on_the_claimed_scale():
    # the same naive code audited with a claim whose scale misses the underflow window (the
    # implementation uses eps=0.5 internally, the claim says 0.37): no trial hits the edge
    class Mismatched(IlventoNaiveEM):
        def sample(self, query, n):
            saved, self.epsilon = self.epsilon, 0.5
            try:
                return super().sample(query, n)
            finally:
                self.epsilon = saved

    report = run_audit(
        [Mismatched(epsilon=0.37, name="naive.claim-mismatch")],
        load_attacks(["zero-rounding"]),
        AuditConfig(budget=20_000, seed=11),
    )
    assert report.results[0].verdict is Verdict.NO_VIOLATION


def test_selection_search_catches_a_missing_half_but_not_the_textbook_em():
    # measured (seed 5, budget 50k): missing-1/2 eps_lb 1.20 > 1 (663 vs 125 of 2048 on
    # "output == 0"); textbook 0.85 < 1
    report = run_audit(
        [FloatEM(half=False), FloatEM()],
        load_attacks(["selection-search"]),
        AuditConfig(budget=50_000, seed=5),
    )
    broken, correct = report.results
    assert broken.verdict is Verdict.VIOLATION
    assert broken.best.attack == "selection-search"
    assert correct.verdict is Verdict.NO_VIOLATION
    assert correct.epsilon_lower_bound < 1.0
    _assert_violations_are_documented(report)


def test_zero_rounding_finds_nothing_in_a_correct_float_em_at_moderate_budget():
    report = run_audit(
        [FloatEM(epsilon=0.5)], load_attacks(["zero-rounding"]), AuditConfig(budget=20_000, seed=2)
    )
    assert report.results[0].verdict is Verdict.NO_VIOLATION


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_selection_search_catches_noisy_max_with_too_little_noise(seed):
    report = run_audit(
        [NoisyMax(factor=1.0), NoisyMax(factor=2.0)],
        load_attacks(["selection-search"]),
        AuditConfig(budget=100_000, seed=seed),
    )
    low, correct = report.results
    assert low.verdict is Verdict.VIOLATION
    assert correct.verdict is Verdict.NO_VIOLATION


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_selection_search_missing_half_across_seeds(seed):
    report = run_audit(
        [FloatEM(half=False), FloatEM()],
        load_attacks(["selection-search"]),
        AuditConfig(budget=100_000, seed=seed),
    )
    assert [r.verdict for r in report.results] == [Verdict.VIOLATION, Verdict.NO_VIOLATION]
