"""Attacks send a mechanism only inputs it declared: a mechanism over a declared number of
candidates (``query_length``) exactly that many utilities, whole numbers to one over counts
(``integer_queries``), answers inside declared bounds, integer records to a dataset mechanism
over an integer domain.  Such a mechanism may refuse anything else, and an attack that sent it
turned a correct adapter into an ``error`` verdict."""

from __future__ import annotations

import numpy as np
import pytest

from attacks import load_attacks
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.core.spec import check_adapter
from auditor.engine.runner import run_audit

SELECTION_ATTACKS = ["zero-rounding", "black-box", "selection-search", "truncated-addition"]


class NoisyMaxOfFive:
    """Report noisy max with Laplace(2/eps) over exactly five candidates (eps-DP)."""

    name = "noisy-max-of-five"
    input_kind = "vector"
    norm, sensitivity = "linf", 1.0
    output_kind = "index"
    epsilon, delta = 1.0, 0.0

    def __init__(self, declared: bool = True) -> None:
        if declared:
            self.query_length = 5
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        q = np.asarray(query, dtype=float)
        if q.shape != (5,):
            raise ValueError(f"expected 5 candidates, got shape {q.shape}")
        return (q + self._rng.laplace(0.0, 2.0 / self.epsilon, size=(n, 5))).argmax(axis=1)

    def probabilities(self, query):  # the truncated-addition oracle (never sampled here)
        q = np.asarray(query, dtype=float)
        w = np.exp(self.epsilon * (q - q.max()) / 2.0)
        return w / w.sum()


def _lengths(adapter: NoisyMaxOfFive) -> set[int]:
    spec = check_adapter(adapter)
    lengths: set[int] = set()
    for attack in load_attacks(SELECTION_ATTACKS):
        assert attack.applies_to(spec), attack.name
        trials = attack.trials(spec, np.random.default_rng(0))
        assert trials, attack.name
        for trial in trials:
            lengths |= {len(trial.x), len(trial.x_prime)}
            for pair in getattr(trial.exact, "pairs", ()):
                lengths |= {len(pair.x), len(pair.x_prime)}
    return lengths


def every_input(spec):
    """``(attack name, trial description, input)`` for both inputs of every pair every
    applicable attack would try, the pair search's candidates included."""
    for attack in load_attacks(None):
        if not attack.applies_to(spec):
            continue
        for trial in attack.trials(spec, np.random.default_rng(0)):
            pairs = [(trial.x, trial.x_prime), *[c[:2] for c in trial.candidates]]
            for x in (v for pair in pairs for v in pair):
                yield attack.name, trial.description, np.asarray(x)


def test_every_selection_trial_has_the_declared_number_of_candidates() -> None:
    assert _lengths(NoisyMaxOfFive(declared=True)) == {5}
    # without a declared length the attacks choose theirs (the test above can fail)
    assert len(_lengths(NoisyMaxOfFive(declared=False)) - {5}) >= 3


class NoisyMaxOfFiveAsFamily(NoisyMaxOfFive):
    """The same, declared by the first release's ``family = "selection"``."""

    input_kind = output_kind = None  # type: ignore[assignment]
    family = "selection"


def test_the_selection_family_keeps_its_declared_number_of_candidates() -> None:
    assert check_adapter(NoisyMaxOfFiveAsFamily()).input.length == 5
    assert _lengths(NoisyMaxOfFiveAsFamily()) == {5}


def test_one_declared_candidate_gets_no_selection_trial() -> None:
    adapter = NoisyMaxOfFive()
    adapter.query_length = 1
    spec = check_adapter(adapter)
    for attack in load_attacks(SELECTION_ATTACKS):
        assert attack.trials(spec, np.random.default_rng(0)) == [], attack.name


def test_a_correct_mechanism_over_five_candidates_is_audited_not_an_error() -> None:
    report = run_audit(
        [NoisyMaxOfFive()],
        load_attacks(None),
        AuditConfig(budget=20_000, seed=0),
    )
    (result,) = report.results
    assert result.error is None
    assert result.verdict is Verdict.NO_VIOLATION


class ExponentialOverCounts:
    """The exponential mechanism over five integer counts (refuses anything else); ``naive``
    exponentiates the raw utilities (Ilvento's zero rounding), else they are shifted by their
    maximum first."""

    input_kind = "vector"
    norm, sensitivity = "linf", 1.0
    query_length = 5
    integer_queries = True
    output_kind = "index"
    epsilon, delta = 1.0, 0.0

    def __init__(self, naive: bool) -> None:
        self.naive = naive
        self.name = f"exponential-over-counts(naive={naive})"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        q = np.asarray(query, dtype=float)
        if q.shape != (5,) or not np.array_equal(q, np.round(q)):
            raise ValueError(f"expected 5 integer counts, got {q}")
        u = q if self.naive else q - q.max()
        w = np.exp(self.epsilon * u / (2 * self.sensitivity))
        return self._rng.choice(5, size=n, p=w / w.sum())


