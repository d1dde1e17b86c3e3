"""Distances between neighbouring inputs, decided exactly: a pair built in floating point can
overshoot the sensitivity by rounding, and a rounded subtraction hides it."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from auditor.core.distance import pull_within, within_norm
from auditor.core.kinds import Norm
from auditor.core.spec import check_adapter
from auditor.core.trials import Trial

U = 1 - 2.0**-53  # u + 1 rounds to 2.0, and 2.0 - u rounds back to 1.0


def test_an_overshoot_the_rounded_subtraction_hides_is_seen():
    assert U + 1 == 2.0 and 2.0 - U == 1.0
    assert not within_norm([U], [2.0], Norm.LINF, 1.0)
    assert within_norm([U], [np.nextafter(2.0, 0)], Norm.LINF, 1.0)
    assert within_norm([0.5], [1.5], Norm.LINF, 1.0)  # exactly 1: inside


def test_integers_beyond_two_to_the_53_are_not_rounded_to_doubles():
    big = np.array([2**60], dtype=np.int64)
    assert float(big[0]) == float(big[0] + 3)  # as doubles the move vanishes
    assert not within_norm(big, big + 3, Norm.LINF, 1.0)
    assert within_norm(big, big + 1, Norm.LINF, 1.0)


@pytest.mark.parametrize(
    ("norm", "x", "x_prime", "bound", "inside"),
    [
        (Norm.L1, [0.0, 0.0], [0.5, 0.5], 1.0, True),
        (Norm.L1, [0.0, 0.0], [0.5, np.nextafter(0.5, 1)], 1.0, False),
        (Norm.L2, [0.0, 0.0], [0.6, 0.8], 1.0, False),  # 0.6^2 + 0.8^2 is 1 + 2^-54 exactly
        (Norm.L2, [0.0, 0.0], [0.6, 0.75], 1.0, True),
        (Norm.LINF, [0.0, 0.0], [1.0, -1.0], 1.0, True),
        (Norm.LINF, [0.0], [np.inf], 1.0, False),
        (Norm.LINF, [0.0, 0.0], [1.0], 1.0, False),  # shapes differ
    ],
)
def test_each_norm_is_decided_exactly(norm, x, x_prime, bound, inside):
    assert within_norm(x, x_prime, norm, bound) is inside


@pytest.mark.parametrize("norm", list(Norm))
def test_pulling_back_lands_inside_by_the_fewest_ulps(norm):
    rng = np.random.default_rng(0)
    for _ in range(200):
        x = rng.normal(0, 10, 5)
        move = np.full(5, 1.0) if norm is Norm.LINF else np.eye(5)[0] * 1.0
        pulled = pull_within(x, x + move, norm, 1.0)
        assert within_norm(x, pulled, norm, 1.0)
        moved = pulled != x
        one_more = pulled.copy()
        one_more[moved] = np.nextafter(pulled[moved], pulled[moved] + np.sign(pulled - x)[moved])
        # one ulp further out on every moved entry is past the bound (or the pull did nothing)
        unchanged = np.array_equal(pulled, x + move)
        assert unchanged or not within_norm(x, one_more, norm, 1.0)
        exact = [abs(Fraction(b) - Fraction(a)) for a, b in zip(x, pulled, strict=True)]
        assert max(exact) <= 1


@pytest.mark.parametrize("norm", list(Norm))
def test_pulling_back_refuses_a_move_beyond_rounding(norm):
    # walking a real overshoot back by ulps would not end: it is the caller's bug, named
    with pytest.raises(ValueError, match="beyond"):
        pull_within(np.zeros(3), np.array([1.5, 0.4, 0.0]), norm, 1.0)


class Floor:
    name = "floor"
    input_kind, output_kind, norm, sensitivity, epsilon = "vector", "integer", "linf", 1.0, 1.0

    def sample(self, query, n):  # never called
        raise AssertionError


def test_a_trial_keeps_only_the_pairs_within_the_sensitivity_exactly():
    spec = check_adapter(Floor())
    over = (np.array([U, 0.0]), np.array([2.0, 1.0]), "over")
    fine = (np.array([0.5, 0.0]), np.array([1.5, 1.0]), "fine")
    trial = Trial(over[0], over[1], None, "over", candidates=(fine,))  # type: ignore[arg-type]
    kept = trial.accepted_by(spec)
    assert kept is not None and kept.description == "fine" and not kept.candidates


class Bounded:
    name = "bounded"
    family, sensitivity, epsilon, query_bounds = "additive", 1.0, 1.0, (0.1, 5.0)

    def sample(self, query, n):  # never called
        raise AssertionError


def test_the_float_attacks_pair_stays_within_the_sensitivity_off_zero():
    from attacks.float_pair import float_inputs

    spec = check_adapter(Bounded())
    pair = float_inputs(spec, 1.0)
    assert pair is not None
    x, x_prime = pair
    assert x + 1.0 > x_prime  # fl(x + 1) overshoots: x' was pulled back
    assert Fraction(x_prime) - Fraction(x) <= 1 and within_norm([x], [x_prime], Norm.LINF, 1.0)
