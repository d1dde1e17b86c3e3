"""The pairs the pair search screens: neighbours under the declared relation, and the patterns
the literature's counterexamples need."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from attacks.neighbours import are_neighbours, search_pairs, sign_patterns
from auditor.core.spec import check_adapter


class Declared:
    name = "declared"
    epsilon = 1.0

    def __init__(self, **attrs):
        for k, v in attrs.items():
            setattr(self, k, v)

    def sample(self, query, n):  # never called
        raise AssertionError


VECTORS = [
    {"norm": "linf", "sensitivity": 1.0},
    {"norm": "l1", "sensitivity": 1.0},
    {"norm": "l2", "sensitivity": 2.0},
    {"norm": "l1", "sensitivity": 1, "integer_queries": True},
    {"norm": "linf", "sensitivity": 1, "integer_queries": True, "query_length": 5},
    {"norm": "linf", "sensitivity": 1.0, "query_bounds": (0.0, 1.0)},
]


@pytest.mark.parametrize("attrs", VECTORS)
def test_vector_pairs_are_neighbours_within_bounds_and_distinct(attrs):
    spec = check_adapter(Declared(input_kind="vector", output_kind="index", **attrs))
    pairs = search_pairs(spec, np.random.default_rng(0))
    assert len(pairs) >= 4
    for x, x_prime, text in pairs:
        assert are_neighbours(spec, x, x_prime), text
        assert not np.array_equal(x, x_prime)
        if spec.query_bounds:
            lo, hi = spec.query_bounds
            assert (lo <= x).all() and (x_prime <= hi).all() and (x_prime >= lo).all()
        if spec.integer_queries:
            assert x.dtype.kind == "i" and x_prime.dtype.kind == "i"
    assert len({frozenset((tuple(x), tuple(x_prime))) for x, x_prime, _ in pairs}) == len(pairs)


@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_random_short_integer_moves_stay_whole_and_inside_for_any_seed(norm):
    # sensitivity sqrt(2): the search box's edges (4 sensitivities) are not whole numbers, and
    # a base rounded past them once made a move that could not be pulled back (a hang)
    attrs = {"norm": norm, "sensitivity": 2**0.5, "integer_queries": True, "query_length": 5}
    spec = check_adapter(Declared(input_kind="vector", output_kind="index", **attrs))
    for seed in range(40):
        for x, x_prime, text in search_pairs(spec, np.random.default_rng(seed)):
            assert x.dtype.kind == "i" and x_prime.dtype.kind == "i", text
            assert are_neighbours(spec, x, x_prime), text
            assert np.abs(x).max() <= 4 * 2**0.5 and np.abs(x_prime).max() <= 4 * 2**0.5


@pytest.mark.parametrize(("norm", "most"), [("l1", 2), ("l2", 4)])
def test_integer_moves_that_would_round_away_are_cut_to_whole_steps(norm, most):
    # a move of 2 over eight integer queries: +1 and -1 on two of them (a swap of one unit
    # between two counts), not dropped because 2/8 rounds to 0
    spec = check_adapter(
        Declared(
            input_kind="vector",
            output_kind="index",
            norm=norm,
            sensitivity=2,
            integer_queries=True,
            query_length=8,
        )
    )
    steps = [
        np.asarray(b) - np.asarray(a) for a, b, _ in search_pairs(spec, np.random.default_rng(0))
    ]
    assert all((np.abs(s) == np.round(np.abs(s))).all() for s in steps)
    # as many unit steps as the norm allows, up and down among them
    assert any((s != 0).sum() == most and s.min() == -1 and s.max() == 1 for s in steps)
    assert max((s != 0).sum() for s in steps) == most


def test_the_crossing_half_and_half_pair_is_listed():
    """StatDP's and DP-Sniper's "X shape": the first half high on one side, the second on the
    other (the damaging pair of SVT variants that compare queries to one threshold)."""
    spec = check_adapter(
        Declared(input_kind="vector", output_kind="index", norm="linf", sensitivity=1.0)
    )
    high_low = np.array([1.0] * 5 + [0.0] * 5)
    assert any(
        {tuple(x), tuple(x_prime)} == {tuple(high_low), tuple(1 - high_low)}
        for x, x_prime, _ in search_pairs(spec, np.random.default_rng(0))
    )


def test_the_half_up_half_down_pattern_and_every_split_are_listed_for_ten_queries():
    patterns = [s for s, _ in sign_patterns(10)]
    for k in range(1, 10):
        split = np.where(np.arange(10) < k, 1.0, -1.0)
        assert any(np.array_equal(split, s) for s in patterns), k
    assert len(sign_patterns(1000)) < 60  # long sequences: a spread of split points


def test_linf_pairs_move_every_entry_the_full_sensitivity():
    spec = check_adapter(
        Declared(input_kind="vector", output_kind="index", norm="linf", sensitivity=1.0)
    )
    half = [
        p
        for p in search_pairs(spec, np.random.default_rng(0))
        if p[2].endswith("at 0; the first 5 up, the rest down (linf move 1)")
    ]
    ((x, x_prime, _),) = half
    assert np.array_equal(x_prime - x, [1] * 5 + [-1] * 5)


def test_local_pairs_cover_the_ends_and_stay_in_the_domain():
    spec = check_adapter(
        Declared(input_kind="local", domain=(0, 31), output_kind="boolean", output_length=8)
    )
    pairs = search_pairs(spec, np.random.default_rng(0))
    assert (0, 31) in [(a, b) for a, b, _ in pairs]
    assert all(are_neighbours(spec, a, b) and a != b for a, b, _ in pairs)


def test_every_value_of_a_small_local_domain_is_in_a_pair():
    """A mechanism that mishandles one value (reports it as is) shows it only in a pair with
    that value: randomized response over 0..9 that always reports 6 was certified at 0.685
    (claim 1) on the ends and middles alone, and at 5.29 with every value next to the next;
    a bucketing that lets a value count twice shows only against a value some buckets away."""
    spec = check_adapter(Declared(input_kind="local", domain=(0, 9), output_kind="integer"))
    pairs = [(a, b) for a, b, _ in search_pairs(spec, np.random.default_rng(0))]
    assert {v for pair in pairs for v in pair} == set(range(10))
    # the relation is every two values: all of them, each once, the ends and middles first
    assert len(pairs) == len(set(pairs)) == 45
    assert {frozenset(p) for p in pairs} == {
        frozenset((a, b)) for a in range(10) for b in range(a + 1, 10)
    }
    assert pairs[0] == (0, 9)


@pytest.mark.parametrize("neighbours", ["add_remove", "replace"])
@pytest.mark.parametrize(
    "domain",
    [{"domain": (0.0, 10.0)}, {"domain": (0, 5)}, {"domain": [(0, 1), (-3.0, 3.0)], "columns": 2}],
)
def test_dataset_pairs_follow_the_relation_and_include_many_distinct_values(neighbours, domain):
    spec = check_adapter(
        Declared(
            input_kind="dataset",
            neighbours=neighbours,
            output_kind="real",
            output_length=2,
            **domain,
        )
    )
    pairs = search_pairs(spec, np.random.default_rng(0))
    assert len(pairs) >= 10
    for x, x_prime, text in pairs:
        assert are_neighbours(spec, x, x_prime), text
        lo, hi = spec.domain
        for d in (x, x_prime):
            assert d.size == 0 or (d.min() >= lo and d.max() <= hi)
    most_distinct = max(
        len(np.unique(np.asarray(x).reshape(len(x), -1), axis=0)) for x, _, _ in pairs if len(x)
    )
    assert most_distinct >= 3
    assert max(len(x) for x, _, _ in pairs) >= 1000
    assert min(min(len(x), len(x_prime)) for x, x_prime, _ in pairs) >= 1  # never empty


def test_random_datasets_draw_their_columns_apart_and_follow_the_seed():
    # edges over node ids: the structured datasets put every spread record on the diagonal
    # (self-loops), so a graph's structure comes only from records whose columns differ
    spec = check_adapter(
        Declared(
            input_kind="dataset",
            neighbours="add_remove",
            output_kind="real",
            domain=[(0, 7), (0, 7)],
            columns=2,
        )
    )

    def random_pairs(seed):
        pairs = search_pairs(spec, np.random.default_rng(seed))
        return [(x, x_prime) for x, x_prime, text in pairs if "random records" in text]

    pairs = random_pairs(0)
    assert len(pairs) >= 6
    largest = max((x for x, _ in pairs), key=len)
    assert len(largest) >= 64
    distinct_edges = {tuple(r) for r in largest if r[0] != r[1]}
    assert len(distinct_edges) >= 20  # a dense graph, not a line of records
    assert abs(np.corrcoef(largest[:, 0], largest[:, 1])[0, 1]) < 0.5
    same, other = random_pairs(0), random_pairs(1)
    assert all(np.array_equal(a, b) for (a, _), (b, _) in zip(pairs, same, strict=True))
    assert any(not np.array_equal(a, b) for (a, _), (b, _) in zip(pairs, other, strict=True))


def test_are_neighbours_rejects_pairs_beyond_the_relation():
    spec = check_adapter(
        Declared(input_kind="vector", output_kind="index", norm="l1", sensitivity=1.0)
    )
    assert not are_neighbours(spec, np.zeros(3), np.array([0.6, 0.6, 0.0]))
    ds = check_adapter(Declared(input_kind="dataset", domain=(0, 9), output_kind="real"))
    assert not are_neighbours(ds, np.array([1, 2]), np.array([1, 2, 3, 4]))
    assert not are_neighbours(ds, np.array([1, 2]), np.array([3, 4, 5]))
    assert are_neighbours(ds, np.array([1, 2]), np.array([2, 1, 9]))


class ResponseReportingOneValueAsIs:
    """Randomized response over 0..9 (eps = 1), except that value ``as_is`` is always reported
    as it is: outputs other than 6 never occur at 6 (true eps infinite)."""

    input_kind, output_kind, domain = "local", "integer", (0, 9)
    epsilon, delta = 1.0, 0.0

    def __init__(self, as_is: int | None) -> None:
        self.as_is, self.name = as_is, f"rr-reports-{as_is}-as-is"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, value, n):
        keep = self._rng.random(n) < np.e / (np.e + 9) if value != self.as_is else np.ones(n, bool)
        other = self._rng.integers(0, 9, n)
        return np.where(keep, value, np.where(other >= value, other + 1, other))


def test_a_mishandled_value_in_the_middle_of_a_local_domain_is_found():
    from attacks.pair_search import PairSearchAttack
    from auditor.core.configs import AuditConfig
    from auditor.core.results import Verdict
    from auditor.engine.runner import run_audit

    adapters = [ResponseReportingOneValueAsIs(6), ResponseReportingOneValueAsIs(None)]
    broken, correct = run_audit(adapters, [PairSearchAttack()], AuditConfig(budget=20_000)).results
    assert broken.verdict is Verdict.VIOLATION and "6" in broken.best.trial
    assert correct.verdict is Verdict.NO_VIOLATION


@pytest.mark.parametrize("neighbours", ["add_remove", "replace"])
def test_every_value_of_a_small_integer_domain_is_a_record_that_changes(neighbours):
    """A dataset mechanism may mishandle one value (a histogram that counts category 6
    twice): with every value in the dataset, each is also added, or put in place of the
    first record."""
    spec = check_adapter(
        Declared(
            input_kind="dataset",
            domain=(0, 9),
            neighbours=neighbours,
            output_kind="real",
            output_length=10,
        )
    )
    pairs = search_pairs(spec, np.random.default_rng(0))
    if neighbours == "add_remove":
        changed = {int(b[-1]) for a, b, _ in pairs if len(b) == len(a) + 1}
    else:
        changed = {int(b[0]) for a, b, _ in pairs if len(b) == len(a) and len(a) == 10}
    assert changed >= set(range(1, 10))
    assert all(are_neighbours(spec, a, b) for a, b, _ in pairs)


class CountsCategoryTwice:
    """A Laplace histogram of categories 0..9 (L1 sensitivity 1 under add/remove) that counts
    the records of category ``twice`` twice (true eps 2 for a claimed 1), or none."""

    input_kind, output_kind, output_length = "dataset", "real", 10
    domain, neighbours = (0, 9), "add_remove"
    epsilon, delta = 1.0, 0.0

    def __init__(self, twice: int | None) -> None:
        self.twice, self.name = twice, f"histogram-counting-{twice}-twice"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, records, n):
        counts = np.bincount(np.asarray(records, dtype=int), minlength=10).astype(float)
        if self.twice is not None:
            counts[self.twice] *= 2
        noisy = counts + self._rng.laplace(0.0, 1.0 / self.epsilon, (n, 10))
        return np.round(noisy * 2.0**20) / 2.0**20


def test_a_category_counted_twice_is_found():
    from attacks.pair_search import PairSearchAttack
    from auditor.core.configs import AuditConfig
    from auditor.core.results import Verdict
    from auditor.engine.runner import run_audit

    adapters = [CountsCategoryTwice(6), CountsCategoryTwice(None)]
    config = AuditConfig(budget=100_000)
    broken, correct = run_audit(adapters, [PairSearchAttack()], config).results
    assert broken.verdict is Verdict.VIOLATION
    # on a pair that changes a record of category 6 (every value's pairs hold one; a random
    # dataset may too)
    x, x_prime = (Counter(np.asarray(d).tolist()) for d in (broken.best.x, broken.best.x_prime))
    assert set((x - x_prime) + (x_prime - x)) == {6}, broken.best.trial
    assert correct.verdict is Verdict.NO_VIOLATION


@pytest.mark.parametrize(
    ("attrs", "ties"),
    [
        ({"norm": "linf", "sensitivity": 1.0}, 3),
        ({"norm": "l2", "sensitivity": 1.0, "query_bounds": (-3.0, 3.0)}, 3),
        ({"norm": "linf", "sensitivity": 1.0, "query_bounds": (0.0, 2.0)}, 0),  # no room
        ({"norm": "linf", "sensitivity": 1, "integer_queries": True}, 0),
        ({"norm": "linf", "sensitivity": 1.0, "output_kind": "index"}, 0),  # not a value
    ],
)
def test_real_vectors_are_paired_at_ties_of_rounding_both_parities(attrs, ties):
    attrs = {"output_kind": "real", **attrs}
    if attrs["output_kind"] == "real":
        attrs["output_length"] = "query"
    spec = check_adapter(Declared(input_kind="vector", **attrs))
    pairs = [p for p in search_pairs(spec, np.random.default_rng(1)) if "tie of" in p[2]]
    assert len(pairs) == ties
    bases = {float(x[0]) for x, _, _ in pairs}
    for x, x_prime, text in pairs:
        assert are_neighbours(spec, x, x_prime), text
        assert float(x[0]) % 1 == 0.5
    if ties:
        low = min(bases)
        assert bases == {low, low + 1, low + 2} and (low + 0.5) % 2 == 0


@pytest.mark.parametrize("norm", ["l1", "l2"])
def test_a_move_spread_over_every_entry_crosses_every_tie(norm):
    attrs = {"output_kind": "real", "output_length": "query", "query_length": 4}
    spec = check_adapter(Declared(input_kind="vector", norm=norm, sensitivity=1.0, **attrs))
    pairs = [p for p in search_pairs(spec, np.random.default_rng(3)) if "straddling" in p[2]]
    assert len(pairs) == 2
    for x, x_prime, text in pairs:
        assert are_neighbours(spec, x, x_prime), text
        # rounding half up takes every entry of x to one whole number and of x' to the next
        assert (np.floor(x_prime + 0.5) - np.floor(x + 0.5) == 1).all(), text


class RoundsThenLaplace:
    """Each of 4 answers rounded half up, then Laplace noise: rounding moves every entry by up to
    1 under a spread move of L1 norm 1, so the scale must be 4 / eps; ``scale`` 2 / eps leaks
    2 eps, on spread moves only (one entry moved by 1 costs eps / 2)."""

    input_kind, output_kind, output_length, query_length = "vector", "real", "query", 4
    norm, sensitivity, epsilon = "l1", 1.0, 1.0

    def __init__(self, scale: float):
        self.name = f"rounds-then-laplace(scale={scale})"
        self.scale = scale
        self.rng = np.random.default_rng(11)

    def sample(self, query, n):
        rounded = np.floor(np.asarray(query, dtype=float) + 0.5)
        noise = self.rng.laplace(0.0, self.scale, (n, 4))
        return np.round((rounded + noise) * 64) / 64


def test_rounding_that_leaks_only_on_spread_moves_is_found():
    from attacks.pair_search import PairSearchAttack
    from auditor.core.configs import AuditConfig
    from auditor.core.results import Verdict
    from auditor.engine.runner import run_audit

    adapters = [RoundsThenLaplace(2.0), RoundsThenLaplace(4.0)]
    broken, correct = run_audit(adapters, [PairSearchAttack()], AuditConfig(budget=100_000)).results
    assert broken.verdict is Verdict.VIOLATION, broken.best.trial
    assert "straddling" in broken.best.trial
    assert correct.verdict is Verdict.NO_VIOLATION
