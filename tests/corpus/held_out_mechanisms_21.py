# ruff: noqa: SIM108, B905
"""Held-out mechanisms, set 21: private selection that also releases values, and order statistics.

What this is
------------
Sixteen adapters for dp-audit: eight mechanisms, each as a CORRECT adapter (private exactly as
claimed under its declared neighbouring relation, and tight: some pair of neighbours attains
the claim or approaches it in a limit, see the table) and a BROKEN twin that differs from it
by one realistic implementation bug, marked ``# BUG`` beside the line the correct adapter uses
(every mechanism is one class; ``broken=True`` takes the marked branch).  Five vector-query
mechanisms (L-inf, L1 relations; real and integer queries) and three dataset mechanisms
(add/remove, replace), with outputs that are records of named parts (index + gap, ordered
index set + values, ternary answers + values), a real vector, integer vectors and nullable
outputs ("none": index -1, NaN).

How it was written
------------------
Blind: the author read only README.md, docs/writing-an-adapter.md, docs/claims.md and
docs/vector-outputs.md of dp-audit, none of its source, tests or history, and never imported or
ran dp-audit.  (By mistake the author also saw the first 80 lines of
tests/corpus/held_out_mechanisms_20.py, its docstring, after this set's design was fixed; nothing
else of the other held-out sets.)  The module imports numpy and math only.  Real outputs are
rounded to the 2^-20 grid (post-processing of the ideal mechanism); integer outputs use
discrete Laplace noise (difference of two geometrics), exact up to numpy's samplers.  The
exponential mechanisms clip utilities so that no candidate's probability falls below ~1e-9 of
the largest (clipping is 1-Lipschitz, so sensitivities are unchanged), which keeps the
inverse-CDF sampler's float error at a relative 1e-7 of every probability.  Gumbel and
Laplace samplers are numpy's (their deviations from the ideal law sit at probabilities near
1e-16).  Every true value below was computed by the check scripts in /tmp/ho21/ (listed at the
end), independently of this file, from exact pmfs, quadrature or exhaustive enumeration;
smoke_test.py there checks the adapters' own outputs against those pmfs.

Theme
-----
Private selection that also releases values, and order statistics: report-noisy-max with the
free gap (Ding et al. 2019), one-shot Gumbel top-k with noisy counts, the sparse vector
technique releasing gaps or fresh noisy answers above the threshold, a Gaussian top-k with
values, a trimmed mean in bounds, quartiles by an exponential mechanism each, and the most
frequent category chosen among the data-dependent candidates (the categories present), with
a threshold for the candidates the data add.

Mechanisms
----------
=  ==============  ============================  =====================  ============  ==========================  ==========
#  ho21.*          input; relation               output                 claim         bug (broken twin)           broken
=  ==============  ============================  =====================  ============  ==========================  ==========
1  rnm_gap         5 reals; linf 1               record index, gap      eps 1         Lap(1/eps), monotone scale  eps 2
2  topk_counts     6 ints; linf 1                record top3, counts3   eps 1         counts' scale sqrt(k)/eps2  eps 1.549
3  svt_gap         6 ints; linf 1                record index, gap (n)  eps 1         gap from public T           eps 1.5
4  numeric_sparse  8 reals; linf 1               record tern8, vals8    eps 1         answers Lap(1/eps3)         eps 1.4
5  gauss_topk      8 reals; l1 2                 record top3, vals3     rho 0.5       sigma for L2 sqrt 2, not 2  rho 1.0
6  trimmed_mean    reals in [0, 10]; replace     real                   mu 1          Delta of the untrimmed      mu 1.25
7  quantiles_em    ints 0..127; replace          int x3                 eps 1         median utility #below-#abv  eps 1.311
8  mode_select     categories 0..19; add/remove  int (nullable)         (1, 6.7e-4)   threshold 7, not 8          eps inf
=  ==============  ============================  =====================  ============  ==========================  ==========
(linf 1: ||x - x'||_inf <= 1; l1 2: ||x - x'||_1 <= 2; (n): nullable; broken: the true value of
the broken twin in the claim's parameter.  The correct twins' true values are 1, 1, 1, 1,
0.5, 1, 0.983 and 0.9991 (eps at delta): see TRUE_VALUES.)

Each in full (input; output; claim; the bug; true value of the broken twin and the pair it
needs):

1. ``ho21.rnm_gap`` - a vector of 5 real answers (not counting queries: ``monotone`` is not
   declared), L-inf sensitivity 1.  Output: record (index of the noisy max, gap = noisy max -
   noisy runner-up), Laplace noise b = 2/eps on every answer.  Claim eps = 1 (Ding et al.'s
   noisy max with gap: given the other noises, the winner's noise argument moves by <= 2).
   Bug: b = 1/eps, the scale that suffices only for monotone queries.  True eps = 2, the ratio
   of P[index i, gap > t] tending to e^2 as t grows on the pair "winner up 1, the rest down 1"
   (1.98 already at t = 2: P = 0.028 vs 0.2 at base 0).  Correct twin: tends to 1 the same way.
2. ``ho21.topk_counts`` - 6 integer counts (``integer_queries``), L-inf 1, not monotone.
   Output: record (top: the ordered top 3 of q + Gumbel(24), i.e. three peeling exponential
   mechanisms at eps1/3 = 1/12; counts: the three selected counts + fresh discrete Laplace of
   scale k/eps2 = 4).  Claim eps = eps1 + eps2 = 0.25 + 0.75.  Bug: the counts' scale is
   sqrt(k)/eps2 (the L2 sensitivity sqrt(3) of the three counts taken as their L1 one).  True
   eps = 0.25 + 0.75 sqrt(3) = 1.549: the counts alone give 1.299 on any pair moving the three
   selected counts by 1 (events beyond both means); the selection adds up to 0.25 when the
   selected three sit far below the other three and move down while those move up (1.4555 at
   base 0 on "first 3 up, last 3 down").  Correct twin: sup 1.0 in that limit (0.9065 at base 0).
3. ``ho21.svt_gap`` - 6 integer queries, L-inf 1, not monotone; threshold T = 3.  Output: record
   (index of the first query whose noisy answer reaches the noisy threshold, or -1; its gap to
   the noisy threshold, or NaN); AboveThreshold with cutoff 1, threshold noise discrete Laplace
   scale 2/eps, query noise scale 4/eps.  Claim eps = 1 (the gap is free: Ding et al. 2019).
   Bug: the gap is measured from the public threshold T (the noisy answer minus T is
   released), so the noisy answer is released.  True eps = m * eps/4 = 1.5 exactly (6 queries:
   each earlier "below" adds eps/4 through its CDF tail, the answer's own noise eps/4); attained
   e.g. by the pair "first 5 up, last down" at base T for outputs (index 5, value <= 0)
   (P 6.9e-4 vs 1.7e-4 at base T, log ratio 1.42 for the whole event), and by "all up"/"all
   down" at other bases.  Correct twin: 0.943 at base T, tends to 1 (0.99999999 at T+40).
4. ``ho21.numeric_sparse`` - 8 real queries, L-inf 1, not monotone; T = 5; cutoff c = 2.
   Output: record (answers: ternary, 1 above, 0 below, -1 after the second above; values: a
   fresh noisy answer for each "above", NaN elsewhere).  Lyu et al.'s Alg. 1: threshold noise
   Lap(1/eps1) = Lap(5), query noise Lap(2c/eps2) = Lap(10); answers Lap(c/eps3) = Lap(5);
   eps1, eps2, eps3 = 0.2, 0.4, 0.4.  Claim eps = 1.  Bug: the answers get Lap(1/eps3), as if
   one answer were released.  True eps = 0.2 + 0.4 + 2 * 0.4 = 1.4 (sup; the pattern part
   reaches 0.6 when the queries answered "below" sit far above T and move up, the two
   answered "above" far below and move down; the answers add 2/2.5 = 0.8 in their tails).  At
   base T, "first 6 up, last 2 down": 1.3445 (correct 0.9445).
5. ``ho21.gauss_topk`` - 8 real answers, L1 sensitivity 2 (a histogram under replace-one, or
   any vector moved by at most 2 in L1).  Output: record (top: the ordered top 3 of q +
   N(0, sigma^2); values: their noisy values).  sigma = 2.  Claim rho = 0.5 zCDP
   (post-processing of the Gaussian vector; L2 sensitivity 2 when all of the move is on one
   entry).  Bug: sigma = sqrt(2), calibrated to the L2 sensitivity sqrt(2) of a histogram
   under replace (one count down, one up), which an L1 move of 2 does not promise.  True
   rho = 1.0 exactly: one entry moved by 2 that is always the top (x_0 far above the rest),
   its value N(x_0, 2) vs N(x_0 + 2, 2); at base 0 with x' = 2 e_0 the event "top is 0 with value
   > x_0 + 2 + 2 sigma" already reads mu 1.42 (rho 1.01).
6. ``ho21.trimmed_mean`` - n >= 10 reals in [0, 10] (``min_records = 10``; n is public under
   replace).  Output: the 10%-trimmed mean (t = n // 10 records cut at each end) plus
   N(0, sigma^2), sigma = Delta(n)/mu, Delta(n) = 10/(n - 2t).  Claim 1-GDP.  Bug: Delta =
   10/n, the untrimmed mean's sensitivity.  True mu = max_n n/(n - 2t) = 1.25, at n = 10, 20,
   ..., 1000 (1.143 at 16, 1.231 at 64); the pair needs t records at the upper bound already
   (they are trimmed) and one more moved there: e.g. 10 records at 0 and 10 at 10, one 0
   replaced by 10; nine 0s and one 10, a 0 replaced by 10.  All records at one bound with one
   moved to the other bound moves the trimmed mean by 0.
7. ``ho21.quantiles_em`` - n >= 1 integer records in 0..127, replace one.  Output: 3 integers,
   the quartiles p = 0.25, 0.5, 0.75, each by an exponential mechanism over the 128 candidates
   at eps0 = 1/3, utility -|#{x < o} - p n| clipped at -90 (sensitivity 1 under replace).
   Claim eps = 1 by composition.  Bug: the median's utility is -|#{x < o} - #{x > o}|, whose
   sensitivity is 1 under add/remove but 2 under replace.  True eps = 1.311 attained (e.g.
   [2, 2, 3, 3, 3, 3, 126, 127] with 127 replaced by 1), at most 4/3 (the limit of more
   candidates); a simple pair, 10 records at 0 and 10 at 127 with a 0 moved to 127, gives 0.666
   (the correct twin 0.334).  Correct twin: 0.983 attained ([2, 2, 2, 2, 3, 3, 127, 127], 127 -> 1),
   at most 1.
8. ``ho21.mode_select`` - categories 0..19, add/remove one record.  Output: the category with
   the largest noisy count among the categories present (discrete Laplace, scale 1/eps), or
   NaN when that noisy count is below tau.  tau = 1 + ceil(log(delta (1 + p))/log p) = 8,
   p = e^-eps, so a category the added record brings (count 1) wins with probability at most
   P[Z >= 7] = 6.666e-4 <= delta; every other pair is report-noisy-max with a threshold over
   the same monotone counts, eps-DP.  Claim (eps, delta) = (1, 6.7e-4).  Bug: tau = 7
   (forgets that the new category's count is 1).  A category absent from x and held once by x'
   is then released with probability 1.81e-3 by x' and never by x: no eps meets delta = 6.7e-4
   (true eps = inf at that delta; the violation is in delta alone).  The pair: x = {a}, x' =
   {a, c} (one record each of two categories).  Correct twin: eps at delta 0.9991 (counts 7 vs
   8 of one category); pure part 1.0.

Check scripts (in /tmp/ho21/, numpy and scipy only)
---------------------------------------------------
- ``check_rnm_gap.py``: quadrature of p(index, gap) for m = 5 over all 242 sign patterns at 4
  bases; tail ratios P[index 0, gap > t].
- ``check_topk_counts.py``: exact Plackett-Luce log ratios of the ordered top 3 (random bases,
  the limit family, base 0 over all patterns) plus the counts' exact discrete Laplace loss.
- ``check_svt_gap.py``: exact pmfs (sums over the threshold noise) over all 728 sign patterns
  at 7 uniform bases and 3,000 random pairs, for both twins.
- ``check_numeric_sparse.py``: the answer pattern's probability by quadrature over the
  threshold noise (37 patterns), structured and random pairs, the limit family.
- ``check_gauss_topk.py``: the exact pair and a Monte Carlo of one event at two bases.
- ``check_trimmed_mean.py``: the trimmed mean's replace sensitivity by exhaustive enumeration
  of multisets on a 5-value grid (n = 10..20) and 20,000 random real datasets.
- ``check_quantiles_em.py``, ``check_quantiles_em_climb.py``: exact pmfs; structured pairs and
  hill climbs over datasets (adding and removing shared records).
- ``check_mode_select.py``: exact pmfs by enumerating the noise of up to 3 present categories;
  hockey-stick divergences, eps at delta, all count pairs up to 21 with 1 or 2 categories.
- ``smoke_test.py``: import, shapes, dtypes, speed, seed replay, and the adapters' own outputs
  against the pmfs above (chi-square / tail ratios).
- ``dlap.py``: discrete Laplace helpers.

Run: ``dp-audit run --adapter tests/corpus/held_out_mechanisms_21.py:ADAPTERS --out held-out-21``
(not run by the author).
"""

