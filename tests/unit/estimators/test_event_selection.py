"""Event selection: candidates from the training split, ranked by predicted certified bound."""

from __future__ import annotations

import numpy as np
import pytest

from auditor.core.trials import CertificationPlan, Event
from auditor.statistics.clopper_pearson import epsilon_lower_bound
from auditor.statistics.events.classifier_events import (
    classifier_events,
    fit_score,
    float_features,
)
from auditor.statistics.events.event_selection import DataDrivenEvents, predicted_scores
from auditor.statistics.events.histogram_events import BinUnion, histogram_events

PLAN = CertificationPlan(n=40_000, alpha=0.05 / 16, epsilon=1.0, delta=0.0)


def laplace(rng: np.random.Generator, loc: float, n: int) -> np.ndarray:
    return loc + np.round(rng.laplace(0.0, 1.0, n) * 2**20) / 2**20


def certified(event, x: np.ndarray, y: np.ndarray, alpha: float = PLAN.alpha) -> float:
    k0, k1 = int(event(x).sum()), int(event(y).sum())
    return max(
        epsilon_lower_bound(k0, len(x), k1, len(y), alpha),
        epsilon_lower_bound(k1, len(y), k0, len(x), alpha),
    )


def test_laplace_events_certify_close_to_the_oracle() -> None:
    rng = np.random.default_rng(0)
    events = DataDrivenEvents().propose(laplace(rng, 0, 10_000), laplace(rng, 1, 10_000), PLAN)
    assert 1 <= len(events) <= 8
    fresh0, fresh1 = laplace(rng, 0, PLAN.n), laplace(rng, 1, PLAN.n)
    best = max(certified(e, fresh0, fresh1) for e in events)
    # oracle at n = 40,000 and this alpha is 0.951; a random event would certify ~0
    assert 0.9 < best <= 1.0


def test_max_events_and_empty_inputs() -> None:
    rng = np.random.default_rng(1)
    a, b = laplace(rng, 0, 2000), laplace(rng, 1, 2000)
    assert len(DataDrivenEvents(max_events=3).propose(a, b, PLAN)) == 3
    assert DataDrivenEvents().propose(np.empty(0), b, PLAN) == []
    assert DataDrivenEvents().propose(a[:1], b[:1], PLAN) == []


def test_never_seen_event_is_chosen_when_n_is_large() -> None:
    # x' = x + 1 with x uniform on {0, 1}: output 2 never occurs on x (epsilon infinite)
    rng = np.random.default_rng(2)
    a, b = rng.integers(0, 2, 5000), 1 + rng.integers(0, 2, 5000)
    big = CertificationPlan(n=10**6, alpha=1e-3, epsilon=1.0, delta=0.0)
    top = DataDrivenEvents().propose(a, b, big)[0]
    hits = top(np.array([0, 1, 2]))
    assert not hits[1] and hits[0] != hits[2]  # {0} or {2}: the outputs one side never makes
    assert certified(top, rng.integers(0, 2, 10**6), 1 + rng.integers(0, 2, 10**6), 1e-3) > 10


def test_bottom_event_for_nan_outputs() -> None:
    rng = np.random.default_rng(3)
    a = np.where(rng.random(3000) < 0.3, np.nan, rng.normal(size=3000))
    b = rng.normal(size=3000)
    descriptions = [e.description for e in DataDrivenEvents().propose(a, b, PLAN)]
    assert any("⊥" in d for d in descriptions)


def test_histogram_finds_a_leak_in_the_middle() -> None:
    # x' puts extra mass on [0.45, 0.55): neither tail shows it
    rng = np.random.default_rng(4)

    def mech(n: int, leak: bool) -> np.ndarray:
        y = rng.random(n)
        if leak:
            move = rng.random(n) < 0.15
            y[move] = 0.45 + 0.1 * rng.random(int(move.sum()))
        return y

    events = histogram_events(mech(20_000, False), mech(20_000, True))
    assert events
    fresh0, fresh1 = mech(40_000, False), mech(40_000, True)
    best = max(certified(e, fresh0, fresh1) for e in events)
    assert best > 0.7  # true loss on [0.45, 0.55) is ln(0.85 + 1.5) = 0.85
    hits = BinUnion(np.array([0.0, 1.0]), np.array([1]))(np.array([-1.0, 0.5, 2.0, np.nan]))
    assert hits.tolist() == [False, True, False, False]


def test_classifier_finds_a_low_bit_leak() -> None:
    # x' clears the last mantissa bit 3 times in 4: thresholds on the value cannot see it
    rng = np.random.default_rng(5)

    def mech(n: int, leak: bool) -> np.ndarray:
        y = 1.0 + rng.random(n)
        if leak:
            bits = y.view(np.uint64)
            clear = rng.random(n) < 0.5
            bits[clear] &= ~np.uint64(1)
        return y

    a, b = mech(5000, False), mech(5000, True)
    events, ka, kb = classifier_events(a[:2500], b[:2500], a[2500:], b[2500:])
    assert events and len(events) == len(ka) == len(kb)
    fresh0, fresh1 = mech(40_000, False), mech(40_000, True)
    with_bits = DataDrivenEvents(bit_cells=False).propose(a, b, PLAN)
    assert max(certified(e, fresh0, fresh1) for e in with_bits) > 0.25
    cells_only = DataDrivenEvents(classifier=False).propose(a, b, PLAN)
    assert max(certified(e, fresh0, fresh1) for e in cells_only) > 0.25
    # the true loss of {last bit = 1} is ln(0.5 / 0.25) = 0.69; without the classifier the
    # value-based events see nothing (power check of the test itself)
    no_bits = DataDrivenEvents(classifier=False, bit_cells=False).propose(a, b, PLAN)
    assert max(certified(e, fresh0, fresh1) for e in no_bits) < 0.1


