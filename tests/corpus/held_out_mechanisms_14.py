# ruff: noqa: SIM108, B905
"""Held-out mechanisms, set 14: user-level privacy with user ids in the records.

What this is
------------
Twelve dataset mechanisms whose records carry a user id (``user_column = 0``) and which bound
each user's contribution themselves, as PipelineDP, Tumult Analytics or Google's DP libraries
do: the privacy unit is the user, and neighbouring datasets add or remove *all* records of
one user, however many.  Each mechanism comes as a CORRECT adapter (private exactly as claimed
at user level, tight or nearly so) and a BROKEN twin that differs by one realistic bug, marked
``# BUG`` beside the correct line.  24 adapters in all.

How it was written
------------------
Blind: the author read only README.md, docs/writing-an-adapter.md, docs/claims.md and
docs/vector-outputs.md of this repository -- no source, tests, bench files or other docs --
and neither imported nor ran dp-audit.  Plain numpy only.  Every real output is rounded to a
2^-20 grid (post-processing).  The true values below were checked with scripts kept in
/tmp/ho14/ (exact sensitivities by enumerating small datasets and added users through the
adapters' own noiseless statistics ``_stat``, exact output pmfs for the exponential-mechanism
ones, exact privacy profiles, and Monte Carlo of these very samplers): see TRUE_DETAILS.

Theme: a user's records may sit in several partitions and repeat; the bound on a user is the
mechanism's own (max_partitions_contributed L0, max_contributions_per_partition Linf, a clip
of the user's total, a cap on a user's records, one value per user, reservoir sampling).

Mechanisms (columns; output; claim).  Every correct one is private as claimed (tight or
nearly: the sup is attained, or approached for the two exponential-mechanism ones); for each
broken twin its true value and what the added user must hold.
-----------------------------------------------------------------------------------------
 1. partition_sum      (id 0..10^6, partition 0..4, value [0,1]); real[5]; zcdp rho=0.5;
                       Gaussian per partition, L0=2, Linf=2.  Broken keeps L0+1 partitions:
                       rho = 0.75 (1.5x); needs 2 records of value 1 in each of 3 partitions.
 2. distinct_users     (id 0..2^40, partition 0..3, item 0..99); integer[4]; pure eps=0.5;
                       distinct users per partition, L0=2, discrete Laplace.  Broken dedups
                       on (user, partition, item): eps = 50; needs 100 distinct items in each
                       of 2 partitions (3 distinct items in one partition already violate).
 3. user_mean          (id 0..100, value [0,10]); record {mean, count}, mean nullable; pure
                       eps=1; cap 6 records/user.  Broken sums 7 records, counts 6: eps =
                       13/12 = 1.083 (subtle); needs >= 7 records of value 10 (copies).
 4. clipped_user_total (id 0..10^9, value [0,4]); real; gdp mu=1; each user's total clipped
                       to [0,2].  Broken clips each record: mu = inf (k copies of 4: mu = k).
 5. histogram          (id 0..1000, bin 0..7); integer[8]; pure eps=2; L0=2, Linf=3,
                       discrete Laplace.  Broken has no L0 bound: eps = 8 (4x); needs 3 rows in
                       each of 8 bins (rows in >= 3 bins violate); copies do not.
 6. partition_select   (id 0..2^40, partition 0..9); real[10], NaN = not selected; approx
                       eps=1, delta=1e-5; Laplace thresholding of distinct users, L0=1.
                       Broken thresholds row counts: eps = inf at delta (k copies of one record
                       in a new partition: released w.p. 0.5 e^-(T-k), T = 11.82).
 7. count_users        (id 0..10^12, day 0..6); integer; zcdp rho=0.125; discrete Gaussian
                       sigma 2.  Broken counts distinct (user, day): rho = 6.125 (49x); needs
                       records on 7 distinct days (2 days: 0.5); copies do not.
 8. top2_partitions    (id 0..63, partition 0..7); integer[2], ordered; pure eps=1; Gumbel
                       top-2 of distinct-user counts, no L0 bound needed (monotone: trap).
                       Broken counts up to 2 rows per user and partition: eps = 2 (sup); needs
                       >= 2 copies of one record, in a partition that already dominates.
 9. user_median        (id 0..10^6, value 0..63); integer; pure eps=0.8; exponential-mechanism
                       median of one value per user (its lower median).  Broken inserts both
                       middle values of an even-sized user: eps = 1.6 (sup); needs an even
                       number >= 2 of records (copies), the rest concentrated (1.56 at 20).
10. sampled_user_sum   (id 0..10^4, value [0,1]); real; pure eps=1; each user's records
                       sampled to a uniform 8-subset per output (Floyd).  Broken keeps 9:
                       eps = 1.125 (subtle); needs >= 9 records of value 1 (copies).
11. per_user_average   (id 0..255, device 0..1, value [0,1]); real[2] (mean, count); gdp mu=1;
                       per-user average, then averaged.  Broken averages per (user, device):
                       mu = sqrt(5/2) = 1.581; needs records of value 1 on both devices.
12. user_total_l2      (id 0..10^6, x [-1,1], y [-1,1]); real[2]; gdp mu=0.5; user's total
                       vector clipped to L2 norm 2.  Broken clips each coordinate to [-2, 2]:
                       mu = 0.707 (1.41x); needs >= 2 copies of a corner such as (1, 1).

Check scripts (not part of the repository): /tmp/ho14/verify_sens.py (sensitivities by
enumeration through _stat), mc_checks.py, floyd_check.py, verify_top2.py, verify_median.py,
verify_select.py, standard_users.py, smoke.py (shapes, dtypes, speed, seed replay).

Run (not run by the author):

    dp-audit run --adapter tests/corpus/held_out_mechanisms_14.py:ADAPTERS --out held-out-14

Measured at the default budget, seed 0 (2026-11-28, after the author handed it over; the
`user_column` contract was new that day): no correct one is a violation, no adapter ends in
error.  Found (certified / true): clipped user total mu 5.05 / inf, distinct users 5.07 / 50
(claim 0.5), histogram 3.19 / 8 (claim 2), partition selection 5.20 / inf, count of users
rho 3.11 / 6.125, top-2 partitions 1.098 / 2, user median 1.08 / 1.6 (claim 0.8), sampled
user sum 1.063 / 1.125, per-user average mu 1.373 / 1.581, user total clipped to a box mu
0.561 / 0.707 (claim 0.5), and, since the first run, the partition sum rho 0.556 / 0.75
(0.090 before: it shows only on a user in three partitions with large values, which users
spread along one column at the upper bound now are).  Missed: the user mean whose sum keeps
7 records where its count keeps 6 (13/12 for a claimed 1; 0.994).
``tests/corpus/labels.toml`` keeps these verdicts.
"""

