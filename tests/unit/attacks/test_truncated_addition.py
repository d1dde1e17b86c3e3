"""Truncated addition: white-box findings from the probabilities() oracle, exact comparisons.

The adapters are written here: Ilvento's naive exponential mechanism (cumulative sum of
normalised weights, big weight first) and an exact one whose probabilities come from 2000-bit
MPFR arithmetic.
"""

from __future__ import annotations

import json

import gmpy2
import numpy as np
import pytest

from attacks import ATTACKS, load_attacks
from attacks.exact_selection import exact_em_probabilities, exact_mass
from attacks.selection_common import CONVENTIONS, are_neighbours
from attacks.truncated_addition import TruncatedAdditionAttack, candidate_pairs
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.engine.runner import run_audit
from auditor.statistics.exact import WHITE_BOX_ESTIMATOR
from reports.json_report import render_json
from reports.markdown import render_markdown

CONFIG = AuditConfig(budget=1000, seed=3)


class NaiveEM:
    """Ilvento's naive.py: exp(-(eps/2)*u), normalise, cumulative sum, first c >= r."""

    family = "selection"
    delta = 0.0
    sensitivity = 1.0

    def __init__(self, epsilon=1.0, sign=-1, name="naive-em", delta=0.0):
        self.epsilon, self.sign, self.name, self.delta = epsilon, sign, name, delta
        self._rng = np.random.default_rng(0)

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def _cumulative(self, query):
        with np.errstate(all="ignore"):
            weights = np.exp(self.sign * (self.epsilon / 2.0) * np.asarray(query, dtype=float))
            return np.cumsum(weights / sum(weights.tolist()))

    def sample(self, query, n):
        c = self._cumulative(query)
        return np.minimum(np.searchsorted(c, self._rng.random(n)), len(c) - 1)

    def probabilities(self, query):
        return np.diff(np.concatenate([[0.0], self._cumulative(query)]))


class ExactEM:
    """Textbook exponential mechanism with probabilities from 2000-bit MPFR (then rounded)."""

    family = "selection"
    delta = 0.0
    sensitivity = 1.0

    def __init__(self, epsilon=1.0, sign=-1, name="exact-em"):
        self.epsilon, self.sign, self.name = epsilon, sign, name
        self._rng = np.random.default_rng(0)

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def probabilities(self, query):
        ctx = gmpy2.context(precision=2000)
        c = ctx.mul(gmpy2.mpfr(self.sign * self.epsilon), gmpy2.mpfr(0.5))
        cache = {}
        for u in set(float(v) for v in query):
            cache[u] = ctx.exp(ctx.mul(c, gmpy2.mpfr(u)))
        weights = [cache[float(v)] for v in query]
        total = ctx.fsum(weights)
        return np.array([float(ctx.div(w, total)) for w in weights])

    def sample(self, query, n):
        p = self.probabilities(query)
        return self._rng.choice(len(p), size=n, p=p / p.sum())


def test_registered_and_needs_the_oracle():
    assert ATTACKS["truncated-addition"] == "attacks.truncated_addition:TruncatedAdditionAttack"
    from auditor.core.spec import check_adapter

    attack = TruncatedAdditionAttack()
    assert attack.applies_to(check_adapter(NaiveEM()))

    class NoOracle:
        name, family, epsilon, delta, sensitivity = "no-oracle", "selection", 1.0, 0.0, 1.0

        def sample(self, q, n):
            raise AssertionError("attacks must not sample")

    assert not attack.applies_to(check_adapter(NoOracle()))


@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: c.name)
def test_exact_probabilities_match_floats_at_moderate_utilities(conv):
    u = np.array([0.0, 1.5, -2.0, 3.25])
    exact = np.array([float(p) for p in exact_em_probabilities(u, 1.0, 1.0, conv.sign)])
    z = conv.sign * 0.5 * u
    floats = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    np.testing.assert_allclose(exact, floats, rtol=1e-14)
    missing_half = exact_em_probabilities(u, 1.0, 1.0, conv.sign, half=False)
    assert float(missing_half[int(np.argmax(z))]) > float(exact.max())


def test_exact_probabilities_stay_positive_where_floats_underflow():
    u = [0.0, 3000.0, 3000.0]
    exact = exact_em_probabilities(u, 1.0, 1.0, -1)
    assert all(p > 0 for p in exact)
    assert np.exp(-0.5 * 3000.0) == 0.0
    assert float(exact_mass(exact, [0, 1, 2])) == pytest.approx(1.0, abs=1e-70)
    with pytest.raises(ValueError, match="sign"):
        exact_em_probabilities(u, 1.0, 1.0, 0)


@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: c.name)
def test_candidate_pairs_are_neighbours_with_the_big_weight_first(conv):
    pairs = candidate_pairs(1.0, 2.0, conv, None)
    assert pairs
    for pair in pairs:
        assert are_neighbours(pair.x, pair.x_prime, 2.0)
        assert np.all(conv.sign * (pair.x[0] - pair.x[1:]) > 0)  # outcome 0 is best on x


