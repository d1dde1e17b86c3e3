# ruff: noqa: SIM108, B905
"""Held-out mechanisms, set 20: noisy statistics with a declared sensitivity.

What this is
------------
Sixteen dataset adapters for dp-audit: eight mechanisms, each as a CORRECT adapter (private
exactly as claimed under its declared neighbouring relation, and tight: some pair of
neighbours attains the claim, or approaches it for the top-3) and a BROKEN twin that differs
from it by one realistic implementation bug, marked ``# BUG`` beside the line the correct
adapter uses. Every mechanism adds noise to a statistic it can also compute without noise,
declares the sensitivity its noise is calibrated to (``sensitivity`` and, for vectors,
``norm``) and, where the output is numbers, exposes that statistic as
``release_without_noise`` through the same code path as ``sample``. A broken twin declares the
sensitivity its (wrong) noise is calibrated to, as a buggy library would.

How it was written
------------------
Blind: the author read only README.md, docs/writing-an-adapter.md, docs/claims.md and
docs/vector-outputs.md of dp-audit, none of its source, tests, other held-out sets or history,
and never imported or ran dp-audit.  The module imports numpy and math only.  Records that
carry real values are clamped to the domain and put on a fixed-point grid of 2^-20 (toward
zero), so every sum is exact integer arithmetic; real outputs are integer sums plus rounded
noise, i.e. on the 2^-20 grid (post-processing of the ideal mechanism).  Integer outputs use
discrete Laplace (difference of two geometrics) or discrete Gaussian noise (Canonne, Kamath
and Steinke's rejection sampler from discrete Laplace), which are exact up to numpy's
floating-point samplers at probabilities far below 1e-12.  The true values below come from the
check scripts in /tmp/ho20/ (listed at the end), which re-derive every sensitivity by
enumeration and every privacy value from exact pmfs, independently of this file.

Theme
-----
Dataset mechanisms that add noise to a statistic they can compute without noise: histograms
and counts by category, vector sums and means of bounded multi-column records, per-group
aggregates, graph and sequence statistics, top counts.  Bugs sit in the statistic (a record
that moves more than assumed, structure among records), the declared sensitivity or its norm,
clamping, and contributions per user.

Mechanisms
----------
=  =====================  ====================  =======  =========  ====================  =========
#  ho20.*                 input; relation       output   claim      bug (broken twin)     broken
=  =====================  ====================  =======  =========  ====================  =========
1  bigram_transitions     events, ordered; a/r  int x9   eps 1      L1 2, not 3           eps 1.5
2  group_sums             (group, value); repl  real x4  mu 1       L2 2, not 2 sqrt 2    mu 1.414
3  clipped_vector_sum     2 reals; a/r          real x2  rdp a/2    coordinate clamp      x 1.25
4  user_category_counts   (user, cat); user     int x5   rho 0.5    cap 4, not 3          rho 0.667
5  top3_counts            category; a/r         record   eps 1      top 3 of true counts  eps inf
6  capped_degrees         edges; a/r            int x6   rho 0.25   L2 sqrt 2, not 2      rho 0.5
7  column_means           2 reals; repl         real x2  (1, 1e-5)  L2 4 (linf), not 5    eps 1.278
8  user_binned_histogram  real; 3/user, repl    int x6   eps 1      L1 2, not 6           eps 3
=  =====================  ====================  =======  =========  ====================  =========
(a/r: add/remove one record; repl: replace one; user: add/remove one user (user_column).
broken: the true value of the broken twin in the claim's parameter; every correct one is
exactly at its claim.  Mechanism 3's claim is eps(alpha) = alpha/2 at alpha = 2..32, and
its broken value a scale of that curve.)

Each in full (input / columns; output; claim; the bug; true value of the broken twin and the
pair it needs):

1. ``ho20.bigram_transitions`` - a sequence of events, 1 integer column in 0..2, read in the
   order given; add/remove one event.  Output: the 9 counts of consecutive pairs (a, b),
   integer, discrete Laplace.  Claim: pure eps = 1, calibrated to L1 sensitivity 3 (an event
   inserted between a and b removes (a, b) and adds (a, x) and (x, b)).  Bug: L1 sensitivity
   taken as 2 ("each event is in two bigrams", forgetting the bigram the insertion breaks).
   True eps 1.5: needs an event x inserted strictly inside the sequence between a and b with
   x not in {a, b}, e.g. [0, 1] -> [0, 2, 1].  At either end an event moves only one count.
2. ``ho20.group_sums`` - records (group, value), group = rint of column 0 in 0..3, value real in
   [0, 2]; replace one record.  Output: the 4 per-group sums, real, Gaussian noise of
   sigma = the declared sensitivity.  Claim:
   1-GDP, L2 sensitivity 2*sqrt(2) (a record of value 2 moving to another group of value 2).
   Bug: L2 sensitivity taken as hi - lo = 2, right only when the replaced record keeps its
   group.  True mu = sqrt(2) = 1.414: needs (g, 2) replaced by (g', 2) with g != g'.
3. ``ho20.clipped_vector_sum`` - records of 2 real columns, (-1, 1) x (-0.5, 0.5); add/remove
   one.  Output: the sum of the records clipped to L2 norm 1, real 2-vector, Gaussian noise
   sigma = 1.  Claim: RDP eps(alpha) = alpha/2 at orders 2, 4, 8, 16, 32 (the Gaussian curve
   of Delta_2 = 1).  Bug: clamps each coordinate to [-1, 1] (np.clip) instead of rescaling the
   record's L2 norm, which leaves a corner record of norm sqrt(1.25).  True RDP scale 1.25
   (every order): needs a record at a corner (+-1, +-0.5) added or removed.
4. ``ho20.user_category_counts`` - records (user id in 0..10^6, category 0..4), user_column =
   0; add/remove one user with all their records.  Each user counts once per category, in
   their first 3 distinct categories (order of appearance).  Output: the 5 counts, integer,
   discrete Gaussian sigma^2 = 3.  Claim: 0.5-zCDP, L2 sensitivity sqrt(3).  Bug: off by one
   in the per-user cap (rank <= 3 instead of < 3): a user keeps 4 categories.  True rho =
   4/6 = 0.667 (1.33x): needs a user holding at least 4 distinct categories.
5. ``ho20.top3_counts`` - records of 1 integer column, categories 0..7; add/remove one.  Output
   (a record): the 3 categories with the largest noisy counts, in order, and those noisy
   counts (discrete Laplace scale 1 on the whole histogram, then post-processing).  Claim:
   pure eps = 1.  No release_without_noise (the docs define it for outputs of numbers).
   Bug: the top 3 are chosen on the TRUE counts, and only their counts are noised.  True eps
   infinite: any pair where one record changes the true top-3 list, e.g. [0, 1, 2, 3] (ties
   broken by index: top (0, 1, 2)) against [0, 1, 2, 3, 3] (top (3, 0, 1)).
6. ``ho20.capped_degrees`` - a graph's edges, 2 integer columns (node ids 0..5); add/remove one
   edge.  Edges are read in the order given and kept greedily while both ends have degree
   below 2 (a streaming degree-cap projection; self-loops dropped).  Output: the 6 projected
   degrees, integer, discrete Gaussian.  Claim: 0.25-zCDP, calibrated to L2 sensitivity 2 (an
   added edge can displace an edge at each end, and both displaced edges can meet at one
   node: its degree moves by 2; the L1 change is at most 2 in all cases).  Bug: L2
   sensitivity taken as sqrt(2) ("an edge touches two nodes"), sigma^2 = 4 instead of 8.
   True rho 0.5 (2x, but only on one structure): the added edge must come before an edge at
   each of its ends, both of which it displaces and whose other ends are one node, e.g.
   [(0,1), (0,1), (0,2)] against [(1,2), (0,1), (0,1), (0,2)] (node 2: degree 0 -> 2), or
   (u,v) first before (u,p), (v,q), (u,a), (v,a) (node a: 2 -> 0).  Pairs that move two
   degrees by 1 (any edge added last) show rho 0.25 only, the claim.
7. ``ho20.column_means`` - records of 2 real columns in [0, 4] x [0, 3]; replace one (the size
   n is public).  Output: the 2 column means, real, Gaussian noise sigma = Delta_2 / (n mu*),
   mu* = 0.26805 the analytic-Gaussian calibration of (1, 1e-5).  Claim: (eps, delta) =
   (1, 1e-5), L2 sensitivity 5 / n (declared for n = 1: 5).  Bug: the vector's L2 sensitivity
   taken as the largest column range (4, the L-infinity norm of the ranges) instead of
   sqrt(4^2 + 3^2) = 5.  True eps 1.278 at delta 1e-5 (mu 0.3351): needs (0, 0) replaced by
   (4, 3) (both columns from one bound to the other).
8. ``ho20.user_binned_histogram`` - a real column in [0, 1] binned into 6 equal bins; each user
   holds up to 3 records (max_contributions = 3), replace one user's records.  Output: 6
   counts, integer, discrete Laplace.  Claim: pure eps = 1, L1 sensitivity per user 6.  Bug:
   noise calibrated to the per-record replace sensitivity 2, not per user.  True eps 3: needs
   the user's 3 records moved from one bin to another.

Check scripts (/tmp/ho20/)
--------------------------
- check_sensitivity.py: exhaustive enumeration of every statistic's change between neighbours
  on small inputs (all sequences up to length 6 with every insertion; record pairs at the
  bounds and between; every user of up to 5 records at 3 positions; every ordered edge list
  of up to 4 edges on 5 nodes with every insertion, 868,065 pairs: L1 <= 2 and L2 <= 2,
  which a token argument proves for any graph), run on independent re-implementations and
  on this file's ``release_without_noise``; the L2 clipping guard on 10^6 random records.
- check_divergences.py: exact privacy values from the pmfs: discrete Laplace losses, the
  discrete Gaussian's sup over alpha of D_alpha / alpha for each shift, the GDP and RDP
  values, and the analytic-Gaussian (eps, delta) of mechanism 7.
- check_samplers.py: Monte Carlo checks that the adapters' outputs follow the intended laws
  (discrete Laplace and discrete Gaussian pmfs by chi-square, the Gaussian's scale in units)
  and the empirical privacy loss of both top-3 twins on their worst pair.
- check_top3_exact.py: the exact pmf of the correct top-3's outputs (ordered list and
  counts) on four neighbouring pairs: largest |log ratio| exactly 1.0, the claim.
- check_pvals.py, check_pvals2.py: chi-square p-values of the two integer samplers over many
  seeds (uniform, as they should be).
- smoke.py: import, attributes, shapes and dtypes, seed replay, release_without_noise against
  the mean of sample, and speed per release.

Run: ``dp-audit run --adapter tests/corpus/held_out_mechanisms_20.py:ADAPTERS --out held-out-20``
(not run by the author).
"""

