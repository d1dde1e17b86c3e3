"""The exact vector / structured-output reference adapters: contract, claims, canonical
outputs, seeding, distributions against the mechanisms' exact pmfs, and the fast exact
discrete Laplace sampler they use for integer rates.

Fixed seeds; every statistical bound is >= 6 standard errors wide (a correct adapter fails a
given check with probability < 1e-8, and the outcome is deterministic under the seed).
"""

from __future__ import annotations

import importlib
import math
import pickle
from fractions import Fraction

import gmpy2
import numpy as np
import pytest

from auditor.adapters import reference_vector as rv
from auditor.adapters.builtin import BUILTIN_TARGETS
from auditor.core.errors import AdapterContractError, AdapterOutputError
from auditor.core.spec import check_adapter
from auditor.engine.sampling import draw
from reference_mechanisms.integer_rate_laplace import (
    FIRST_BLOCK,
    bernoulli_exp_minus_one,
    sample_discrete_laplace_integer_rate,
)

ADAPTERS = rv.builtin_adapters()
BY_NAME = {a.name: a for a in ADAPTERS}

#: name -> (kind label, epsilon, delta)
EXPECTED = {
    "reference.vector_laplace(eps=1,d=5)": ("vector(l1) → integer[query]", 1.0, 0.0),
    "reference.histogram(eps=1,d=1000)": ("vector(l1) → integer[query]", 1.0, 0.0),
    "reference.vector_gaussian(rho=0.025,d=5)": ("vector(l2) → integer[query]", 0.9412, 1e-6),
    "reference.vector_gaussian(rho=0.05,sens=sqrt2,d=5)": (
        "vector(l2) → integer[query]",
        1.4714,
        1e-6,
    ),
    "reference.above_threshold(eps=1)": ("vector(linf) → ternary[query]", 1.0, 0.0),
    "reference.sparse_vector(eps=1,c=2)": ("vector(linf) → ternary[query]", 1.0, 0.0),
    "reference.noisy_max_with_value(eps=1)": (
        "vector(linf) → record(index: index, value: integer)",
        1.0,
        0.0,
    ),
    "reference.top_k(eps=1,k=3)": ("vector(linf) → index_set[3]", 1.0, 0.0),
    "reference.rappor(m=32,h=2,f=0.875)": ("local → boolean[32]", 1.0053, 0.0),
    "reference.quantile(eps=1,q=0.5)": ("dataset", 0.99996, 0.0),
}


def _query(spec, variant: int = 0):
    """A valid query of the adapter's input kind (a few shapes per kind)."""
    kind = str(spec.input.kind)
    if kind == "vector":
        m = spec.input.length or (4, 7, 12)[variant]
        return (np.arange(m) * (variant + 1)) % 5 - 2
    if kind == "local":
        return (0, 7, 15)[variant]
    return (np.arange(20), np.array([50]), np.array([0, 0, 100, 100, 37]))[variant]


