# ruff: noqa: SIM108, B905
"""Held-out mechanisms, set 19: one record's influence set by the other records present.

What this is
------------
Sixteen dataset adapters (eight mechanisms, each as a CORRECT adapter and a BROKEN twin) for
checking dp-audit against mechanisms its authors have never seen.  Every correct adapter is
private exactly as claimed under its declared neighbouring relation, and its claim is tight
(or nearly so, in a limit) on some neighbouring pair.  Every broken twin differs from its
correct adapter by ONE realistic implementation bug, marked `# BUG` beside the line; each bug
is a sensitivity or noise-scale mistake that shows only on datasets with a particular
arrangement of several records (never on one record added to unrelated ones, never on copies
of one value).

How it was written
------------------
Blind: the author read only README.md, docs/writing-an-adapter.md, docs/claims.md and
docs/vector-outputs.md of dp-audit; no source, tests, other bench files or git history.  The
module imports numpy and math only.  dp-audit was neither imported nor run.  Every
sensitivity was checked by exhaustive enumeration of small datasets (and random search on
larger ones) against a brute-force reference written independently of the vectorised code,
and the noise calibration by exact formulas; the check scripts are in /tmp/ho19/ (listed
below).  All real outputs are rounded to a 2^-20 grid (post-processing); integer statistics
get two-sided geometric (discrete Laplace) noise.

Theme
-----
Group-by aggregates with per-key caps, de-duplication by a key, sessions and runs in ordered
data, a nearest-neighbour count, a frequency rank (each customer's favourite category),
winsorising by the data's own order statistics, and a join between two columns of one table.

Mechanisms (m = records, columns as named; B = broken twin)
---------------------------------------------------------
1. tier_cap_histogram -- (customer 0..9999, tier 0..7), add/remove.  Each customer counts in
   at most its 2 highest DISTINCT tiers; histogram of the 8 tiers + N(0, sigma^2) per bin,
   real[8].  Claim gdp:mu=1, sigma = sqrt(2) (an added record can displace a customer's
   lower kept tier: -1 in one bin, +1 in another, L2 = sqrt(2)).  B: sigma = 1 (L2 taken as
   1, "one record, one bin").  True mu(B) = sqrt(2) = 1.414; pair: a customer holding two
   distinct tiers a < b, add a record of a third tier c > a.  The correct claim is tight only
   on such a displacement pair (a new customer moves one bin: mu 0.71).
2. session_duration -- timestamps (minutes 0..1439), add/remove.  Sessions split where the
   gap > 30; release total session duration (sum of the within-session gaps) +
   N(0, sigma^2), real.  Claim gdp:mu=1, sigma = 60 (Delta = 2g: one event can bridge two
   sessions 2g apart).  B: sigma = 30 (Delta = g, "one event extends a session by at most
   g").  True mu(B) = 2.0; pair: two sessions whose ends are 60 apart (e.g. {100, 160}),
   add 130.  The correct claim is tight only on that bridging pair.
3. referral_credit -- (user 0..999, referrer 0..999), add/remove, a self-join: a referrer
   is credited with its distinct referred users (self-referrals dropped), at most 3, but only
   if the referrer itself appears as a user; release the total + N(0, sigma^2), real.
   Claim (eps, delta) = (1, 1e-5), analytic-Gaussian sigma for Delta = 4 = cap + 1 (a new
   user row both earns its referrer a credit and makes up to 3 pending credits of its own
   count).  B: sigma for Delta = 3 (the cap alone).  True eps(B) at delta 1e-5 = 1.3728;
   pair: 3 distinct users referred by u (u not yet a user) and r a user with < 3 credits,
   add (u, r).  Correct tight only on such a pair.
4. colocation_count -- (x 0..63, y 0..63) grid cells, add/remove.  Number of records with
   another record within Chebyshev distance 2; + N(0, sigma^2), real.  Claim
   rdp:2=0.5,4=1,8=2,16=4 (rho = 0.25), sigma = 5/sqrt(0.5) (Delta = 5: a new point can
   un-isolate one isolated point per quadrant, 4, and counts itself).  B: Delta = 4 (forgets
   the new point itself).  True RDP scale(B) = 25/16 = 1.5625; pair: four isolated points at
   the corners (x+-2, y+-2), add the centre.  Correct tight only on that pair.
5. favourite_category -- (customer 0..9999, category 0..5), add/remove.  Customers with at
   least 2 records get a favourite (their modal category, ties to the smallest); release the
   argmax of the favourites' histogram by the exponential mechanism (Gumbel-max), integer.
   Claim pure eps=1, weights exp(eps h / 2) (a record can MOVE a customer's favourite: -1
   and +1, not monotone).  B: weights exp(eps h) (report-noisy-max calibrated for monotone
   counts).  True eps(B) = 2.0 (supremum, approached when one category dominates); pair: a
   customer holding {a, b} (favourite a < b) among many customers favouring a, add (c, b).
   The correct claim's sup eps = 1 is approached on the same kind of pair.
6. outage_minutes -- (time 0..1439, status 0/1 = ok/failed health check), add/remove, read in
   time order (ties: ok first).  An outage is a run of >= 3 consecutive failed checks;
   release the number of failed checks inside outages + two-sided geometric, integer.
   Claim pure eps=0.5, Delta = 4 (removing the one ok check between two runs of 2 failed
   checks makes one outage of 4).  B: Delta = 3 (the run-length threshold: "one check turns
   a run of 2 into an outage of 3").  True eps(B) = 0.5 * 4/3 = 0.6667; pair: failed,
   failed, ok, failed, failed in time order with the ok check removed.  Correct tight only
   on that pair.
7. store_reach_suppressed -- (customer 0..9999, store 0..3), REPLACE one record.  Distinct
   customers per store, suppressed to 0 below 5 (small-cell rule); + N(0, sigma^2) per store,
   real[4].  Claim zcdp:rho=0.5, sigma = 5*sqrt(2)/sqrt(2 rho) = 7.071 (a replacement can drop
   one store from 5 to 4 -> 0 and lift another from 4 to 5: L2 = 5 sqrt(2)).  B: sigma =
   5/sqrt(2 rho) = 5 (the add/remove L2 of 5 used under replace).  True rho(B) = 1.0; pair:
   store A with exactly 5 distinct customers, one of them seen once, store B with 4, move
   that record to a new customer at B.  Correct tight only on such a pair.
8. winsorised_donations -- donations (whole dollars 0..100), add/remove.  The 2 largest
   donations are lowered to the 3rd largest (with fewer than 3 donations, every one is lowered
   to the least); release the winsorised sum + two-sided geometric, integer.  Claim
   pure eps=2, Delta = 300 = (t+1)B (a new top donation raises the winsorising level from 0
   to 100 for t records and itself counts).  B: Delta = 200 = tB.  True eps(B) = 3.0; pair:
   {0, 100, 100} add 100 (0 -> 300; copies of one value move it by at most 200).  Correct
   tight only on such a pair.

Check scripts (in /tmp/ho19/)
-----------------------------
- analytic.py: analytic-Gaussian sigma for mechanism 3 and the broken twin's eps at 1e-5.
- sens_enum.py: exhaustive enumeration on small domains (and random search on larger ones)
  of every statistic's sensitivity under the declared relation, with brute-force reference
  implementations; checks that the adapters' vectorised statistics equal the references on
  random datasets; reports the worst pairs.
- em_exact.py: mechanism 5: every move of the favourites' histogram over all small datasets
  (at most one +1 and one -1; no swap from copies of one record), the exact
  exponential-mechanism loss on the structured pair as the dominant category grows
  (correct 0.98 -> 1, broken 1.97 -> 2) and on random histograms (correct never above 1).
- noise_check.py: each adapter's true value recomputed from its own noise parameters and the
  enumerated sensitivities (Gaussian mu / rho / RDP scale, analytic-Gaussian profile, two-sided
  geometric eps = Delta / scale), matched against TRUE_VALUES; Monte Carlo check of every
  noise scale and of the exponential mechanism's selection frequencies.
- smoke.py: import, shapes, dtypes, seed replay, speed.

Run: dp-audit run --adapter tests/corpus/held_out_mechanisms_19.py:ADAPTERS --out held-out-19
(not run by the author).

Measured at the default budget, seed 0, all sixteen audited together (2026-12-02, after the
author handed it over; written after the climbs over datasets were designed, to test them
blind): no correct one is a violation, no adapter ends in error.  Without the climbs (the
fixed and random pairs alone) no broken twin was found.  With them, six of eight, certified
/ true: tier_cap_histogram mu 1.095 / 1.414, session_duration mu 1.374 / 2,
favourite_category eps 1.06 / 2, outage_minutes eps 0.504 / 0.667 (claim 0.5),
store_reach_suppressed rho 0.598 / 1, winsorised_donations eps 2.18 / 3.  Missed:
referral_credit eps 0.12 / 1.373 at delta 1e-5 (an analytic Gaussian, four records in one
arrangement) and colocation_count (RDP scale 0.047 / 1.5625: four isolated points at the
corners around a new one on a 64 x 64 grid).  The correct twins rose toward their claims
(session_duration mu 0.27 -> 0.63, tier_cap_histogram 0.47 -> 0.74, winsorised_donations
eps 0.49 -> 1.61, store_reach_suppressed rho 0 -> 0.19).
"""