import math

import numpy as np

UNITS = 2**20  # fixed-point units per 1.0: records and outputs live on the 2^-20 grid
GRID = 2.0**-20


# ---------------------------------------------------------------------------------------
# noise samplers (all randomness from the generator passed in)


def _discrete_laplace(rng, scale, size):
    """P(k) proportional to exp(-|k| / scale), k integer: difference of two geometrics."""
    p = -math.expm1(-1.0 / scale)  # 1 - exp(-1/scale)
    return rng.geometric(p, size) - rng.geometric(p, size)


def _discrete_gaussian(rng, sigma2, size):
    """P(k) proportional to exp(-k^2 / (2 sigma2)), k integer (Canonne-Kamath-Steinke:
    discrete Laplace of scale t = floor(sigma) + 1, accepted with probability
    exp(-(|y| - sigma2/t)^2 / (2 sigma2)))."""
    total = int(np.prod(size))
    t = math.floor(math.sqrt(sigma2)) + 1
    out = np.empty(total, dtype=np.int64)
    filled = 0
    while filled < total:
        m = int(1.5 * (total - filled)) + 32
        y = _discrete_laplace(rng, t, m)
        accept = rng.random(m) < np.exp(-((np.abs(y) - sigma2 / t) ** 2) / (2.0 * sigma2))
        y = y[accept]
        take = min(len(y), total - filled)
        out[filled : filled + take] = y[:take]
        filled += take
    return out.reshape(size)


