"""Datasets with user ids (``user_column``): neighbours differ in every record of one user,
however many, so a mechanism must bound each user's contribution itself.  Every attack's
add/remove pair becomes a pair of one user added or removed, holding the changed record once,
4 and 32 times (``Trial.by_user``), beside users holding several distinct records; a sum that
forgets to bound users, or bounds them one record too late, is caught and the bounded one is
not."""

from __future__ import annotations

import numpy as np
import pytest

from attacks import load_attacks
from attacks.neighbours import are_neighbours, dataset_pairs
from auditor.core.configs import AuditConfig
from auditor.core.errors import AdapterContractError
from auditor.core.results import Verdict
from auditor.core.spec import check_adapter
from auditor.core.trials import USER_RECORDS, Trial, user_pair
from auditor.engine.runner import run_audit


class CappedSum:
    """The sum of users' values in [0, 1] (column 1), each user's first ``cap`` records only,
    plus Laplace noise of scale cap / epsilon, on a 2^-20 grid.  ``keeps`` records per user
    are really summed: ``cap`` (correct), ``cap + 1`` (true epsilon (cap + 1) / cap) or
    None (no bound at all: epsilon unbounded)."""

    input_kind = "dataset"
    columns = 2
    domain = ((0, 10**6), (0.0, 1.0))
    user_column = 0
    neighbours = "add_remove"
    output_kind = "real"
    epsilon = 1.0

    def __init__(self, cap: int = 2, keeps: int | None = 2) -> None:
        self.cap, self.keeps = cap, keeps
        self.name = f"test.capped_sum(cap={cap},keeps={keeps})"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def statistic(self, query) -> float:
        data = np.asarray(query, dtype=float).reshape(-1, 2)
        taken: dict[float, int] = {}
        total = 0.0
        for user, value in data:
            taken[user] = taken.get(user, 0) + 1
            if self.keeps is None or taken[user] <= self.keeps:
                total += min(max(value, 0.0), 1.0)
        return total

    def sample(self, query, n: int) -> np.ndarray:
        noisy = self.statistic(query) + self._rng.laplace(0.0, self.cap / self.epsilon, n)
        return np.round(noisy * 2**20) / 2**20


class PartitionCounts(CappedSum):
    """Counts of 5 partitions (column 1), one per user and partition, each user in at most 2
    partitions, two-sided geometric noise of rate epsilon / 2.  ``bounded=False`` forgets the
    bound on partitions: a user in all 5 moves the counts by 5 (true epsilon 2.5)."""

    domain = ((0, 1000), (0, 4))
    output_kind = "integer"
    output_length = 5

    def __init__(self, bounded: bool) -> None:
        super().__init__()
        self.bounded = bounded
        self.name = f"test.partition_counts(bounded={bounded})"

    def sample(self, query, n: int) -> np.ndarray:
        counts = np.zeros(5, dtype=np.int64)
        seen: dict[int, set[int]] = {}
        for user, key in np.asarray(query, dtype=np.int64).reshape(-1, 2):
            mine = seen.setdefault(int(user), set())
            if key in mine or (self.bounded and len(mine) >= 2):
                continue
            mine.add(int(key))
            counts[key] += 1
        p = -np.expm1(-self.epsilon / 2)
        noise = self._rng.geometric(p, (n, 5)) - self._rng.geometric(p, (n, 5))
        return counts[None, :] + noise


def test_an_added_record_becomes_one_user_holding_it_once_or_many_times():
    x = np.array([[7, 0.5], [7, 0.5]])
    x_prime = np.array([[7, 0.5], [7, 0.5], [7, 1.0]])
    for size in USER_RECORDS:
        made = user_pair(x, x_prime, 0, (10, 20), size)
        assert made is not None
        a, b, held = made
        # the shared records are two users of their own; the new one holds the change
        assert a[:, 0].tolist() == [11, 12] and a[:, 1].tolist() == [0.5, 0.5]
        assert b[:2].tolist() == a.tolist() and b[2:].tolist() == [[10, 1.0]] * size
        assert held == ("1 record" if size == 1 else f"{size} copies of one record")


def test_a_removed_first_record_stays_first_and_ids_run_round_robin():
    x = np.array([[0, 1], [0, 2], [0, 3], [0, 4]])
    a, b, _ = user_pair(x, x[1:], 0, (0, 2), 1)  # three ids: the changed user and two others
    assert a.tolist() == [[0, 1], [1, 2], [2, 3], [1, 4]]
    assert b.tolist() == a[1:].tolist()
    assert user_pair(x, x + 1, 0, (0, 2), 1) is None  # replace: not a user added