from __future__ import annotations

import math

import numpy as np

GRID = 2.0**20


def _grid(x):
    """Round reals to the 2^-20 grid (post-processing); NaN stays NaN."""
    return np.round(np.asarray(x, dtype=float) * GRID) / GRID


def _dlap(rng, p, size):
    """Discrete Laplace: P[z] proportional to p^|z| (difference of two geometrics)."""
    return rng.geometric(1.0 - p, size) - rng.geometric(1.0 - p, size)


class _Base:
    vectorised = True
    library = "held-out set 21"

    def __init__(self, broken=False):
        self.broken = broken
        self.name = f"ho21.{self.mechanism}.{'broken' if broken else 'correct'}"
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# 1 ------------------------------------------------------------------------------------------
class RNMGap(_Base):
    """Report-noisy-max with the free gap to the runner-up (Ding et al. 2019), Laplace noise."""

    mechanism = "rnm_gap"
    description = "noisy max over 5 answers with the noisy gap to the runner-up"
    epsilon, delta = 1.0, 0.0
    input_kind, norm, sensitivity, query_length = "vector", "linf", 1.0, 5
    output_kind = "record"
    fields = {"index": "index", "gap": "real"}

    def sample(self, query, n):
        q = np.asarray(query, dtype=float)
        m = q.size
        if self.broken:
            scale = 1.0 / self.epsilon  # BUG: the monotone scale; these are not counts
        else:
            scale = 2.0 / self.epsilon
        noisy = q + self._rng.laplace(0.0, scale, size=(n, m))
        part = np.partition(noisy, m - 2, axis=1)
        out = np.empty(n, dtype=[("index", np.int64), ("gap", np.float64)])
        out["index"] = np.argmax(noisy, axis=1)
        out["gap"] = _grid(part[:, m - 1] - part[:, m - 2])
        return out


