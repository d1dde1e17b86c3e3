"""Unit tests of the zero-rounding attack: the pairs it plans, never what it samples."""

from __future__ import annotations

import numpy as np
import pytest

from attacks import ATTACKS, load_attacks
from attacks.selection_common import LOSS, are_neighbours
from attacks.zero_rounding import (
    K_LARGE,
    K_SMALL,
    UNDERFLOW_EDGE,
    ZeroRoundingAttack,
    edge_utility,
    weight_scales,
)
from auditor.core.errors import AdapterContractError
from auditor.core.spec import check_adapter


class NoSampling:
    """A selection adapter whose sample() must never be called by an attack."""

    family = "selection"
    delta = 0.0

    def __init__(self, epsilon=0.5, sensitivity=1.0, bounds=None, name="no-sampling"):
        self.epsilon, self.sensitivity, self.name = epsilon, sensitivity, name
        if bounds is not None:
            self.utility_bounds = bounds

    def sample(self, query, n):
        raise AssertionError("attacks must not sample")


def _trials(adapter):
    spec = check_adapter(adapter)
    return ZeroRoundingAttack().trials(spec, np.random.default_rng(0))


def test_registered_and_applies_to_selection_only():
    assert ATTACKS["zero-rounding"] == "attacks.zero_rounding:ZeroRoundingAttack"
    (attack,) = load_attacks(["zero-rounding"])
    assert attack.applies_to(check_adapter(NoSampling()))

    class Additive:
        name, family, epsilon, delta, sensitivity = "add", "additive", 1.0, 0.0, 1.0

        def sample(self, q, n):
            raise AssertionError

    assert not attack.applies_to(check_adapter(Additive()))


def test_underflow_edge_is_the_last_nonzero_exponent():
    assert np.exp(UNDERFLOW_EDGE) > 0.0
    assert np.exp(np.nextafter(UNDERFLOW_EDGE, -np.inf)) == 0.0
    assert -745.14 < UNDERFLOW_EDGE < -745.13


@pytest.mark.parametrize("epsilon", [0.01, 0.5, 1.0, 8.0])
def test_ilvento_window_for_the_loss_convention(epsilon):
    # Ilvento's naive code: weights np.exp(-(eps/2)*u), sensitivity 1
    scale = weight_scales(epsilon, 1.0)[0]
    u = edge_utility(scale, LOSS, 1.0)
    assert u is not None
    assert np.exp(-(epsilon / 2.0) * u) > 0.0
    assert np.exp(-(epsilon / 2.0) * (u + 1.0)) == 0.0
    # the window is narrow: two sensitivities worse underflows as well
    assert np.exp(-(epsilon / 2.0) * (u + 2.0)) == 0.0


def test_ilvento_demo_value_is_inside_the_window():
    # Ilvento's demo: eps = 0.5, x = 2980 is the last integer with a nonzero weight
    u = edge_utility(weight_scales(0.5, 1.0)[0], LOSS, 1.0)
    assert 2980.0 <= u < 2981.0


def test_trials_are_neighbours_and_underflow_on_one_side_only():
    trials = _trials(NoSampling(epsilon=0.5))
    # 2 conventions x (textbook at the large k, missing-1/2 at the small k)
    assert len(trials) == 4
    assert {len(t.x) for t in trials} == {K_LARGE, K_SMALL}
    for t in trials:
        assert are_neighbours(t.x, t.x_prime, 1.0)
        assert np.all(t.x_prime == t.x_prime[0])
        assert np.count_nonzero(t.x != t.x_prime) == len(t.x) - 1
        assert t.distinguisher.max_events == 4
        assert "zero rounding" in t.description
    loss_textbook = [t for t in trials if "loss" in t.description and "textbook" in t.description]
    for t in loss_textbook:
        w = np.exp(-0.25 * t.x)
        w_prime = np.exp(-0.25 * t.x_prime)
        assert w[0] > 0 and np.all(w[1:] == 0) and np.all(w_prime > 0)


def test_sensitivity_other_than_one_adds_a_scale_and_moves_by_the_sensitivity():
    trials = _trials(NoSampling(epsilon=1.0, sensitivity=3.0))
    assert len(trials) == 6
    for t in trials:
        assert are_neighbours(t.x, t.x_prime, 3.0)
        assert np.max(np.abs(t.x - t.x_prime)) == pytest.approx(3.0)


def test_bounds_containing_the_window_are_respected_and_stated():
    trials = _trials(NoSampling(epsilon=0.5, bounds=(-1e4, 1e4)))
    assert len(trials) == 4
    for t in trials:
        assert np.all(np.abs(t.x) <= 1e4) and np.all(np.abs(t.x_prime) <= 1e4)
        assert "utility_bounds [-10000, 10000]" in t.description
        assert "clamps" in t.description


def test_bounds_that_exclude_the_window_give_no_trial():
    assert _trials(NoSampling(epsilon=0.5, bounds=(0.0, 100.0))) == []
    # only the loss side reachable: half the trials remain
    trials = _trials(NoSampling(epsilon=0.5, bounds=(0.0, 1e4)))
    assert trials and all("loss" in t.description for t in trials)


def test_malformed_bounds_are_a_contract_error():
    with pytest.raises(AdapterContractError, match="utility_bounds"):
        _trials(NoSampling(bounds=(5.0, 1.0)))
    with pytest.raises(AdapterContractError, match="utility_bounds"):
        _trials(NoSampling(bounds="wide"))