def test_float_features_shape_and_bits() -> None:
    f = float_features(np.array([1.0, np.nextafter(1.0, 2.0), np.nan, -3.0]))
    assert f.shape == (4, 14)
    assert f[0, 6] == 0 and f[1, 6] == 1  # mantissa bit 0
    assert f[2, 5] == 1  # is ⊥
    assert f[3, 4] == 1  # parity of -3


def test_a_classifier_score_is_the_same_wherever_the_output_stands() -> None:
    # thresholds sit at training scores: a score rounded differently for another copy of the
    # same output (a matrix product's blocking does that) would split it across the event
    rng = np.random.default_rng(8)
    score = fit_score(rng.integers(0, 5, 2000), rng.integers(0, 5, 2000) + rng.integers(0, 2, 2000))
    assert score is not None
    once = score(np.arange(6))
    for n in (1, 3, 5, 4096, 10_001):
        y = rng.integers(0, 6, n)
        np.testing.assert_array_equal(score(y), once[y])


def test_a_conditional_plan_ranks_by_the_better_test_for_pure_epsilon_only() -> None:
    """With the conditional test available an event's score is the better of the two tests'
    predictions (never lower than the box's), which can reorder events; a plan for a claim
    with a delta never takes it."""
    from auditor.core.claims import PrivacyClaim
    from auditor.statistics.conditional import predicted_conditional_bounds

    ka, kb = np.array([300, 3000, 30]), np.array([200, 2600, 2])
    box = predicted_scores(ka, 10_000, kb, 10_000, PLAN)
    plan = CertificationPlan.for_claim(PLAN.n, PLAN.alpha, PrivacyClaim(1.0), conditional=True)
    both = predicted_scores(ka, 10_000, kb, 10_000, plan)
    assert plan.conditional and np.all(both >= box) and np.any(both > box)
    p0, p1 = (ka + 0.5) / 10_001, (kb + 0.5) / 10_001
    assert both[1] <= float(predicted_conditional_bounds(p0[1:2], p1[1:2], PLAN.n, PLAN.alpha)[0])
    with_delta = CertificationPlan.for_claim(
        PLAN.n, PLAN.alpha, PrivacyClaim(1.0, 1e-6), conditional=True
    )
    assert not with_delta.conditional


def test_predicted_scores_penalise_small_counts() -> None:
    # same ratio, less evidence -> lower score (winner's curse guard)
    s = predicted_scores(np.array([20, 2000]), 10_000, np.array([5, 500]), 10_000, PLAN)
    assert s[0] < s[1]
    assert np.isfinite(s).all()


@pytest.mark.parametrize("discrete", [True, False])
def test_proposals_use_only_what_they_are_given(discrete: bool) -> None:
    rng = np.random.default_rng(6)
    a = rng.integers(0, 5, 1000) if discrete else rng.normal(size=1000)
    events = DataDrivenEvents().propose(a, a.copy(), PLAN)
    # identical inputs: nothing to find, every event certifies ~0 on fresh identical data
    fresh = rng.integers(0, 5, 20_000) if discrete else rng.normal(size=20_000)
    assert max(certified(e, fresh, fresh) for e in events) == 0.0


def test_classifier_events_write_standalone_source_that_decides_the_same():
    """A reproducer applies a classifier event without dp-audit: the source recomputes the
    float features and the logistic score, and decides every output as the event does."""
    rng = np.random.default_rng(11)
    a, b = rng.laplace(0.0, 1.0, 4000), rng.laplace(0.5, 1.0, 4000)
    a[::50] = np.nan
    events, _, _ = classifier_events(a[:2000], b[:2000], a[2000:], b[2000:])
    fresh = np.concatenate([rng.laplace(0.0, 1.0, 3000), [np.nan, np.inf, -np.inf, 0.0, -0.0]])
    for event in events[::17]:
        source = event.source()
        assert source is not None and "auditor" not in source
        scope: dict = {}
        exec(compile(source, "event", "exec"), scope)  # noqa: S102 - the reproducer's own code
        np.testing.assert_array_equal(scope["event"](fresh), event(fresh))


