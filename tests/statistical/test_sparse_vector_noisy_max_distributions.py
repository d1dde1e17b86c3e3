"""Chi-square tests: SVT answer patterns, noisy max with value and noisy top-k against exact pmfs.

Why: the unit tests prove the exact probabilities are private; these check that the samplers
draw from those probabilities.  The whole joint outcome is tested (a pattern, an (index, value)
pair, an ordered k-tuple), coded as an integer and compared with ``gof.chisquare_integer``.

Each test uses a fixed seed and requires p > 1e-4: for a correct sampler a random seed would fail
with probability 1e-4 per test.  Each has a power twin: the same samples against the exact pmf
at a wrong parameter (epsilon x 1.5) must give p < 1e-4; the comment beside it gives the
noncentrality lambda of that alternative and the probability that a correct sampler still fails
it (noncentral chi-square below the 1e-4 critical value).
"""

from __future__ import annotations

import itertools

import gmpy2
import numpy as np
import pytest

from reference_mechanisms.discrete_laplace import discrete_laplace_pmf
from reference_mechanisms.gof import chisquare_integer
from reference_mechanisms.noisy_max import NoisyTopK, ReportNoisyMaxWithValue
from reference_mechanisms.sparse_vector import AboveThreshold, SparseVector

ALPHA = 1e-4


def _pvalue(codes: np.ndarray, probs) -> float:
    p = np.array([float(v) for v in probs])
    return chisquare_integer(codes, p / p.sum(), (0, p.size - 1)).pvalue


# ---------------------------------------------------------------------- sparse vector
def _pattern_codes(x: np.ndarray, patterns: list[tuple[int, ...]]) -> np.ndarray:
    """Each release's position in ``patterns`` (base-3 code of the row, then a lookup)."""
    k = x.shape[1]
    weights = 3 ** np.arange(k, dtype=np.int64)
    lookup = np.full(3**k, -1, dtype=np.int64)
    for i, p in enumerate(patterns):
        lookup[int((np.array(p) + 1) @ weights)] = i
    codes = lookup[(x.astype(np.int64) + 1) @ weights]
    assert codes.min() >= 0  # every release is a possible pattern
    return codes


def _svt_check(make, queries: list[int], n: int, seed: int) -> tuple[float, float]:
    """(p-value at the true epsilon, p-value at 1.5 x epsilon) for the same samples."""
    m = make(1.0)
    patterns = m.patterns(len(queries))
    codes = _pattern_codes(m.sample(queries, n, np.random.default_rng(seed)), patterns)
    right = m.pattern_probabilities(queries)
    wrong = make(1.5).pattern_probabilities(queries)
    return (
        _pvalue(codes, [right[p] for p in patterns]),
        _pvalue(codes, [wrong[p] for p in patterns]),
    )


def test_above_threshold_matches_exact_pmf() -> None:
    p, p_wrong = _svt_check(lambda e: AboveThreshold(e, 2), [0, 1, 3, 2, 4], 50_000, 31)
    assert p > ALPHA  # a correct sampler fails this w.p. 1e-4 (over seeds)
    assert p_wrong < ALPHA  # lambda ~ 1400: a correct sampler passes it w.p. < 1e-100


def test_sparse_vector_cutoff_2_matches_exact_pmf() -> None:
    p, p_wrong = _svt_check(
        lambda e: SparseVector(e, [0, 2, 4, 2, 0], 2, 2), [1, 0, 5, 3, -1], 50_000, 32
    )
    assert p > ALPHA  # a correct sampler fails this w.p. 1e-4 (over seeds)
    assert p_wrong < ALPHA  # lambda ~ 240: passes w.p. ~1e-21


def test_sparse_vector_monotonic_matches_exact_pmf() -> None:
    p, p_wrong = _svt_check(
        lambda e: SparseVector(e, 1, 2, monotonic=True), [0, 1, 2, 1, 0], 50_000, 33
    )
    assert p > ALPHA  # a correct sampler fails this w.p. 1e-4 (over seeds)
    assert p_wrong < ALPHA  # lambda ~ 940: passes w.p. < 1e-100


@pytest.mark.slow
def test_sparse_vector_long_sequence_matches_exact_pmf() -> None:
    # 8 queries, cutoff 3: 93 patterns, 1e6 releases; lambda ~ 2e4 for the wrong pmf
    p, p_wrong = _svt_check(
        lambda e: SparseVector(e, 0, 3), [-2, 1, 0, 3, -1, 2, 0, 1], 1_000_000, 34
    )
    assert p > ALPHA  # a correct sampler fails this w.p. 1e-4 (over seeds)
    assert p_wrong < ALPHA  # lambda ~ 2e4: passes w.p. < 1e-100


# -------------------------------------------------------------- noisy max with its value
def _with_value_probs(m: ReportNoisyMaxWithValue, u: list[int], h: int) -> list:
    """P[code] for code = i (2h + 1) + clip(v - u_i, -h, h) + h: tails pooled at the ends."""
    out = []
    with gmpy2.context(precision=128):
        for p_i in m.index_probabilities(u):
            inner = [discrete_laplace_pmf(o, m.value_scale, 128) for o in range(-h + 1, h)]
            tail = (1 - sum(inner)) / 2  # P[offset <= -h] = P[offset >= h]
            out.extend(p_i * v for v in [tail, *inner, tail])
    return out


def _with_value_codes(x: np.ndarray, u: list[int], h: int) -> np.ndarray:
    off = x["value"] - np.asarray(u, dtype=np.int64)[x["index"]]
    return x["index"] * (2 * h + 1) + np.clip(off, -h, h) + h


@pytest.mark.parametrize(
    ("n", "h"), [(50_000, 12), pytest.param(1_000_000, 30, marks=pytest.mark.slow)]
)
def test_noisy_max_with_value_matches_exact_pmf(n: int, h: int) -> None:
    u = [0, 2, 3, 1]
    m = ReportNoisyMaxWithValue(1.0)
    codes = _with_value_codes(m.sample(u, n, np.random.default_rng(35)), u, h)
    assert _pvalue(codes, _with_value_probs(m, u, h)) > ALPHA  # false failure w.p. 1e-4
    # lambda ~ 1.8e4 at n = 5e4 (more at 1e6): passes the wrong pmf w.p. < 1e-100
    assert _pvalue(codes, _with_value_probs(ReportNoisyMaxWithValue(1.5), u, h)) < ALPHA


# --------------------------------------------------------------------------- noisy top-k
@pytest.mark.parametrize(
    ("u", "k", "n"),
    [
        ([0, 2, 3, 1], 2, 50_000),
        pytest.param([0, 3, 1, 3, 2, -1, 4], 3, 500_000, marks=pytest.mark.slow),
    ],
)
def test_noisy_top_k_matches_exact_pmf(u: list[int], k: int, n: int) -> None:
    m = NoisyTopK(1.0, k)
    rankings = list(itertools.permutations(range(len(u)), k))
    index = {r: i for i, r in enumerate(rankings)}
    x = m.sample(u, n, np.random.default_rng(36))
    codes = np.array([index[tuple(row)] for row in x.tolist()], dtype=np.int64)
    right, wrong = m.probabilities(u), NoisyTopK(1.5, k).probabilities(u)
    assert _pvalue(codes, [right[r] for r in rankings]) > ALPHA  # false failure w.p. 1e-4
    # lambda ~ 3000 (fast case), ~3.5e4 (slow): passes the wrong pmf w.p. < 1e-100
    assert _pvalue(codes, [wrong[r] for r in rankings]) < ALPHA