def test_registered_with_unique_names() -> None:
    assert ("auditor.adapters.reference_vector:builtin_adapters", "dp-audit", None) in (
        BUILTIN_TARGETS
    )
    module = importlib.import_module("auditor.adapters.reference_vector")
    names = [a.name for a in module.builtin_adapters()]
    assert names == list(EXPECTED) and len(set(names)) == len(names)


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.name)
def test_contract_kinds_and_claims(adapter) -> None:
    spec = check_adapter(adapter)
    label, epsilon, delta = EXPECTED[adapter.name]
    assert spec.kind_label == label
    assert spec.claim.epsilon == pytest.approx(epsilon, abs=1e-4)
    assert spec.claim.delta == delta
    assert spec.seedable and spec.vectorised and spec.library == "dp-audit"
    assert spec.library_version and spec.description
    if str(spec.input.kind) == "vector":
        assert spec.integer_queries and spec.sensitivity is not None
    assert pickle.loads(pickle.dumps(adapter)).name == adapter.name  # worker processes


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.name)
def test_outputs_are_canonical_for_several_queries(adapter) -> None:
    spec = check_adapter(adapter)
    n = 300 if "histogram" in adapter.name else 2000
    for variant in range(3):
        query = _query(spec, variant)
        out = draw(spec, query, n, entropy=variant)
        m = spec.query_length(query)
        if spec.output.kind.value == "record":
            assert out.shape == (n,) and out.dtype.names == ("index", "value")
            assert out["index"].min() >= 0 and out["index"].max() < m
        elif spec.output.width(m) == 1:
            assert out.shape == (n,) and out.dtype == np.int64
        else:
            assert out.shape == (n, spec.output.width(m))
            assert out.dtype == (
                np.int8 if spec.output.kind.value in ("ternary", "boolean") else np.int64
            )
        assert len(draw(spec, query, 0, entropy=1)) == 0


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.name)
def test_reproducible_under_seed(adapter) -> None:
    spec = check_adapter(adapter)
    query = _query(spec, 1)
    n = 200 if "histogram" in adapter.name else 3000
    adapter.seed(11)
    first = adapter.sample(query, n)
    adapter.seed(11)
    assert np.array_equal(adapter.sample(query, n), first)
    adapter.seed(12)
    assert not np.array_equal(adapter.sample(query, n), first)
    assert np.array_equal(draw(spec, query, n, 5), draw(spec, query, n, 5))


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("reference.vector_laplace(eps=1,d=5)", [0.5, 1, 2, 3, 4]),
        ("reference.top_k(eps=1,k=3)", [0, 1]),  # fewer utilities than k
        ("reference.rappor(m=32,h=2,f=0.875)", 16),  # outside the domain
        ("reference.rappor(m=32,h=2,f=0.875)", 2.5),
        ("reference.quantile(eps=1,q=0.5)", np.array([1, 2, 101])),  # record outside the domain
        ("reference.sparse_vector(eps=1,c=2)", [[1, 2], [3, 4]]),
    ],
)
def test_invalid_queries_raise_value_error(name, bad) -> None:
    with pytest.raises(ValueError):
        BY_NAME[name].sample(bad, 3)


# --- wrong outputs are caught by the engine, with the problem named ------------------------


class _DuplicateTopK(rv.TopKAdapter):
    def sample(self, query, n):
        out = super().sample(query, n)
        out[0, 1] = out[0, 0]
        return out


class _RenamedRecord(rv.NoisyMaxWithValueAdapter):
    def sample(self, query, n):
        out = super().sample(query, n)
        return out.astype([("index", np.int64), ("noisy", np.int64)])


class _FourAnswers(rv.SparseVectorAdapter):
    def sample(self, query, n):
        out = super().sample(query, n).astype(np.int64)
        out[-1, -1] = 2
        return out


class _ShortHistogram(rv.VectorLaplaceAdapter):
    def sample(self, query, n):
        return super().sample(query, n)[:, :-1]


class _BitsAsCounts(rv.RapporAdapter):
    def sample(self, query, n):
        return super().sample(query, n).astype(np.int64) * 2


@pytest.mark.parametrize(
    ("adapter", "query", "problem"),
    [
        (_DuplicateTopK(name="bad.top_k"), np.arange(6), "repeated index"),
        (
            _RenamedRecord(name="bad.record"),
            np.arange(6),
            "missing ['value']; unexpected ['noisy']",
        ),
        (_FourAnswers(name="bad.svt"), np.zeros(6, dtype=int), "returned 2; ternary outputs"),
        (
            _ShortHistogram(name="bad.hist"),
            np.zeros(5, dtype=int),
            "shape (50, 4), expected (50, 5)",
        ),
        (_BitsAsCounts(name="bad.rappor"), 3, "boolean outputs are 0 and 1"),
    ],
    ids=lambda v: v.name if hasattr(v, "name") else None,
)
def test_wrong_outputs_are_adapter_output_errors(adapter, query, problem) -> None:
    spec = check_adapter(adapter)
    with pytest.raises(AdapterOutputError) as info:
        draw(spec, query, 50, entropy=1)
    assert problem in str(info.value) and repr(adapter.name) in str(info.value)


def test_contract_errors_name_the_field() -> None:
    class NoNorm(rv.VectorLaplaceAdapter):
        norm = "l3"

    with pytest.raises(AdapterContractError, match="norm"):
        check_adapter(NoNorm(name="bad.norm"))


# --- distributions against the exact pmfs ---------------------------------------------------

N = 60_000


