"""User-level privacy (``max_contributions = k``): neighbouring datasets differ in up to k
records, one privacy unit's.  Every attack's dataset pairs are made k-record pairs by
``Trial.grouped``; a count whose noise is set for one record is caught under k = 3 and the
same count with k times the noise is not."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from attacks import load_attacks
from attacks.neighbours import are_neighbours
from auditor.core.configs import AuditConfig
from auditor.core.errors import AdapterContractError
from auditor.core.results import Verdict
from auditor.core.spec import check_adapter
from auditor.core.trials import Trial, grouped_pair
from auditor.engine.runner import run_audit


class UnitCount:
    """How many records a dataset holds, plus Laplace noise, on a 2^-10 grid.  Claimed
    1-DP per privacy unit of 3 records: correct with scale 3, broken (true epsilon 3) with
    the scale of one record."""

    input_kind = "dataset"
    domain = (0, 9)
    neighbours = "add_remove"
    output_kind = "real"
    epsilon = 1.0
    max_contributions = 3

    def __init__(self, scale: float, neighbours: str = "add_remove") -> None:
        self.scale, self.neighbours = scale, neighbours
        self.name = f"test.unit_count(scale={scale:g},{neighbours})"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n: int) -> np.ndarray:
        data = np.asarray(query)
        value = len(data) if self.neighbours == "add_remove" else int((data == 9).sum())
        noisy = value + self._rng.laplace(0.0, self.scale, n)
        return np.round(noisy * 1024) / 1024


@pytest.mark.parametrize(
    ("x", "x_prime", "grown_x", "grown_x_prime"),
    [
        ([1, 2], [1, 2, 7], [1, 2], [1, 2, 7, 7, 7]),  # a record added
        ([5, 1, 2], [1, 2], [5, 1, 2, 5, 5], [1, 2]),  # a record removed
        ([4, 1, 2], [9, 1, 2], [4, 1, 2, 4, 4], [9, 1, 2, 9, 9]),  # a record replaced
    ],
)
def test_one_record_s_change_becomes_one_unit_s_k_records(x, x_prime, grown_x, grown_x_prime):
    a, b = grouped_pair(np.array(x), np.array(x_prime), 3)
    assert a.tolist() == grown_x and b.tolist() == grown_x_prime
    assert a.dtype == np.array(x).dtype


def test_grouped_pairs_are_neighbours_at_k_and_not_at_k_minus_one():
    for neighbours in ("add_remove", "replace"):
        unit = check_adapter(UnitCount(3.0, neighbours))
        one = check_adapter(type("One", (UnitCount,), {"max_contributions": 2})(3.0, neighbours))
        rows = np.array([[1, 2], [3, 4], [5, 6]])
        changed = rows.copy()
        changed[0] = [9, 9]
        prime = changed if neighbours == "replace" else np.vstack([rows, [[9, 9]]])
        a, b = grouped_pair(rows, prime, 3)
        assert a.shape[1] == 2 and are_neighbours(unit, a, b) and not are_neighbours(one, a, b)


def test_a_trial_is_grouped_with_its_candidates_and_its_resize():
    x, x_prime, text = np.array([1, 2]), np.array([1, 2, 3]), "add 3"
    trial = Trial(
        x,
        x_prime,
        None,
        text,
        candidates=((x, x_prime, text),),
        resize=lambda s: Trial(x, x_prime, None, text),
    )
    grouped = trial.grouped(2)
    assert [len(p[1]) for p in grouped.pairs] == [4, 4]
    assert "the change made 2 times" in grouped.description
    assert grouped.resize is not None and len(grouped.resize(5).x_prime) == 4
    assert trial.grouped(1) is trial


def test_max_contributions_must_be_a_whole_number():
    for bad in (0, 1.5, True, "3"):
        adapter = UnitCount(3.0)
        adapter.max_contributions = bad
        with pytest.raises(AdapterContractError, match="max_contributions"):
            check_adapter(adapter)
    spec = check_adapter(UnitCount(3.0))
    assert spec.max_contributions == 3
    assert spec.kind_label == "dataset (up to 3 records per user)"


@pytest.mark.parametrize("neighbours", ["add_remove", "replace"])
def test_noise_for_one_record_is_caught_under_units_of_three_and_noise_for_three_is_not(
    neighbours,
):
    adapters = [UnitCount(1.0, neighbours), UnitCount(3.0, neighbours)]
    report = run_audit(adapters, load_attacks(None), AuditConfig(budget=50_000, seed=0))
    broken, correct = report.results
    assert broken.verdict is Verdict.VIOLATION and broken.epsilon_lower_bound > 1.5, (
        broken.to_dict()
    )
    assert "the change made 3 times" in broken.best.trial
    assert correct.verdict is Verdict.NO_VIOLATION and correct.error is None, correct.to_dict()


class DistinctValues(UnitCount):
    """How many distinct values a dataset holds, plus Laplace noise, on a 2^-10 grid.  A
    user's 3 records may be 3 new values: correct with scale 3; broken (true epsilon 3) with
    the scale of one new value, as if a user's records were copies of one."""

    def __init__(self, scale: float, neighbours: str = "add_remove") -> None:
        super().__init__(scale, neighbours)
        self.name = f"test.distinct_values(scale={scale:g},{neighbours})"

    def sample(self, query, n: int) -> np.ndarray:
        noisy = len(np.unique(np.asarray(query))) + self._rng.laplace(0.0, self.scale, n)
        return np.round(noisy * 1024) / 1024


def test_a_unit_s_distinct_records_are_paired_and_are_neighbours():
    from attacks.neighbours import dataset_pairs
    from auditor.core.trials import changed_records

    for neighbours in ("add_remove", "replace"):
        spec = check_adapter(DistinctValues(3.0, neighbours))
        units = [p for p in dataset_pairs(spec) if "one user's" in p[2]]
        assert units and all(2 <= changed_records(x, y) <= 3 for x, y, _ in units)
        assert all(are_neighbours(spec, x, y) for x, y, _ in units)
        # grouping leaves them as they are, and still makes one record's change k records'
        x, x_prime, text = units[0]
        trial = Trial(x, x_prime, None, text, candidates=((np.array([1]), np.array([1, 2]), "+2"),))
        grouped = trial.grouped(3)
        assert np.array_equal(grouped.x_prime, x_prime) and grouped.description == text
        assert changed_records(*grouped.candidates[0][:2]) == 3


@pytest.mark.parametrize("neighbours", ["add_remove", "replace"])
def test_a_count_of_distinct_values_noised_for_one_value_per_user_is_caught(neighbours):
    # k copies of one record change the count by 1: only distinct records show the loss of 3
    adapters = [DistinctValues(1.0, neighbours), DistinctValues(3.0, neighbours)]
    report = run_audit(adapters, load_attacks(None), AuditConfig(budget=50_000, seed=0))
    broken, correct = report.results
    assert broken.verdict is Verdict.VIOLATION and broken.epsilon_lower_bound > 1.5, (
        broken.to_dict()
    )
    # on a pair whose privacy unit holds distinct records: the fixed pairs' "one user's"
    # distinct values, or a climb's (the climbs change a whole unit)
    x, x_prime = (Counter(np.asarray(d).tolist()) for d in (broken.best.x, broken.best.x_prime))
    assert len(set((x - x_prime) + (x_prime - x))) >= 3, broken.best.trial
    assert correct.verdict is Verdict.NO_VIOLATION and correct.error is None, correct.to_dict()
