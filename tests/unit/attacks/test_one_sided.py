"""The one-sided attack: datasets that bring a value the other lacks, screened on the outputs a
leak in delta alone needs, and the certified delta bound that shows it."""

from __future__ import annotations

import json
import math

import jsonschema
import numpy as np
import pytest

from attacks import load_attacks
from attacks.one_sided import MAX_PAIRS, OneSidedAttack, brings_new_value, one_sided_pairs
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.core.spec import check_adapter
from auditor.engine.runner import run_audit
from auditor.statistics.clopper_pearson import delta_lower_bound
from reports.json_report import report_schema
from reports.markdown import render_markdown

EPSILON, DELTA, KEYS = 2.0, 3e-4, 4


def _threshold(off_by_one: bool) -> int:
    """Smallest k with P[Z >= k] <= delta for the two-sided geometric Z of rate epsilon; a key
    of true count 1 needs 1 + Z >= tau to be released, so tau = 1 + k (off by one: k)."""
    a = math.exp(-EPSILON)
    k = math.ceil(math.log(DELTA * (1 + a)) / math.log(a))
    return k if off_by_one else k + 1


def leak(tau: int) -> float:
    """Exact probability that a key held by one record is released: P[Z >= tau - 1]."""
    a = math.exp(-EPSILON)
    return a ** (tau - 1) / (1 + a)


class PartitionCounts:
    """Noisy counts of the keys present, released when they reach tau (NaN otherwise)."""

    epsilon, delta = EPSILON, DELTA
    input_kind, neighbours, domain = "dataset", "add_remove", (0, KEYS - 1)
    output_kind, output_length, nullable = "integer", KEYS, True

    def __init__(self, off_by_one: bool) -> None:
        self.name = f"partition.{'off_by_one' if off_by_one else 'correct'}"
        self.tau = _threshold(off_by_one)
        self.rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self.rng = np.random.default_rng(entropy)

    def sample(self, query: np.ndarray, n: int) -> np.ndarray:
        counts = np.bincount(np.asarray(query, dtype=np.int64), minlength=KEYS)
        p = 1 - math.exp(-EPSILON)
        noise = self.rng.geometric(p, (n, KEYS)) - self.rng.geometric(p, (n, KEYS))
        noisy = counts + noise
        return np.where((noisy >= self.tau) & (counts > 0), noisy.astype(float), np.nan)


def test_the_labels_hold_exactly():
    # the correct threshold releases a new key with probability at most delta; the off-by-one
    # one with e^eps times that, far above delta
    assert leak(_threshold(False)) <= DELTA < leak(_threshold(True))
    assert leak(_threshold(True)) > 5 * DELTA


def test_a_new_value_is_a_record_one_dataset_holds_and_the_other_does_not():
    assert brings_new_value(np.array([0, 0, 0]), np.array([0, 0, 0, 3]))
    assert brings_new_value(np.array([[0, 1], [2, 3]]), np.array([[0, 1]]))
    assert not brings_new_value(np.array([0, 0, 3]), np.array([0, 0, 3, 3]))
    assert not brings_new_value(np.array([1.5]), np.array([1.5, 1.5]))


def test_applies_to_datasets_under_a_delta_claim_only():
    attack = OneSidedAttack()
    spec = check_adapter(PartitionCounts(False))
    assert attack.applies_to(spec)
    pure = PartitionCounts(False)
    pure.delta = 0.0
    assert not attack.applies_to(check_adapter(pure))


def test_every_pair_brings_a_value_and_small_datasets_come_first():
    spec = check_adapter(PartitionCounts(False))
    pairs = one_sided_pairs(spec, np.random.default_rng(0))
    assert 1 < len(pairs) <= MAX_PAIRS
    assert all(brings_new_value(x, y) for x, y, _ in pairs)
    sizes = [min(len(x), len(y)) for x, y, _ in pairs]
    assert sizes[0] == min(sizes)


@pytest.fixture(scope="module")
def audited():
    # false-failure probability: the correct twin is flagged with probability at most alpha =
    # 0.05 (the run's family-wise level); the broken one (leak 7.3 x delta) is caught at this
    # budget by a margin: certified delta 1.3e-3 at seed 0, four times the claim
    adapters = [PartitionCounts(False), PartitionCounts(True)]
    report = run_audit(adapters, load_attacks(["one-sided"]), AuditConfig(seed=0, budget=60_000))
    return {r.adapter: r for r in report.results}, report


