"""The testers' benchmark mechanisms (``auditor.adapters.benchmarks``): contract, canonical
outputs, seeding, distributions against closed forms, and for each broken mechanism the reason
it is broken, shown on the paper's counterexample.

Fixed seeds throughout.  Distribution checks allow >= 6 standard errors (a correct adapter fails
one with probability < 1e-8).  A violation check estimates P[S | x] and P[S | x'] for an event S
from fresh samples and asserts that ``ln((a - 6 sqrt a) / (b + 6 sqrt b))`` (a, b the counts)
exceeds the claimed epsilon, so it fails if the mechanism were made correct; where the margin at
the papers' epsilon of 0.1 would need millions of samples, the check runs the same mechanism at
epsilon 1 (or 2), where its violation factor is the same or larger.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from scipy import integrate, stats

from auditor.adapters import benchmarks as bm
from auditor.adapters.benchmarks import noisy_max
from auditor.core.spec import check_adapter
from auditor.engine.sampling import draw
from reference_mechanisms.sparse_vector import svt_patterns

ADAPTERS = bm.builtin_adapters()
BY_NAME = {a.name: a for a in ADAPTERS}

#: name -> (kind label, claimed epsilon, correct per the literature)
EXPECTED = {
    "benchmark.laplace(eps=0.1)": ("additive", 0.1, True),
    "benchmark.truncated_geometric(eps=0.1)": ("additive", 0.1, False),
    "benchmark.noisy_hist1(eps=0.1)": ("vector(l1) → real[query]", 0.1, True),
    "benchmark.noisy_hist2(eps=0.1)": ("vector(l1) → real[query]", 0.1, False),
    "benchmark.report_noisy_max1(eps=0.1)": ("selection", 0.1, True),
    "benchmark.report_noisy_max2(eps=0.1)": ("selection", 0.1, True),
    "benchmark.report_noisy_max3(eps=0.1)": ("vector(linf) → real", 0.1, False),
    "benchmark.report_noisy_max4(eps=0.1)": ("vector(linf) → real", 0.1, False),
    "benchmark.svt1(eps=0.1)": ("vector(linf) → ternary[query]", 0.1, True),
    "benchmark.svt2(eps=0.1)": ("vector(linf) → ternary[query]", 0.1, True),
    "benchmark.svt3(eps=0.1)": ("vector(linf) → real[query]?", 0.1, False),
    "benchmark.svt4(eps=0.1)": ("vector(linf) → ternary[query]", 0.1, False),
    "benchmark.svt5(eps=0.1)": ("vector(linf) → ternary[query]", 0.1, False),
    "benchmark.svt6(eps=0.1)": ("vector(linf) → ternary[query]", 0.1, False),
    "benchmark.numerical_svt(eps=0.1)": ("vector(linf) → real[query]?", 0.1, True),
    "benchmark.rappor(f=0.75,p=0.45,q=0.55)": ("local → boolean[20]", 0.4001, True),
    "benchmark.one_time_rappor(f=0.95)": ("local → boolean[20]", 0.8007, True),
    "benchmark.laplace_parallel(eps=0.1,k=20)": ("scalar → real[20]", 0.1, True),
    "benchmark.svt34_parallel(eps=0.2)": ("vector(linf) → real[20]?", 0.2, False),
    "benchmark.prefix_sum(eps=0.1)": ("vector(linf) → real[query]", 0.1, False),
    "benchmark.prefix_sum_l1(eps=0.1)": ("vector(l1) → real[query]", 0.1, True),
}

#: the figures the brief fixes (DP-Sniper best, StatDP) at the papers' settings
BRIEF_FIGURES = {
    "benchmark.laplace(eps=0.1)": (0.0976, 0.0996),
    "benchmark.truncated_geometric(eps=0.1)": (0.1156, 0.117),
    "benchmark.noisy_hist1(eps=0.1)": (0.0978, 0.099),
    "benchmark.noisy_hist2(eps=0.1)": (4.602, 10.00),
    "benchmark.report_noisy_max3(eps=0.1)": (0.2488, 0.196),
    "benchmark.report_noisy_max4(eps=0.1)": (0.3534, 0.199),
    "benchmark.svt1(eps=0.1)": (0.0858, 0.030),
    "benchmark.svt3(eps=0.1)": (0.1822, 0.179),
    "benchmark.svt5(eps=0.1)": (1.761, 14.31),
    "benchmark.svt6(eps=0.1)": (0.272, 0.320),
    "benchmark.rappor(f=0.75,p=0.45,q=0.55)": (0.3008, 0.0243),
    "benchmark.one_time_rappor(f=0.95)": (0.600, 0.060),
    "benchmark.laplace_parallel(eps=0.1,k=20)": (0.035, 0.0135),
    "benchmark.svt34_parallel(eps=0.2)": (0.262, 0.196),
    "benchmark.prefix_sum(eps=0.1)": (0.577, 0.3446),
    "benchmark.numerical_svt(eps=0.1)": (0.0345, None),
}


def _seeded(adapter, entropy: int = 2024):
    adapter.seed(entropy)
    return adapter


def _query(spec, variant: int):
    """A valid query of the adapter's input kind (three shapes per kind)."""
    kind = str(spec.input.kind)
    if kind == "scalar":
        return (0, 3, 5)[variant] if spec.integer_queries else (0.0, -7.5, 3.25)[variant]
    if kind == "local":
        lo, hi = spec.exact_domain
        return (lo, 0, hi)[variant]
    m = spec.input.length
    base = (np.arange(m) % 3, np.zeros(m), 4 - np.arange(m))[variant]
    return base.astype(np.int64) if spec.integer_queries else base.astype(float) * 0.75