# 2 ------------------------------------------------------------------------------------------
class TopKCounts(_Base):
    """One-shot Gumbel top-3 (= 3 peeling exponential mechanisms) with fresh noisy counts."""

    mechanism = "topk_counts"
    description = "ordered top 3 of 6 counts by Gumbel noise, with discrete-Laplace counts"
    epsilon, delta = 1.0, 0.0
    input_kind, norm, sensitivity, query_length = "vector", "linf", 1, 6
    integer_queries = True
    k = 3
    eps_select, eps_counts = 0.25, 0.75
    output_kind = "record"
    fields = {"top": ("index_set", 3), "counts": ("integer", 3)}

    def sample(self, query, n):
        q = np.floor(np.asarray(query, dtype=float)).astype(np.int64)  # floor keeps L-inf 1
        m, k = q.size, self.k
        beta = 2.0 * k / self.eps_select  # Gumbel scale: each peel is EM at eps_select / k
        scores = q + self._rng.gumbel(0.0, beta, size=(n, m))
        top = np.argsort(-scores, axis=1)[:, :k]
        if self.broken:
            scale = math.sqrt(k) / self.eps_counts  # BUG: L2 sensitivity sqrt(k) used as the L1 one
        else:
            scale = k / self.eps_counts
        p = math.exp(-1.0 / scale)
        out = np.empty(n, dtype=[("top", np.int64, (k,)), ("counts", np.int64, (k,))])
        out["top"] = top
        out["counts"] = q[top] + _dlap(self._rng, p, (n, k))
        return out