def _gaussian_units(rng, sigma, size):
    """Gaussian noise of standard deviation sigma, rounded to the 2^-20 grid, in units."""
    return np.rint(rng.standard_normal(size) * (sigma * UNITS)).astype(np.int64)


def _int_column(values, lo, hi):
    """A column that must be whole, clamped to [lo, hi]."""
    return np.clip(np.rint(np.asarray(values, dtype=float)), lo, hi).astype(np.int64)


def _fixed_point(values, lo, hi):
    """Real values clamped to [lo, hi] (bounds on the grid), in units, rounded toward zero."""
    v = np.clip(np.asarray(values, dtype=float), lo, hi)
    return np.trunc(v * UNITS).astype(np.int64)


def _gaussian_delta(eps, mu):
    """delta(eps) of mu-GDP (the Gaussian mechanism's exact privacy profile)."""

    def phi(x):
        return 0.5 * math.erfc(-x / math.sqrt(2.0))

    return phi(-eps / mu + mu / 2) - math.exp(eps) * phi(-eps / mu - mu / 2)


def _analytic_gaussian_mu(eps, delta):
    """The mu whose Gaussian profile passes through (eps, delta) (Balle and Wang 2018)."""
    lo, hi = 1e-6, 50.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _gaussian_delta(eps, mid) > delta:
            hi = mid
        else:
            lo = mid
    return lo  # the smaller end: delta(eps) <= the target