def test_the_leak_in_delta_alone_is_certified_and_the_correct_twin_is_not(audited):
    results, report = audited
    correct, broken = results["partition.correct"], results["partition.off_by_one"]
    assert correct.verdict is Verdict.NO_VIOLATION
    assert correct.delta_bound is None or correct.delta_bound.delta_lower_bound <= DELTA
    assert broken.verdict is Verdict.VIOLATION
    bound = broken.delta_bound
    assert bound is not None and bound.delta_lower_bound > DELTA
    # the bound re-derives from its counts and is below the truth
    c = bound.counts
    again = delta_lower_bound(c.k0, c.n0, c.k1, c.n1, bound.alpha, EPSILON, bound.alpha_split)
    assert again == bound.delta_lower_bound < leak(_threshold(True))


def test_reports_state_the_delta_bound(audited):
    results, report = audited
    as_json = report.to_dict()
    broken = next(r for r in as_json["results"] if r["adapter"] == "partition.off_by_one")
    assert broken["delta_lower_bound"]["delta_lower_bound"] > DELTA
    text = render_markdown(as_json)
    assert "certified δ ≥" in text and "(exceeds the claim)" in text
    jsonschema.validate(json.loads(json.dumps(as_json)), report_schema())


def test_a_trial_that_needs_more_outputs_gets_them_within_the_cap():
    from auditor.core.configs import NEEDS_CAP

    spec = check_adapter(PartitionCounts(True))
    config = AuditConfig(budget=10_000)
    assert config.budget_for(spec) == 10_000
    assert config.budget_for(spec, 50_000) == 50_000
    assert config.budget_for(spec, 10**9) == NEEDS_CAP * 10_000
    (trial,) = OneSidedAttack().trials(spec, np.random.default_rng(0))
    # (2, 3e-4): certifying 3 x delta seen on one side takes a few hundred thousand outputs
    assert 100_000 < trial.needs < 2_000_000
    looped = PartitionCounts(True)
    looped.vectorised = False
    assert config.budget_for(check_adapter(looped), 50_000) == 10_000


class GapTestedArgmax:
    """The index of the largest of 4 integer scores, released only when its gap to the
    runner-up plus two-sided geometric noise of rate eps/2 reaches tau (else -1): the index can
    change only while the gap is at most 2, so tau = 2 + k with P[Z >= k] <= delta.  Solving k
    at the rate eps instead (``broken``) releases an index at gap 1 with probability 1.1e-2."""

    epsilon, delta = 1.0, 1e-3
    input_kind, norm, sensitivity, integer_queries, query_length = "vector", "linf", 1, True, 4
    output_kind, nullable = "index", True

    def __init__(self, broken: bool) -> None:
        self.name = f"gap_argmax.{'broken' if broken else 'correct'}"
        rate = self.epsilon / 2
        solve = self.epsilon if broken else rate
        a = math.exp(-solve)
        self.tau = 2 + math.ceil(math.log(self.delta * (1 + a)) / math.log(a))
        self.p = 1 - math.exp(-rate)
        self.rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self.rng = np.random.default_rng(entropy)

    def sample(self, query: np.ndarray, n: int) -> np.ndarray:
        q = np.asarray(query, dtype=np.int64)
        top = int(np.argmax(q))
        gap = int(q[top] - np.max(np.delete(q, top)))
        noisy = gap + self.rng.geometric(self.p, n) - self.rng.geometric(self.p, n)
        return np.where(noisy >= self.tau, top, -1)


def test_pairs_at_the_starting_base_stay_candidates_when_the_base_moves():
    # nothing responds at base 0 but the first entry does (the gap): the base search moves
    # there, where the index is released on both sides; the one-sided release lives at base 0.
    # False-failure probability: the correct twin is flagged with probability <= alpha = 0.05;
    # the broken one shows its index on one side ~30 times in 2,000 screening outputs.
    adapters = [GapTestedArgmax(False), GapTestedArgmax(True)]
    report = run_audit(adapters, load_attacks(["pair-search"]), AuditConfig(seed=0, budget=40_000))
    verdicts = {r.adapter: r for r in report.results}
    assert verdicts["gap_argmax.correct"].verdict is Verdict.NO_VIOLATION
    broken = verdicts["gap_argmax.broken"]
    assert broken.verdict is Verdict.VIOLATION
    assert broken.delta_bound is not None and broken.delta_bound.delta_lower_bound > 1e-3


