"""Unit tests of the selection-search attack's planned pairs."""

from __future__ import annotations

import numpy as np
import pytest

from attacks import ATTACKS, load_attacks
from attacks.selection_common import are_neighbours, index_set_event, index_set_text
from attacks.selection_search import (
    K_CHOICES,
    N_TRIALS,
    SHAPES,
    SelectionSearchAttack,
    signs_for,
)
from auditor.core.spec import check_adapter
from auditor.statistics.events.event_selection import DataDrivenEvents


class NoSampling:
    family = "selection"
    delta = 0.0

    def __init__(self, sensitivity=1.0, bounds=None):
        self.name, self.epsilon, self.sensitivity = "no-sampling", 1.0, sensitivity
        if bounds is not None:
            self.utility_bounds = bounds

    def sample(self, query, n):
        raise AssertionError("attacks must not sample")


def _trials(adapter, seed=0):
    return SelectionSearchAttack().trials(check_adapter(adapter), np.random.default_rng(seed))


def test_registered():
    assert ATTACKS["selection-search"] == "attacks.selection_search:SelectionSearchAttack"
    (attack,) = load_attacks(["selection-search"])
    assert attack.applies_to(check_adapter(NoSampling()))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k", K_CHOICES)
def test_signs_move_outcomes_in_opposite_directions(shape, k):
    signs = signs_for(shape, k, np.random.default_rng(1))
    assert signs.shape == (k,)
    assert set(np.unique(signs)) == {-1.0, 1.0}


def test_unknown_shape_raises():
    with pytest.raises(ValueError, match="shape"):
        signs_for("sideways", 3, np.random.default_rng(0))


@pytest.mark.parametrize("sensitivity", [1.0, 2.5])
def test_trials_move_every_utility_by_the_full_sensitivity(sensitivity):
    trials = _trials(NoSampling(sensitivity=sensitivity))
    assert len(trials) == N_TRIALS
    for t in trials:
        assert are_neighbours(t.x, t.x_prime, sensitivity)
        np.testing.assert_allclose(np.abs(t.x - t.x_prime), sensitivity)
        assert isinstance(t.distinguisher, DataDrivenEvents)
        assert f"k={len(t.x)}" in t.description


def test_randomised_by_the_rng_and_reproducible():
    a = [t.description for t in _trials(NoSampling(), seed=1)]
    b = [t.description for t in _trials(NoSampling(), seed=1)]
    assert a == b
    seen = {d for seed in range(10) for d in (t.description for t in _trials(NoSampling(), seed))}
    assert len(seen) > N_TRIALS  # different seeds try different k and shapes


def test_narrow_bounds_shrink_the_move_and_stay_inside():
    for t in _trials(NoSampling(bounds=(0.0, 1.0))):
        for v in (t.x, t.x_prime):
            assert v.min() >= 0.0 and v.max() <= 1.0
        assert are_neighbours(t.x, t.x_prime, 1.0)
        assert "utility_bounds [0, 1]" in t.description


def test_index_set_events():
    e = index_set_event(np.arange(1, 5), 5)
    assert e.description == "output != 0 (any of the other 4 outcomes)"
    np.testing.assert_array_equal(e(np.array([0, 1, 4, 2])), [False, True, True, True])
    assert index_set_text(np.array([3]), 5) == "output == 3"
    assert index_set_text(np.array([0, 2]), 5) == "output in {0, 2}"