class _Base:
    input_kind = "dataset"
    vectorised = True
    library = "held-out set 20"
    library_version = "1"

    def __init__(self, broken=False):
        self.broken = broken
        self.name = f"ho20.{self.mechanism}.{'broken' if broken else 'correct'}"
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# ---------------------------------------------------------------------------------------
# 1. bigram transition counts of an event sequence


class BigramTransitions(_Base):
    """Counts of consecutive pairs (a, b) of a sequence of events in 0..2, with discrete
    Laplace noise calibrated to L1 sensitivity 3 under add/remove of one event."""

    mechanism = "bigram_transitions"
    domain = (0, 2)
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 9
    norm = "l1"
    epsilon, delta = 1.0, 0.0
    description = "bigram transition counts of an event sequence, discrete Laplace"

    def __init__(self, broken=False):
        super().__init__(broken)
        if broken:
            self.sensitivity = 2  # BUG: "an event is in two bigrams"; insertion breaks a 3rd
        else:
            self.sensitivity = 3

    def _statistic(self, query):
        s = _int_column(np.asarray(query).reshape(-1), 0, 2)
        if len(s) < 2:
            return np.zeros(9, dtype=np.int64)
        return np.bincount(s[:-1] * 3 + s[1:], minlength=9).astype(np.int64)

    def release_without_noise(self, query):
        return self._statistic(query)

    def sample(self, query, n):
        counts = self._statistic(query)
        return counts + _discrete_laplace(self._rng, self.sensitivity / self.epsilon, (n, 9))


# ---------------------------------------------------------------------------------------
# 2. per-group sums under replace-one