def _within(freq, p, n: int) -> None:
    freq, p = np.asarray(freq, dtype=float), np.asarray(p, dtype=float)
    assert np.all(np.abs(freq - p) <= 6 * np.sqrt(p * (1 - p) / n) + 1e-12), (freq, p)


def _log_ratio_lower(a: int, b: int) -> float:
    """A conservative lower bound on ln(P[S|x] / P[S|x']) from counts a, b of equal samples."""
    assert a > 36, a
    return math.log((a - 6 * math.sqrt(a)) / (b + 6 * math.sqrt(b)))


def _laplace_cdf(t: float, b: float) -> float:
    return 0.5 * math.exp(t / b) if t < 0 else 1 - 0.5 * math.exp(-t / b)


def _pattern_probability(pattern, q, threshold, rho_scale, nu_scale) -> float:
    """P[SVT answers ``pattern``] = ∫ f_rho(z) prod_i P[answer_i | rho = z] dz (halted: 1)."""

    def integrand(z: float) -> float:
        p = math.exp(-abs(z) / rho_scale) / (2 * rho_scale)
        for a, qi in zip(pattern, q, strict=True):
            if a != -1:
                below = _laplace_cdf(threshold + z - qi, nu_scale)
                p *= below if a == 0 else 1 - below
        return p

    breaks = sorted({float(qi) - threshold for qi in q} | {0.0})
    lim = 60 * max(rho_scale, nu_scale)
    return integrate.quad(integrand, -lim, lim, points=breaks, limit=400)[0]


def _pattern_frequencies(out: np.ndarray, patterns) -> np.ndarray:
    codes = np.asarray(patterns, dtype=np.int8)
    return np.array([np.all(out == c, axis=1).mean() for c in codes])


# --- contract ------------------------------------------------------------------------------------