def _within(freq: np.ndarray, p: np.ndarray, n: int) -> None:
    p = np.asarray(p, dtype=float)
    assert np.all(np.abs(freq - p) <= 6 * np.sqrt(p * (1 - p) / n) + 1e-12), (freq, p)


def _seeded(adapter, entropy: int = 2024):
    adapter.seed(entropy)
    return adapter


@pytest.mark.parametrize("epsilon", [1.0, 2.0, 0.75])  # integer rates (fast path) and not
def test_vector_laplace_coordinates_follow_the_discrete_laplace(epsilon) -> None:
    a = _seeded(rv.VectorLaplaceAdapter(epsilon=epsilon, d=3))
    assert (a.integer_rate is not None) == float(epsilon).is_integer()
    q = np.array([5, -2, 0])
    x = a.sample(q, N) - q
    scale = float(a.mechanism.scale)
    r = math.exp(-1 / scale)
    for j in range(3):
        ks = np.arange(-3, 4)
        _within(
            np.array([(x[:, j] == k).mean() for k in ks]), (1 - r) / (1 + r) * r ** np.abs(ks), N
        )
    # coordinates independent: P[both zero] = P[zero]^2
    p0 = (1 - r) / (1 + r)
    _within(np.array([((x[:, 0] == 0) & (x[:, 1] == 0)).mean()]), np.array([p0 * p0]), N)


def test_vector_gaussian_claims_are_certified() -> None:
    for a in ADAPTERS:
        if isinstance(a, rv.VectorGaussianAdapter):
            assert a.mechanism.delta_for_epsilon(a.epsilon) <= a.delta
            assert a.mechanism.sigma2 >= a.mechanism.sensitivity**2 / (2 * a.mechanism.rho)
    tight = BY_NAME["reference.vector_gaussian(rho=0.025,d=5)"]
    assert tight.mechanism.tight and "Thm. 7" in tight.description
    loose = BY_NAME["reference.vector_gaussian(rho=0.05,sens=sqrt2,d=5)"]
    assert not loose.mechanism.tight and "Cor. 13" in loose.description


def test_vector_gaussian_variance() -> None:
    a = _seeded(rv.VectorGaussianAdapter(rho=0.025, d=4))
    x = a.sample(np.array([1, 2, 3, 4]), N) - np.array([1, 2, 3, 4])
    sd = math.sqrt(float(a.mechanism.sigma2))
    assert np.all(np.abs(x.mean(axis=0)) < 6 * sd / math.sqrt(N))
    assert np.all(np.abs(x.var(axis=0) / sd**2 - 1) < 6 * math.sqrt(2 / N))


@pytest.mark.parametrize("adapter", [rv.AboveThresholdAdapter(), rv.SparseVectorAdapter()])
def test_sparse_vector_patterns_match_the_exact_pmf(adapter) -> None:
    q = np.array([1, -1, 0])
    x = _seeded(adapter).sample(q, N)
    exact = adapter.mechanism.pattern_probabilities(q)
    patterns = list(exact)
    freq = np.array([np.all(x == np.array(p), axis=1).mean() for p in patterns])
    assert freq.sum() == pytest.approx(1.0)
    _within(freq, np.array([float(exact[p]) for p in patterns]), N)


def test_noisy_max_with_value_matches_the_exact_pmf() -> None:
    a = _seeded(rv.NoisyMaxWithValueAdapter())
    u = np.array([0, 2, 1, 2])
    x = a.sample(u, N)
    p_index = np.array([float(p) for p in a.mechanism.index_probabilities(u)])
    _within(np.bincount(x["index"], minlength=4) / N, p_index, N)
    for index, value in [(1, 2), (3, 3), (2, 1)]:
        p = float(a.mechanism.probability(index, value, u))
        _within(
            np.array([((x["index"] == index) & (x["value"] == value)).mean()]), np.array([p]), N
        )


def test_top_k_matches_the_exact_pmf() -> None:
    a = _seeded(rv.TopKAdapter(k=2))
    u = np.array([0, 1, 3, 2])
    x = a.sample(u, N)
    assert np.all(x[:, 0] != x[:, 1])
    exact = a.mechanism.probabilities(u)
    rankings = list(exact)
    freq = np.array([np.all(x == np.array(r), axis=1).mean() for r in rankings])
    _within(freq, np.array([float(exact[r]) for r in rankings]), N)