class GroupSums(_Base):
    """Sums of a value in [0, 2] per group 0..3 (column 0 rounded), Gaussian noise calibrated
    to the L2 sensitivity of replace-one: 2*sqrt(2) (a record changing group)."""

    mechanism = "group_sums"
    columns = 2
    domain = [(0.0, 3.0), (0.0, 2.0)]
    neighbours = "replace"
    output_kind = "real"
    output_length = 4
    norm = "l2"
    claim = "gdp:mu=1"
    _mu = 1.0
    description = "per-group clamped sums, Gaussian noise on the 2^-20 grid"

    def __init__(self, broken=False):
        super().__init__(broken)
        if broken:
            self.sensitivity = 2.0  # BUG: hi - lo: a record may also change group
        else:
            self.sensitivity = math.sqrt(8.0)

    def _units(self, query):
        q = np.asarray(query, dtype=float).reshape(-1, 2)
        group = _int_column(q[:, 0], 0, 3)
        value = _fixed_point(q[:, 1], 0.0, 2.0)
        # integer-valued float64 weights: the sums are exact below 2^53
        return np.bincount(group, weights=value, minlength=4).astype(np.int64)

    def release_without_noise(self, query):
        return self._units(query) * GRID

    def sample(self, query, n):
        s = self._units(query)
        noise = _gaussian_units(self._rng, self.sensitivity / self._mu, (n, 4))
        return (s + noise) * GRID


# ---------------------------------------------------------------------------------------
# 3. L2-clipped vector sum, RDP


def _l2_clip_units(x, c):
    """Each row scaled to L2 norm at most c, in units, with the norm checked exactly in
    integers (rounding never lets a row out of the ball)."""
    norm = np.sqrt((x * x).sum(axis=1))
    scale = np.minimum(1.0, c / np.maximum(norm, 1e-300))
    u = np.trunc(x * scale[:, None] * UNITS).astype(np.int64)
    limit = (int(c * UNITS)) ** 2
    over = (u * u).sum(axis=1) > limit
    while over.any():
        u[over] -= np.sign(u[over])
        over = (u * u).sum(axis=1) > limit
    return u


class ClippedVectorSum(_Base):
    """Sum of 2-column records clipped to L2 norm 1, Gaussian noise sigma = 1: the RDP curve
    alpha / 2 of the Gaussian mechanism with Delta_2 = 1, under add/remove."""

    mechanism = "clipped_vector_sum"
    columns = 2
    domain = [(-1.0, 1.0), (-0.5, 0.5)]
    neighbours = "add_remove"
    output_kind = "real"
    output_length = 2
    norm = "l2"
    sensitivity = 1.0  # the clipping norm C
    _sigma = 1.0
    claim = "rdp:2=1,4=2,8=4,16=8,32=16"
    description = "L2-clipped vector sum, Gaussian noise on the 2^-20 grid, RDP claim"

    def _units(self, query):
        x = np.asarray(query, dtype=float).reshape(-1, 2)
        x = np.clip(x, [-1.0, -0.5], [1.0, 0.5])
        c = self.sensitivity
        if self.broken:
            u = np.trunc(np.clip(x, -c, c) * UNITS).astype(np.int64)  # BUG: clamps coordinates
        else:
            u = _l2_clip_units(x, c)
        return u.sum(axis=0)

    def release_without_noise(self, query):
        return self._units(query) * GRID

    def sample(self, query, n):
        s = self._units(query)
        return (s + _gaussian_units(self._rng, self._sigma, (n, 2))) * GRID


# ---------------------------------------------------------------------------------------
# 4. per-user bounded category counts (user ids in the records), zCDP