def test_names_are_unique_lower_case_and_key_the_published_figures() -> None:
    names = [a.name for a in ADAPTERS]
    assert names == list(EXPECTED) and len(set(names)) == len(names)
    assert all(n.startswith("benchmark.") and n == n.lower() for n in names)
    assert set(bm.PUBLISHED_FIGURES) <= set(names)
    for name, figures in BRIEF_FIGURES.items():
        assert bm.PUBLISHED_FIGURES[name] == figures
    for sniper, statdp in bm.PUBLISHED_FIGURES.values():
        assert all(v is None or (isinstance(v, float) and v > 0) for v in (sniper, statdp))


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.name)
def test_contract_kinds_claims_and_verdicts(adapter) -> None:
    spec = check_adapter(adapter)
    label, epsilon, correct = EXPECTED[adapter.name]
    assert spec.kind_label == label
    assert spec.claim.epsilon == pytest.approx(epsilon, abs=1e-4) and spec.claim.delta == 0
    assert adapter.correct is correct
    assert spec.seedable and spec.vectorised and spec.library == "numpy"
    assert spec.library_version == np.__version__
    assert spec.description and ("Broken" in spec.description) is not correct
    if str(spec.input.kind) == "vector":
        assert spec.sensitivity == 1.0 and spec.input.length in (5, 10)
    assert pickle.loads(pickle.dumps(adapter)).name == adapter.name  # worker processes


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.name)
def test_outputs_are_canonical_for_several_queries_and_sizes(adapter) -> None:
    spec = check_adapter(adapter)
    for variant, n in enumerate((1, 7, 3000)):
        query = _query(spec, variant)
        out = draw(spec, query, n, entropy=variant)
        d = spec.output.width(spec.query_length(query))
        assert out.shape == ((n,) if d == 1 else (n, d))
        kind = spec.output.kind.value
        if kind == "ternary":
            assert out.dtype == np.int8 and set(np.unique(out)) <= {-1, 0, 1}
            if adapter.cutoff is not None:  # answers stop right after the c-th ⊤
                tops_before = np.cumsum(out == 1, axis=1) - (out == 1)
                assert np.all((out == -1) == (tops_before >= adapter.cutoff))
            else:
                assert not np.any(out == -1)
        elif kind == "boolean":
            assert out.dtype == np.int8 and set(np.unique(out)) <= {0, 1}
        elif kind == "index":
            assert out.dtype == np.int64 and out.min() >= 0 and out.max() < len(query)
        elif kind == "integer":
            assert out.dtype == np.int64 and out.min() >= 0 and out.max() <= adapter.n
        else:
            assert out.dtype == np.float64
            assert spec.output.nullable or np.isfinite(out).all()
    assert len(draw(spec, _query(spec, 0), 0, entropy=1)) == 0


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.name)
def test_reproducible_under_seed(adapter) -> None:
    spec = check_adapter(adapter)
    query = _query(spec, 2)
    adapter.seed(11)
    first = adapter.sample(query, 500)
    adapter.seed(11)
    np.testing.assert_array_equal(adapter.sample(query, 500), first)
    adapter.seed(12)
    assert not np.array_equal(adapter.sample(query, 500), first, equal_nan=True)
    np.testing.assert_array_equal(draw(spec, query, 800, 5), draw(spec, query, 800, 5))


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("benchmark.truncated_geometric(eps=0.1)", 2.5),
        ("benchmark.truncated_geometric(eps=0.1)", 6),
        ("benchmark.truncated_geometric(eps=0.1)", -1),
        ("benchmark.noisy_hist1(eps=0.1)", [0.5, 1, 2, 3, 4]),  # counts are integers
        ("benchmark.rappor(f=0.75,p=0.45,q=0.55)", 11),
        ("benchmark.one_time_rappor(f=0.95)", 2.5),
        ("benchmark.svt34_parallel(eps=0.2)", np.zeros(9)),  # its output needs exactly 10
        ("benchmark.svt1(eps=0.1)", [[1, 2], [3, 4]]),
        ("benchmark.report_noisy_max1(eps=0.1)", []),
        ("benchmark.laplace(eps=0.1)", [1.0, 2.0]),
        ("benchmark.prefix_sum(eps=0.1)", [0.0, np.inf]),
    ],
)
def test_invalid_queries_raise_value_error(name, bad) -> None:
    with pytest.raises(ValueError):
        BY_NAME[name].sample(bad, 3)


def test_constructors_take_epsilon_and_name_non_default_settings() -> None:
    assert bm.SVT1(0.5).name == "benchmark.svt1(eps=0.5)"
    assert bm.SVT4(1, cutoff=2, queries=4).name == "benchmark.svt4(eps=1,c=2,m=4)"
    assert bm.NumericalSVT(0.1, threshold=0).name == "benchmark.numerical_svt(eps=0.1,t=0)"
    assert bm.ReportNoisyMax3(0.1, queries=20).name == "benchmark.report_noisy_max3(eps=0.1,m=20)"
    assert bm.Rappor(epsilon=0.1).epsilon == 0.1 and not bm.Rappor(epsilon=0.1).correct
    with pytest.raises(ValueError, match="no cutoff"):
        bm.SVT6(0.1, cutoff=2)
    with pytest.raises(ValueError, match="epsilon"):
        bm.NoisyHist1(0.0)