# 3 ------------------------------------------------------------------------------------------
class SVTGap(_Base):
    """AboveThreshold (cutoff 1) releasing the gap between the noisy answer and the noisy
    threshold (Ding et al. 2019: the gap is free); discrete Laplace noise."""

    mechanism = "svt_gap"
    description = "AboveThreshold over 6 integer queries, T = 3, with the noisy gap"
    epsilon, delta = 1.0, 0.0
    input_kind, norm, sensitivity, query_length = "vector", "linf", 1, 6
    integer_queries = True
    threshold = 3
    output_kind = "record"
    fields = {"index": "index", "gap": "integer"}
    nullable = True

    def sample(self, query, n):
        q = np.floor(np.asarray(query, dtype=float)).astype(np.int64)
        m = q.size
        p_rho = math.exp(-self.epsilon / 2)  # threshold: scale 1/eps1, eps1 = eps/2
        p_nu = math.exp(-self.epsilon / 4)  # queries: scale 2c/eps2, c = 1, eps2 = eps/2
        noisy_t = self.threshold + _dlap(self._rng, p_rho, n)
        noisy_q = q + _dlap(self._rng, p_nu, (n, m))
        above = noisy_q >= noisy_t[:, None]
        hit = above.any(axis=1)
        index = np.where(hit, np.argmax(above, axis=1), -1)
        chosen = noisy_q[np.arange(n), np.maximum(index, 0)]
        if self.broken:
            gap = chosen - self.threshold  # BUG: measured from the public threshold
        else:
            gap = chosen - noisy_t
        out = np.empty(n, dtype=[("index", np.int64), ("gap", np.float64)])
        out["index"] = index
        out["gap"] = np.where(hit, gap, np.nan)
        return out