def test_integer_utilities_stay_integers_and_zero_rounding_still_finds_the_naive_one() -> None:
    spec = check_adapter(ExponentialOverCounts(naive=True))
    for attack in load_attacks(["zero-rounding", "black-box", "selection-search"]):
        trials = attack.trials(spec, np.random.default_rng(0))
        assert trials, attack.name
        for trial in trials:
            for x in (trial.x, trial.x_prime):
                assert len(x) == 5 and np.array_equal(x, np.round(x)), (attack.name, x)
    config = AuditConfig(budget=20_000, seed=0)
    naive, shifted = run_audit(
        [ExponentialOverCounts(naive=True), ExponentialOverCounts(naive=False)],
        load_attacks(["zero-rounding"]),
        config,
    ).results
    assert (
        naive.verdict is Verdict.VIOLATION and naive.epsilon_lower_bound > 2 * naive.claim.epsilon
    )
    assert shifted.error is None and shifted.verdict is Verdict.NO_VIOLATION


class NoisyMaxOfScores(NoisyMaxOfFive):
    """Report noisy max over five scores in [0, 100] (refuses any score outside)."""

    name = "noisy-max-of-scores"
    query_bounds = (0.0, 100.0)

    def sample(self, query, n):
        q = np.asarray(query, dtype=float)
        if q.shape != (5,) or q.min() < 0 or q.max() > 100:
            raise ValueError(f"expected 5 scores in [0, 100], got {q}")
        return (q + self._rng.laplace(0.0, 2.0 / self.epsilon, size=(n, 5))).argmax(axis=1)


def test_declared_bounds_hold_for_every_pair_of_every_attack() -> None:
    spec = check_adapter(NoisyMaxOfScores())
    tried = 0
    for name, trial, x in every_input(spec):
        tried += 1
        assert np.min(x) >= 0 and np.max(x) <= 100, (name, trial, x)
    assert tried > 40  # the pair search's candidates included
    (result,) = run_audit(
        [NoisyMaxOfScores()], load_attacks(None), AuditConfig(budget=20_000)
    ).results
    assert result.error is None and result.verdict is Verdict.NO_VIOLATION


class LaplaceInTenToTwenty:
    """Laplace on an answer in [10, 20] (refuses any other), rounded to 2^-20 (no float leak)."""

    name = "laplace-in-10-20"
    family = "additive"
    sensitivity = 1.0
    query_bounds = (10.0, 20.0)
    epsilon, delta = 1.0, 0.0
    rounded = True  # to 2^-20: no float leak to find

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        q = np.asarray(query, dtype=float)
        if q.min() < 10 or q.max() > 20:
            raise ValueError(f"expected answers in [10, 20], got {q}")
        noisy = q + self._rng.laplace(0.0, 1.0 / self.epsilon, size=(n, *q.shape))
        return np.round(noisy * 2.0**20) / 2.0**20 if self.rounded else noisy


class FloatLaplaceInTenToTwenty(LaplaceInTenToTwenty):
    """The same Laplace in plain doubles: Mironov's holes, at inputs 10 and 11 (about 11 % of
    the outputs at 10 are doubles numpy's sampler cannot produce at 11; 82 % at 0 and 1)."""

    name = "float-laplace-in-10-20"
    rounded = False


def on_vectors(adapter: type) -> type:
    """The same noise on each of 4 answers in [10, 20] (L1 sensitivity 1)."""
    vector = {"input_kind": "vector", "norm": "l1", "query_length": 4}
    vector |= {"output_kind": "real", "output_length": "query", "family": None}
    return type(
        "Vector" + adapter.__name__, (adapter,), {"name": "vector-" + adapter.name, **vector}
    )


@pytest.mark.parametrize("adapter", [LaplaceInTenToTwenty, on_vectors(LaplaceInTenToTwenty)])
def test_bounds_that_exclude_zero_hold_for_every_attack(adapter: type) -> None:
    from auditor.core.spec import typical_query

    spec = check_adapter(adapter())
    assert np.all(np.asarray(typical_query(spec)) == 10.0)
    for name, trial, x in every_input(spec):
        assert x.min() >= 10 and x.max() <= 20, (name, trial, x)
    report = run_audit([adapter()], load_attacks(None), AuditConfig(budget=20_000))
    (result,) = report.results
    assert result.error is None and result.verdict is Verdict.NO_VIOLATION


