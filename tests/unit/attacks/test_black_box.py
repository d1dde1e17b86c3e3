"""Black-box attack: every pair is a neighbour, randomised inputs stay in range, the PTR chain
straddles any threshold."""

import math
from fractions import Fraction
from itertools import pairwise

import numpy as np
import pytest
from attack_fixtures import StabilityPTR, are_neighbours, median_stability, within
from audit_fixtures import GeometricLaplace, RandomizedResponse
from hypothesis import given
from hypothesis import strategies as st

from attacks.black_box import EXTRA_MAX_EVENTS, BlackBoxAttack, BottomGap, chain_length
from attacks.neighbours import PHASES
from attacks.neighbours.scalars import shifted
from auditor.core.spec import check_adapter
from auditor.core.trials import CertificationPlan


class _Additive:
    family = "additive"
    epsilon = 1.0
    delta = 0.0
    name = "additive"

    def __init__(self, sensitivity=1.0, **extra):
        self.sensitivity = sensitivity
        self.__dict__.update(extra)

    def sample(self, query, n):
        return np.zeros(n)


class _Dataset:
    family = "dataset"
    name = "dataset"

    def __init__(self, domain, neighbours, epsilon=1.0, delta=0.0):
        self.domain, self.neighbours, self.epsilon, self.delta = domain, neighbours, epsilon, delta

    def sample(self, query, n):
        return np.zeros(n)


def _trials(adapter, seed=0):
    return BlackBoxAttack().trials(check_adapter(adapter), np.random.default_rng(seed))


@pytest.mark.parametrize("sensitivity", [1.0, 0.3, 0.375, 2.5, 1e-3])
@pytest.mark.parametrize("seed", range(5))
def test_additive_pairs_are_within_the_sensitivity_exactly(sensitivity, seed):
    trials = _trials(_Additive(sensitivity), seed)
    assert len(trials) == 3
    assert trials[0].distinguisher.max_events == 8  # the standard pair keeps its events
    assert all(t.distinguisher.max_events == EXTRA_MAX_EVENTS for t in trials[1:])
    for x, x_prime, description in (p for t in trials for p in t.pairs):
        gap = Fraction(x_prime) - Fraction(x)
        assert 0 < gap <= Fraction(sensitivity), description
    assert any(abs(t.x) >= 2**20 for t in trials)  # a large magnitude is tried


def test_the_moderate_pair_is_screened_at_phases_of_the_step_off_the_standard_grid():
    for seed in range(5):
        moderate = _trials(_Additive(0.4), seed)[1]
        phases = sorted(
            (Fraction(x) / Fraction(0.4)) % 1
            for x, _, text in moderate.pairs
            if "moderate offset" in text
        )
        assert len(phases) == PHASES and len(set(phases)) == PHASES
        gaps = [b - a for a, b in pairwise(phases)]
        assert all(abs(g - Fraction(1, PHASES)) < Fraction(1, 10**6) for g in gaps), phases
    # integer answers have one phase
    assert not _trials(GeometricLaplace())[1].candidates


class Snapped:
    """The answer snapped to multiples of 0.4, plus two-sided geometric noise in grid steps:
    answers 1 apart land up to 3 steps apart (0.1 and 1.1: 0 and 3), so a per-step rate of
    eps/3 is eps-DP and eps * 0.4 (broken: 2.5 steps assumed) is 1.2 eps-DP, but only off
    the grid of the pair 0 and 1 (0 and 2 steps: 0.8 eps)."""

    family, epsilon, sensitivity = "additive", 1.0, 1.0

    def __init__(self, rate: float) -> None:
        self.rate, self.name = rate, f"test.snapped(rate={rate:.3g})"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        p = -np.expm1(-self.rate)
        steps = self._rng.geometric(p, n) - self._rng.geometric(p, n)
        return (int(np.rint(float(query) / 0.4)) + steps) * 0.4