import math

import numpy as np

_GRID = float(2**20)


def _grid(v):
    """Round real outputs to a 2^-20 grid (post-processing)."""
    return np.round(np.asarray(v, dtype=np.float64) * _GRID) / _GRID


def _geometric2(rng, scale, size):
    """Two-sided geometric (discrete Laplace) noise, P(k) proportional to exp(-|k| / scale)."""
    q = 1.0 - math.exp(-1.0 / scale)
    return rng.geometric(q, size).astype(np.int64) - rng.geometric(q, size).astype(np.int64)


def _records(query, domain):
    """(m, c) integer records, clipped to the declared domain (a no-op on valid datasets)."""
    c = len(domain)
    q = np.asarray(query, dtype=np.float64).reshape(-1, c)
    out = np.empty(q.shape, dtype=np.int64)
    for j, (lo, hi) in enumerate(domain):
        out[:, j] = np.clip(np.rint(q[:, j]), lo, hi).astype(np.int64)
    return out


def _values(query, lo, hi):
    q = np.asarray(query, dtype=np.float64).reshape(-1)
    return np.clip(np.rint(q), lo, hi).astype(np.int64)


def _phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def _analytic_gaussian_mu(eps, delta):
    """Largest mu whose Gaussian privacy profile has delta(eps) <= delta (Balle & Wang 2018)."""

    def d(mu):
        return _phi(mu / 2 - eps / mu) - math.exp(eps) * _phi(-mu / 2 - eps / mu)

    lo, hi = 1e-6, 50.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if d(mid) > delta:
            hi = mid
        else:
            lo = mid
    return lo  # d(lo) <= delta: on the safe side


