"""bench/bench_peers.py's own logic, without the peers: reading the driver's JSON, StatDP's
bound from fresh counts, and the choice of dp-audit's budget at equal wall time."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest

from auditor.statistics.clopper_pearson import epsilon_lower_bound

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_peers", BENCH / "bench_peers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_peers"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    yield module
    del sys.modules["bench_peers"]


def test_sniper_line_is_read_after_the_peers_own_output(bench):
    line = {"tool": "sniper", "mechanism": "svt4", "bound": 0.161, "confidence": 0.9}
    line |= {"seconds": 12.5, "setting": "x0.02"}
    out = "[WARNING] probability p1 < p2\n{not json\n" + json.dumps(line) + "\n"
    result = bench.parse_driver(out)
    assert (result.bound, result.confidence, result.seconds) == (0.161, 0.9, 12.5)
    assert result.error is None and result.setting == "x0.02"


def test_statdp_line_is_turned_into_a_bound_from_its_counts(bench):
    line = {"tool": "statdp", "mechanism": "report_noisy_max3", "confidence": 0.9}
    line |= {"counts": [10474, 8547], "verify": 200_000, "seconds": 40.0, "setting": ""}
    result = bench.parse_driver(json.dumps(line))
    assert result.bound == bench.statdp_bound([10474, 8547], 200_000, 0.9)
    assert 0.1 < result.bound < math.log(10474 / 8547)


def test_errors_and_silence_are_errors_not_bounds(bench):
    failed = bench.parse_driver(json.dumps({"tool": "statdp", "error": "KeyError: 'svt2'"}))
    assert failed.bound is None and failed.error == "KeyError: 'svt2'"
    silent = bench.parse_driver("Traceback (most recent call last):\n")
    assert silent.bound is None and silent.error == "the driver printed no result"


def test_statdp_bound_spends_its_alpha_on_both_directions(bench):
    one_way = epsilon_lower_bound(12_000, 10**6, 10_000, 10**6, 0.05)
    assert bench.statdp_bound([12_000, 10_000], 10**6, 0.9) == one_way
    assert bench.statdp_bound([10_000, 12_000], 10**6, 0.9) == one_way
    # a one-direction bound at the whole alpha 0.1 would be larger: the split costs something
    assert one_way < epsilon_lower_bound(12_000, 10**6, 10_000, 10**6, 0.1)


def test_statdp_bound_is_zero_without_a_counterexample_or_a_difference(bench):
    assert bench.statdp_bound(None, 10**6, 0.9) == 0.0
    assert bench.statdp_bound([5_000, 5_000], 10**6, 0.9) == 0.0


def test_the_audit_that_counts_is_the_largest_that_fit(bench):
    assert bench.pick_audit([(10**5, 1.0), (4 * 10**5, 3.0), (10**6, 9.0)], 5.0) == (4 * 10**5, 3.0)
    assert bench.pick_audit([(10**5, 6.0), (4 * 10**5, 7.0)], 5.0) == (10**5, 6.0)


def test_correction_interpolates_between_the_two_last_timings(bench):
    budget = bench.correction_budget([(400_000, 2.0), (7_300_000, 13.0)], 7.0)
    assert 400_000 < budget < 7_300_000
    assert 2.0 + (budget - 400_000) * 11.0 / 6_900_000 == pytest.approx(0.8 * 7.0, rel=0.02)
    assert bench.correction_budget([(400_000, 2.0), (7_300_000, 13.0)], 1.0) is None
    assert bench.correction_budget([(400_000, 5.0), (7_300_000, 4.0)], 7.0) is None


def test_match_time_ends_within_the_allowance_after_an_overshoot(bench):
    """Timings that grow faster than linearly: the line through the small budgets'
    timings overshoots, and the correction brings the audit that counts back under."""

    def seconds(budget: int) -> float:
        return 0.5 + budget / 10**6 + (budget / 2_000_000) ** 2

    calls = []

    def audit(budget: int) -> tuple[str, float]:
        calls.append(budget)
        return f"audit at {budget}", seconds(budget)

    result, budget, taken, spent = bench.match_time(audit, 10.0, 100_000)
    assert taken <= 10.0 and taken == seconds(budget) and result == f"audit at {budget}"
    assert budget == max(b for b in calls if seconds(b) <= 10.0)
    assert budget > 2_000_000  # not stuck at the small first budgets
    assert len(calls) <= bench.MAX_AUDITS + 1
    assert spent == pytest.approx(sum(seconds(b) for b in calls))