def test_a_snapped_answer_calibrated_for_the_pair_on_the_grid_is_caught_off_it():
    from attacks import load_attacks
    from auditor.core.configs import AuditConfig
    from auditor.core.results import Verdict
    from auditor.engine.runner import run_audit

    adapters = [Snapped(0.4), Snapped(1 / 3)]
    report = run_audit(adapters, load_attacks(["black-box"]), AuditConfig(budget=100_000, seed=0))
    broken, correct = report.results
    assert broken.verdict is Verdict.VIOLATION, broken.to_dict()
    assert "(one sensitivity apart at " in broken.best.trial  # off the standard pair's grid
    assert correct.verdict is Verdict.NO_VIOLATION, correct.to_dict()


def test_integer_queries_get_integer_pairs():
    for t in _trials(GeometricLaplace()):
        assert isinstance(t.x, int) and isinstance(t.x_prime, int) and t.x_prime - t.x == 1


def test_query_bounds_are_respected():
    for seed in range(10):
        for t in _trials(_Additive(1.0, query_bounds=(-10.0, 10.0)), seed):
            for x, x_prime, description in t.pairs:
                assert -10.0 <= x <= x_prime <= 10.0, description


def test_randomised_inputs_depend_on_the_rng_only():
    a = [(t.x, t.x_prime) for t in _trials(_Additive(), 3)]
    assert a == [(t.x, t.x_prime) for t in _trials(_Additive(), 3)]
    assert any(a != [(t.x, t.x_prime) for t in _trials(_Additive(), s)] for s in range(4, 8))


@given(
    a=st.floats(min_value=-(2.0**60), max_value=2.0**60, allow_nan=False),
    step=st.floats(min_value=1e-6, max_value=1e6),
)
def test_shifted_never_exceeds_the_step(a, step):
    y = shifted(a, step)
    assert Fraction(a) <= Fraction(y) and Fraction(y) - Fraction(a) <= Fraction(step)


def test_binary_pair():
    (t,) = _trials(RandomizedResponse())
    assert (t.x, t.x_prime) == (0, 1)


DATASETS = [
    ((0.0, 1.0), "add_remove"),
    ((0.0, 1.0), "replace"),
    ((0, 100), "replace"),
    ((-5, 5), "add_remove"),
    ((2**50, 2**50 + 3), "replace"),
]


@pytest.mark.parametrize(("domain", "relation"), DATASETS)
@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_dataset_pairs_are_neighbours_inside_the_domain(domain, relation, delta):
    for seed in range(3):
        for t in _trials(_Dataset(domain, relation, delta=delta), seed):
            assert are_neighbours(t.x, t.x_prime, relation), t.description
            assert within(t.x, *domain) and within(t.x_prime, *domain), t.description
            assert len(t.x) >= 1 and len(t.x_prime) >= 1


def test_random_dataset_pairs_vary_in_size_and_content():
    sizes = set()
    for seed in range(10):
        trials = _trials(_Dataset((0.0, 1.0), "add_remove"), seed)
        sizes |= {len(t.x) for t in trials if "random records" in t.description}
    assert len(sizes) > 5


def test_chain_only_for_delta_claims_and_sized_by_the_threshold():
    assert chain_length(check_adapter(_Dataset((0, 100), "replace", delta=0.0))) == 0
    spec = check_adapter(_Dataset((0, 100), "replace", epsilon=1.0, delta=1e-6))
    assert chain_length(spec) == math.ceil(4 * math.log(1e6)) + 8
    chain = [t for t in _trials(spec.adapter) if t.description.startswith("stability chain")]
    assert len(chain) == chain_length(spec)
    assert all(isinstance(t.distinguisher, BottomGap) for t in chain)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-9])