class _Adapter:
    input_kind = "dataset"
    library = "held-out set 19"
    vectorised = True

    def __init__(self, broken=False):
        self.broken = broken
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# 1 ------------------------------------------------------------------------------------------
class TierCapHistogram(_Adapter):
    """Histogram of plan tiers; each customer counts in its 2 highest distinct tiers."""

    columns = 2
    domain = ((0, 9999), (0, 7))
    neighbours = "add_remove"
    output_kind = "real"
    output_length = 8
    claim = "gdp:mu=1"
    TIERS, CAP, MU = 8, 2, 1.0

    def __init__(self, broken=False):
        super().__init__(broken)
        self.name = "ho19.tier_cap_histogram." + ("broken" if broken else "correct")
        if broken:
            self._sigma = 1.0 / self.MU  # BUG: L2 sensitivity taken as 1 (no displacement)
        else:
            self._sigma = math.sqrt(2.0) / self.MU

    def statistic(self, query):
        r = _records(query, self.domain)
        keys = np.unique(r[:, 0] * self.TIERS + r[:, 1])  # distinct (customer, tier), sorted
        cust, tier = keys // self.TIERS, keys % self.TIERS
        # a row is dropped when the same customer has CAP more rows after it (higher tiers)
        later = np.full(len(cust), -1, dtype=np.int64)
        later[: max(len(cust) - self.CAP, 0)] = cust[self.CAP :]
        keep = cust != later
        return np.bincount(tier[keep], minlength=self.TIERS).astype(np.int64)

    def sample(self, query, n):
        h = self.statistic(query).astype(np.float64)
        return _grid(h + self._rng.normal(0.0, self._sigma, size=(n, self.TIERS)))