# 4 ------------------------------------------------------------------------------------------
class NumericSparse(_Base):
    """Sparse vector with cutoff c = 2 (Lyu et al. 2017, Alg. 1) that releases a fresh noisy
    answer for every query found above the threshold (Dwork and Roth's NumericSparse)."""

    mechanism = "numeric_sparse"
    description = "SVT, 8 real queries, T = 5, cutoff 2, fresh Laplace answers"
    epsilon, delta = 1.0, 0.0
    input_kind, norm, sensitivity, query_length = "vector", "linf", 1.0, 8
    threshold, cutoff = 5.0, 2
    eps_threshold, eps_queries, eps_answers = 0.2, 0.4, 0.4
    output_kind = "record"
    fields = {"answers": ("ternary", "query"), "values": ("real", "query")}
    nullable = True

    def sample(self, query, n):
        q = np.asarray(query, dtype=float)
        m, c = q.size, self.cutoff
        rho = self._rng.laplace(0.0, 1.0 / self.eps_threshold, size=n)
        nu = self._rng.laplace(0.0, 2.0 * c / self.eps_queries, size=(n, m))
        above = (q + nu) >= (self.threshold + rho)[:, None]
        before = np.cumsum(above, axis=1) - above  # "above" answers before this query
        halted = before >= c
        answers = np.where(halted, -1, above.astype(np.int8)).astype(np.int8)
        if self.broken:
            scale = 1.0 / self.eps_answers  # BUG: c answers share eps_answers; scale must be c/eps
        else:
            scale = c / self.eps_answers
        fresh = q + self._rng.laplace(0.0, scale, size=(n, m))
        out = np.empty(n, dtype=[("answers", np.int8, (m,)), ("values", np.float64, (m,))])
        out["answers"] = answers
        out["values"] = np.where(answers == 1, _grid(fresh), np.nan)
        return out


# 5 ------------------------------------------------------------------------------------------
class GaussTopK(_Base):
    """Gaussian noise on every answer, released as the top 3 with their noisy values."""

    mechanism = "gauss_topk"
    description = "ordered top 3 of 8 answers with values, Gaussian noise, L1 sensitivity 2"
    claim = "zcdp:rho=0.5"
    rho = 0.5
    input_kind, norm, sensitivity, query_length = "vector", "l1", 2.0, 8
    k = 3
    output_kind = "record"
    fields = {"top": ("index_set", 3), "values": ("real", 3)}

    def sample(self, query, n):
        q = np.asarray(query, dtype=float)
        m, k = q.size, self.k
        if self.broken:
            l2 = math.sqrt(2.0)  # BUG: a histogram's L2 under replace, not the L1 ball's
        else:
            l2 = self.sensitivity  # an L1 move of 2 may sit on one entry: L2 sensitivity 2
        sigma = l2 / math.sqrt(2.0 * self.rho)
        noisy = q + self._rng.normal(0.0, sigma, size=(n, m))
        top = np.argsort(-noisy, axis=1)[:, :k]
        out = np.empty(n, dtype=[("top", np.int64, (k,)), ("values", np.float64, (k,))])
        out["top"] = top
        out["values"] = _grid(np.take_along_axis(noisy, top, axis=1))
        return out