def test_chain_straddles_the_threshold_of_a_noiseless_ptr(epsilon, delta):
    """Power: for the test PTR's own threshold, some chain pair is released on one side only."""
    ptr = StabilityPTR(noisy=False, epsilon=epsilon, delta=delta)
    chain = [t for t in _trials(ptr) if t.description.startswith("stability chain")]
    straddling = []
    for t in chain:
        d0, d1 = median_stability(t.x, *ptr.domain)[1], median_stability(t.x_prime, *ptr.domain)[1]
        assert abs(d0 - d1) <= 1  # consecutive datasets of the chain are one record apart
        if (d0 > ptr._threshold) != (d1 > ptr._threshold):
            straddling.append(t)
    assert straddling


def test_bottom_gap_proposes_only_on_a_promising_gap():
    plan = CertificationPlan(n=10_000, alpha=1e-4, epsilon=1.0, delta=0.0)
    nan, one = np.full(100, np.nan), np.ones(100)
    assert [e.description for e in BottomGap().propose(nan, one, plan)] == [
        "output is ⊥ (no answer, NaN)"
    ]
    assert BottomGap().propose(one, one, plan) == []
    assert BottomGap().propose(nan, nan, plan) == []
    half = np.where(np.arange(100) < 50, np.nan, 1.0)
    near = np.where(np.arange(100) < 40, np.nan, 1.0)  # ratio 1.25: cannot break epsilon = 1
    assert BottomGap().propose(half, near, plan) == []
    assert len(BottomGap(train_fraction=0.0).propose(np.empty(0), np.empty(0), plan)) == 1


def test_narrow_query_bounds_get_a_random_offset_inside():
    for seed in range(20):
        for t in _trials(_Additive(1.0, query_bounds=(-10.5, -7.25)), seed):
            for x, x_prime, description in t.pairs:
                if x != 0:
                    assert -10.5 <= x <= x_prime <= -7.25, description
    for seed in range(20):
        adapter = _Additive(1.0, query_bounds=(-10.5, -7.25), integer_queries=True)
        for t in _trials(adapter, seed):
            if t.x != 0:
                assert -10.5 <= t.x < t.x_prime <= -7.25 and isinstance(t.x, int), t.description


def test_event_labels_name_large_values_exactly():
    """Neighbouring inputs 2**33 and 2**33 + 1 must not both print as 8.58993e+09."""
    from auditor.statistics.events.event_selection import outcome_set_event, threshold_event

    assert outcome_set_event(np.array([2**33 + 1])).description == "output == 8589934593"
    assert threshold_event(0.1 + 2**-40, above=True).description == f"output > {0.1 + 2**-40!r}"
    assert threshold_event(0.5, above=False).description == "output < 0.5"


class RoundedAnswer:
    """The answer rounded to a whole number, then two-sided geometric noise at rate eps:
    rounding down moves it by at most 1 (eps-DP), rounding half to even by 2 at a tie
    (k + 1/2 -> k, k + 3/2 -> k + 2 for k even: 2 eps)."""

    family, epsilon, sensitivity = "additive", 1.0, 1.0

    def __init__(self, rounding) -> None:
        self.rounding, self.name = rounding, f"test.rounded({rounding.__name__})"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        p = -np.expm1(-1.0)
        steps = self._rng.geometric(p, n) - self._rng.geometric(p, n)
        return (self.rounding(float(query)) + steps).astype(float)


def test_rounding_half_to_even_before_the_noise_is_caught_at_a_tie():
    from attacks import load_attacks
    from auditor.core.configs import AuditConfig
    from auditor.core.results import Verdict
    from auditor.engine.runner import run_audit

    adapters = [RoundedAnswer(np.rint), RoundedAnswer(np.floor)]
    report = run_audit(adapters, load_attacks(["black-box"]), AuditConfig(budget=100_000, seed=0))
    broken, correct = report.results
    assert broken.verdict is Verdict.VIOLATION, broken.to_dict()
    assert "tie of rounding" in broken.best.trial
    assert correct.verdict is Verdict.NO_VIOLATION, correct.to_dict()