def test_candidate_pairs_respect_bounds():
    pairs = candidate_pairs(1.0, 1.0, CONVENTIONS[0], (-200.0, 10.0))
    assert pairs
    for pair in pairs:
        assert pair.x.min() >= -200 and pair.x_prime.max() <= 10
    assert candidate_pairs(1.0, 1.0, CONVENTIONS[0], (0.0, 20.0)) == []


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
@pytest.mark.parametrize("sign", [-1, 1])
def test_white_box_finding_on_the_naive_mechanism(epsilon, sign):
    report = run_audit(
        [NaiveEM(epsilon=epsilon, sign=sign)], load_attacks(["truncated-addition"]), CONFIG
    )
    (result,) = report.results
    assert result.verdict is Verdict.VIOLATION
    estimate = result.best.estimate
    assert estimate.white_box and estimate.unbounded
    assert estimate.estimator == WHITE_BOX_ESTIMATOR
    p0, p1 = estimate.probabilities
    assert p1 == 0.0 and p0 > 0.0
    assert np.isfinite(estimate.epsilon_lower_bound) and estimate.epsilon_lower_bound > 700
    assert result.samples == 0  # nothing was sampled
    assert are_neighbours(result.best.x, result.best.x_prime, 1.0)
    # the reported pair really shows the zero / positive split in the oracle
    adapter = NaiveEM(epsilon=epsilon, sign=sign)
    zero_side = adapter.probabilities(result.best.x_prime)
    positive_side = adapter.probabilities(result.best.x)
    assert np.any((zero_side == 0) & (positive_side > 0))


def test_no_finding_on_an_exact_mechanism():
    report = run_audit(
        [ExactEM(sign=-1, name="exact-loss"), ExactEM(sign=1, name="exact-gain")],
        load_attacks(["truncated-addition"]),
        CONFIG,
    )
    for result in report.results:
        assert result.verdict is Verdict.NO_VIOLATION
        assert result.findings == ()


def test_delta_above_the_zeroed_mass_is_not_a_violation():
    # (eps, delta)-DP allows P[S|x'] = 0 < P[S|x] <= delta: no finding
    report = run_audit([NaiveEM(delta=1e-9)], load_attacks(["truncated-addition"]), CONFIG)
    assert report.results[0].verdict is Verdict.NO_VIOLATION


def test_white_box_finding_in_report_json_and_markdown():
    report = run_audit([NaiveEM()], load_attacks(["truncated-addition"]), CONFIG).to_dict()
    text = render_json(report)  # raises on inf / nan
    data = json.loads(text)
    (r,) = data["results"]
    assert r["verdict"] == "violation"
    assert r["attack"] == "truncated-addition"
    assert r["white_box"] is True and r["unbounded"] is True
    assert r["estimator"] == WHITE_BOX_ESTIMATOR
    assert r["probabilities"]["p1"] == 0.0 and r["probabilities"]["p0"] > 0
    assert len(r["queries"]) == 2 and len(r["queries"][0]) in (10, 32)
    assert "textbook exponential mechanism" in r["event"]
    md = render_markdown(data)
    assert "∞ (white-box)" in md
    assert "WHITE-BOX finding" in md


def test_a_malformed_oracle_is_an_error_not_a_finding():
    class Unnormalised(NaiveEM):
        def probabilities(self, query):
            p = super().probabilities(query)
            p[0] = 0.0  # zeroes the big outcome: sums to about 0
            return p

    report = run_audit(
        [Unnormalised(name="bad-oracle")], load_attacks(["truncated-addition"]), CONFIG
    )
    (result,) = report.results
    assert result.verdict is Verdict.ERROR
    assert "summing to" in result.error


@pytest.mark.parametrize("epsilon", [0.05, 1.0, 20.0])
def test_gap_grid_spans_the_absorption_window_on_integers(epsilon):
    from attacks.truncated_addition import gap_grid

    c = epsilon / 2.0
    grid = gap_grid(c, 1.0, 17)
    assert np.all(grid == np.round(grid)) and np.all(grid > 2.0)
    # the best-case window (53 ln2/c, 54 ln2/c + 2) holds grid points
    lo, hi = 53 * np.log(2) / c, 54 * np.log(2) / c + 2.0
    assert np.count_nonzero((grid > lo) & (grid < hi)) >= 2


def test_a_monotone_selection_is_judged_on_monotone_pairs_only():
    """The white-box check scans its own pairs: under a monotone relation it reports only one
    that moves every utility the same way (or none)."""
    adapter = NaiveEM(epsilon=1.0)
    adapter.monotone = True
    (result,) = run_audit([adapter], load_attacks(["truncated-addition"]), CONFIG).results
    for finding in result.findings:
        step = np.asarray(finding.x_prime, float) - np.asarray(finding.x, float)
        assert (step >= 0).all() or (step <= 0).all(), (finding.x, finding.x_prime)
    assert result.verdict is Verdict.VIOLATION  # a monotone pair shows the zeroed outcomes too