# 6 ------------------------------------------------------------------------------------------
class TrimmedMean(_Base):
    """10%-trimmed mean of reals in [0, 10] with Gaussian noise; n is public (replace)."""

    mechanism = "trimmed_mean"
    description = "10%-trimmed mean in [0, 10], Gaussian noise, 1-GDP under replace-one"
    claim = "gdp:mu=1"
    mu = 1.0
    input_kind, domain, neighbours, min_records = "dataset", (0.0, 10.0), "replace", 10
    output_kind = "real"

    def sample(self, query, n):
        lo, hi = self.domain
        x = np.sort(np.clip(np.asarray(query, dtype=float).ravel(), lo, hi))
        size = x.size
        t = size // 10
        kept = size - 2 * t
        mean = x[t : size - t].sum() / kept
        if self.broken:
            delta = (hi - lo) / size  # BUG: the untrimmed mean's sensitivity
        else:
            delta = (hi - lo) / kept
        return _grid(mean + self._rng.normal(0.0, delta / self.mu, size=n))


# 7 ------------------------------------------------------------------------------------------
class QuantilesEM(_Base):
    """Quartiles of integer records in 0..127, one exponential mechanism each (eps/3)."""

    mechanism = "quantiles_em"
    description = "quartiles by the exponential mechanism over 128 candidates, replace-one"
    epsilon, delta = 1.0, 0.0
    input_kind, domain, neighbours = "dataset", (0, 127), "replace"
    output_kind, output_length = "integer", 3
    probs = (0.25, 0.5, 0.75)
    clip = -90.0  # utilities below are clipped (1-Lipschitz): every weight >= e^-15 of the top

    def sample(self, query, n):
        lo, hi = self.domain
        x = np.sort(np.clip(np.rint(np.asarray(query, dtype=float).ravel()), lo, hi))
        size = x.size
        cand = np.arange(lo, hi + 1)
        below = np.searchsorted(x, cand, side="left")  # records < o
        above = size - np.searchsorted(x, cand, side="right")  # records > o
        eps0 = self.epsilon / len(self.probs)
        out = np.empty((n, len(self.probs)), dtype=np.int64)
        for j, p in enumerate(self.probs):
            if self.broken and p == 0.5:
                u = -np.abs(below - above).astype(float)  # BUG: sensitivity 2 under replace
            else:
                u = -np.abs(below - p * size)
            u = np.maximum(u, self.clip)
            w = np.exp(eps0 * (u - u.max()) / 2.0)
            cdf = np.cumsum(w)
            pick = np.searchsorted(cdf, self._rng.random(n) * cdf[-1], side="right")
            out[:, j] = cand[np.minimum(pick, cand.size - 1)]
        return out


# 8 ------------------------------------------------------------------------------------------
class ModeSelect(_Base):
    """The most frequent category among those present (report noisy max, discrete Laplace),
    released only when its noisy count reaches tau; otherwise none (NaN)."""

    mechanism = "mode_select"
    description = "noisy mode over the categories present, thresholded, (1, 6.7e-4)-DP"
    epsilon, delta = 1.0, 6.7e-4
    input_kind, domain, neighbours = "dataset", (0, 19), "add_remove"
    output_kind = "integer"
    nullable = True

    def sample(self, query, n):
        lo, hi = self.domain
        x = np.clip(np.rint(np.asarray(query, dtype=float).ravel()), lo, hi).astype(np.int64)
        counts = np.bincount(x - lo, minlength=hi - lo + 1)
        present = np.flatnonzero(counts)  # the data-dependent candidates, ascending
        p = math.exp(-self.epsilon)
        # a category the new record brings has count 1: its noise must reach tau - 1
        base = math.ceil(math.log(self.delta * (1 + p)) / math.log(p))  # P[Z >= base] <= delta
        if self.broken:
            tau = base  # BUG: forgets the new category's count of 1
        else:
            tau = base + 1
        noisy = counts[present] + _dlap(self._rng, p, (n, present.size))
        win = np.argmax(noisy, axis=1)  # ties: the smallest category
        best = noisy[np.arange(n), win]
        return np.where(best >= tau, (present[win] + lo).astype(float), np.nan)


