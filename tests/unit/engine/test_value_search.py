"""The value search for large local domains: a value the randomizer mishandles stands apart
among the probed values and is paired; a symmetric randomizer adds no pair; end to end, a
leak held by one middle value of 200 is certified, and the correct twin is not."""

from __future__ import annotations

import math

import numpy as np

from attacks.pair_search import PairSearchAttack
from auditor.adapters.base import SeededAdapter
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.core.trials import MAX_PROBE_VALUES, probed_values
from auditor.engine.runner import run_audit
from auditor.engine.search_units.values import (
    MAX_CELLS,
    MAX_FAILURES,
    VALUE_PROBE,
    apart_pairs,
    outputs_per_value,
    probe_apart,
)


def k_rr(rng, v, n, k, eps):
    """k-ary randomized response at ``eps``: v with probability e^eps / (e^eps + k - 1)."""
    keep = math.exp(eps) / (math.exp(eps) + k - 1)
    other = rng.integers(0, k - 1, size=n)
    return np.where(rng.random(n) < keep, v, other + (other >= v))


def test_a_value_answered_more_truthfully_stands_apart_and_is_paired():
    rng = np.random.default_rng(0)
    values = list(range(40))
    outputs = [k_rr(rng, v, 256, 40, 3.0 if v == 23 else 1.0) for v in values]
    pairs = apart_pairs(values, outputs)
    assert pairs and all(23 in p[:2] for p in pairs), pairs
    assert "stand apart" in pairs[0][2]


def test_a_symmetric_randomizer_adds_no_pair():
    rng = np.random.default_rng(1)
    values = list(range(40))
    assert apart_pairs(values, [k_rr(rng, v, 256, 40, 1.0) for v in values]) == []
    bits = [(rng.random((256, 40)) < np.where(np.arange(40) == v, 0.5, 0.27)) for v in values]
    assert apart_pairs(values, bits) == []


def test_probes_cover_the_domain_and_stay_within_their_cells():
    assert probed_values(0, 99) == list(range(100))
    many = probed_values(0, 10**6)
    assert len(many) == MAX_PROBE_VALUES and many[0] == 0 and many[-1] == 10**6
    assert outputs_per_value(100, 1, 10**6) == VALUE_PROBE
    assert outputs_per_value(1024, 256, 10**6) * 1024 * 256 <= MAX_CELLS
    assert outputs_per_value(100, 1, 10_000) == 100  # a trial's budget in all
    assert outputs_per_value(1024, 1024, 10**6) == 32  # the floor
    asked = []

    def probe(v, n):
        asked.append(v)
        return None if v == 5 else np.zeros(n)

    assert probe_apart(probe, list(range(10)), 10**6) == []  # one failing value is left out
    assert set(asked) == set(range(10))
    asked.clear()

    def failing(v, n):
        asked.append(v)
        return None if v >= 3 else np.zeros(n)

    assert probe_apart(failing, list(range(100)), 10**6) == []
    assert len(asked) == 1 + 3 + MAX_FAILURES  # gives up: a hanging adapter costs 3 timeouts


def test_a_value_that_often_answers_none_stands_apart():
    rng = np.random.default_rng(2)
    values = list(range(30))
    outputs = [rng.normal(0.0, 1.0, 256) for _ in values]
    outputs[17][rng.random(256) < 0.3] = np.nan  # "none" 30% of the time at value 17 only
    pairs = apart_pairs(values, outputs)
    assert pairs and all(17 in p[:2] for p in pairs), pairs


class UnaryEncoding(SeededAdapter):
    """Optimised unary encoding over 200 values, eps = 1: the value's bit is 1 with
    probability 1/2, every other bit with 1 / (e + 1).  ``bad`` (broken): a calibration table
    whose entry for value 131 keeps its bit with probability 0.9 (true epsilon
    ln(9 e) = 3.2 on the pairs holding 131; 1 on every other pair)."""

    input_kind = "local"
    domain = (0, 199)
    output_kind = "boolean"
    output_length = 200
    epsilon = 1.0

    def __init__(self, bad: bool) -> None:
        super().__init__()
        self.bad = bad
        self.name = "oue_table" + (".broken" if bad else "")

    def sample(self, query, n):
        v = int(query)
        p = np.full(200, 1.0 / (math.e + 1.0))
        p[v] = 0.9 if self.bad and v == 131 else 0.5
        return (self._rng.random((n, 200)) < p).astype(np.int8)


def test_a_leak_held_by_one_middle_value_is_found_and_its_correct_twin_is_clean():
    report = run_audit(
        [UnaryEncoding(True), UnaryEncoding(False)],
        [PairSearchAttack()],
        AuditConfig(budget=40_000, seed=0),
    )
    broken, correct = report.results
    assert broken.error is None and broken.verdict is Verdict.VIOLATION, broken.to_dict()
    assert 131 in [int(broken.best.x), int(broken.best.x_prime)], broken.best.trial
    assert "stand apart" in broken.best.trial
    assert correct.error is None and correct.verdict is Verdict.NO_VIOLATION, correct.to_dict()