# 2 ------------------------------------------------------------------------------------------
class SessionDuration(_Adapter):
    """Total session duration of event timestamps; a gap > 30 minutes starts a new session."""

    domain = (0, 1439)
    neighbours = "add_remove"
    output_kind = "real"
    claim = "gdp:mu=1"
    GAP, MU = 30, 1.0

    def __init__(self, broken=False):
        super().__init__(broken)
        self.name = "ho19.session_duration." + ("broken" if broken else "correct")
        if broken:
            self.sensitivity = self.GAP  # BUG: one event only extends a session by <= g
        else:
            self.sensitivity = 2 * self.GAP
        self._sigma = self.sensitivity / self.MU

    def release_without_noise(self, query):
        t = np.sort(_values(query, *self.domain))
        gaps = np.diff(t)
        return int(gaps[gaps <= self.GAP].sum())

    def sample(self, query, n):
        s = float(self.release_without_noise(query))
        return _grid(s + self._rng.normal(0.0, self._sigma, size=n))


# 3 ------------------------------------------------------------------------------------------
class ReferralCredit(_Adapter):
    """Credited referrals: distinct users referred by r (capped at 3), for referrers r that
    are users themselves (a join of the referrer column with the user column)."""

    columns = 2
    domain = ((0, 999), (0, 999))
    neighbours = "add_remove"
    output_kind = "real"
    epsilon, delta = 1.0, 1e-5
    CAP, IDS = 3, 1000

    def __init__(self, broken=False):
        super().__init__(broken)
        self.name = "ho19.referral_credit." + ("broken" if broken else "correct")
        if broken:
            self.sensitivity = self.CAP  # BUG: forgets the new row's own credit to its referrer
        else:
            self.sensitivity = self.CAP + 1
        self._sigma = self.sensitivity / _analytic_gaussian_mu(self.epsilon, self.delta)

    def release_without_noise(self, query):
        r = _records(query, self.domain)
        users = np.bincount(r[:, 0], minlength=self.IDS) > 0
        pairs = r[r[:, 0] != r[:, 1]]  # self-referrals earn nothing
        keys = np.unique(pairs[:, 0] * self.IDS + pairs[:, 1])
        referred = np.bincount(keys % self.IDS, minlength=self.IDS)
        return int(np.minimum(referred, self.CAP)[users].sum())

    def sample(self, query, n):
        s = float(self.release_without_noise(query))
        return _grid(s + self._rng.normal(0.0, self._sigma, size=n))


# 4 ------------------------------------------------------------------------------------------
class ColocationCount(_Adapter):
    """Number of check-ins with another check-in within Chebyshev distance 2 (grid cells)."""

    columns = 2
    domain = ((0, 63), (0, 63))
    neighbours = "add_remove"
    output_kind = "real"
    claim = "rdp:2=0.5,4=1,8=2,16=4"  # rho = 0.25: eps(alpha) = alpha / 4
    R, SIDE, RHO = 2, 64, 0.25

    def __init__(self, broken=False):
        super().__init__(broken)
        self.name = "ho19.colocation_count." + ("broken" if broken else "correct")
        if broken:
            self.sensitivity = 4  # BUG: one isolated neighbour per quadrant, not the point itself
        else:
            self.sensitivity = 5
        self._sigma = self.sensitivity / math.sqrt(2.0 * self.RHO)

    def release_without_noise(self, query):
        r = _records(query, self.domain)
        side, rad = self.SIDE, self.R
        grid = np.bincount(r[:, 0] * side + r[:, 1], minlength=side * side).reshape(side, side)
        c = np.zeros((side + 1, side + 1), dtype=np.int64)
        c[1:, 1:] = grid.cumsum(0).cumsum(1)
        lo = np.clip(np.arange(side) - rad, 0, side)
        hi = np.clip(np.arange(side) + rad + 1, 0, side)
        window = c[hi][:, hi] - c[lo][:, hi] - c[hi][:, lo] + c[lo][:, lo]
        return int(grid[window >= 2].sum())  # window counts the record itself

    def sample(self, query, n):
        s = float(self.release_without_noise(query))
        return _grid(s + self._rng.normal(0.0, self._sigma, size=n))