class UserCategoryCounts(_Base):
    """Counts per category 0..4 where each user (column 0) counts once per category and in at
    most 3 categories (their first 3 distinct ones): L2 sensitivity sqrt(3) per user;
    discrete Gaussian sigma^2 = 3 gives 0.5-zCDP."""

    mechanism = "user_category_counts"
    columns = 2
    user_column = 0
    domain = [(0, 10**6), (0, 4)]
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 5
    norm = "l2"
    _max_categories = 3
    sensitivity = math.sqrt(3.0)
    claim = "zcdp:rho=0.5"
    _rho = 0.5
    description = "per-user deduplicated category counts with a cap of 3 categories per user"

    def _statistic(self, query):
        q = np.asarray(query).reshape(-1, 2)
        user = _int_column(q[:, 0], 0, 10**6)
        cat = _int_column(q[:, 1], 0, 4)
        key = user * 5 + cat
        pairs, first = np.unique(key, return_index=True)  # one per (user, category)
        users, cats = pairs // 5, pairs % 5
        order = np.lexsort((first, users))  # by user, then first appearance
        users, cats = users[order], cats[order]
        idx = np.arange(len(users))
        starts = np.r_[True, users[1:] != users[:-1]]
        rank = idx - np.maximum.accumulate(np.where(starts, idx, 0))
        if self.broken:
            keep = rank <= self._max_categories  # BUG: off by one, a user keeps 4 categories
        else:
            keep = rank < self._max_categories
        return np.bincount(cats[keep], minlength=5).astype(np.int64)

    def release_without_noise(self, query):
        return self._statistic(query)

    def sample(self, query, n):
        sigma2 = self.sensitivity**2 / (2 * self._rho)
        return self._statistic(query) + _discrete_gaussian(self._rng, sigma2, (n, 5))


# ---------------------------------------------------------------------------------------
# 5. top-3 categories with their noisy counts


class Top3Counts(_Base):
    """The 3 categories (of 0..7) with the largest noisy counts, in order, with those noisy
    counts: the whole histogram gets discrete Laplace noise of scale 1 (L1 sensitivity 1
    under add/remove), the rest is post-processing."""

    mechanism = "top3_counts"
    domain = (0, 7)
    neighbours = "add_remove"
    output_kind = "record"
    fields = {"top": ("integer", 3), "counts": ("integer", 3)}
    epsilon, delta = 1.0, 0.0
    description = "noisy top-3 categories with their noisy counts"

    def sample(self, query, n):
        c = np.bincount(_int_column(np.asarray(query).reshape(-1), 0, 7), minlength=8)
        noisy = c + _discrete_laplace(self._rng, 1.0 / self.epsilon, (n, 8))
        if self.broken:
            top = np.broadcast_to(np.argsort(-c, kind="stable")[:3], (n, 3))  # BUG: true counts
        else:
            top = np.argsort(-noisy, axis=1, kind="stable")[:, :3]
        out = np.empty(n, dtype=[("top", np.int64, (3,)), ("counts", np.int64, (3,))])
        out["top"] = top
        out["counts"] = np.take_along_axis(noisy, top, axis=1)
        return out


# ---------------------------------------------------------------------------------------
# 6. degrees after a streaming degree-cap projection of a graph


class CappedDegrees(_Base):
    """Degrees of the graph kept by a streaming projection (an edge is kept when both of its
    ends have degree below 2; self-loops dropped), discrete Gaussian noise: 0.25-zCDP with
    L2 sensitivity 2 under add/remove of one edge."""

    mechanism = "capped_degrees"
    columns = 2
    domain = [(0, 5), (0, 5)]
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 6
    norm = "l2"
    _cap = 2
    claim = "zcdp:rho=0.25"
    _rho = 0.25
    description = "node degrees after a greedy degree-cap projection, discrete Gaussian"

    def __init__(self, broken=False):
        super().__init__(broken)
        if broken:
            self.sensitivity = math.sqrt(2.0)  # BUG: "an edge moves two degrees by 1"
        else:
            self.sensitivity = 2.0

    def _statistic(self, query):
        e = _int_column(query, 0, 5).reshape(-1, 2)
        deg = [0] * 6
        cap = self._cap
        for a, b in e.tolist():
            if a != b and deg[a] < cap and deg[b] < cap:
                deg[a] += 1
                deg[b] += 1
        return np.array(deg, dtype=np.int64)

    def release_without_noise(self, query):
        return self._statistic(query)

    def sample(self, query, n):
        sigma2 = self.sensitivity**2 / (2 * self._rho)
        return self._statistic(query) + _discrete_gaussian(self._rng, sigma2, (n, 6))