# --- distributions against closed forms ------------------------------------------------------

N = 100_000


def test_laplace_and_noisy_hist1_marginals_are_laplace_one_over_epsilon() -> None:
    x = _seeded(bm.LaplaceMechanism(0.1)).sample(3.0, 20_000) - 3.0
    assert stats.kstest(x, stats.laplace(scale=10).cdf).pvalue > 1e-4
    assert stats.kstest(x, stats.laplace(scale=12).cdf).pvalue < 1e-8  # the test has power
    q = np.array([0, 4, 1, 7, 2])
    h = _seeded(bm.NoisyHist1(0.1)).sample(q, 20_000) - q
    for j in range(5):
        assert stats.kstest(h[:, j], stats.laplace(scale=10).cdf).pvalue > 1e-4
    assert abs(np.corrcoef(h[:, 0], h[:, 1])[0, 1]) < 6 / math.sqrt(20_000)


def test_noisy_hist2_uses_epsilon_as_the_scale_and_is_only_one_over_epsilon_private() -> None:
    a = _seeded(bm.NoisyHist2(0.1))
    x = a.sample(np.zeros(5, dtype=int), 20_000)
    assert stats.kstest(x[:, 0], stats.laplace(scale=0.1).cdf).pvalue > 1e-4
    x2 = a.sample(np.array([1, 0, 0, 0, 0]), 20_000)  # one bin up: an L1 neighbour
    below = int(np.sum(x[:, 0] < 0.5)), int(np.sum(x2[:, 0] < 0.5))
    assert _log_ratio_lower(*below) > 4.0 > a.epsilon  # exact: ln(2 e^5 - 1) = 5.7


def test_laplace_parallel_copies_are_independent_laplace_of_scale_k_over_epsilon() -> None:
    x = _seeded(bm.LaplaceParallel(0.1, copies=20)).sample(-2.0, 5_000) + 2.0
    assert stats.kstest(x.ravel(), stats.laplace(scale=200).cdf).pvalue > 1e-4
    corr = np.corrcoef(x.T)[np.triu_indices(20, 1)]
    assert np.all(np.abs(corr) < 6 / math.sqrt(5_000))


def test_truncated_geometric_matches_its_exact_pmf() -> None:
    a = _seeded(bm.TruncatedGeometric(0.1, n=5))
    assert (a.k, a.d) == (3, 17 * 9**4)
    for c in (0, 2, 5):
        p = np.array(a.pmf(c))
        assert p.sum() == pytest.approx(1.0, abs=1e-12)
        if 0 < c < 5:  # geometric of ratio 8/9 around c; the tails are lumped at 0 and n
            assert p[1:-1].argmax() + 1 == c
        _within(np.bincount(a.sample(c, N), minlength=6) / N, p, N)


def test_truncated_geometric_is_ln_nine_eighths_private_not_point_one() -> None:
    a = bm.TruncatedGeometric(0.1, n=5)
    # exactly: P[0 | c] / P[0 | c + 1] = F(0 | c) / F(0 | c + 1) = 9/8
    for c in range(5):
        assert a.cumulative(c)[0] * 8 == a.cumulative(c + 1)[0] * 9
    worst = max(
        abs(math.log(p / q)) for c in range(5) for p, q in zip(a.pmf(c), a.pmf(c + 1), strict=True)
    )
    assert worst == pytest.approx(math.log(9 / 8), rel=1e-12) == pytest.approx(a.true_epsilon)
    assert worst > a.epsilon
    assert bm.TruncatedGeometric(1.0).correct  # k = 1: ln(3/2) < 1


@pytest.mark.parametrize(
    ("cls", "density", "cdf"),
    [
        (bm.ReportNoisyMax1, stats.laplace(scale=20).pdf, stats.laplace(scale=20).cdf),
        (bm.ReportNoisyMax2, stats.expon(scale=20).pdf, stats.expon(scale=20).cdf),
    ],
)
def test_report_noisy_max_index_probabilities_on_two_queries(cls, density, cdf) -> None:
    q = np.array([0.0, 6.0])
    p0 = integrate.quad(lambda y: density(y - q[0]) * cdf(y - q[1]), -400, 400, points=[0, 6])[0]
    x = _seeded(cls(0.1)).sample(q, N)
    _within(np.bincount(x, minlength=2) / N, [p0, 1 - p0], N)


