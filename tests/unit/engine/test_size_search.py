"""The size search: a minimum count anywhere up to the largest size probed is found exactly,
outputs that vary at one record or never change keep the pair search as it was, and end to
end a deterministic minimum count (an unbounded loss under add/remove) is certified while a
noisy one is not."""

from __future__ import annotations

import numpy as np
import pytest

from attacks import load_attacks
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.engine.runner import run_audit
from auditor.engine.search_units.size import MAX_SIZE, SIZE_PROBE, threshold_size


def prober(release, seed=0, fails_from=None):
    """A probe drawing ``release(rng, size, n)``, recording the sizes asked for."""
    rng = np.random.default_rng(seed)
    asked: list[int] = []

    def probe(size):
        asked.append(size)
        if fails_from is not None and size >= fails_from:
            return None
        return release(rng, size, SIZE_PROBE)

    return probe, asked


def none_below(k):
    """NaN ("too few records") below ``k`` records, else a noisy value."""
    return lambda rng, size, n: np.full(n, np.nan) if size < k else rng.laplace(0, 1, n)


@pytest.mark.parametrize("k", [2, 3, 7, 37, 1000, MAX_SIZE])
def test_a_minimum_count_is_found_exactly(k):
    probe, asked = prober(none_below(k))
    assert threshold_size(probe) == k
    assert len(asked) <= 2 * 15  # doubling, then bisection


def test_a_usual_output_that_is_a_number_counts_too():
    # a count reported as 0 below 5 records
    probe, _ = prober(lambda rng, size, n: np.zeros(n) if size < 5 else size + rng.laplace(0, 1, n))
    assert threshold_size(probe) == 5


def test_a_usual_column_beside_noisy_ones_counts_too():
    # an "insufficient data" flag (and a mean that is none) beside a noisy count: the whole
    # output is never the same twice, its flag column is
    def flagged(rng, size, n):
        count = size + rng.normal(0, 1.0, n)
        short = np.full(n, size < 23.0)
        out = np.zeros(n, dtype=[("count", float), ("mean", float), ("short", bool)])
        out["count"], out["short"] = count, short
        out["mean"] = np.where(short, np.nan, rng.normal(0, 1.0, n))
        return out

    probe, _ = prober(flagged)
    assert threshold_size(probe) == 23
    # noisy columns alone have no usual output
    probe, asked = prober(lambda rng, size, n: rng.laplace(0, 1, (n, 3)))
    assert threshold_size(probe) is None and asked == [1]


def test_outputs_that_vary_at_one_record_or_never_change_are_left_alone():
    probe, asked = prober(lambda rng, size, n: rng.laplace(0, 1, n))
    assert threshold_size(probe) is None and asked == [1]
    probe, _ = prober(none_below(2 * MAX_SIZE))
    assert threshold_size(probe) is None
    probe, _ = prober(none_below(100), fails_from=64)  # the adapter refuses large datasets
    assert threshold_size(probe) is None


def test_a_noisy_threshold_is_found_where_the_usual_output_is_lost_half_the_time():
    def noisy(rng, size, n):
        return np.where(size + rng.laplace(0, 2.0, n) < 50, np.nan, rng.laplace(0, 1, n))

    probe, _ = prober(noisy)
    assert 45 <= threshold_size(probe) <= 55


class MinimumCount:
    """A noisy count of the records, None ("too few records") below ``k`` of them: by the
    exact size (broken: the size is private under add/remove), or by a noisy size at half the
    budget, the count at the other half (correct: two eps/2 Laplace releases of the size)."""

    input_kind, output_kind, nullable = "dataset", "real", True
    neighbours, domain = "add_remove", (0.0, 1.0)
    epsilon, delta = 1.0, 0.0

    def __init__(self, k: int, noisy: bool) -> None:
        self.k, self.noisy = k, noisy
        self.name = f"count-at-least-{k}" + ("-noisy" if noisy else "")
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, records, n):
        size = len(np.asarray(records))
        tested = size + (self._rng.laplace(0, 2 / self.epsilon, n) if self.noisy else 0.0)
        count = np.round((size + self._rng.laplace(0, 2 / self.epsilon, n)) * 2**20) / 2**20
        return np.where(tested < self.k, np.nan, count)


def test_a_minimum_count_by_the_exact_size_is_certified_and_a_noisy_one_is_not():
    adapters = [MinimumCount(3, False), MinimumCount(37, False), MinimumCount(37, True)]
    report = run_audit(adapters, load_attacks(["pair-search"]), AuditConfig(budget=20_000))
    broken3, broken37, correct = report.results
    for result, size in ((broken3, 2), (broken37, 36)):
        assert result.error is None and result.verdict is Verdict.VIOLATION
        assert result.best.trial.startswith(f"{size} records at the midpoint; add one more")
    assert correct.error is None and correct.verdict is Verdict.NO_VIOLATION


def test_the_search_starts_at_the_fewest_records_the_mechanism_accepts():
    probe, asked = prober(none_below(37))
    assert threshold_size(probe, smallest=5) == 37
    assert min(asked) == 5