# 5 ------------------------------------------------------------------------------------------
class FavouriteCategory(_Adapter):
    """Most popular favourite category among repeat customers (exponential mechanism)."""

    columns = 2
    domain = ((0, 9999), (0, 5))
    neighbours = "add_remove"
    output_kind = "integer"
    epsilon, delta = 1.0, 0.0
    CATS = 6

    def __init__(self, broken=False):
        super().__init__(broken)
        self.name = "ho19.favourite_category." + ("broken" if broken else "correct")
        if broken:
            self._weight = self.epsilon  # BUG: monotone-count calibration; a favourite can move
        else:
            self._weight = self.epsilon / 2.0

    def statistic(self, query):
        r = _records(query, self.domain)
        keys, counts = np.unique(r[:, 0] * self.CATS + r[:, 1], return_counts=True)
        cust, cat = keys // self.CATS, keys % self.CATS
        order = np.lexsort((cat, -counts, cust))  # per customer: most records, then smallest
        cust, cat = cust[order], cat[order]
        first = np.ones(len(cust), dtype=bool)
        first[1:] = cust[1:] != cust[:-1]
        per_customer = np.bincount(r[:, 0], minlength=10000)
        fav = cat[first & (per_customer[cust] >= 2)]
        return np.bincount(fav, minlength=self.CATS).astype(np.int64)

    def sample(self, query, n):
        h = self.statistic(query).astype(np.float64)
        g = self._rng.gumbel(0.0, 1.0, size=(n, self.CATS))
        return np.argmax(self._weight * h + g, axis=1).astype(np.int64)


# 6 ------------------------------------------------------------------------------------------
class OutageMinutes(_Adapter):
    """Failed health checks inside outages (runs of >= 3 consecutive failures, time order)."""

    columns = 2
    domain = ((0, 1439), (0, 1))
    neighbours = "add_remove"
    output_kind = "integer"
    epsilon, delta = 0.5, 0.0
    RUN = 3

    def __init__(self, broken=False):
        super().__init__(broken)
        self.name = "ho19.outage_minutes." + ("broken" if broken else "correct")
        if broken:
            self.sensitivity = self.RUN  # BUG: misses two runs of RUN-1 joined by removing an ok
        else:
            self.sensitivity = 2 * (self.RUN - 1)  # = 4 >= RUN
        self._scale = self.sensitivity / self.epsilon

    def release_without_noise(self, query):
        r = _records(query, self.domain)
        status = r[np.lexsort((r[:, 1], r[:, 0])), 1]  # by time, ok before failed at a tie
        edges = np.diff(np.concatenate([[0], status, [0]]))
        lengths = np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)
        return int(lengths[lengths >= self.RUN].sum())

    def sample(self, query, n):
        s = self.release_without_noise(query)
        return s + _geometric2(self._rng, self._scale, n)


# 7 ------------------------------------------------------------------------------------------
class StoreReachSuppressed(_Adapter):
    """Distinct customers per store, cells below 5 suppressed to 0, under replace-one."""

    columns = 2
    domain = ((0, 9999), (0, 3))
    neighbours = "replace"
    output_kind = "real"
    output_length = 4
    claim = "zcdp:rho=0.5"
    STORES, K, RHO = 4, 5, 0.5

    def __init__(self, broken=False):
        super().__init__(broken)
        self.name = "ho19.store_reach_suppressed." + ("broken" if broken else "correct")
        if broken:
            l2 = float(self.K)  # BUG: add/remove L2 (one store jumps by K) used under replace
        else:
            l2 = self.K * math.sqrt(2.0)
        self._sigma = l2 / math.sqrt(2.0 * self.RHO)

    def statistic(self, query):
        r = _records(query, self.domain)
        keys = np.unique(r[:, 0] * self.STORES + r[:, 1])
        reach = np.bincount(keys % self.STORES, minlength=self.STORES).astype(np.int64)
        return np.where(reach >= self.K, reach, 0)

    def sample(self, query, n):
        h = self.statistic(query).astype(np.float64)
        return _grid(h + self._rng.normal(0.0, self._sigma, size=(n, self.STORES)))


# 8 ------------------------------------------------------------------------------------------
class WinsorisedDonations(_Adapter):
    """Sum of donations with the 2 largest lowered to the 3rd largest (to the least if fewer)."""

    domain = (0, 100)
    neighbours = "add_remove"
    output_kind = "integer"
    epsilon, delta = 2.0, 0.0
    TOP, B = 2, 100

    def __init__(self, broken=False):
        super().__init__(broken)
        self.name = "ho19.winsorised_donations." + ("broken" if broken else "correct")
        if broken:
            self.sensitivity = self.TOP * self.B  # BUG: only the TOP lowered values can move
        else:
            self.sensitivity = (self.TOP + 1) * self.B
        self._scale = self.sensitivity / self.epsilon

    def release_without_noise(self, query):
        x = np.sort(_values(query, *self.domain))
        m = len(x)
        level = int(x[max(m - self.TOP - 1, 0)])  # fewer than TOP + 1: all lowered to the least
        return int(np.minimum(x, level).sum())

    def sample(self, query, n):
        s = self.release_without_noise(query)
        return s + _geometric2(self._rng, self._scale, n)