# ---------------------------------------------------------------------------------------
# 7. column means under replace-one, (eps, delta)


class ColumnMeans(_Base):
    """Means of 2 real columns in [0, 4] x [0, 3] over a public number n of records (replace
    one): L2 sensitivity 5 / n, Gaussian noise from the analytic calibration of (1, 1e-5)."""

    mechanism = "column_means"
    columns = 2
    domain = [(0.0, 4.0), (0.0, 3.0)]
    neighbours = "replace"
    output_kind = "real"
    output_length = 2
    norm = "l2"
    epsilon, delta = 1.0, 1e-5
    description = "column means with public n, analytic Gaussian noise on the 2^-20 grid"

    def __init__(self, broken=False):
        super().__init__(broken)
        self._mu = _analytic_gaussian_mu(self.epsilon, self.delta)  # 0.26805
        if broken:
            self.sensitivity = 4.0  # BUG: the largest column range (L-infinity), not the L2 norm
        else:
            self.sensitivity = math.hypot(4.0, 3.0)  # 5: both columns move from bound to bound

    def _mean_units(self, query):
        q = np.asarray(query, dtype=float).reshape(-1, 2)
        s = _fixed_point(q[:, 0], 0.0, 4.0).sum(), _fixed_point(q[:, 1], 0.0, 3.0).sum()
        return np.array(s, dtype=float) / len(q), len(q)

    def release_without_noise(self, query):
        return self._mean_units(query)[0] * GRID

    def sample(self, query, n):
        mean, m = self._mean_units(query)
        sigma = self.sensitivity / m / self._mu
        z = self._rng.standard_normal((n, 2)) * (sigma * UNITS)
        return np.rint(mean + z) * GRID


# ---------------------------------------------------------------------------------------
# 8. binned histogram of a real column, per user of up to 3 records, replace


class UserBinnedHistogram(_Base):
    """A real value in [0, 1] binned into 6 equal bins; each user holds up to 3 records
    (max_contributions = 3) and a neighbour replaces one user's records: L1 sensitivity 6
    per user, discrete Laplace noise of scale 6 / eps."""

    mechanism = "user_binned_histogram"
    domain = (0.0, 1.0)
    neighbours = "replace"
    max_contributions = 3
    output_kind = "integer"
    output_length = 6
    norm = "l1"
    epsilon, delta = 1.0, 0.0
    description = "binned histogram, user-level replace with 3 records per user"

    def __init__(self, broken=False):
        super().__init__(broken)
        if broken:
            self.sensitivity = 2  # BUG: the per-record replace sensitivity, not per user of 3
        else:
            self.sensitivity = 2 * self.max_contributions

    def _statistic(self, query):
        x = np.clip(np.asarray(query, dtype=float).reshape(-1), 0.0, 1.0)
        bins = np.minimum(np.floor(x * 6).astype(np.int64), 5)
        return np.bincount(bins, minlength=6).astype(np.int64)

    def release_without_noise(self, query):
        return self._statistic(query)

    def sample(self, query, n):
        scale = self.sensitivity / self.epsilon
        return self._statistic(query) + _discrete_laplace(self._rng, scale, (n, 6))


# ---------------------------------------------------------------------------------------

_CLASSES = [
    BigramTransitions,
    GroupSums,
    ClippedVectorSum,
    UserCategoryCounts,
    Top3Counts,
    CappedDegrees,
    ColumnMeans,
    UserBinnedHistogram,
]

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]