def test_selection_counts_are_the_counts_output_by_output():
    """Histogram and float-cell unions are counted from one pass (bin and cell counts), tails
    by binary search: the same counts as deciding each output, NaN, infinities and ties at
    the threshold included."""
    from auditor.statistics.events.event_selection import selection_counts, threshold_event

    rng = np.random.default_rng(12)
    a, b = rng.laplace(0.0, 10.0, 20_000), rng.laplace(1.0, 10.0, 20_000)
    a[::97] = np.nan
    events = DataDrivenEvents()._candidates(a[:10_000], b[:10_000], np.concatenate([a, b]))
    kinds = {type(e.predicate).__name__ for e in events}
    assert {"BinUnion", "CellUnion", "Tail"} <= kinds
    y = np.concatenate([rng.laplace(0.0, 10.0, 30_000), [np.nan, np.inf, -np.inf, 0.0, -0.0]])
    y = np.concatenate([y, np.round(y[:5000])])  # many outputs exactly at a threshold
    events += [
        threshold_event(t, above)
        for t in (0.0, -0.0, 3.0, np.inf, -np.inf, float(y[7]))
        for above in (True, False)
    ]
    from auditor.statistics.events.bit_events import CellUnion, cell_keys

    seen = np.unique(cell_keys(y))  # unions given twice the same cell, cells never seen
    for cells in ([seen[3], seen[3], seen[-1]], [seen[0] - 1], [seen[-1] + 1, seen[5]]):
        events.append(Event("cells", CellUnion(np.array(cells))))
    expected = [np.count_nonzero(e(y)) for e in events]
    np.testing.assert_array_equal(selection_counts(events, y), expected)


@pytest.mark.parametrize(("values", "classifier"), [(5, False), (63, False), (200, True)])
def test_a_classifier_is_fitted_only_where_the_outcome_prefixes_do_not_cover_every_set(
    values: int, classifier: bool
) -> None:
    # a few discrete values: every prefix of the likelihood-ratio order is a candidate, the
    # best set of each size (Neyman-Pearson); a classifier's threshold sets add nothing
    rng = np.random.default_rng(13)
    a = rng.integers(0, values, 4000)
    b = np.minimum(rng.integers(0, values, 4000) + (rng.random(4000) < 0.3), values - 1)
    events = DataDrivenEvents(max_events=10_000).propose(a, b, PLAN)
    scored = any("logistic score" in e.description for e in events)
    assert scored is classifier


def test_a_value_the_mechanism_emits_as_such_is_an_event_of_its_own() -> None:
    """Laplace noise (on a grid) whose value 50 comes out at 0.3 % of outputs under x' and
    0.03 % under x: far out in a tail, so every threshold that holds it holds the noise's tail
    too, and its loss (ln 10) is its own.  It is proposed first, and certifies above 1."""
    rng = np.random.default_rng(0)

    def outputs(q: float, n: int, p: float) -> np.ndarray:
        y = np.round((q + rng.laplace(0, 1, n)) * 1024) / 1024
        return np.where(rng.random(n) < p, 50.0, y)

    plan = CertificationPlan(n=160_000, alpha=0.05 / 16, epsilon=1.0, delta=0.0)
    (event,) = DataDrivenEvents(max_events=1).propose(
        outputs(0, 40_000, 3e-4), outputs(1, 40_000, 3e-3), plan
    )
    assert event.description == "output == 50"
    k, k_prime = (np.count_nonzero(event(outputs(q, plan.n, p))) for q, p in ((0, 3e-4), (1, 3e-3)))
    assert epsilon_lower_bound(k_prime, plan.n, k, plan.n, plan.alpha) > 1.5


def test_values_a_clamp_emits_are_united_with_the_edge_a_neighbour_never_reaches() -> None:
    """Laplace noise clamped to [q - A, q + A] (np.clip where truncation needs resampling):
    each bound is an atom of mass 5.8e-4 that the neighbour q + 1 never gives, beside a strip
    below q + 1 - A of mass 1e-3 that it never reaches.  No part alone exceeds delta = 1e-3;
    together they do (2.16e-3): the union is proposed first (this one or its mirror), and
    the correctly truncated noise (resampled, no atoms) gets no such event."""
    rng = np.random.default_rng(1)
    half_width = -np.log(2 * 5.81e-4)  # each clamp bound gets e^-A / 2

    def outputs(q: float, n: int, clamp: bool) -> np.ndarray:
        noise = rng.laplace(0, 1, 2 * n)
        if clamp:
            noise = np.clip(noise, -half_width, half_width)
        else:
            noise = noise[np.abs(noise) <= half_width]
        return np.round((q + noise[:n]) * 2**20) / 2**20

    plan = CertificationPlan(n=200_000, alpha=0.05 / 16, epsilon=1.0, delta=1e-3)
    (event,) = DataDrivenEvents(max_events=1).propose(
        outputs(0, 40_000, True), outputs(1, 40_000, True), plan
    )
    assert event.description.startswith("output in {") and " or output " in event.description
    k, k_prime = sorted(np.count_nonzero(event(outputs(q, plan.n, True))) for q in (0, 1))
    assert k == 0 and k_prime / plan.n > 2e-3  # on one side only, in either direction
    resampled = DataDrivenEvents(max_events=100).propose(
        outputs(0, 40_000, False), outputs(1, 40_000, False), plan
    )
    assert not any(" or output " in e.description for e in resampled)