_CLASSES = (RNMGap, TopKCounts, SVTGap, NumericSparse, GaussTopK, TrimmedMean, QuantilesEM)
_CLASSES += (ModeSelect,)
ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]

TRUE_DETAILS = {
    "ho21.rnm_gap.correct": "eps 1 (Ding et al.'s pointwise bound; tail of P[index, gap > t] -> e^1 on 'winner up, rest down').",
    "ho21.rnm_gap.broken": "eps 2: Lap(1/eps) on non-monotone answers; P[index 0, gap > t] ratio -> e^2 on x = 0, x' = (1,-1,-1,-1,-1) (1.98 at t = 2).",
    "ho21.topk_counts.correct": "eps 1 as a sup: counts 0.75 exactly, selection -> 0.25 when the top 3 sit far below the rest; 0.9065 at base 0.",
    "ho21.topk_counts.broken": "eps 0.25 + 0.75*sqrt(3) = 1.549: counts' discrete Laplace at sqrt(3)/0.75 give 1.299 on any pair moving the 3 selected by 1; 1.4555 at base 0 (first 3 up, last 3 down).",
    "ho21.svt_gap.correct": "eps 1 as a sup: 0.943 at base T on 'first 5 up, last down', -> 1 as the base rises (0.99999999 at T+40).",
    "ho21.svt_gap.broken": "eps 1.5 = m*eps/4 exactly (m = 6): released noisy answer; pair 'first 5 up, last down' at base T, outputs (index 5, value <= 0); also all up / all down.",
    "ho21.numeric_sparse.correct": "eps 1 as a sup (pattern 0.6 in the limit + answers 0.4); 0.9445 at base T on 'first 6 up, last 2 down'.",
    "ho21.numeric_sparse.broken": "eps 1.4 = 0.2 + 0.4 + 2/2.5: answers' Laplace scale 1/eps3 for c = 2 answers; 1.3445 at base T (first 6 up, last 2 down); 1.0 at base T+30 all down.",
    "ho21.gauss_topk.correct": "rho 0.5 exactly: x' = x + 2 e_0 with x_0 always on top; sigma = 2.",
    "ho21.gauss_topk.broken": "rho 1.0 exactly: sigma = sqrt(2); pair x' = x + 2 e_0 (one entry moved by the whole L1 budget), x_0 on top.",
    "ho21.trimmed_mean.correct": "mu 1 exactly: the pair attains Delta(n) (t records at 10 already, one more moved there).",
    "ho21.trimmed_mean.broken": "mu 1.25 = n/(n-2t) at n = 10, 20, ..., e.g. 10 records at 0 and 10 at 10, a 0 replaced by 10.",
    "ho21.quantiles_em.correct": "eps 0.983 attained on the 128-candidate grid ([2,2,2,2,3,3,127,127], 127 -> 1), <= 1 by composition.",
    "ho21.quantiles_em.broken": "eps 1.311 attained ([2,2,3,3,3,3,126,127], 127 -> 1), <= 4/3: median EM at sensitivity 2 under replace; 0.666 on 10 records at 0 and 10 at 127, a 0 -> 127.",
    "ho21.mode_select.correct": "eps 0.9991 at delta 6.7e-4 (one category, counts 7 vs 8); a new category shows with prob <= 6.666e-4.",
    "ho21.mode_select.broken": "eps inf at delta 6.7e-4: x = {a}, x' = {a, c}; x' outputs c with prob 1.81e-3, x never (tau 7 instead of 8).",
}

TRUE_VALUES = {
    "ho21.rnm_gap.correct": 1.0,
    "ho21.rnm_gap.broken": 2.0,
    "ho21.topk_counts.correct": 1.0,
    "ho21.topk_counts.broken": 0.25 + 0.75 * math.sqrt(3.0),
    "ho21.svt_gap.correct": 1.0,
    "ho21.svt_gap.broken": 1.5,
    "ho21.numeric_sparse.correct": 1.0,
    "ho21.numeric_sparse.broken": 1.4,
    "ho21.gauss_topk.correct": 0.5,
    "ho21.gauss_topk.broken": 1.0,
    "ho21.trimmed_mean.correct": 1.0,
    "ho21.trimmed_mean.broken": 1.25,
    "ho21.quantiles_em.correct": 0.983,
    "ho21.quantiles_em.broken": 1.311,
    "ho21.mode_select.correct": 0.9991,
    "ho21.mode_select.broken": math.inf,
}
