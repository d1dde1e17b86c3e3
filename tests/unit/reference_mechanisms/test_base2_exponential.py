from __future__ import annotations

import math
from fractions import Fraction

import gmpy2
import numpy as np
import pytest

from reference_mechanisms.base2_arithmetic import (
    Eta,
    PrecisionError,
    analytic_precision,
    empirical_precision,
    eta_from_epsilon,
    exact_weights,
)
from reference_mechanisms.base2_exponential import (
    Base2ExponentialMechanism,
    randomized_round_up,
)
from reference_mechanisms.normalized_sampling import LevelSampler


class ScriptedRng:
    """Returns scripted values for ``integers`` calls (then delegates to a real Generator)."""

    def __init__(self, script: list[np.ndarray]) -> None:
        self.script = list(script)
        self.real = np.random.default_rng(0)

    def integers(self, low, high=None, size=None):
        if self.script:
            return np.asarray(self.script.pop(0), dtype=np.int64)
        return self.real.integers(low, high, size)


# ------------------------------------------------------------------------------------ Eta
@pytest.mark.parametrize(
    "kw", [dict(x=0, y=2), dict(x=4, y=2), dict(x=1, y=0), dict(x=1, y=1, z=0)]
)
def test_eta_rejects_bad_integers(kw) -> None:
    with pytest.raises(ValueError):
        Eta(**kw)


def test_eta_base_and_epsilon_exact_case() -> None:
    e = Eta(1, 1, 1)  # base 1/2, eta = 1 bit
    assert e.base == Fraction(1, 2)
    assert e.epsilon(1) == pytest.approx(2 * math.log(2), rel=1e-15)
    assert e.epsilon(1) >= 2 * math.log(2)  # rounded up
    assert e.epsilon(Fraction(1, 2)) == e.epsilon(1)  # ceil(Delta)
    assert e.epsilon(3) == pytest.approx(6 * math.log(2))


@pytest.mark.parametrize("eps", [1e-3, 0.05, 0.5, 1.0, 3.0, 10.0, 40.0])
@pytest.mark.parametrize("sens", [1, 2.5])
def test_eta_from_epsilon_under_approximates_tightly(eps: float, sens: float) -> None:
    e = eta_from_epsilon(eps, sens)
    got = e.epsilon(sens)
    assert got <= eps
    assert got >= 0.99 * eps
    assert e.x % 2 == 1
    # independent check with floats: 2 ceil(Delta) z ln(2^y/x)
    assert 2 * math.ceil(sens) * e.z * math.log(2**e.y / e.x) == pytest.approx(got, rel=1e-12)


@pytest.mark.parametrize("eps", [0.0, -1.0, float("nan"), float("inf")])
def test_eta_from_epsilon_rejects_bad_epsilon(eps: float) -> None:
    with pytest.raises(ValueError, match="epsilon"):
        eta_from_epsilon(eps)


# --------------------------------------------------------------------------- weights
def test_exact_weights_equal_fractions() -> None:
    e = Eta(5, 3, 2)
    ws = exact_weights(e, 30)
    for d, w in enumerate(ws):
        assert Fraction(*w.as_integer_ratio()) == e.base**d


def test_inexact_trap_raises_when_precision_too_small() -> None:
    e = Eta(5, 3, 1)
    with pytest.raises(PrecisionError, match="precision=8"):
        exact_weights(e, 20, precision=8)  # 5^20 needs 47 bits
    exact_weights(e, 20, precision=47)  # enough: no error