def test_rappor_bits_match_the_exact_probabilities() -> None:
    a = _seeded(rv.RapporAdapter())
    x = a.sample(np.int64(9), N)
    _within(x.mean(axis=0), np.array([float(p) for p in a.mechanism.bit_probabilities(9)]), N)
    ratio = a.mechanism.ratio_bound  # ((2 - f)/f)^(2h), exact: e^epsilon must reach it
    assert ratio == Fraction(9, 7) ** 4
    with gmpy2.context(precision=200):
        assert gmpy2.exp(gmpy2.mpfr(a.epsilon)) >= gmpy2.mpq(ratio.numerator, ratio.denominator)
    assert a.sample(9.0, 2).shape == (2, 32)  # an integral float is the same value


def test_quantile_matches_the_exact_pmf() -> None:
    a = _seeded(rv.QuantileAdapter(domain=(0, 10)))
    data = np.array([2, 3, 3, 8, 9])
    x = a.sample(data, N)
    p = np.array([float(v) for v in a.mechanism.probabilities(data)])
    _within(np.bincount(x, minlength=11) / N, p, N)


# --- the fast exact discrete Laplace ---------------------------------------------------------


def test_first_block_holds_the_exact_coin_probability() -> None:
    # P[stop at j] = 1/(j-1)! - 1/j!; the coin is "j odd": j = 3, 5 among j <= 5 -> 11/30
    assert Fraction(int(FIRST_BLOCK[1:].sum()), FIRST_BLOCK.size) == Fraction(11, 30)
    assert FIRST_BLOCK[1] is np.False_ and FIRST_BLOCK[2] is np.True_  # d_2 != 0 / d_3 != 0


class _ZeroFirst:
    """A generator whose draws below ``high`` in ``zero_for`` are all 0: forces the deeper
    digits of every coin, the rest is uniform."""

    def __init__(self, seed: int, zero_for: tuple[int, ...]) -> None:
        self.rng, self.zero_for = np.random.default_rng(seed), zero_for

    def integers(self, low, high=None, size=None):
        bound = low if high is None else high
        if bound in self.zero_for:
            return np.zeros(size, dtype=np.int64) if size is not None else 0
        return self.rng.integers(low, high, size=size)


def test_coin_given_the_first_digits_are_zero() -> None:
    # P[coin | d_2..d_5 = 0] = 120 (e^-1 - 11/30): the digits d_6..d_20 decide
    b = bernoulli_exp_minus_one(200_000, _ZeroFirst(1, (120,)))
    _within(np.array([b.mean()]), np.array([120 * (math.exp(-1) - 11 / 30)]), b.size)


def test_coin_given_twenty_zero_digits() -> None:
    # every digit up to d_20 zero: CKS20's loop goes on from k = 21, one coin at a time
    p, reach = 0.0, 1.0
    for j in range(21, 60):
        p += reach * (1 - 1 / j) * (j % 2)
        reach /= j
    b = bernoulli_exp_minus_one(4000, _ZeroFirst(2, (120, math.factorial(20) // 120)))
    _within(np.array([b.mean()]), np.array([p]), b.size)


@pytest.mark.parametrize("rate", [1, 2, 3])
def test_integer_rate_laplace_pmf(rate) -> None:
    x = sample_discrete_laplace_integer_rate(rate, 400_000, np.random.default_rng(rate))
    assert x.dtype == np.int64
    r = math.exp(-rate)
    ks = np.arange(-4, 5)
    _within(np.array([(x == k).mean() for k in ks]), (1 - r) / (1 + r) * r ** np.abs(ks), x.size)
    assert np.mean(x) == pytest.approx(0, abs=6 * math.sqrt(2 * r) / (1 - r) / math.sqrt(x.size))


def test_integer_rate_laplace_arguments() -> None:
    rng = np.random.default_rng(0)
    assert sample_discrete_laplace_integer_rate(1, 0, rng).shape == (0,)
    for bad in (0, 1.5, True, -2):
        with pytest.raises(ValueError, match="rate"):
            sample_discrete_laplace_integer_rate(bad, 3, rng)