class SparseHistogram:
    """Noisy counts of a vector of 4 counts (L1 sensitivity 1: one count moves by one),
    released only for bins whose true count is positive and whose noisy count reaches tau."""

    epsilon, delta = EPSILON, DELTA
    input_kind, norm, sensitivity, integer_queries, query_length = "vector", "l1", 1, True, 4
    output_kind, output_length, nullable = "integer", "query", True

    def __init__(self, off_by_one: bool) -> None:
        self.name = f"sparse_histogram.{'off_by_one' if off_by_one else 'correct'}"
        self.tau = _threshold(off_by_one)
        self.rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self.rng = np.random.default_rng(entropy)

    def sample(self, query: np.ndarray, n: int) -> np.ndarray:
        counts = np.asarray(query, dtype=np.int64)
        p = 1 - math.exp(-EPSILON)
        noisy = counts + self.rng.geometric(p, (n, 4)) - self.rng.geometric(p, (n, 4))
        return np.where((noisy >= self.tau) & (counts > 0), noisy.astype(float), np.nan)


def test_vector_entries_rising_from_zero_get_a_trial_of_their_own():
    # false-failure probability: the correct twin is flagged with probability <= alpha = 0.05
    spec = check_adapter(SparseHistogram(False))
    (trial,) = OneSidedAttack().trials(spec, np.random.default_rng(0))
    for x, x_prime, _ in trial.pairs:
        assert not np.asarray(x).any() and np.asarray(x_prime).any()
    adapters = [SparseHistogram(False), SparseHistogram(True)]
    report = run_audit(adapters, load_attacks(["one-sided"]), AuditConfig(seed=0, budget=60_000))
    verdicts = {r.adapter: r for r in report.results}
    assert verdicts["sparse_histogram.correct"].verdict is Verdict.NO_VIOLATION
    broken = verdicts["sparse_histogram.off_by_one"]
    assert broken.verdict is Verdict.VIOLATION and broken.delta_bound is not None
    assert broken.delta_bound.delta_lower_bound > DELTA


WIDTH, LOCAL_DELTA = 5, 1e-3


def _edge_mass(t: int) -> float:
    """Mass of the WIDTH outermost points on one side of a discrete Laplace of rate 1 / WIDTH
    truncated to |z| <= t: what value 0 outputs and value WIDTH never does."""
    z = np.arange(-t, t + 1)
    w = np.exp(-np.abs(z) / WIDTH)
    return float(w[:WIDTH].sum() / w.sum())


def _truncation(leak: float) -> int:
    return min(t for t in range(WIDTH, 400) if _edge_mass(t) <= leak)


class TruncatedLocalNoise:
    """Local values 0..WIDTH, released as value + Z, Z a discrete Laplace of rate eps / WIDTH
    truncated to |Z| <= T: inside the overlap any two values' ratio is at most e^eps, and the
    outputs one value gives and another never does cost delta, WIDTH of them at the far edge.
    Correct: T holds that edge to delta; broken: T holds it to 6 delta only."""

    epsilon, delta = 1.0, LOCAL_DELTA
    input_kind, domain, output_kind = "local", (0, WIDTH), "integer"

    def __init__(self, broken: bool) -> None:
        self.name = f"truncated_local.{'broken' if broken else 'correct'}"
        self.t = _truncation(6 * LOCAL_DELTA if broken else LOCAL_DELTA)
        z = np.arange(-self.t, self.t + 1)
        w = np.exp(-np.abs(z) / WIDTH)
        self.support, self.p = z, w / w.sum()
        self.rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self.rng = np.random.default_rng(entropy)

    def sample(self, query: int, n: int) -> np.ndarray:
        return int(query) + self.rng.choice(self.support, size=n, p=self.p)


def test_local_values_farthest_apart_get_a_trial_of_their_own():
    # the labels, exactly: the correct twin's edge is within delta, the broken one's above 2x
    assert _edge_mass(TruncatedLocalNoise(False).t) <= LOCAL_DELTA
    assert _edge_mass(TruncatedLocalNoise(True).t) > 4 * LOCAL_DELTA
    spec = check_adapter(TruncatedLocalNoise(True))
    assert OneSidedAttack().applies_to(spec)
    (trial,) = OneSidedAttack().trials(spec, np.random.default_rng(0))
    assert {trial.x, trial.x_prime} == {0, WIDTH}  # the farthest first
    # false-failure probability: the correct twin is flagged with probability <= alpha = 0.05
    adapters = [TruncatedLocalNoise(False), TruncatedLocalNoise(True)]
    report = run_audit(adapters, load_attacks(["one-sided"]), AuditConfig(seed=0, budget=60_000))
    correct, broken = report.results
    assert correct.verdict is Verdict.NO_VIOLATION
    assert broken.verdict is Verdict.VIOLATION and broken.delta_bound is not None
    assert broken.delta_bound.delta_lower_bound > LOCAL_DELTA