def test_precision_procedures_are_sufficient_and_empirical_is_tight() -> None:
    e = Eta(5, 3, 1)
    d_max, k = 40, 1000
    pa = analytic_precision(e, d_max, k)
    pe = empirical_precision(e, d_max, k)
    exact_weights(e, d_max, precision=pa)  # no PrecisionError at either precision
    smallest = exact_weights(e, d_max, precision=pe)[-1]
    with gmpy2.context(precision=pa, trap_inexact=True):
        _ = gmpy2.mpfr(k) + smallest  # the largest total plus the smallest weight is exact
    with (
        pytest.raises(gmpy2.InexactResultError),
        gmpy2.context(precision=pe // 2, trap_inexact=True),
    ):
        _ = gmpy2.mpfr(k) + smallest  # the doubling search stopped at the first sufficient size
    with pytest.raises(PrecisionError):
        exact_weights(e, d_max, precision=pe // 4)
    assert empirical_precision(e, 0, 1) == 16
    with pytest.raises(ValueError):
        empirical_precision(e, 3, 3, start=1)


# ---------------------------------------------------------------- randomized rounding
def test_randomized_round_up_compares_exact_binary_digits() -> None:
    frac = np.array([0.5, 0.25, 0.0, 0.75])
    # c < a  <=> up; a = frac * 2^62
    c = np.array([2**61 - 1, 2**60, 0, 3 * 2**60])
    up = randomized_round_up(frac, ScriptedRng([c]))
    assert up.tolist() == [True, False, False, False]


def test_randomized_round_up_resolves_ties_on_tiny_digits() -> None:
    tiny = 2.0**-70  # first 62 digits are all zero: decided by the next chunk
    up = randomized_round_up(
        np.array([tiny, tiny]), ScriptedRng([np.array([0, 0]), np.array([0, 2**54])])
    )
    assert up.tolist() == [True, False]  # rest = 2^-8: next chunk c < 2^54 means up


# ------------------------------------------------------------------------ mechanism
def _mech(**kw) -> Base2ExponentialMechanism:
    kw.setdefault("utility_bounds", (-50, 50))
    return Base2ExponentialMechanism(kw.pop("epsilon", 1.0), kw.pop("sensitivity", 1.0), **kw)


@pytest.mark.parametrize("eps", [0.0, -1.0, float("nan"), float("inf"), True, "1"])
def test_mechanism_rejects_bad_epsilon(eps) -> None:
    with pytest.raises(ValueError, match="epsilon"):
        Base2ExponentialMechanism(eps, 1.0, (0, 10))


@pytest.mark.parametrize("sens", [0.0, -1.0, float("nan"), float("inf")])
def test_mechanism_rejects_bad_sensitivity(sens) -> None:
    with pytest.raises(ValueError, match="sensitivity"):
        Base2ExponentialMechanism(1.0, sens, (0, 10))


@pytest.mark.parametrize("bounds", [(0.5, 3), (3, 0), (0, float("inf")), (0, 2.0**60), "ab"])
def test_mechanism_rejects_bad_bounds(bounds) -> None:
    with pytest.raises(ValueError, match="utility_bounds"):
        Base2ExponentialMechanism(1.0, 1.0, bounds)


def test_mechanism_rejects_bad_convention_and_eta_combinations() -> None:
    with pytest.raises(ValueError, match="convention"):
        Base2ExponentialMechanism(1.0, 1.0, (0, 1), convention="max")
    with pytest.raises(ValueError, match="exactly one"):
        Base2ExponentialMechanism(1.0, 1.0, (0, 1), eta=Eta(1, 1))
    with pytest.raises(ValueError, match="exactly one"):
        Base2ExponentialMechanism(None, 1.0, (0, 1))


@pytest.mark.parametrize(
    "u", [[], [[1.0, 2.0]], [1.0, float("nan")], [float("inf"), 0.0], [-float("inf")], "abc"]
)
def test_mechanism_rejects_bad_utilities(u) -> None:
    m = _mech()
    with pytest.raises(ValueError, match="utilities"):
        m.sample(u, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="utilities"):
        m.probabilities(u)


def test_mechanism_rejects_bad_n() -> None:
    with pytest.raises(ValueError, match="n="):
        _mech().sample([1.0, 2.0], -1, np.random.default_rng(0))


def test_probabilities_exact_formula_and_conventions() -> None:
    e = Eta(3, 2)  # base 3/4
    m = Base2ExponentialMechanism(None, 1.0, (-10, 10), eta=e)
    p = m.probabilities([0, 1, 3])
    w = [Fraction(3, 4) ** 3, Fraction(3, 4) ** 2, Fraction(1)]
    assert p == [x / sum(w) for x in w]
    loss = Base2ExponentialMechanism(None, 1.0, (-10, 10), eta=e, convention="loss")
    assert loss.probabilities([0, -1, -3]) == p
    assert m.epsilon == e.epsilon(1)


def test_clamping_and_fractional_mixture() -> None:
    e = Eta(1, 1)  # base 1/2
    m = Base2ExponentialMechanism(None, 1.0, (0, 4), eta=e)
    assert m.probabilities([7, 4, 100.5]) == [Fraction(1, 3)] * 3  # all clamp to 4
    # one fractional entry: u = [0.5, 0]: R = 1 (w.p. 1/2) -> weights (1, 1/2); R = 0 -> (1, 1)
    p = m.probabilities([0.5, 0.0])
    assert p[0] == Fraction(1, 2) * Fraction(2, 3) + Fraction(1, 2) * Fraction(1, 2)
    assert sum(p) == 1


def test_probabilities_limit_on_fractional_entries() -> None:
    m = _mech()
    with pytest.raises(ValueError, match="non-integer"):
        m.probabilities(np.arange(20) + 0.5)


def test_sample_shape_dtype_and_range() -> None:
    m = _mech()
    x = m.sample(np.array([3.0, -2.0, 0.25, 7.0]), 1000, np.random.default_rng(1))
    assert x.dtype == np.int64 and x.shape == (1000,)
    assert x.min() >= 0 and x.max() <= 3
    assert m.sample([1.0], 0, np.random.default_rng(1)).shape == (0,)


def test_level_sampler_validation() -> None:
    with pytest.raises(ValueError):
        LevelSampler(np.array([], dtype=np.int64), Eta(1, 1))
    with pytest.raises(ValueError):
        LevelSampler(np.array([0, -1]), Eta(1, 1))
    with pytest.raises(ValueError, match="precision"):
        LevelSampler(np.array([0, 1]), Eta(1, 1), precision=0)


def test_large_outcome_space_is_prepared_quickly() -> None:
    m = Base2ExponentialMechanism(1.0, 1.0, (0, 74_999))
    prep = m.prepare(np.arange(75_000, dtype=float))
    x = prep.sample(10_000, np.random.default_rng(3))
    assert x.max() <= 74_999 and (x == 74_999).mean() > 0.3  # top outcome has P = 1 - base


@pytest.mark.parametrize("convention", ["utility", "loss"])
@pytest.mark.parametrize("eps", [0.1, 1.0, 8.0])
def test_numeric_probabilities_match_exact(convention: str, eps: float) -> None:
    m = Base2ExponentialMechanism(eps, 1.0, (-20, 20), convention=convention)
    prep = m.prepare([0.5, 1.25, 2.0, 3.7, 0.1, -0.9, 2.5, 30, -40.5, 1e-9])
    exact = np.array([float(p) for p in prep.probabilities()])
    assert np.allclose(prep.numeric_probabilities(), exact, rtol=1e-12, atol=0)


def test_eta_with_float_zero_estimate_still_samples() -> None:
    e = Eta((1 << 62) - 1, 62)  # eta ~ 3e-19 bits: the float estimate is 0
    s = LevelSampler(np.array([0, 1, 2]), e)
    x = s.sample(1000, np.random.default_rng(0))
    assert set(np.unique(x)) == {0, 1, 2}


def test_both_precision_procedures_give_identical_tables() -> None:
    levels = np.array([0, 3, 1, 1, 7, 40, 200, 5000])
    a = LevelSampler(levels, Eta(5, 3), weight_precision="analytic")
    b = LevelSampler(levels, Eta(5, 3), weight_precision="empirical")
    (acl, acu), (bcl, bcu) = a.cumulative_bounds, b.cumulative_bounds
    assert np.array_equal(acl, bcl) and np.array_equal(acu, bcu)
    assert np.all(acl <= acu) and acu[-1] - acl[-1] <= levels.size + 1
    with pytest.raises(ValueError, match="weight_precision"):
        LevelSampler(levels, Eta(5, 3), weight_precision="exact")
    with pytest.raises(ValueError, match="weight_precision"):
        Base2ExponentialMechanism(1.0, 1.0, (0, 3), weight_precision="x")
    m = Base2ExponentialMechanism(1.0, 1.0, (0, 100), weight_precision="empirical")
    x = m.sample(np.arange(50.0), 1000, np.random.default_rng(0))
    assert x.min() >= 0 and x.max() <= 49