def test_pairs_made_by_user_are_neighbours_and_a_partial_user_is_not():
    spec = check_adapter(CappedSum())
    pairs = dataset_pairs(spec)
    trial = Trial(*pairs[0], None, candidates=tuple(pairs[1:]))
    by_user = trial.for_privacy_units(spec)
    assert by_user is not None and len(by_user.pairs) > len(pairs)
    assert all(are_neighbours(spec, x, y) for x, y, _ in by_user.pairs)
    held = {text.rsplit("the changed one with ", 1)[1] for _, _, text in by_user.pairs}
    assert {"1 record", "4 copies of one record", "32 copies of one record"} <= held
    assert any(h.endswith("32 records") for h in held)  # a user of 32 distinct records
    user = np.array([[1, 0.5], [2, 0.5]])
    assert are_neighbours(spec, user, np.vstack([user, [[3, 1.0], [3, 0.0]]]))
    assert not are_neighbours(spec, user, np.vstack([user, [[2, 1.0]]]))  # user 2 changed
    assert not are_neighbours(spec, user, np.vstack([user, [[3, 1.0], [4, 0.0]]]))  # two users


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"user_column": 2}, "column index in 0..1"),
        ({"user_column": "0"}, "must be a column index"),
        ({"user_column": 1}, "integer bounds"),  # the values' column, bounds 0.0 .. 1.0
        ({"neighbours": "replace"}, "needs neighbours = 'add_remove'"),
        ({"max_contributions": 3}, "cannot be declared with user_column"),
        ({"domain": ((5, 5.5), (0.0, 1.0))}, "integer bounds"),
    ],
)
def test_a_wrong_user_column_is_named(changes, problem):
    adapter = CappedSum()
    for name, value in changes.items():
        setattr(adapter, name, value)
    with pytest.raises(AdapterContractError, match="user_column|max_contributions") as info:
        check_adapter(adapter)
    assert problem in str(info.value)


def test_the_kind_label_names_the_id_column():
    assert check_adapter(CappedSum()).kind_label.endswith("(user ids in column 0)")


def test_unbounded_and_off_by_one_user_bounds_are_caught_and_the_bound_one_is_not():
    adapters = [
        CappedSum(keeps=None),
        CappedSum(cap=1, keeps=2),  # true epsilon 2
        CappedSum(keeps=2),
        PartitionCounts(bounded=False),
        PartitionCounts(bounded=True),
    ]
    report = run_audit(adapters, load_attacks(None), AuditConfig(budget=50_000, seed=0))
    unbounded, off_by_one, correct, all_partitions, two_partitions = report.results
    for broken in (unbounded, off_by_one, all_partitions):
        assert broken.verdict is Verdict.VIOLATION, broken.to_dict()
        assert "the changed one with" in broken.best.trial
    assert unbounded.epsilon_lower_bound > 2, unbounded.to_dict()
    for fine in (correct, two_partitions):
        assert fine.verdict is Verdict.NO_VIOLATION and fine.error is None, fine.to_dict()


class PartitionSums(CappedSum):
    """Sums of values in [0, 1] (column 2) per partition (column 1, 0..4), each user's 2
    smallest partitions and one record in each, Gaussian noise of sigma sqrt 2 per sum: rho
    = 2 / (2 * 2) = 0.5.  ``keeps=3`` keeps a third partition (true rho 0.75), which shows
    only on a user in three partitions each with a large value."""

    columns, domain = 3, ((0, 1000), (0, 4), (0.0, 1.0))
    output_kind, output_length, claim = "real", 5, "zcdp:rho=0.5"

    def __init__(self, keeps: int) -> None:
        super().__init__(keeps=keeps)
        self.name = f"test.partition_sums(keeps={keeps})"

    def sample(self, query, n: int) -> np.ndarray:
        sums = np.zeros(5)
        kept: dict[int, dict[int, float]] = {}
        for user, key, value in np.asarray(query, dtype=float).reshape(-1, 3):
            mine = kept.setdefault(int(user), {})
            mine.setdefault(int(key), min(max(value, 0.0), 1.0))
        for mine in kept.values():
            for key in sorted(mine)[: self.keeps]:
                sums[key] += mine[key]
        noisy = sums + self._rng.normal(0.0, 2**0.5, (n, 5))
        return np.round(noisy * 2**20) / 2**20


def test_a_cap_on_partitions_off_by_one_shows_on_a_user_spread_along_the_partitions():
    adapters = [PartitionSums(keeps=3), PartitionSums(keeps=2)]
    report = run_audit(adapters, load_attacks(None), AuditConfig(budget=100_000, seed=0))
    broken, correct = report.results
    assert broken.verdict is Verdict.VIOLATION, broken.to_dict()
    assert "spread along column 1" in broken.best.trial
    assert correct.verdict is Verdict.NO_VIOLATION and correct.error is None, correct.to_dict()
