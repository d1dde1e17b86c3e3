"""Vector events: exact outcomes of the discrete part of rows that are discrete only in part."""

from __future__ import annotations

import numpy as np

from auditor.core.trials import CertificationPlan
from auditor.statistics.clopper_pearson import epsilon_lower_bound
from auditor.statistics.events.vector_events import VectorEvents, discrete_parts

PLAN = CertificationPlan(n=40_000, alpha=0.05 / 16, epsilon=0.5, delta=0.0)


def mixed_rows(rng: np.random.Generator, n: int, together: float) -> np.ndarray:
    """A real column of wide noise (NaN a third of the time) beside two answers in {0, 1}.

    Each answer is a fair bit under either input; only how often the two agree differs, so
    no single column, sum, extreme or mean difference tells the inputs apart.
    """
    values = rng.normal(0.0, 1e3, n)
    values[rng.random(n) < 1 / 3] = np.nan
    a = rng.integers(0, 2, n)
    b = np.where(rng.random(n) < together, a, 1 - a)
    return np.column_stack([values, a, b]).astype(float)


def test_the_discrete_parts_are_the_integer_columns_the_answered_pattern_and_both() -> None:
    rows = mixed_rows(np.random.default_rng(0), 500, 0.5)
    parts = {(tuple(p.integral), tuple(p.answered)) for p in discrete_parts(rows)}
    assert parts == {((1, 2), ()), ((), (0,)), ((1, 2), (0,))}
    whole = np.column_stack([rows[:, 1], rows[:, 2]])
    assert discrete_parts(whole) == []  # a discrete row is counted whole already
    assert discrete_parts(np.random.default_rng(1).normal(size=(50, 3))) == []


def test_a_leak_in_the_joint_answers_beside_real_values_is_found_and_certifies() -> None:
    rng = np.random.default_rng(3)
    x, x_prime = mixed_rows(rng, 20_000, 0.5), mixed_rows(rng, 20_000, 0.75)
    events = VectorEvents(classifier=False).propose(x, x_prime, PLAN)
    assert "discrete part" in events[0].description
    fresh, fresh_prime = mixed_rows(rng, PLAN.n, 0.5), mixed_rows(rng, PLAN.n, 0.75)
    k, k_prime = (int(np.count_nonzero(events[0](y))) for y in (fresh, fresh_prime))
    bound = max(
        epsilon_lower_bound(k, PLAN.n, k_prime, PLAN.n, PLAN.alpha),
        epsilon_lower_bound(k_prime, PLAN.n, k, PLAN.n, PLAN.alpha),
    )
    # the answers disagree with probability 0.5 against 0.25: a true ratio of ln 2
    assert 0.55 < bound < np.log(2.0)


def test_without_a_discrete_leak_the_discrete_part_certifies_nothing() -> None:
    rng = np.random.default_rng(4)
    x, x_prime = mixed_rows(rng, 20_000, 0.5), mixed_rows(rng, 20_000, 0.5)
    events = VectorEvents(classifier=False).propose(x, x_prime, PLAN)
    fresh, fresh_prime = mixed_rows(rng, PLAN.n, 0.5), mixed_rows(rng, PLAN.n, 0.5)
    for event in events:
        k, k_prime = (int(np.count_nonzero(event(y))) for y in (fresh, fresh_prime))
        assert epsilon_lower_bound(k, PLAN.n, k_prime, PLAN.n, PLAN.alpha) == 0.0
        assert epsilon_lower_bound(k_prime, PLAN.n, k, PLAN.n, PLAN.alpha) == 0.0


def interval_quantiles(rng: np.random.Generator, n: int, split: bool) -> np.ndarray:
    """A uniform point of an interval drawn as ``random() * width + start`` (as diffprivlib's
    quantiles do), beside wide Gaussian noise.  With ``split`` the interval is [0, 50] or
    [50, 100], else [0, 100]: only the float bits of the first coordinate tell them apart
    for certain (a value below 2 from [0, 50] has bits [0, 100] never produces)."""
    u = rng.random(n)
    if split:
        low = rng.random(n) < 0.5
        first = np.where(low, u * 50.0, u * 50.0 + 50.0)
    else:
        first = u * 100.0
    return np.column_stack([first, rng.normal(0.0, 100.0, n)])


def test_a_float_leak_in_a_coordinate_of_no_query_is_certified_far_above_the_claim() -> None:
    rng = np.random.default_rng(5)
    x, x_prime = interval_quantiles(rng, 20_000, True), interval_quantiles(rng, 20_000, False)
    events = VectorEvents(classifier=False).propose(x, x_prime, PLAN)
    assert "float cell of coordinate 0" in events[0].description
    fresh, fresh_prime = (
        interval_quantiles(rng, PLAN.n, True),
        interval_quantiles(rng, PLAN.n, False),
    )
    k, k_prime = (int(np.count_nonzero(events[0](y))) for y in (fresh, fresh_prime))
    bound = max(
        epsilon_lower_bound(k, PLAN.n, k_prime, PLAN.n, PLAN.alpha),
        epsilon_lower_bound(k_prime, PLAN.n, k, PLAN.n, PLAN.alpha),
    )
    # the values alone differ by nothing (both uniform on [0, 100]): the bound is the bits'
    assert min(k, k_prime) == 0 and bound > 3.0


def test_a_float_cell_event_writes_standalone_source_that_counts_the_same() -> None:
    rng = np.random.default_rng(6)
    x, x_prime = interval_quantiles(rng, 20_000, True), interval_quantiles(rng, 20_000, False)
    (event, *_) = VectorEvents(classifier=False).propose(x, x_prime, PLAN)
    source = event.source()
    assert source is not None and "auditor" not in source
    scope: dict = {}
    exec(compile(source, "event", "exec"), scope)  # noqa: S102 - the reproducer's own code
    fresh = np.vstack([interval_quantiles(rng, 5_000, True), interval_quantiles(rng, 5_000, False)])
    fresh[::97, 0] = np.nan  # no answer
    np.testing.assert_array_equal(scope["event"](fresh), event(fresh))
    assert event(fresh).any() and not event(fresh).all()