@pytest.mark.parametrize(
    "adapter", [FloatLaplaceInTenToTwenty, on_vectors(FloatLaplaceInTenToTwenty)]
)
def test_the_lsb_attack_starts_inside_bounds_that_exclude_zero(adapter: type) -> None:
    attacks = [a for a in load_attacks(None) if a.name == "lsb-laplace"]
    spec = check_adapter(adapter())
    (trial,) = attacks[0].trials(spec, np.random.default_rng(0))
    assert {float(np.min(trial.x)), float(np.max(trial.x_prime))} == {10.0, 11.0}
    report = run_audit([adapter()], attacks, AuditConfig(budget=20_000))
    (result,) = report.results
    assert result.error is None and result.verdict is Verdict.VIOLATION


class CountOfSmallValues:
    """A noisy count of the records below 5 over the integer domain 0..9 (refuses fractions)."""

    name = "count-of-small-values"
    family = "dataset"
    domain = (0, 9)
    epsilon, delta = 1.0, 0.0

    def __init__(self, neighbours: str) -> None:
        self.neighbours = neighbours
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, records, n):
        r = np.asarray(records)
        if r.size and not np.array_equal(r, np.round(r)):
            raise ValueError(f"records must be whole numbers, got {r}")
        count = np.count_nonzero(r < 5)
        return np.round((count + self._rng.laplace(0.0, 1.0 / self.epsilon, n)) * 2.0**20) / 2.0**20


@pytest.mark.parametrize("neighbours", ["add_remove", "replace"])
def test_records_over_an_integer_domain_are_whole_numbers(neighbours: str) -> None:
    spec = check_adapter(CountOfSmallValues(neighbours))
    tried = 0
    for name, trial, x in every_input(spec):
        tried += 1
        assert np.array_equal(x, np.round(x)), (name, trial, x)
    assert tried >= 6
    report = run_audit(
        [CountOfSmallValues(neighbours)], load_attacks(None), AuditConfig(budget=20_000)
    )
    (result,) = report.results
    assert result.error is None and result.verdict is Verdict.NO_VIOLATION


class SumOfAtLeast:
    """A noisy sum over [0, 1] that refuses datasets of fewer than ``fewest`` records, as a
    variance would for 2; ``min_records`` declares it (unless ``declared`` is False)."""

    name = "sum-of-at-least"
    family = "dataset"
    domain = (0.0, 1.0)
    epsilon, delta = 1.0, 0.0

    def __init__(self, neighbours: str, fewest: int = 2, declared: bool = True) -> None:
        self.neighbours, self.fewest = neighbours, fewest
        if declared:
            self.min_records = fewest
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def _records(self, records):
        r = np.asarray(records, dtype=float)
        if len(r) < self.fewest:
            raise ValueError(f"expected at least {self.fewest} records, got {len(r)}")
        return r

    def sample(self, records, n):
        total = self._records(records).sum()
        return np.round((total + self._rng.laplace(0.0, 1.0, n)) * 2.0**20) / 2.0**20


@pytest.mark.parametrize("neighbours", ["add_remove", "replace"])
def test_a_declared_minimum_number_of_records_holds_for_every_attack(neighbours: str) -> None:
    spec = check_adapter(SumOfAtLeast(neighbours))
    assert spec.min_records == 2
    config = AuditConfig(budget=20_000)
    (result,) = run_audit([SumOfAtLeast(neighbours)], load_attacks(None), config).results
    assert result.error is None and result.verdict is Verdict.NO_VIOLATION
    # undeclared, the attacks send one record (the test above can fail)
    undeclared = SumOfAtLeast(neighbours, declared=False)
    (result,) = run_audit([undeclared], load_attacks(None), config).results
    assert result.error is not None and "at least 2 records" in result.error


class SumOfAtLeastWithProbe(SumOfAtLeast):
    """The same with its noiseless answer for the white-box sensitivity check (which refuses
    small datasets too)."""

    def release_without_noise(self, records):
        return float(self._records(records).sum())


@pytest.mark.parametrize("neighbours", ["add_remove", "replace"])
def test_the_white_box_sensitivity_check_respects_min_records(neighbours: str) -> None:
    adapter = SumOfAtLeastWithProbe(neighbours, fewest=100)  # its pairs hold 64 records and up
    config = AuditConfig(budget=20_000)
    (result,) = run_audit([adapter], load_attacks(["sensitivity"]), config).results
    assert result.error is None and result.verdict is Verdict.NO_VIOLATION
    assert not result.notes  # checked, on its pairs of 100 records and more


def test_min_records_must_be_a_whole_number() -> None:
    from auditor.core.errors import AdapterContractError

    with pytest.raises(AdapterContractError, match="min_records"):
        check_adapter(SumOfAtLeast("replace", fewest=0))