def _plain_and_fast(q: np.ndarray, seed: int, n: int, rng_type=None) -> None:
    """``laplace_argmax`` gives the plain draw's indices and leaves the generator as it does."""
    plain, fast = np.random.default_rng(seed), np.random.default_rng(seed)
    expected = (q + plain.laplace(0.0, 20.0, size=(n, q.size))).argmax(axis=1)
    got = noisy_max.laplace_argmax(fast if rng_type is None else rng_type(fast), q, 20.0, n)
    np.testing.assert_array_equal(got, expected)
    assert fast.bit_generator.state == plain.bit_generator.state


@pytest.mark.parametrize(
    "q",
    [
        np.r_[-14902.164382038822, np.full(99, -14903.164382038822)],  # zero-rounding's pair
        np.r_[np.zeros(31), 1.0],
        np.r_[np.full(3, 2.0), 1.0, np.full(4, 2.0), -0.0, 0.0, np.full(4, 1.0)],  # scattered
        np.zeros(5),
        np.array([1.0, 0.0, 0.0, 0.0, 0.0]),  # too few repeats: the plain draw
    ],
)
def test_laplace_argmax_is_the_plain_noisy_argmax_bit_for_bit(q) -> None:
    for seed, n in ((0, 1), (1, 7), (2, 5000)):
        _plain_and_fast(q, seed, n)


def test_laplace_argmax_redraws_the_rows_it_cannot_decide(monkeypatch) -> None:
    # answers near 1e12: uniforms 0.05 apart may round to one answer, so most rows are redrawn
    q = np.r_[np.full(20, 1e12), 1e12 + 1.0]
    monkeypatch.setattr(noisy_max, "_REDRAW_SHARE", 1.0)
    for seed, n in ((0, 1), (1, 300)):
        _plain_and_fast(q, seed, n)
    monkeypatch.setattr(noisy_max, "_REDRAW_SHARE", 0.0)  # too many: the plain draw
    _plain_and_fast(q, 2, 300)


def test_laplace_argmax_draws_the_plain_way_after_a_zero_uniform() -> None:
    class ZeroUniform:
        """A generator whose uniforms hold a zero, which numpy's Laplace would redraw."""

        def __init__(self, rng: np.random.Generator) -> None:
            self.rng, self.bit_generator = rng, rng.bit_generator

        def random(self, size):
            u = self.rng.random(size)
            u.flat[3] = 0.0
            return u

        def laplace(self, *args, **kwargs):
            return self.rng.laplace(*args, **kwargs)

    _plain_and_fast(np.zeros(10), 0, 50, ZeroUniform)


@pytest.mark.parametrize(
    ("cls", "cdf"),
    [
        (bm.ReportNoisyMax3, stats.laplace(scale=20).cdf),
        (bm.ReportNoisyMax4, stats.expon(scale=20).cdf),
    ],
)
def test_noisy_max_value_has_the_cdf_of_the_maximum(cls, cdf) -> None:
    q = np.array([1.0, -3.0, 2.0, 0.0, 5.0])
    x = _seeded(cls(0.1)).sample(q, N)
    ts = np.array([-10.0, 4.0, 5.5, 20.0, 40.0])
    exact = [np.prod(cdf(t - q)) for t in ts]
    _within([np.mean(x <= t) for t in ts], exact, N)


# (adapter, its (rho scale, nu scale), threshold, cutoff), at epsilon 0.1 on 3 queries
SVT_CASES = [
    (bm.SVT1(0.1), (20.0, 40.0)),
    (bm.SVT1(0.1, cutoff=2), (20.0, 80.0)),
    (bm.SVT2(0.1), (20.0, 40.0)),  # c = 1: the threshold is never redrawn before halting
    (bm.SVT4(0.1), (40.0, 40.0 / 3)),
    (bm.SVT6(0.1), (20.0, 20.0)),
]