from __future__ import annotations

import math

import numpy as np

GRID = 2.0**20


def _grid(x):
    """Round to the 2^-20 grid (post-processing)."""
    return np.round(np.asarray(x, dtype=np.float64) * GRID) / GRID


def _records(query, columns):
    """The query as an (m, columns) float64 array."""
    q = np.asarray(query)
    if q.ndim == 1:
        q = q.reshape(-1, columns)
    return q


def _int_col(q, j, lo=None, hi=None):
    """Column j as int64 (ids and keys), clamped to [lo, hi] when given."""
    col = q[:, j]
    if np.issubdtype(col.dtype, np.integer):
        out = col.astype(np.int64)
    else:
        out = np.rint(col.astype(np.float64)).astype(np.int64)
    if lo is not None:
        out = np.clip(out, lo, hi)
    return out


def _real_col(q, j, lo, hi):
    return np.clip(q[:, j].astype(np.float64), lo, hi)


def _users(q):
    """Dense user indices 0..U-1 for the id column 0."""
    return np.unique(_int_col(q, 0), return_inverse=True)[1].reshape(-1)


def _rank_within(group):
    """0-based rank of each element among elements of equal group, in order of appearance."""
    group = np.asarray(group)
    order = np.argsort(group, kind="stable")
    g = group[order]
    idx = np.arange(len(g))
    start = np.ones(len(g), dtype=bool)
    start[1:] = g[1:] != g[:-1]
    first = np.maximum.accumulate(np.where(start, idx, 0))
    rank = np.empty(len(g), dtype=np.int64)
    rank[order] = idx - first
    return rank


def _two_sided_geometric(rng, alpha, size):
    """P[k] proportional to alpha^|k| (discrete Laplace)."""
    p = 1.0 - alpha
    return rng.geometric(p, size).astype(np.int64) - rng.geometric(p, size).astype(np.int64)


_DG_TABLES: dict[float, tuple[np.ndarray, np.ndarray]] = {}


def _discrete_gaussian(rng, sigma, size):
    """Discrete Gaussian N_Z(0, sigma^2) by inverse CDF on [-K, K], K = 40 sigma + 10."""
    if sigma not in _DG_TABLES:
        k = int(40 * sigma) + 10
        support = np.arange(-k, k + 1)
        w = np.exp(-(support.astype(np.float64) ** 2) / (2 * sigma * sigma))
        cdf = np.cumsum(w)
        _DG_TABLES[sigma] = (support, cdf / cdf[-1])
    support, cdf = _DG_TABLES[sigma]
    u = rng.random(size)
    return support[np.minimum(np.searchsorted(cdf, u, side="right"), len(support) - 1)]