_CLASSES = [
    TierCapHistogram,
    SessionDuration,
    ReferralCredit,
    ColocationCount,
    FavouriteCategory,
    OutageMinutes,
    StoreReachSuppressed,
    WinsorisedDonations,
]

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]

# eps at delta 1e-5 of the Gaussian with mu = (4/3) * 0.268051 (analytic.py)
_EPS_REFERRAL_BROKEN = 1.3727888202643344

TRUE_VALUES = {
    "ho19.tier_cap_histogram.correct": 1.0,
    "ho19.tier_cap_histogram.broken": math.sqrt(2.0),
    "ho19.session_duration.correct": 1.0,
    "ho19.session_duration.broken": 2.0,
    "ho19.referral_credit.correct": 1.0,
    "ho19.referral_credit.broken": _EPS_REFERRAL_BROKEN,
    "ho19.colocation_count.correct": 1.0,
    "ho19.colocation_count.broken": 25.0 / 16.0,
    "ho19.favourite_category.correct": 1.0,
    "ho19.favourite_category.broken": 2.0,
    "ho19.outage_minutes.correct": 0.5,
    "ho19.outage_minutes.broken": 0.5 * 4.0 / 3.0,
    "ho19.store_reach_suppressed.correct": 0.5,
    "ho19.store_reach_suppressed.broken": 1.0,
    "ho19.winsorised_donations.correct": 2.0,
    "ho19.winsorised_donations.broken": 3.0,
}

TRUE_DETAILS = {
    "ho19.tier_cap_histogram.correct": (
        "mu = 1 exactly, on a displacement pair only (L2 sqrt 2); a new customer gives 0.71"
    ),
    "ho19.tier_cap_histogram.broken": (
        "mu = sqrt 2: a customer with distinct tiers a < b, add tier c > a (-1 at a, +1 at c)"
    ),
    "ho19.session_duration.correct": (
        "mu = 1 exactly on a bridging pair (Delta 60); 0.5 on a session extended"
    ),
    "ho19.session_duration.broken": (
        "mu = 2: sessions whose ends are 60 apart ({100, 160}), add 130 (duration 0 -> 60)"
    ),
    "ho19.referral_credit.correct": "eps = 1 at delta 1e-5 (analytic Gaussian, Delta 4)",
    "ho19.referral_credit.broken": (
        "eps = 1.373 at 1e-5: 3 distinct users referred by u (u not a user), r a user with"
        " < 3 credits; add (u, r): total +4 against Delta 3"
    ),
    "ho19.colocation_count.correct": "RDP scale 1 (Delta 5: 4 isolated corners + centre)",
    "ho19.colocation_count.broken": (
        "RDP scale 25/16: four isolated points at (x+-2, y+-2), add (x, y): count +5 vs 4"
    ),
    "ho19.favourite_category.correct": (
        "sup eps = 1, approached when one favourite dominates and a favourite moves"
    ),
    "ho19.favourite_category.broken": (
        "sup eps = 2 (1.97 with 5 customers favouring a): one customer holds {a, b},"
        " add (c, b) moves its favourite a -> b"
    ),
    "ho19.outage_minutes.correct": "eps = 0.5 exactly: F F ok F F, the ok removed -> outage 4",
    "ho19.outage_minutes.broken": (
        "eps = 2/3: F F ok F F in time order, remove the ok check (0 -> 4 vs Delta 3)"
    ),
    "ho19.store_reach_suppressed.correct": (
        "rho = 0.5 exactly: stores at 5 and 4 distinct customers, one record moved between"
    ),
    "ho19.store_reach_suppressed.broken": (
        "rho = 1: store A at 5 distinct (one seen once), B at 4; that record replaced by a"
        " new customer at B (-5, +5)"
    ),
    "ho19.winsorised_donations.correct": "eps = 2 exactly: {0, 100, 100} add 100 (sum +300)",
    "ho19.winsorised_donations.broken": (
        "eps = 3: {0, 100, 100} add 100: winsorised sum 0 -> 300 vs Delta 200"
    ),
}