@pytest.mark.parametrize(("adapter", "scales"), SVT_CASES, ids=lambda v: getattr(v, "name", ""))
def test_svt_pattern_probabilities_match_the_integral_over_the_threshold_noise(
    adapter, scales
) -> None:
    q = np.array([2.0, -5.0, 10.0])
    patterns = svt_patterns(3, adapter.cutoff)
    exact = [_pattern_probability(p, q, adapter.threshold, *scales) for p in patterns]
    assert sum(exact) == pytest.approx(1.0, abs=1e-9)
    x = _seeded(adapter).sample(q, N)
    freq = _pattern_frequencies(x, patterns)
    assert freq.sum() == pytest.approx(1.0)
    _within(freq, exact, N)


def test_svt5_answers_are_a_step_function_of_the_threshold_noise() -> None:
    a = _seeded(bm.SVT5(0.1))
    q = np.array([3.0, -2.0, 0.5])
    x = a.sample(q, N)
    # ⊤ iff q_i >= 1 + rho: the patterns are the intervals of rho between the q_i - 1
    cdf = stats.laplace(scale=20).cdf
    exact = {
        (1, 1, 1): cdf(-3.0),
        (1, 0, 1): cdf(-0.5) - cdf(-3.0),
        (1, 0, 0): cdf(2.0) - cdf(-0.5),
        (0, 0, 0): 1 - cdf(2.0),
    }
    freq = _pattern_frequencies(x, list(exact))
    assert freq.sum() == pytest.approx(1.0)
    _within(freq, list(exact.values()), N)


def _svt2_loop(q, n, epsilon, cutoff, threshold, rng):
    """Lyu et al.'s Alg. 2 written out one output at a time (an independent reference)."""
    out = np.full((n, len(q)), -1, dtype=np.int8)
    for row in range(n):
        rho, tops = rng.laplace(0, 2 * cutoff / epsilon), 0
        for i, qi in enumerate(q):
            if qi + rng.laplace(0, 4 * cutoff / epsilon) >= threshold + rho:
                out[row, i], tops = 1, tops + 1
                if tops == cutoff:
                    break
                rho = rng.laplace(0, 2 * cutoff / epsilon)
            else:
                out[row, i] = 0
    return out


def test_svt2_redraws_the_threshold_like_the_algorithm_written_out() -> None:
    q, n = np.array([1.0, 0.0, 2.0, -1.0]), 40_000
    vectorised = _seeded(bm.SVT2(1.0, cutoff=2)).sample(q, n)
    looped = _svt2_loop(q, n, 1.0, 2, 1.0, np.random.default_rng(7))
    # without the redraw the ⊤ answers are more correlated: a variant that shares rho
    shared = _seeded(bm.SVT1(1.0, cutoff=2, threshold=1.0)).sample(q, n)
    patterns = svt_patterns(4, 2)
    f1, f2 = _pattern_frequencies(vectorised, patterns), _pattern_frequencies(looped, patterns)
    p = (f1 + f2) / 2
    bound = 6 * np.sqrt(p * (1 - p) * 2 / n) + 1e-12
    assert np.all(np.abs(f1 - f2) <= bound)
    f3 = _pattern_frequencies(shared, patterns)
    assert np.any(np.abs(f3 - f2) > bound)  # the comparison would see a missing redraw


def test_svt3_releases_the_noisy_answer_it_compared() -> None:
    a = _seeded(bm.SVT3(0.1))
    q = np.array([2.0, -5.0, 10.0])
    x = a.sample(q, N)
    answered = ~np.isnan(x)
    assert np.all(answered.sum(axis=1) <= 1)  # c = 1
    patterns = svt_patterns(3, 1)
    exact = [_pattern_probability(p, q, 1.0, 20.0, 20.0) for p in patterns]
    ternary = np.where(answered, 1, 0).astype(np.int8)
    ternary[np.cumsum(answered, axis=1) - answered >= 1] = -1
    _within(_pattern_frequencies(ternary, patterns), exact, N)
    # P[first answer at 0 with value <= v] = ∫_{-inf}^{v} f_nu(w - q_0) P[rho <= w - T] dw
    nu, rho = stats.laplace(scale=20), stats.laplace(scale=20)
    for v in (-10.0, 5.0, 30.0):
        p = integrate.quad(lambda w: nu.pdf(w - 2.0) * rho.cdf(w - 1.0), -2000, v, points=[1, 2])[0]
        _within([np.mean(answered[:, 0] & (x[:, 0] <= v))], [p], N)