def _l0_keep(user, part, n_parts, l0):
    """Boolean mask of records whose (user, partition) is among the user's l0 smallest keys."""
    key = user.astype(np.int64) * n_parts + part
    pairs = np.unique(key)  # sorted by user, then partition
    rank = _rank_within(pairs // n_parts)  # rank among the user's distinct partitions
    return np.isin(key, pairs[rank < l0])


class _Base:
    stem = "base"
    input_kind = "dataset"
    neighbours = "add_remove"
    user_column = 0
    vectorised = True
    library = "held-out set 14"

    def __init__(self, broken: bool = False):
        self.broken = bool(broken)
        self.name = f"ho14.{self.stem}" + (".broken" if broken else "")
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# 1 ------------------------------------------------------------------------------------------
class PartitionSum(_Base):
    """Sum per partition (PipelineDP style): each user keeps its L0 = 2 smallest partition
    keys and its first Linf = 2 records in each; values in [0, 1].  Gaussian noise with
    sigma^2 = 8 on each of the 5 partitions: L2 sensitivity sqrt(L0) * Linf * 1 = sqrt(8),
    rho = 8 / (2 * 8) = 0.5."""

    stem = "partition_sum"
    description = "per-partition sum, L0=2, Linf=2, Gaussian, 0.5-zCDP per user"
    columns = 3
    domain = ((0, 10**6), (0, 4), (0.0, 1.0))
    output_kind = "real"
    output_length = 5
    claim = "zcdp:rho=0.5"
    P, L0, LINF = 5, 2, 2
    SIGMA = math.sqrt(8.0)

    def _stat(self, query):
        q = _records(query, self.columns)
        user = _users(q)
        part = _int_col(q, 1, 0, self.P - 1)
        val = _real_col(q, 2, 0.0, 1.0)
        if self.broken:
            l0 = self.L0 + 1  # BUG: correct is l0 = self.L0 (an off-by-one in the L0 cap)
        else:
            l0 = self.L0
        keep = _l0_keep(user, part, self.P, l0)
        keep &= _rank_within(user.astype(np.int64) * self.P + part) < self.LINF
        return np.bincount(part[keep], weights=val[keep], minlength=self.P)

    def sample(self, query, n):
        s = self._stat(query)
        return _grid(s + self._rng.normal(0.0, self.SIGMA, (n, self.P)))


# 2 ------------------------------------------------------------------------------------------
class DistinctUsers(_Base):
    """Count of distinct users per partition; each user counted in at most L0 = 2 partitions
    (its smallest keys), once in each: L1 sensitivity 2, discrete Laplace of scale 2 / eps."""

    stem = "distinct_users"
    description = "distinct users per partition, L0=2, discrete Laplace, 0.5-DP per user"
    columns = 3
    domain = ((0, 2**40), (0, 3), (0, 99))
    output_kind = "integer"
    output_length = 4
    epsilon, delta = 0.5, 0.0
    P, ITEMS, L0 = 4, 100, 2

    def _stat(self, query):
        q = _records(query, self.columns)
        user = _users(q).astype(np.int64)
        part = _int_col(q, 1, 0, self.P - 1)
        item = _int_col(q, 2, 0, self.ITEMS - 1)
        keep = _l0_keep(user, part, self.P, self.L0)
        pair = user * self.P + part
        triple = pair * self.ITEMS + item
        if self.broken:
            units = np.unique(triple[keep]) // self.ITEMS  # BUG: dedups (user, part, item)
        else:
            units = np.unique(pair[keep])  # correct: one unit per (user, partition)
        return np.bincount(units % self.P, minlength=self.P).astype(np.int64)

    def sample(self, query, n):
        s = self._stat(query)
        alpha = math.exp(-self.epsilon / self.L0)
        return s + _two_sided_geometric(self._rng, alpha, (n, self.P))


# 3 ------------------------------------------------------------------------------------------
class UserMean(_Base):
    """User-level mean: each user's first CAP = 6 records, values in [0, 10]; noisy sum
    (Laplace 60 / (eps/2)) and noisy count (Laplace 6 / (eps/2)); releases the record
    (mean = sum / count, count), mean NaN when the noisy count is below 1."""

    stem = "user_mean"
    description = "user-level mean with a cap of 6 records per user, 1-DP per user"
    columns = 2
    domain = ((0, 100), (0.0, 10.0))
    output_kind = "record"
    fields = {"mean": "real", "count": "real"}
    nullable = True
    epsilon, delta = 1.0, 0.0
    CAP, HI = 6, 10.0

    def _stat(self, query):
        q = _records(query, self.columns)
        rank = _rank_within(_users(q))
        val = _real_col(q, 1, 0.0, self.HI)
        if self.broken:
            total = val[rank <= self.CAP].sum()  # BUG: correct is val[rank < self.CAP]
        else:
            total = val[rank < self.CAP].sum()
        count = float(np.count_nonzero(rank < self.CAP))
        return float(total), count

    def sample(self, query, n):
        total, count = self._stat(query)
        half = self.epsilon / 2
        s = total + self._rng.laplace(0.0, self.CAP * self.HI / half, n)
        c = count + self._rng.laplace(0.0, self.CAP / half, n)
        out = np.empty(n, dtype=[("mean", np.float64), ("count", np.float64)])
        with np.errstate(divide="ignore", invalid="ignore"):
            out["mean"] = np.where(c >= 1.0, _grid(s / np.maximum(c, 1.0)), np.nan)
        out["count"] = _grid(c)
        return out


# 4 ------------------------------------------------------------------------------------------
class ClippedUserTotal(_Base):
    """Sum of per-user totals, each user's total clipped to [0, C = 2]; Gaussian sigma = 2:
    mu = C / sigma = 1."""

    stem = "clipped_user_total"
    description = "sum of per-user totals clipped to [0, 2], Gaussian, 1-GDP per user"
    columns = 2
    domain = ((0, 10**9), (0.0, 4.0))
    output_kind = "real"
    claim = "gdp:mu=1"
    C, SIGMA = 2.0, 2.0

    def _stat(self, query):
        q = _records(query, self.columns)
        user = _users(q)
        val = _real_col(q, 1, 0.0, 4.0)
        if self.broken:
            return float(np.clip(val, 0.0, self.C).sum())  # BUG: clips each record instead
        return float(np.clip(np.bincount(user, weights=val), 0.0, self.C).sum())  # user total

    def sample(self, query, n):
        return _grid(self._stat(query) + self._rng.normal(0.0, self.SIGMA, n))


# 5 ------------------------------------------------------------------------------------------
class Histogram(_Base):
    """Histogram of 8 bins; each user contributes to at most L0 = 2 bins (its smallest) and
    at most Linf = 3 rows per bin: L1 sensitivity 6, discrete Laplace of scale 6 / eps."""

    stem = "histogram"
    description = "histogram, L0=2 bins, Linf=3 per bin, discrete Laplace, 2-DP per user"
    columns = 2
    domain = ((0, 1000), (0, 7))
    output_kind = "integer"
    output_length = 8
    epsilon, delta = 2.0, 0.0
    B, L0, LINF = 8, 2, 3

    def _stat(self, query):
        q = _records(query, self.columns)
        user = _users(q).astype(np.int64)
        b = _int_col(q, 1, 0, self.B - 1)
        keep = _rank_within(user * self.B + b) < self.LINF
        if not self.broken:  # BUG: the broken twin skips this bound on bins per user
            keep &= _l0_keep(user, b, self.B, self.L0)
        return np.bincount(b[keep], minlength=self.B).astype(np.int64)

    def sample(self, query, n):
        alpha = math.exp(-self.epsilon / (self.L0 * self.LINF))
        return self._stat(query) + _two_sided_geometric(self._rng, alpha, (n, self.B))


# 6 ------------------------------------------------------------------------------------------
class PartitionSelect(_Base):
    """Private partition selection by Laplace thresholding: each user kept in one partition
    (L0 = 1, its smallest key); a partition present in the data is released with its noisy
    distinct-user count n + Lap(1/eps) when that exceeds T = 1 + ln(1/(2 delta))/eps, else
    NaN; a partition absent from the data is always NaN."""

    stem = "partition_select"
    description = "partition selection by Laplace thresholding, (1, 1e-5)-DP per user"
    columns = 2
    domain = ((0, 2**40), (0, 9))
    output_kind = "real"
    output_length = 10
    nullable = True
    epsilon, delta = 1.0, 1e-5
    P = 10

    def _stat(self, query):
        q = _records(query, self.columns)
        user = _users(q).astype(np.int64)
        part = _int_col(q, 1, 0, self.P - 1)
        keep = _l0_keep(user, part, self.P, 1)
        if self.broken:
            units = (user * self.P + part)[keep]  # BUG: correct is np.unique(...): users
        else:
            units = np.unique((user * self.P + part)[keep])
        return np.bincount(units % self.P, minlength=self.P).astype(np.float64)

    def sample(self, query, n):
        counts = self._stat(query)
        thr = 1.0 + math.log(1.0 / (2.0 * self.delta)) / self.epsilon
        noisy = counts + self._rng.laplace(0.0, 1.0 / self.epsilon, (n, self.P))
        return np.where((counts > 0) & (noisy > thr), _grid(noisy), np.nan)


# 7 ------------------------------------------------------------------------------------------
class CountUsers(_Base):
    """Number of distinct users (not rows), plus discrete Gaussian noise sigma = 2:
    rho = 1 / (2 sigma^2) = 0.125."""

    stem = "count_users"
    description = "count of distinct users, discrete Gaussian, 0.125-zCDP per user"
    columns = 2
    domain = ((0, 10**12), (0, 6))
    output_kind = "integer"
    claim = "zcdp:rho=0.125"
    SIGMA = 2.0

    def _stat(self, query):
        q = _records(query, self.columns)
        ids = _int_col(q, 0)
        if self.broken:
            return int(len(np.unique(ids * 7 + _int_col(q, 1, 0, 6))))  # BUG: (user, day)
        return int(len(np.unique(ids)))

    def sample(self, query, n):
        return self._stat(query) + _discrete_gaussian(self._rng, self.SIGMA, n)


# 8 ------------------------------------------------------------------------------------------
class Top2Partitions(_Base):
    """The 2 partitions (of 8) with the most distinct users, in order, by Gumbel top-2 with
    P proportional to exp(eps/2 * count) per pick (two picks of 0.5 each).  A user may be in
    every partition: adding a user moves every count by 0 or +1 (monotone), so each pick is
    eps/2-DP without a bound on the partitions per user."""

    stem = "top2_partitions"
    description = "top-2 partitions by distinct users, Gumbel peeling, 1-DP per user"
    columns = 2
    domain = ((0, 63), (0, 7))
    output_kind = "integer"
    output_length = 2
    epsilon, delta = 1.0, 0.0
    P, K = 8, 2

    def _stat(self, query):
        q = _records(query, self.columns)
        user = _users(q).astype(np.int64)
        part = _int_col(q, 1, 0, self.P - 1)
        if self.broken:
            keep = _rank_within(user * self.P + part) < 2  # BUG: up to 2 rows per user, not 1
        else:
            keep = _rank_within(user * self.P + part) < 1
        return np.bincount(part[keep], minlength=self.P).astype(np.float64)

    def sample(self, query, n):
        score = (self.epsilon / self.K) * self._stat(query)
        g = score + self._rng.gumbel(0.0, 1.0, (n, self.P))
        return np.argsort(-g, axis=1)[:, : self.K].astype(np.int64)


# 9 ------------------------------------------------------------------------------------------
class UserMedian(_Base):
    """Exponential-mechanism median over candidates 0..63 of one value per user, the user's
    lower median: utility -|#{x < c} - #{x > c}| (sensitivity 1), P proportional to
    exp(eps u / 2)."""

    stem = "user_median"
    description = "exponential-mechanism median of per-user medians, 0.8-DP per user"
    columns = 2
    domain = ((0, 10**6), (0, 63))
    output_kind = "integer"
    epsilon, delta = 0.8, 0.0
    V = 64

    def _values(self, query):
        q = _records(query, self.columns)
        user = _users(q)
        val = _int_col(q, 1, 0, self.V - 1)
        order = np.lexsort((val, user))
        u, v = user[order], val[order]
        size = np.bincount(u)
        start = np.concatenate(([0], np.cumsum(size)[:-1]))
        lower = start + (size - 1) // 2
        if self.broken:
            upper = start + size // 2  # BUG: correct keeps only the lower median
            return np.concatenate((v[lower], v[upper[size % 2 == 0]]))
        return v[lower]

    def _stat(self, query):
        x = self._values(query)
        cnt = np.bincount(x, minlength=self.V)
        below = np.concatenate(([0], np.cumsum(cnt)[:-1]))
        above = len(x) - below - cnt
        return -np.abs(below - above).astype(np.float64)

    def sample(self, query, n):
        w = self.epsilon * self._stat(query) / 2
        p = np.exp(w - w.max())
        cdf = np.cumsum(p)
        u = self._rng.random(n) * cdf[-1]
        return np.minimum(np.searchsorted(cdf, u, side="right"), self.V - 1).astype(np.int64)


# 10 -----------------------------------------------------------------------------------------
class SampledUserSum(_Base):
    """Sum where each user's records are reservoir-sampled down to CAP = 8 (a fresh uniform
    subset per output, Floyd's algorithm); values in [0, 1]; Laplace of scale 8 / eps."""

    stem = "sampled_user_sum"
    description = "sum with each user's records sampled to 8 per output, 1-DP per user"
    columns = 2
    domain = ((0, 10**4), (0.0, 1.0))
    output_kind = "real"
    epsilon, delta = 1.0, 0.0
    CAP = 8

    def _cap(self):
        if self.broken:
            return self.CAP + 1  # BUG: reservoir of CAP + 1 slots; correct is self.CAP
        return self.CAP

    def _groups(self, query):
        q = _records(query, self.columns)
        user = _users(q)
        val = _real_col(q, 1, 0.0, 1.0)
        order = np.argsort(user, kind="stable")
        size = np.bincount(user)
        return np.split(val[order], np.cumsum(size)[:-1])

    def _stat(self, query):
        """Noiseless sum for the sample of each user that keeps its first cap records."""
        cap = self._cap()
        return float(sum(v[:cap].sum() for v in self._groups(query)))

    def sample(self, query, n):
        cap = self._cap()
        fixed, heavy = 0.0, []
        for v in self._groups(query):
            if len(v) <= cap or np.all(v == v[0]):
                fixed += float(v[:cap].sum())
            else:
                heavy.append(v)
        total = np.full(n, fixed)
        for v in heavy:  # Floyd's algorithm: a uniform cap-subset of len(v), per output
            r = len(v)
            chosen = np.empty((n, cap), dtype=np.int64)
            for i, j in enumerate(range(r - cap, r)):
                t = self._rng.integers(0, j + 1, n)
                dup = (chosen[:, :i] == t[:, None]).any(axis=1) if i else np.zeros(n, bool)
                chosen[:, i] = np.where(dup, j, t)
            total += v[chosen].sum(axis=1)
        return _grid(total + self._rng.laplace(0.0, self.CAP / self.epsilon, n))


# 11 -----------------------------------------------------------------------------------------
class PerUserAverage(_Base):
    """Each user's values (over both devices) averaged, the averages summed (sensitivity 1)
    and the users counted (sensitivity 1); Gaussian sigma = sqrt 2 on each: mu = 1.  Releases
    (sum / max(count, 1), count), a bijection of the two noisy values."""

    stem = "per_user_average"
    description = "average of per-user averages with a noisy user count, 1-GDP per user"
    columns = 3
    domain = ((0, 255), (0, 1), (0.0, 1.0))
    output_kind = "real"
    output_length = 2
    claim = "gdp:mu=1"
    SIGMA = math.sqrt(2.0)

    def _stat(self, query):
        q = _records(query, self.columns)
        user = _users(q).astype(np.int64)
        dev = _int_col(q, 1, 0, 1)
        val = _real_col(q, 2, 0.0, 1.0)
        if self.broken:
            unit = np.unique(user * 2 + dev, return_inverse=True)[1].reshape(-1)  # BUG
        else:
            unit = user  # correct: average over all the user's records, any device
        avg = np.bincount(unit, weights=val) / np.bincount(unit)
        return float(avg.sum()), float(len(np.unique(user)))

    def sample(self, query, n):
        s, c = self._stat(query)
        s = s + self._rng.normal(0.0, self.SIGMA, n)
        c = c + self._rng.normal(0.0, self.SIGMA, n)
        return _grid(np.stack((s / np.maximum(c, 1.0), c), axis=1))


# 12 -----------------------------------------------------------------------------------------
class UserTotalL2(_Base):
    """Sum of per-user total vectors (x, y), each user's total clipped to L2 norm C = 2;
    Gaussian sigma = 4 per coordinate: mu = C / sigma = 0.5."""

    stem = "user_total_l2"
    description = "2-d sum of per-user totals clipped to L2 norm 2, 0.5-GDP per user"
    columns = 3
    domain = ((0, 10**6), (-1.0, 1.0), (-1.0, 1.0))
    output_kind = "real"
    output_length = 2
    claim = "gdp:mu=0.5"
    C, SIGMA = 2.0, 4.0

    def _stat(self, query):
        q = _records(query, self.columns)
        user = _users(q)
        tx = np.bincount(user, weights=_real_col(q, 1, -1.0, 1.0))
        ty = np.bincount(user, weights=_real_col(q, 2, -1.0, 1.0))
        if self.broken:
            tx, ty = np.clip(tx, -self.C, self.C), np.clip(ty, -self.C, self.C)  # BUG: box
        else:
            f = np.minimum(1.0, self.C / np.maximum(np.hypot(tx, ty), 1e-300))
            tx, ty = tx * f, ty * f
        return np.array([tx.sum(), ty.sum()])

    def sample(self, query, n):
        return _grid(self._stat(query) + self._rng.normal(0.0, self.SIGMA, (n, 2)))


_CLASSES = (
    PartitionSum,
    DistinctUsers,
    UserMean,
    ClippedUserTotal,
    Histogram,
    PartitionSelect,
    CountUsers,
    Top2Partitions,
    UserMedian,
    SampledUserSum,
    PerUserAverage,
    UserTotalL2,
)

ADAPTERS = [cls(broken) for cls in _CLASSES for broken in (False, True)]

PRIVATE = "private as claimed"

TRUE_VALUES = {
    "ho14.partition_sum": ("zcdp:rho=0.5", PRIVATE),
    "ho14.partition_sum.broken": ("zcdp:rho=0.5", 0.75),
    "ho14.distinct_users": ("pure:eps=0.5", PRIVATE),
    "ho14.distinct_users.broken": ("pure:eps=0.5", 50.0),
    "ho14.user_mean": ("pure:eps=1", PRIVATE),
    "ho14.user_mean.broken": ("pure:eps=1", 13 / 12),
    "ho14.clipped_user_total": ("gdp:mu=1", PRIVATE),
    "ho14.clipped_user_total.broken": ("gdp:mu=1", float("inf")),
    "ho14.histogram": ("pure:eps=2", PRIVATE),
    "ho14.histogram.broken": ("pure:eps=2", 8.0),
    "ho14.partition_select": ("approx:eps=1,delta=1e-5", PRIVATE),
    "ho14.partition_select.broken": ("approx:eps=1,delta=1e-5", float("inf")),
    "ho14.count_users": ("zcdp:rho=0.125", PRIVATE),
    "ho14.count_users.broken": ("zcdp:rho=0.125", 6.125),
    "ho14.top2_partitions": ("pure:eps=1", PRIVATE),
    "ho14.top2_partitions.broken": ("pure:eps=1", 2.0),
    "ho14.user_median": ("pure:eps=0.8", PRIVATE),
    "ho14.user_median.broken": ("pure:eps=0.8", 1.6),
    "ho14.sampled_user_sum": ("pure:eps=1", PRIVATE),
    "ho14.sampled_user_sum.broken": ("pure:eps=1", 1.125),
    "ho14.per_user_average": ("gdp:mu=1", PRIVATE),
    "ho14.per_user_average.broken": ("gdp:mu=1", math.sqrt(2.5)),
    "ho14.user_total_l2": ("gdp:mu=0.5", PRIVATE),
    "ho14.user_total_l2.broken": ("gdp:mu=0.5", 0.5 * math.sqrt(2.0)),
}

_CHK = "checked in /tmp/ho14/"

TRUE_DETAILS = {
    "ho14.partition_sum": (
        "Each user keeps <= 2 partitions and <= 2 records of value <= 1 in each: the per-"
        "partition move is <= 2 on <= 2 partitions, L2 <= sqrt 8; rho = 8 / (2 * 8) = 0.5, "
        "attained by a user with 2 records of value 1 in each of 2 partitions.  Trap: users "
        "with many records in every partition.  " + _CHK + "verify_sens.py (enumeration of "
        "added users over 15 record kinds up to 4 records, 3000 random users up to 40 records, "
        "through _stat: max L2 move 2.8284), mc_checks.py (sd 2.828, shift (2, 2))."
    ),
    "ho14.partition_sum.broken": (
        "BUG: keeps L0 + 1 = 3 partitions per user: L2 move sqrt(3 * 4) = sqrt 12 against the "
        "calibrated sqrt 8: rho = 12 / 16 = 0.75 (1.5x).  Attained by a user holding 2 records "
        "of value 1 in each of >= 3 partitions (6 records spread over 3 partitions).  Copies of "
        "one record reach only rho 0.25; spread users with spread values stay below 0.05 "
        "(standard_users.py).  verify_sens.py: max L2 move 3.4641; mc_checks.py: rho 0.7508."
    ),
    "ho14.distinct_users": (
        "A user is counted once in each of <= 2 partitions: L1 move <= 2, discrete Laplace "
        "alpha = exp(-0.25) per unit: eps = 0.5, attained by any user with records in >= 2 "
        "partitions.  verify_sens.py (max L1 move 2), mc_checks.py (pmf of the noise)."
    ),
    "ho14.distinct_users.broken": (
        "BUG: dedups on (user, partition, item): a user counts once per distinct item in each "
        "of its 2 kept partitions, up to 100 items: L1 move 200, eps = 200 * 0.25 = 50 (100x). "
        "Attained by a user holding all 100 items in each of 2 partitions (200 distinct "
        "records); r distinct items in kept partitions give 0.25 r, a violation from 3 "
        "distinct items on.  Copies of one record show nothing (0.25); 32 spread records give "
        "4.  verify_sens.py: max L1 move 200."
    ),
    "ho14.user_mean": (
        "Sum of each user's first 6 records (values <= 10: move <= 60, Laplace 120) and count "
        "(move <= 6, Laplace 12): eps = 0.5 + 0.5 = 1; (mean, count) is a bijection of (sum, "
        "count) where count >= 1 (NaN mean below: post-processing), so tight: attained by a "
        "user with >= 6 records of value 10 (copies of one record).  verify_sens.py, "
        "mc_checks.py (scales 119.9 and 12.0, count shift 6)."
    ),
    "ho14.user_mean.broken": (
        "BUG: the sum keeps 7 records (rank <= CAP) while the count keeps 6: eps = 70/120 + "
        "6/12 = 13/12 = 1.0833 (subtle).  Needs >= 7 records of value 10: 32 copies of the "
        "upper bound reach it; 4 copies do not (0.667).  verify_sens.py: max loss 1.08333."
    ),
    "ho14.clipped_user_total": (
        "Each user's total clipped to [0, 2]: move <= 2, sigma 2: mu = 1, attained by any user "
        "whose total is >= 2 (one record of value 2..4).  Trap: users with many records.  "
        "verify_sens.py (max move 2 incl. users of 32 and 1000 records), mc_checks.py."
    ),
    "ho14.clipped_user_total.broken": (
        "BUG: clips each record to [0, 2], not the user's total: a user with k records of "
        "value >= 2 moves the sum by 2k, mu = k, unbounded (inf).  2 copies of the upper bound "
        "give mu 2, 4 copies 4, 32 copies 32.  verify_sens.py (1000 copies: move 2000), "
        "mc_checks.py (4 copies: mu 4.0)."
    ),
    "ho14.histogram": (
        "<= 2 bins per user (its smallest), <= 3 rows per bin: L1 move <= 6, discrete Laplace "
        "alpha = exp(-2/6): eps = 2, attained by a user with >= 3 rows in each of >= 2 bins.  "
        "verify_sens.py (all multisets of 8 bins up to 7 records, random users up to 40)."
    ),
    "ho14.histogram.broken": (
        "BUG: no bound on bins per user (only 3 rows per bin): L1 move up to 8 * 3 = 24, eps = "
        "24 / 3 = 8 (4x).  Attained by a user with 3 rows in each of the 8 bins (24 records "
        "spread); a violation needs rows in >= 3 bins (3 bins x 3 rows: eps 3).  Copies of one "
        "record: 1 (no violation); 32 spread records: 8.  verify_sens.py: max L1 move 24."
    ),
    "ho14.partition_select": (
        "One partition per user, distinct users: a present partition's count moves by 1 "
        "(thresholded Laplace 1/eps: eps at delta 1e-5 is 0.99998, exact profile by "
        "quadrature); a partition the user creates is released w.p. 0.5 exp(-(T - 1)) = 1e-5 "
        "= delta exactly, T = 1 + ln(1/(2 delta)).  Private as claimed and tight (both pairs: "
        "the user alone in a new partition for delta, any user in a present one for eps).  "
        "verify_select.py (moves by enumeration: L1 1; MC release 233 / 2^20*20 = 1.1e-5)."
    ),
    "ho14.partition_select.broken": (
        "BUG: counts the rows of the user's kept partition, not users: a user with k copies "
        "of one record moves a present count by k (eps = k) and releases a partition it "
        "creates w.p. 0.5 exp(-(T - k)): 2e-4 at k = 4, 0.58 at k = 12, 1 - 1e-9 at k = 32, "
        "never without it: eps at delta 1e-5 is inf.  verify_select.py (MC of the sampler "
        "matches the exact release probabilities)."
    ),
    "ho14.count_users": (
        "Distinct ids: move 1; discrete Gaussian sigma 2 has sup_a D_a / a = 1/8 exactly at "
        "integer shift 1 (computed over orders 1.001..200): rho = 0.125, attained by any user. "
        "verify_sens.py, mc_checks.py (pmf and Renyi divergences)."
    ),
    "ho14.count_users.broken": (
        "BUG: counts distinct (user, day): a user active on d days moves the count by d <= 7; "
        "rho = 49 / 8 = 6.125 (49x), attained by a user with records on all 7 days (7 spread "
        "records); copies of one record show nothing, 4 spread records give 2.0.  "
        "verify_sens.py (max move 7), mc_checks.py (rho of shift 7: 6.125)."
    ),
    "ho14.top2_partitions": (
        "Counts of distinct users; a user moves each count by 0 or +1 (monotone), so each "
        "Gumbel pick with P ~ exp(0.5 count) is 0.5-DP and the ordered pair 1-DP with no bound "
        "on partitions per user (trap: a user in all 8 partitions moves nothing).  sup = 1, "
        "approached when the user joins a partition that already dominates (20 users there: "
        "0.9998).  verify_top2.py (252 move vectors by enumeration, all in {0,1}^8; exact pmf "
        "of the ordered top-2; 20000 random count vectors: max 1.0000; MC of the sampler)."
    ),
    "ho14.top2_partitions.broken": (
        "BUG: a user counts up to 2 rows per partition: moves in {0,1,2}^8, each pick "
        "1-DP: sup eps = 2 (2x), approached by a user with >= 2 copies of one record in a "
        "partition that already dominates (20 users: 1.9996; the event is 'that partition "
        "not in the top 2', rare); in an empty partition next to 20 users elsewhere: 0.9999.  "
        "verify_top2.py."
    ),
    "ho14.user_median": (
        "One value per user (its lower median), rank utility of sensitivity 1, EM at eps/2: "
        "sup = 0.8, approached as the other users concentrate (40 users at 63 and a user "
        "holding 0: 0.8000; 20 users at 31: 0.79).  Trap: a user's many records count once.  "
        "verify_median.py (exact pmf; 20000 random datasets and users: <= 0.784)."
    ),
    "ho14.user_median.broken": (
        "BUG: a user with an even number of records inserts both middle values: utility "
        "moves up to 2, sup eps = 1.6 (2x).  Needs >= 2 records (2, 4 or 32 copies of one "
        "value at the lower bound): 20 users at 31 + 2 copies of 0 give 1.561, 40 users at 63 "
        "give 1.6000.  verify_median.py."
    ),
    "ho14.sampled_user_sum": (
        "Per output, each user's records are reduced to a uniform 8-subset (Floyd; checked "
        "uniform by chi-square), so for every draw of the other users' subsets the new user "
        "adds <= 8: Laplace 8 gives eps = 1, attained by a user with >= 8 records of value 1.  "
        "Trap: a user with many distinct values makes the output a mixture.  verify_sens.py, "
        "floyd_check.py, mc_checks.py (scale 8.004, shift 7.99 for 32 copies of 1)."
    ),
    "ho14.sampled_user_sum.broken": (
        "BUG: reservoir of CAP + 1 = 9 slots, noise still for 8: eps = 9/8 = 1.125 (subtle), "
        "attained by a user with >= 9 records of value 1 (32 copies of the upper bound: yes; "
        "4 copies: 0.5).  mc_checks.py (shift 8.99 / scale 8.00)."
    ),
    "ho14.per_user_average": (
        "Sum of per-user averages (move <= 1) and user count (move 1), sigma sqrt 2 each: "
        "mu = sqrt 2 / sqrt 2 = 1; (sum / max(count, 1), count) is a bijection: tight, attained "
        "by any user whose values are all 1.  Trap: a user with records on both devices.  "
        "verify_sens.py (max L2 move 1.4142), mc_checks.py (mu 0.9993)."
    ),
    "ho14.per_user_average.broken": (
        "BUG: averages per (user, device): a user on both devices adds 2 averages and 1 user: "
        "move (2, 1), mu = sqrt 5 / sqrt 2 = 1.581 (1.58x).  Needs records of value 1 on both "
        "devices (2 spread records); copies of one record show nothing.  verify_sens.py "
        "(max L2 move 2.2361), mc_checks.py (mu 1.5805)."
    ),
    "ho14.user_total_l2": (
        "Each user's total vector clipped to L2 norm 2, sigma 4: mu = 0.5, attained by any "
        "user whose total has norm >= 2 (2 copies of a corner).  verify_sens.py (all multisets "
        "of 9 record kinds up to 5 records, random users up to 40), mc_checks.py."
    ),
    "ho14.user_total_l2.broken": (
        "BUG: clips the user's total to the box [-2, 2]^2 instead of the L2 ball: move up to "
        "2 sqrt 2, mu = 0.707 (1.41x).  Needs a total beyond 2 in both coordinates: >= 2 "
        "copies of a corner record such as (1, 1); 1 copy gives 0.354.  verify_sens.py, "
        "mc_checks.py (mu 0.7064)."
    ),
}
