"""The search over datasets: its score ranks pairs by how far their outputs' means lie apart,
its moves keep every pair neighbouring under the declared relation and inside the domain, and
its climbs reach a pair whose records have the structure a mechanism's worst case needs -- end
to end, a graph statistic whose sensitivity is got wrong only on such pairs is certified,
its correct twin is not, and without the climbs the same audit misses it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import attacks.pair_search as pair_search
from attacks import load_attacks
from attacks.dataset_moves import MAX_RECORDS, DatasetMoves
from attacks.neighbours import are_neighbours
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.core.spec import check_adapter
from auditor.engine.runner import run_audit
from auditor.engine.search_units.datasets import DATASET_PROBE, climb, probes_for, shift_score


def test_the_score_grows_with_the_shift_of_any_column_and_sees_none_outputs():
    rng = np.random.default_rng(0)
    a = rng.normal(0, 1, (4000, 3))
    b = rng.normal(0, 1, (4000, 3))
    near = shift_score(a, b)
    assert near < 20  # about 3 under no shift
    shifted = b.copy()
    shifted[:, 1] += 0.5
    assert shift_score(a, shifted) > 100 * near / 3
    both = shifted.copy()
    both[:, 2] += 0.5
    assert shift_score(a, both) > 1.5 * shift_score(a, shifted)
    # "none" (NaN) more often on one side: seen through its indicator, not lost
    c, d = rng.normal(0, 1, 4000), rng.normal(0, 1, 4000)
    d[:1000] = np.nan
    assert shift_score(c, d) > 100
    # constant columns: equal is no shift, different is as far apart as anything
    assert shift_score(np.zeros(10), np.zeros(10)) == 0
    assert shift_score(np.zeros(10), np.ones(10)) >= 1e6
    assert shift_score(np.zeros((10, 2)), np.zeros((10, 3))) is None


class _Spec:
    """The fields of an adapter that the moves read, for a dataset mechanism."""

    def __init__(self, neighbours, domain, min_records=1, unit=1):
        self.neighbours = neighbours
        self.input_kind, self.output_kind = "dataset", "real"
        self.epsilon, self.delta = 1.0, 0.0
        self.name = f"moves-{neighbours}-{min_records}-{unit}"
        self.min_records, self.max_contributions = min_records, unit
        if len(domain) == 1:
            self.domain = domain[0]
        else:
            self.columns, self.domain = len(domain), list(domain)

    def sample(self, query, n):
        return np.zeros(n)


@pytest.mark.parametrize("neighbours", ["add_remove", "replace"])
@pytest.mark.parametrize(
    "domain,integer,fewest,unit",
    [
        ([(0, 7), (0, 7)], True, 1, 1),
        ([(-1.0, 2.5)], False, 3, 1),
        ([(0, 3), (10, 40), (-5, 5)], True, 2, 1),
        ([(0, 1439)], True, 1, 3),  # a privacy unit of up to 3 records
    ],
)
def test_every_move_keeps_a_neighbouring_pair_inside_the_domain(
    neighbours, domain, integer, fewest, unit
):
    spec = check_adapter(_Spec(neighbours, domain, fewest, unit))
    assert spec.integer_domain == integer
    moves = DatasetMoves(spec, seed=1)
    rng = np.random.default_rng(2)
    lows = np.array([lo for lo, _ in domain])
    highs = np.array([hi for _, hi in domain])
    sizes, places = set(), set()
    for state in moves.starts():
        for _ in range(300):
            moved = moves.moved(state, rng)
            state = state if moved is None else moved
            places.add(state.at / max(1, len(state.shared)))
            x, x_prime, text = moves.pair(state)
            assert are_neighbours(spec, x, x_prime), text
            if neighbours == "add_remove":  # one privacy unit's records added
                assert len(x_prime) - len(x) == unit
            for d in (np.asarray(x), np.asarray(x_prime)):
                rows = d.reshape(len(d), -1)
                assert fewest <= len(rows) <= MAX_RECORDS + unit
                assert (rows >= lows).all() and (rows <= highs).all()
                assert (d.dtype.kind == "i") == spec.integer_domain
            sizes.add(len(state.shared))
    assert len(sizes) > 10  # records are added and removed
    assert len(places) > 10 and max(places) > 0.5  # and the change moves among them


def test_new_records_often_land_near_a_held_record_in_every_column():
    # clusters, co-location, near-duplicates: a record close to another in all its columns
    # at once, which columns drawn one by one almost never give (about 1 in 300 here)
    spec = check_adapter(_Spec("add_remove", [(0, 1023), (0, 1023)]))
    moves = DatasetMoves(spec, seed=3)
    start = moves.starts()[0]
    rng = np.random.default_rng(4)
    near = 0
    for _ in range(2000):
        state = moves.moved(start, rng)
        if state is None or len(state.shared) != len(start.shared) + 1:
            continue
        at = next(
            i
            for i in range(len(state.shared))
            if np.array_equal(np.delete(state.shared, i, axis=0), start.shared)
        )
        new = state.shared[at]
        held = np.concatenate([start.shared, start.added])
        near += bool((np.abs(held - new).max(axis=1) <= 8).any())
    assert near >= 20


class LargestComponent:
    """Edge records (u, v) on nodes 0..7 (self-loops and repeats count once): the number of
    nodes of the graph's largest connected component, plus Laplace noise.  One edge joins two
    components of a + b <= 8 nodes and moves the largest by at most min(a, b) <= 4 -- the
    sensitivity the correct one uses; the broken one uses 1 ("one edge, one more node")."""

    input_kind, output_kind = "dataset", "real"
    neighbours, columns, domain = "add_remove", 2, [(0, 7), (0, 7)]
    epsilon, delta = 1.0, 0.0

    def __init__(self, broken: bool) -> None:
        self.sensitivity = 1 if broken else 4
        self.name = f"largest-component-{'broken' if broken else 'correct'}"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    @staticmethod
    def stat(records) -> int:
        parent = list(range(8))

        def root(i: int) -> int:
            while parent[i] != i:
                i = parent[i]
            return i

        for u, v in np.asarray(records).reshape(-1, 2).tolist():
            parent[root(u)] = root(v)
        return int(np.bincount([root(i) for i in range(8)]).max())

    def sample(self, records, n):
        noise = self._rng.laplace(0, self.sensitivity / self.epsilon, n)
        return np.round((self.stat(records) + noise) * 2**20) / 2**20


def _found_changes(seed: int, probes: int) -> list[int]:
    adapter = LargestComponent(broken=True)
    spec = check_adapter(adapter)

    def probe(query, side):
        adapter.seed(100 * seed + side)
        return adapter.sample(query, DATASET_PROBE)

    found = climb(DatasetMoves(spec, seed), probe, probes, np.random.default_rng(seed))
    return [abs(adapter.stat(x) - adapter.stat(x_prime)) for x, x_prime, _ in found]


def test_a_climb_reaches_the_structure_a_worst_pair_needs():
    # two components of 3 or 4 nodes joined by the added edge; the random starts are mostly
    # a component or two of other sizes
    best = [max(_found_changes(seed, probes_for(200_000)), default=0) for seed in range(6)]
    assert sum(change >= 3 for change in best) >= 5, best
    assert _found_changes(0, probes=10) == []  # too few probes for one climb: none


def test_a_sensitivity_wrong_only_on_structured_pairs_is_certified(monkeypatch):
    adapters = [LargestComponent(broken=True), LargestComponent(broken=False)]
    config = AuditConfig(budget=200_000)
    broken, correct = run_audit(adapters, load_attacks(["pair-search"]), config).results
    assert broken.error is None and broken.verdict is Verdict.VIOLATION
    assert "found by a search over datasets" in broken.best.trial
    assert correct.error is None and correct.verdict is Verdict.NO_VIOLATION
    # without the climbs, no fixed or random pair shows it
    trials = pair_search.PairSearchAttack.trials
    monkeypatch.setattr(
        pair_search.PairSearchAttack,
        "trials",
        lambda self, spec, rng: [replace(t, explore=None) for t in trials(self, spec, rng)],
    )
    (missed,) = run_audit(adapters[:1], load_attacks(["pair-search"]), config).results
    assert missed.error is None and missed.verdict is Verdict.NO_VIOLATION