def test_numerical_svt_answers_and_fresh_value_noise() -> None:
    a = _seeded(bm.NumericalSVT(0.1))  # c = 2: rho ~ Lap(30), nu ~ Lap(120), values Lap(60)
    q = np.array([2.0, -5.0, 10.0])
    x = a.sample(q, N)
    answered = ~np.isnan(x)
    ternary = np.where(answered, 1, 0).astype(np.int8)
    ternary[np.cumsum(answered, axis=1) - answered >= 2] = -1
    patterns = svt_patterns(3, 2)
    exact = [_pattern_probability(p, q, 1.0, 30.0, 120.0) for p in patterns]
    _within(_pattern_frequencies(ternary, patterns), exact, N)
    released = (x - q)[answered]
    assert stats.kstest(released, stats.laplace(scale=60).cdf).pvalue > 1e-4


def test_prefix_sums_are_cumulative_sums_of_laplace_answers() -> None:
    q = np.array([3.0, -1.0, 0.0, 2.0])
    x = _seeded(bm.PrefixSum(0.1)).sample(q, 20_000)
    noise = np.diff(x, axis=1, prepend=0.0) - q
    assert stats.kstest(noise.ravel(), stats.laplace(scale=10).cdf).pvalue > 1e-4


@pytest.mark.parametrize("adapter", [bm.Rappor(), bm.OneTimeRappor()], ids=lambda a: a.name)
def test_rappor_bit_rates_follow_f_p_q(adapter) -> None:
    a = _seeded(adapter)
    x = a.sample(3, N)
    bits = a.bloom(3).astype(bool)
    assert 1 <= bits.sum() <= a.h
    p_star, q_star = a.bit_rates()
    half = a.f / 2
    if isinstance(a, bm.OneTimeRappor):
        assert (p_star, q_star) == pytest.approx((half, 1 - half))
    else:
        assert (p_star, q_star) == pytest.approx((0.4875, 0.5125))
    _within(x.mean(axis=0), np.where(bits, q_star, p_star), N)


@pytest.mark.parametrize("adapter", [bm.Rappor(), bm.OneTimeRappor()], ids=lambda a: a.name)
def test_rappor_claim_is_the_papers_bound_and_is_attained(adapter) -> None:
    # two values whose Bloom filters have h ones each and none in common
    values = range(adapter.domain[0], adapter.domain[1] + 1)
    filters = {v: adapter.bloom(v).astype(bool) for v in values}
    v, w = next(
        (v, w)
        for v in values
        for w in values
        if filters[v].sum() == filters[w].sum() == adapter.h and not np.any(filters[v] & filters[w])
    )
    p_star, q_star = adapter.bit_rates()

    def log_p(report, value):
        rate = np.where(filters[value], q_star, p_star)
        return float(np.sum(np.where(report, np.log(rate), np.log1p(-rate))))

    worst = log_p(filters[v], v) - log_p(filters[v], w)  # the report equal to v's filter
    assert worst == pytest.approx(adapter.theorem_epsilon(), rel=1e-9)
    assert worst <= adapter.epsilon * (1 + 1e-12)  # tight, up to this sum's rounding


# --- why the broken ones are broken ----------------------------------------------------------


def _counts(adapter, x, x_prime, event, n: int, entropy: int = 99) -> tuple[int, int]:
    adapter.seed(entropy)
    a = int(np.sum(event(adapter.sample(x, n))))
    adapter.seed(entropy + 1)
    return a, int(np.sum(event(adapter.sample(x_prime, n))))


def test_report_noisy_max3_value_costs_m_eps_over_2_in_the_left_tail() -> None:
    # all five answers up by 1 (L∞ neighbours): P[max < 1] = 2^-5 vs 2^-5 e^(-5/20)
    a = bm.ReportNoisyMax3(0.1)
    counts = _counts(a, np.ones(5), np.full(5, 2.0), lambda x: x < 1.0, 1_000_000)
    assert _log_ratio_lower(*counts) > a.epsilon  # exact: 0.25 = m eps / 2


def test_report_noisy_max4_value_below_the_largest_answer_is_impossible() -> None:
    a = bm.ReportNoisyMax4(0.1)
    x = np.array([1.0, -99.0, -99.0, -99.0, -99.0])
    counts = _counts(a, x - 1.0, x, lambda out: out < 1.0, 20_000)  # L∞ neighbours
    assert counts[0] > 500 and counts[1] == 0  # P = 0 on one side: epsilon = inf