class UniformJitter:
    """A count in 0..1000 (sensitivity 1) released as count + U, U uniform on -w..w: outputs
    of both counts agree inside their overlap (ratio 1), and each count alone reaches one
    edge of its window, with probability 1 / (2w + 1) -- a mechanism whose whole privacy
    loss is delta = 1 / (2w + 1).  Correct: w = 500 for delta 1e-3.  Broken: w = 100 (the
    window sized for a different delta), delta 1 / 201, five times the claim."""

    input_kind, output_kind, integer_queries = "scalar", "integer", True
    sensitivity, query_bounds, vectorised = 1, (0, 1000), True
    epsilon, delta = 0.5, 1e-3

    def __init__(self, w: int) -> None:
        self.w, self.name = w, f"test.uniform_jitter(w={w})"
        self._rng = np.random.default_rng(0)

    def seed(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def sample(self, query, n):
        return int(query) + self._rng.integers(-self.w, self.w + 1, n)


def test_a_scalar_release_with_a_bounded_window_too_narrow_for_its_delta_is_found():
    assert 1 / 1001 <= UniformJitter.delta < 1 / 201
    config = AuditConfig(budget=20_000, seed=0)
    (found,) = run_audit([UniformJitter(100)], load_attacks(None), config).results
    (clean,) = run_audit([UniformJitter(500)], load_attacks(None), config).results
    assert found.verdict is Verdict.VIOLATION, found.to_dict()
    assert found.best.attack == "one-sided"
    assert found.best.delta_bound is not None
    assert found.best.delta_bound.delta_lower_bound > UniformJitter.delta
    assert clean.verdict is Verdict.NO_VIOLATION, clean.to_dict()


def test_scalar_one_sided_trials_only_where_outputs_can_sit_on_one_side():
    spec = check_adapter(UniformJitter(100))
    pairs = OneSidedAttack().trials(spec, np.random.default_rng(0))[0].pairs
    assert [(x, y) for x, y, _ in pairs] == [(0, 1), (999, 1000), (499, 500)]
    real = UniformJitter(100)
    real.output_kind, real.integer_queries = "real", False
    assert not OneSidedAttack().applies_to(check_adapter(real))  # spread over the reals
    per_call = UniformJitter(100)
    per_call.vectorised = False
    assert not OneSidedAttack().applies_to(check_adapter(per_call))  # cannot draw enough


class GapReleasedArgmax:
    """The argmax of 4 integer scores in 0..20 (ties to the smallest index), released when
    the gap to the runner-up plus two-sided geometric noise of rate eps/2 reaches T, else
    -1.  The gap moves by up to 2 under L∞ moves of 1, so T must leave P[Z >= T - 2] <=
    delta: at a tie (gap 0) split into a gap of 2 the raised index shows on one side only.
    Correct: T for a gap that moves by 2.  Broken: T for a gap that moves by 1 (one score's
    move), so the split tie releases the raised index with about e delta = 2.7 delta; every
    move from a base of zeros raises a gap by 1 at most, and shows nothing."""

    input_kind, norm, sensitivity, integer_queries = "vector", "linf", 1, True
    query_length, query_bounds, output_kind, nullable = 4, (0, 20), "index", True
    epsilon, delta = 2.0, 1e-3

    def __init__(self, shift: int) -> None:
        p = math.exp(-self.epsilon / 2)
        self.p, self.threshold = (
            p,
            next(t for t in range(1, 100) if p ** max(t - shift, 0) / (1 + p) <= self.delta),
        )
        self.name = f"test.gap_released_argmax(T={self.threshold})"
        self._rng = np.random.default_rng(0)

    def seed(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def sample(self, query, n):
        u = np.asarray(query, dtype=np.int64).ravel()
        top, second = np.sort(u)[::-1][:2]
        q = 1 - self.p
        z = self._rng.geometric(q, n) - self._rng.geometric(q, n)  # two-sided geometric
        return np.where(top - second + z >= self.threshold, int(np.argmax(u)), -1)


def test_an_argmax_released_past_a_gap_test_is_found_where_a_tie_is_split():
    correct, broken = GapReleasedArgmax(shift=2), GapReleasedArgmax(shift=1)
    pairs = OneSidedAttack().trials(check_adapter(broken), np.random.default_rng(0))[0].pairs
    assert any((x == [1, 1, 0, 0]).all() and (y == [0, 2, 0, 0]).all() for x, y, _ in pairs)
    config = AuditConfig(budget=20_000, seed=0)
    (found,) = run_audit([broken], load_attacks(None), config).results
    (clean,) = run_audit([correct], load_attacks(None), config).results
    assert found.verdict is Verdict.VIOLATION, found.to_dict()
    assert found.best.attack == "one-sided"
    assert found.best.delta_bound is not None
    assert found.best.delta_bound.delta_lower_bound > GapReleasedArgmax.delta
    assert clean.verdict is Verdict.NO_VIOLATION, clean.to_dict()