TRUE_DETAILS = {
    "ho20.bigram_transitions.correct": (
        "eps 1 exactly: an event inserted between a and b, x not in {a, b}, moves 3 counts by"
        " 1 at scale 3"
    ),
    "ho20.bigram_transitions.broken": (
        "eps 1.5: the same insertion, [0, 1] -> [0, 2, 1], 3 counts moved at scale 2"
    ),
    "ho20.group_sums.correct": (
        "mu 1 exactly: (g, 2) replaced by (g', 2), L2 change 2*sqrt(2) = sigma"
    ),
    "ho20.group_sums.broken": (
        "mu sqrt(2) = 1.414: (g, 2) -> (g', 2), g != g', sigma = 2; same-group replaces reach mu 1"
    ),
    "ho20.clipped_vector_sum.correct": (
        "RDP scale 1 exactly: a record of L2 norm 1, e.g. (1, 0), added"
    ),
    "ho20.clipped_vector_sum.broken": (
        "RDP scale 1.25 at every order: a corner record (+-1, +-0.5), norm^2 1.25, added"
    ),
    "ho20.user_category_counts.correct": (
        "rho 0.5 exactly: a user in >= 3 distinct categories added (3 counts +1, sigma^2 3)"
    ),
    "ho20.user_category_counts.broken": (
        "rho 2/3 = 0.667: a user in >= 4 distinct categories added (4 counts +1)"
    ),
    "ho20.top3_counts.correct": (
        "eps 1: post-processing of a noisy histogram of scale 1; reached when the changed "
        "category is always in the top 3"
    ),
    "ho20.top3_counts.broken": (
        "eps infinite: the top-3 list is a function of the true counts; [0,1,2,3] vs [0,1,2,3,3]"
    ),
    "ho20.capped_degrees.correct": (
        "rho 0.25 exactly: an added edge first in the order displaces an edge at each end and"
        " both land on one node: [(0,1),(0,1),(0,2)] vs [(1,2),(0,1),(0,1),(0,2)] moves node "
        "2 by 2, sigma^2 8"
    ),
    "ho20.capped_degrees.broken": (
        "rho 0.5: the same ordered pair, sigma^2 4; pairs that move two nodes by 1 (any edge "
        "added last) show 0.25 only"
    ),
    "ho20.column_means.correct": (
        "eps 1 at delta 1e-5 exactly (mu 0.26805): (0, 0) replaced by (4, 3), any n"
    ),
    "ho20.column_means.broken": (
        "eps 1.27837 at delta 1e-5 (mu 0.33506 = 1.25 x 0.26805): (0, 0) replaced by (4, 3)"
    ),
    "ho20.user_binned_histogram.correct": (
        "eps 1 exactly: a user's 3 records moved from one bin to another (L1 6, scale 6)"
    ),
    "ho20.user_binned_histogram.broken": (
        "eps 3: a user's 3 records moved from one bin to another at scale 2"
    ),
}

TRUE_VALUES = {
    "ho20.bigram_transitions.correct": 1.0,
    "ho20.bigram_transitions.broken": 1.5,
    "ho20.group_sums.correct": 1.0,
    "ho20.group_sums.broken": math.sqrt(2.0),
    "ho20.clipped_vector_sum.correct": 1.0,
    "ho20.clipped_vector_sum.broken": 1.25,
    "ho20.user_category_counts.correct": 0.5,
    "ho20.user_category_counts.broken": 2.0 / 3.0,
    "ho20.top3_counts.correct": 1.0,
    "ho20.top3_counts.broken": math.inf,
    "ho20.capped_degrees.correct": 0.25,
    "ho20.capped_degrees.broken": 0.5,
    "ho20.column_means.correct": 1.0,
    "ho20.column_means.broken": 1.27837,  # eps at delta = 1e-5
    "ho20.user_binned_histogram.correct": 1.0,
    "ho20.user_binned_histogram.broken": 3.0,
}