def test_svt3_released_value_breaks_the_claim_on_the_testers_pair() -> None:
    # epsilon 1 (the violation grows with the number of ⊥ before the released value)
    a = bm.SVT3(1.0)

    def late_low_value(out):
        return np.isnan(out[:, :5]).all(axis=1) & (np.nan_to_num(out[:, 5:], nan=99) <= 2).any(
            axis=1
        )

    counts = _counts(a, np.ones(10), np.r_[np.full(5, 2.0), np.zeros(5)], late_low_value, 200_000)
    assert _log_ratio_lower(*counts) > a.epsilon


def test_svt4_pattern_ratio_reaches_one_plus_six_c_over_four_epsilon() -> None:
    x, x_prime = np.ones(10), np.r_[np.full(5, 2.0), np.zeros(5)]
    pattern = (0, 0, 0, 0, 0, 1, -1, -1, -1, -1)
    exact = [_pattern_probability(pattern, q, 1.0, 4.0, 4 / 3) for q in (x, x_prime)]
    ratio = math.log(exact[0] / exact[1])
    assert 1.7 < ratio <= 1.75  # Lyu et al.: (1 + 6c)/4 eps = 1.75 at c = 1, eps = 1
    a = bm.SVT4(1.0)
    counts = _counts(a, x, x_prime, lambda out: np.all(out == pattern, axis=1), 100_000)
    assert _log_ratio_lower(*counts) > a.epsilon


def test_svt5_pattern_of_the_x_shaped_pair_is_impossible_on_the_other_side() -> None:
    a = bm.SVT5(0.1)
    x, x_prime = np.r_[np.ones(5), np.zeros(5)], np.r_[np.zeros(5), np.ones(5)]
    pattern = np.r_[np.ones(5), np.zeros(5)]  # ⊤ exactly where x is 1: rho in (-1, 0]
    counts = _counts(a, x, x_prime, lambda out: np.all(out == pattern, axis=1), 20_000)
    assert counts[0] > 300 and counts[1] == 0


def test_svt6_pattern_of_the_x_shaped_pair_exceeds_the_claim() -> None:
    x, x_prime = np.r_[np.ones(5), np.zeros(5)], np.r_[np.zeros(5), np.ones(5)]
    pattern = tuple(np.r_[np.ones(5), np.zeros(5)].astype(int))
    exact = [_pattern_probability(pattern, q, 1.0, 2.0, 2.0) for q in (x, x_prime)]
    assert math.log(exact[0] / exact[1]) > 4.0  # at eps = 1 on ten queries
    a = bm.SVT6(1.0)
    counts = _counts(a, x, x_prime, lambda out: np.all(out == pattern, axis=1), 200_000)
    assert _log_ratio_lower(*counts) > a.epsilon


def test_svt34_parallel_svt4_half_exceeds_the_composed_claim() -> None:
    a = bm.SVT34Parallel(2.0)  # halves at 1.0, c = 2

    def alg4_stops_early(out):  # Alg. 4's answers: five ⊥, then two ⊤ by index 7 (halted after)
        alg4 = out[:, 10:]
        return np.all(alg4[:, :5] == 0, axis=1) & np.all(alg4[:, 8:] == -1, axis=1)

    x, x_prime = np.ones(10), np.r_[np.full(5, 2.0), np.zeros(5)]
    counts = _counts(a, x, x_prime, alg4_stops_early, 400_000)
    assert _log_ratio_lower(*counts) > a.epsilon


def test_prefix_sum_with_all_answers_moving_costs_m_epsilon() -> None:
    # every increment above 0.5: (P[Lap > -0.5] / P[Lap > 0.5])^10 = e^0.977 at eps = 0.1
    a = bm.PrefixSum(0.1)

    def rising(out):
        return np.all(np.diff(out, axis=1, prepend=0.0) > 0.5, axis=1)

    counts = _counts(a, np.ones(10), np.zeros(10), rising, 1_000_000)
    assert _log_ratio_lower(*counts) > a.epsilon
    l1 = BY_NAME["benchmark.prefix_sum_l1(eps=0.1)"]
    assert (l1.norm, l1.sensitivity, l1.correct) == ("l1", 1.0, True)
