# ruff: noqa: SIM108, B905
"""Held-out mechanisms, set 18: sensitivity set by the structure among records.

What this is
------------
Twenty adapters (ten mechanisms, each as a CORRECT adapter and a BROKEN twin) for auditing
dp-audit against mechanisms its authors have not seen.  Every correct adapter is private
exactly as claimed under its declared neighbouring relation, and its claim is tight or nearly
so.  Every broken twin differs from its correct adapter by one realistic implementation bug,
marked ``# BUG`` beside the line the correct adapter uses; every bug is a sensitivity or
noise-scale mistake that shows only on datasets with a particular arrangement of several
records: never when one record is added to records that do not relate to it, nor with
copies of one value; the smallest showing pair is listed for each.

How it was written
------------------
Blind: the author read only README.md, docs/writing-an-adapter.md, docs/claims.md and
docs/vector-outputs.md of this repository, and none of dp-audit's source, tests, other bench
files or history.  dp-audit was not imported or run (not even ``dp-audit check``).  The file
uses plain numpy and imports nothing from dp-audit.  Every sensitivity was checked by
exhaustive enumeration of small datasets (and random search on larger ones) with
independently written naive implementations of each statistic, and every true privacy value
by exact computation (discrete Laplace ratios, discrete Gaussian Renyi divergences, the
Gaussian trade-off curve) and Monte Carlo of the adapters themselves; the scripts are in
/tmp/ho18/ (listed below).  Real-valued outputs are rounded to a 2^-20 grid; counts get
discrete Laplace or discrete Gaussian noise.

Theme
-----
One record's effect on the statistic depends on which other records are present: a point
that joins isolated neighbours, an event that bridges sessions, an edge that pushes two nodes
over a degree cap or merges two components, a transfer that makes both its ends dual-role,
a listening record that flips a user's favourite genre, a sign-up that links two others, a
trade that shadows a whole staircase of highs, a timestamp that splits one gap into two of
the same bin.  Finding the worst pair needs a search over datasets, not over single records.

Mechanisms
----------
 1. clustered_sightings -- records (x, y), grid cells 0..31 x 0..31; replace one record.
    Output: integer, number of records with another record within Chebyshev distance 1
    (+ discrete Laplace).  Claim: pure eps = 1 (Delta = 5: the record and 4 isolated
    records on the diagonal corners around it).
    Bug: Delta = 4 ("at most 4 neighbours can change"), forgetting the new record itself.
    True: eps = 5/4 = 1.25; pair: 4 isolated records at (c-1, c-1), (c-1, c+1), (c+1, c-1),
    (c+1, c+1) and one far record, that far record replaced by one at c.
 2. engaged_events -- records: event minute 0..1439; a session breaks at a gap > 30 min;
    per user of up to 2 events (max_contributions = 2).  Output: integer, number of events
    in sessions of >= 3 events (+ discrete Laplace).  Claim: pure eps = 1 for the user
    (Delta_2 = 2(2s - 1) = 10: each event bridges two sessions of 2, in two places).
    Bug: Delta = 3s - 1 = 8, two events bridging a chain of three sessions into one.
    True: eps = 10/8 = 1.25; pair: four sessions of 2 events, two pairs of them 31..60 min
    apart (far from each other), with and without the two bridging events.  Two copies of
    one event move the count by at most 2s = 6, a chain by 8: neither shows the bug.
 3. low_degree_edges -- records (u, v), node ids 0..199, undirected edges (self-loops
    dropped, repeats ignored); add/remove one edge.  Output: real, number of edges whose two
    ends both have degree <= 3 (+ Gaussian, 2^-20 grid).  Claim: 1-GDP, sigma = 6
    (Delta = 2D = 6: an edge between two degree-3 nodes drops both their 3 edges).
    Bug: sigma from Delta = D + 1 = 4 (one node pushed over the cap).
    True: mu = 1.5; pair: two non-adjacent nodes with 3 neighbours each (all of degree <= 3),
    with and without the edge between them.
 4. big_components -- records (u, v), node ids 0..99 (a self-loop adds a lone node); add/
    remove one edge.  Output: real, number of nodes in connected components of >= 4 nodes
    (+ Gaussian, 2^-20 grid).  Claim: (eps, delta) = (1, 1e-5), analytic Gaussian for
    Delta = 2s - 2 = 6 (sigma = 22.38379).
    Bug: sigma from Delta = s = 4 ("an edge completes one component").
    True: eps = 1.564 at delta = 1e-5 (mu = 0.402); pair: two components of 3 nodes, with
    and without an edge joining them.
 5. dual_role_alert -- records (payer, payee), account ids 0..9999; add/remove one transfer.
    Output: boolean, [number of accounts that both pay and receive + discrete Laplace >= 5].
    Claim: pure eps = 1 (Delta = 2, noise scale 2).
    Bug: noise scale 1 ("a transfer makes at most one account dual-role").
    True: eps = 2; pair: a transfer (a, b) where a is already a payee and b already a payer
    elsewhere (neither dual-role yet), with and without it (smallest: {(b, a)} and
    {(b, a), (a, b)}); the loss is exact at any count but the bit is balanced only near the
    threshold: counts 3 -> 5 give P[alert] 0.099 -> 0.731 (correct: 0.229 -> 0.622, eps 1
    exactly).
 6. truncated_wedges -- records (u, v), node ids 0..255, undirected edges; add/remove one
    edge.  Output: real, sum over nodes of C(min(degree, 4), 2) (+ Gaussian, 2^-20 grid).
    Claim: RDP eps(alpha) = 0.25 alpha at alpha = 2, 4, 8, 16, 32 (Delta = 2(D - 1) = 6,
    sigma = sqrt(72)).
    Bug: sigma from Delta = D - 1 = 3, one endpoint's change only.
    True: RDP scale 4.0; pair: two non-adjacent nodes of degree 3, with and without the
    edge between them (two of degree 2: change 4, scale 16/9 = 1.78; smaller shapes move
    the count by <= 3 and do not show the bug).
 7. favourite_genre -- records (user 0..999, genre 0..7), one listening record each; add/
    remove one record.  Output: record {genre, listeners}: the genre that is the favourite
    (most-listened, ties to the smaller id) of the most users, by the exponential mechanism
    (Gumbel scale 2/eps1), and its user count + discrete Laplace (scale 1/eps2), eps1 = eps2
    = 0.5.  Claim: pure eps = 1 (a record can move one user's favourite: one count -1,
    another +1, so the selection is not monotone).
    Bug: Gumbel scale 1/eps1, the one-sided scale that is valid only for monotone counts.
    True: eps = 2 eps1 + eps2 = 1.5 (a supremum: approached as the rising genre dominates);
    pair: a user tied between genre a and genre c (c much more popular), one more record of c.
    E.g. genre 0 with the tied user only, genre 1 with 4 users: P[genre 0] 0.110 vs 0.052,
    loss 0.74, with "listeners >= 1" 1.24 (correct: 0.29 and 0.79).
 8. linked_signups -- records (email bucket, phone bucket) 0..9999 each; add/remove one
    sign-up.  Output: integer vector (sign-ups, sign-ups sharing an email or a phone with
    another sign-up) + discrete Laplace scales 4 and 4 (eps1 = 0.25 for Delta 1, eps2 = 0.75
    for Delta 3).  Claim: pure eps = 1.
    Bug: the linked count's scale from Delta = 2 ("the new sign-up and the one it links").
    True: eps = 0.25 + 3 * 0.75 / 2 = 1.375; pair: two unlinked sign-ups (e, p1) and (e2, p),
    with and without the sign-up (e, p) that links both.
 9. price_highs -- records (time in days 0.0..365.0, price 0.0..100.0), floats; replace
    one trade.  Output: integer, number of distinct trade times whose highest price level
    (floor(price/10), 0..9) beats every earlier time's, i.e. new all-time highs
    (+ discrete Gaussian, sigma = 9).  Claim: 0.5-zCDP (the count lies in 1..10 for any
    non-empty dataset: Delta = 9).
    Bug: the highs are counted on raw prices, not on the 10 levels (Delta kept at 9).
    True: rho = inf (m rising prices within a few levels give m highs; an earlier trade
    above them all leaves 1: the change, m, is unbounded); pair: a rising staircase of
    m trades after a first trade at 100.0, that first trade replaced by one at 1.0: 1 ->
    m + 1 (the bug shows from m = 10; 20 steps: rho 2.47; 100 steps: 61.7).
10. gap_histogram -- records: timestamp, seconds 0..86399; add/remove one record.  Output:
    integer vector of 6 counts, the gaps between consecutive distinct timestamps in log2 bins
    [1], [2,3], [4,7], [8,15], [16,31], [32,inf) (+ discrete Gaussian per bin, sigma^2 = 5).
    Claim: 0.5-zCDP (L2^2 = 5: a timestamp that splits one gap into two halves in the same
    lower bin moves the bins by -1 and +2).
    Bug: sigma^2 = 3, from L2^2 = 3 (three different bins moved by one).
    True: rho = 5/6 = 0.833 (0.8333 up to the discrete Gaussian's slack); pair: two
    timestamps 4 s apart (bin [4,7]) with and without the one in the middle (two gaps of 2).

Correct adapters whose claim is tight only on a structured pair: engaged_events (two
separate pairs of two-event sessions, each bridged by one of the user's events),
dual_role_alert (both ends already in the other role; a visible bit needs a count near the
threshold), price_highs (a ten-step staircase after a shadowing trade), gap_histogram (a
gap split into two halves of one lower bin), clustered_sightings (four isolated diagonal
corners), big_components (two components of three joined), low_degree_edges and
truncated_wedges (two non-adjacent nodes of degree 3 joined).

Check scripts (/tmp/ho18/)
--------------------------
- gauss_consts.py: the analytic-Gaussian sigma of big_components and its bug's eps at 1e-5.
- check_sensitivity.py: naive re-implementations of the ten statistics, checked equal to the
  adapters' release_without_noise / statistic code on random datasets, and each relation's
  worst change found by exhaustive enumeration of small datasets (plus random and
  hill-climbing search on larger ones), for the correct and the buggy calibration.
- check_privacy.py: exact true values: discrete Laplace ratios, the discrete Gaussian's
  sup_alpha D_alpha/alpha, the Gaussian's mu, RDP and (eps, delta), the threshold test's
  exact bit probabilities, the exponential mechanism's exact loss on tied-user pairs.
- check_mc.py: Monte Carlo of the adapters themselves on the worst pairs (empirical losses
  against the exact values; that the correct ones stay under their claims), and chi-square
  tests of the discrete Laplace and discrete Gaussian samplers; check_dgauss.py repeats the
  discrete Gaussian's over 8 seeds.
- smoke.py: import, attributes, shapes, dtypes, speed, seed replay.

Run: dp-audit run --adapter tests/corpus/held_out_mechanisms_18.py:ADAPTERS --out held-out-18
(not run by the author).

Measured at the default budget, seed 0, all twenty audited together (2026-12-01, after the
author handed it over): no correct one is a violation, no adapter ends in error.  Written to
test the climbs over datasets (auditor/engine/search_units/datasets.py), which were first run on
it.  Without them (the fixed and random pairs alone) one broken twin was found,
dual_role_alert.  With them, six, certified / true: low_degree_edges mu 1.275 / 1.5,
dual_role_alert eps 1.66 / 2, truncated_wedges (RDP scale) 1.61 / 4, favourite_genre eps
1.08 / 1.5, linked_signups eps 1.001 / 1.375, price_highs rho 0.533 / inf.  Missed:
clustered_sightings eps 0.315 / 1.25 (four lone records on the corners around one cell,
under replace), engaged_events 0.749 / 1.25 (two bridging events of one user, in the right
places), big_components eps 0.953 / 1.564 at delta 1e-5 (the pair of two 3-node components
is reached; an (eps, delta) Gaussian's excess lies in its tails), gap_histogram rho 0.034 /
0.833 (both halves of a split gap in one lower bin).  The climbs are random: on other seeds
some of the found ones are missed and some missed ones found (big_components was certified
at 1.02 when audited alone).  The correct twins' bounds rose toward their claims (low_degree_edges
mu 0 -> 0.97, truncated_wedges 0 -> 0.31 of the scale, price_highs rho 0 -> 0.034).
"""

import math

import numpy as np

GRID = 2.0**-20


def _on_grid(x):
    """Round reals to the 2^-20 grid (post-processing)."""
    return np.round(np.asarray(x, dtype=float) * 2.0**20) / 2.0**20


def _dlap(rng, scale, size):
    """Two-sided geometric noise: P(k) proportional to exp(-|k| / scale)."""
    p = -math.expm1(-1.0 / scale)
    return rng.geometric(p, size).astype(np.int64) - rng.geometric(p, size).astype(np.int64)


def _dgauss(rng, sigma, size):
    """Discrete Gaussian N_Z(0, sigma^2) by rejection from a discrete Laplace
    (Canonne, Kamath and Steinke 2020, Algorithm 3), vectorised."""
    shape = (size,) if np.isscalar(size) else tuple(size)
    total = int(np.prod(shape))
    t = math.floor(sigma) + 1
    s2 = sigma * sigma
    out = np.empty(total, dtype=np.int64)
    filled = 0
    while filled < total:
        m = int((total - filled) * 1.6) + 32
        y = _dlap(rng, t, m)
        accept = rng.random(m) < np.exp(-((np.abs(y) - s2 / t) ** 2) / (2.0 * s2))
        y = y[accept][: total - filled]
        out[filled : filled + len(y)] = y
        filled += len(y)
    return out.reshape(shape)


def _records(query, columns):
    """The dataset as whole numbers: (m, columns) int64."""
    a = np.asarray(query, dtype=float).reshape(-1, columns)
    return np.rint(a).astype(np.int64)


def _undirected(query, hi):
    """Distinct undirected edges (a < b) of a node-id record array; self-loops dropped."""
    e = np.clip(_records(query, 2), 0, hi)
    e = e[e[:, 0] != e[:, 1]]
    a = np.minimum(e[:, 0], e[:, 1])
    b = np.maximum(e[:, 0], e[:, 1])
    code = np.unique(a * (hi + 1) + b)
    return code // (hi + 1), code % (hi + 1)


class _Adapter:
    input_kind = "dataset"
    vectorised = True
    library = "held-out-18"

    def __init__(self):
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# --------------------------------------------------------------------------------------
# 1. clustered sightings: records with another record within Chebyshev distance 1
# --------------------------------------------------------------------------------------
class ClusteredSightings(_Adapter):
    """Sightings on a 32 x 32 grid; the count of sightings that have another sighting in
    their 3 x 3 block (a DBSCAN-style 'not noise' count).  Adding a sighting at c counts it
    and at most 4 isolated sightings (pairwise >= 2 apart, so only the 4 diagonal corners of
    c's block); the count only grows when a sighting is added, so replace-one has Delta 5."""

    columns = 2
    domain = [(0, 31), (0, 31)]
    neighbours = "replace"
    output_kind = "integer"
    epsilon, delta = 1.0, 0.0
    SIDE = 32

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho18.clustered_sightings." + ("broken" if broken else "correct")
        if broken:
            self.sensitivity = 4  # BUG: the 4 corners it may join, not the sighting itself
        else:
            self.sensitivity = 5
        self.description = "records with a neighbour within Chebyshev distance 1, replace, eps=1"

    def release_without_noise(self, query):
        r = np.clip(_records(query, 2), 0, self.SIDE - 1)
        counts = np.bincount(r[:, 0] * self.SIDE + r[:, 1], minlength=self.SIDE**2)
        counts = counts.reshape(self.SIDE, self.SIDE)
        pad = np.pad(counts, 1)
        block = sum(
            pad[1 + dx : 1 + dx + self.SIDE, 1 + dy : 1 + dy + self.SIDE]
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
        )
        return int((counts * (block >= 2)).sum())

    def sample(self, query, n):
        f = self.release_without_noise(query)
        return f + _dlap(self._rng, self.sensitivity / self.epsilon, n)


# --------------------------------------------------------------------------------------
# 2. engaged events: events in sessions of >= 3 events, per user of 2 events
# --------------------------------------------------------------------------------------
class EngagedEvents(_Adapter):
    """Event minutes of a day; sessions break where consecutive events are more than 30
    minutes apart; the release is the number of events in sessions of at least 3 events.
    One event can bridge two sessions of s - 1 = 2 events (+5); the count only grows when
    events are added.  Per user of up to 2 events (max_contributions = 2) the two events
    can make two such bridges in different places: 2 (2s - 1) = 10, while bridging a chain
    of three sessions gives only 3s - 1 = 8."""

    domain = (0, 1439)
    neighbours = "add_remove"
    max_contributions = 2
    output_kind = "integer"
    epsilon, delta = 1.0, 0.0
    GAP, MIN_EVENTS = 30, 3

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho18.engaged_events." + ("broken" if broken else "correct")
        s = self.MIN_EVENTS
        if broken:
            self.sensitivity = 3 * s - 1  # BUG: one chain of three sessions, not two bridges
        else:
            self.sensitivity = 2 * (2 * s - 1)
        self.description = "events in sessions of >= 3 (gap 30 min), per user of 2, eps=1"

    def release_without_noise(self, query):
        t = np.sort(np.clip(_records(query, 1)[:, 0], 0, 1439))
        cuts = np.flatnonzero(np.diff(t) > self.GAP) + 1
        sizes = np.diff(np.concatenate(([0], cuts, [len(t)])))
        return int(sizes[sizes >= self.MIN_EVENTS].sum())

    def sample(self, query, n):
        f = self.release_without_noise(query)
        return f + _dlap(self._rng, self.sensitivity / self.epsilon, n)


# --------------------------------------------------------------------------------------
# 3. low-degree edges: edges whose ends both have degree <= 3
# --------------------------------------------------------------------------------------
class LowDegreeEdges(_Adapter):
    """Undirected edges between 200 nodes (self-loops dropped, repeated edges once); the
    number of edges whose two ends both have degree <= D = 3 (a truncation that drops hubs).
    A new edge between two nodes of degree D pushes both over the cap and drops their 2D
    edges: Delta = 2D = 6.  Gaussian noise, sigma = Delta / mu, on a 2^-20 grid: mu-GDP."""

    columns = 2
    domain = [(0, 199), (0, 199)]
    neighbours = "add_remove"
    output_kind = "real"
    claim = "gdp:mu=1"
    MU, D, NODES = 1.0, 3, 200

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho18.low_degree_edges." + ("broken" if broken else "correct")
        if broken:
            self.sensitivity = self.D + 1  # BUG: one node pushed over the cap, plus the edge
        else:
            self.sensitivity = 2 * self.D
        self._sigma = self.sensitivity / self.MU
        self.description = "edges between nodes of degree <= 3, add/remove edge, 1-GDP"

    def release_without_noise(self, query):
        a, b = _undirected(query, self.NODES - 1)
        deg = np.bincount(np.concatenate((a, b)), minlength=self.NODES)
        return int(np.count_nonzero((deg[a] <= self.D) & (deg[b] <= self.D)))

    def sample(self, query, n):
        f = self.release_without_noise(query)
        return _on_grid(f + self._rng.normal(0.0, self._sigma, n))


# --------------------------------------------------------------------------------------
# 4. big components: nodes in connected components of >= 4 nodes
# --------------------------------------------------------------------------------------
class BigComponents(_Adapter):
    """Edges between 100 nodes (a self-loop puts a lone node in the graph); the number of
    nodes in connected components of at least s = 4 nodes.  An edge joining two components
    of s - 1 nodes adds 2s - 2 = 6; the count only grows with edges.  Analytic Gaussian
    (Balle and Wang 2018) for (1, 1e-5) at Delta 6, on a 2^-20 grid."""

    columns = 2
    domain = [(0, 99), (0, 99)]
    neighbours = "add_remove"
    output_kind = "real"
    epsilon, delta = 1.0, 1e-5
    MU_AT_CLAIM = 0.26805112321129465  # mu with delta(eps=1) = 1e-5 (gauss_consts.py)
    S, NODES = 4, 100

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho18.big_components." + ("broken" if broken else "correct")
        if broken:
            self.sensitivity = self.S  # BUG: one component completed, not two joined
        else:
            self.sensitivity = 2 * self.S - 2
        # sigma = Delta / mu, rounded up in the 6th decimal
        self._sigma = math.ceil(self.sensitivity / self.MU_AT_CLAIM * 1e6) / 1e6
        self.description = "nodes in components of >= 4 nodes, add/remove edge, (1, 1e-5)"

    def release_without_noise(self, query):
        e = np.clip(_records(query, 2), 0, self.NODES - 1)
        present = np.zeros(self.NODES, dtype=bool)
        present[e.ravel()] = True
        reach = np.zeros((self.NODES, self.NODES))
        reach[e[:, 0], e[:, 1]] = 1.0
        reach[e[:, 1], e[:, 0]] = 1.0
        idx = np.flatnonzero(present)
        reach[idx, idx] = 1.0
        while True:
            nxt = ((reach @ reach) > 0).astype(float)
            if np.array_equal(nxt, reach):
                break
            reach = nxt
        size = reach.sum(axis=1)
        return int(np.count_nonzero(present & (size >= self.S)))

    def sample(self, query, n):
        f = self.release_without_noise(query)
        return _on_grid(f + self._rng.normal(0.0, self._sigma, n))


# --------------------------------------------------------------------------------------
# 5. dual-role alert: accounts that both pay and receive, noisy threshold test
# --------------------------------------------------------------------------------------
class DualRoleAlert(_Adapter):
    """Transfers (payer, payee); an alert bit: is the number of accounts that are both a
    payer and a payee, plus discrete Laplace noise, at least 5?  One transfer can make both
    its ends dual-role (Delta = 2, noise scale 2/eps); the bit is post-processing."""

    columns = 2
    domain = [(0, 9999), (0, 9999)]
    neighbours = "add_remove"
    output_kind = "boolean"
    epsilon, delta = 1.0, 0.0
    THRESHOLD = 5

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho18.dual_role_alert." + ("broken" if broken else "correct")
        if broken:
            self._scale = 1.0 / self.epsilon  # BUG: a transfer adds one dual-role account
        else:
            self._scale = 2.0 / self.epsilon
        self.description = "alert: accounts both paying and receiving >= 5, eps=1"

    def _count(self, query):
        r = _records(query, 2)
        return int(len(np.intersect1d(r[:, 0], r[:, 1])))

    def sample(self, query, n):
        f = self._count(query)
        return (f + _dlap(self._rng, self._scale, n) >= self.THRESHOLD).astype(np.int8)


# --------------------------------------------------------------------------------------
# 6. truncated wedges: sum over nodes of C(min(degree, 4), 2)
# --------------------------------------------------------------------------------------
class TruncatedWedges(_Adapter):
    """Undirected edges between 256 nodes; the wedge (2-path) count with each node's degree
    truncated at D = 4, the denominator of a clustering coefficient.  A new edge raises two
    degrees, each adding at most C(4,2) - C(3,2) = 3 wedges: Delta = 6.  Gaussian noise with
    sigma^2 = 72: RDP eps(alpha) = alpha * 36 / 144 = alpha / 4."""

    columns = 2
    domain = [(0, 255), (0, 255)]
    neighbours = "add_remove"
    output_kind = "real"
    claim = "rdp:2=0.5,4=1,8=2,16=4,32=8"
    RHO, D, NODES = 0.25, 4, 256

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho18.truncated_wedges." + ("broken" if broken else "correct")
        if broken:
            self.sensitivity = self.D - 1  # BUG: one endpoint's new wedges only
        else:
            self.sensitivity = 2 * (self.D - 1)
        self._sigma = self.sensitivity / math.sqrt(2.0 * self.RHO)
        self.description = "wedges with degrees truncated at 4, add/remove edge, RDP alpha/4"

    def release_without_noise(self, query):
        a, b = _undirected(query, self.NODES - 1)
        deg = np.minimum(np.bincount(np.concatenate((a, b)), minlength=self.NODES), self.D)
        return int((deg * (deg - 1) // 2).sum())

    def sample(self, query, n):
        f = self.release_without_noise(query)
        return _on_grid(f + self._rng.normal(0.0, self._sigma, n))


# --------------------------------------------------------------------------------------
# 7. favourite genre: the genre most users favour, with its count
# --------------------------------------------------------------------------------------
class FavouriteGenre(_Adapter):
    """Listening records (user, genre); each user's favourite genre is the one they have
    most records of (ties: the smaller genre id); the release is the genre that is the
    favourite of most users (exponential mechanism, eps1 = 0.5, by Gumbel-max) and that
    genre's number of users plus discrete Laplace (eps2 = 0.5).  One record can move one
    user's favourite from genre a to genre c: a's count -1, c's +1, not monotone, so the
    exponential mechanism needs its two-sided scale 2/eps1."""

    columns = 2
    domain = [(0, 999), (0, 7)]
    neighbours = "add_remove"
    output_kind = "record"
    fields = {"genre": "integer", "listeners": "integer"}
    epsilon, delta = 1.0, 0.0
    EPS_SELECT, EPS_COUNT, USERS, GENRES = 0.5, 0.5, 1000, 8

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho18.favourite_genre." + ("broken" if broken else "correct")
        if broken:
            self._gumbel = 1.0 / self.EPS_SELECT  # BUG: one-sided scale, counts not monotone
        else:
            self._gumbel = 2.0 / self.EPS_SELECT
        self.description = "most common favourite genre and its users (EM + count), eps=1"

    def _scores(self, query):
        r = _records(query, 2)
        u = np.clip(r[:, 0], 0, self.USERS - 1)
        g = np.clip(r[:, 1], 0, self.GENRES - 1)
        per_user = np.bincount(u * self.GENRES + g, minlength=self.USERS * self.GENRES)
        per_user = per_user.reshape(self.USERS, self.GENRES)
        present = per_user.sum(axis=1) > 0
        favourite = np.argmax(per_user[present], axis=1)
        return np.bincount(favourite, minlength=self.GENRES).astype(np.int64)

    def sample(self, query, n):
        scores = self._scores(query)
        noisy = scores + self._rng.gumbel(0.0, self._gumbel, (n, self.GENRES))
        genre = np.argmax(noisy, axis=1)
        out = np.empty(n, dtype=[("genre", np.int64), ("listeners", np.int64)])
        out["genre"] = genre
        out["listeners"] = scores[genre] + _dlap(self._rng, 1.0 / self.EPS_COUNT, n)
        return out


# --------------------------------------------------------------------------------------
# 8. linked sign-ups: sign-ups sharing an email or a phone with another
# --------------------------------------------------------------------------------------
class LinkedSignups(_Adapter):
    """Sign-ups (email bucket, phone bucket); releases the number of sign-ups (Delta 1,
    eps1 = 0.25) and the number sharing an email or a phone bucket with another sign-up
    (Delta 3: the new sign-up, the one other sign-up holding its email, the one other
    holding its phone; eps2 = 0.75), each with discrete Laplace noise of scale 4."""

    columns = 2
    domain = [(0, 9999), (0, 9999)]
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 2
    epsilon, delta = 1.0, 0.0
    EPS_TOTAL, EPS_LINKED = 0.25, 0.75

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho18.linked_signups." + ("broken" if broken else "correct")
        if broken:
            self._linked_sens = 2  # BUG: the new sign-up and the one it links to
        else:
            self._linked_sens = 3
        self.description = "sign-ups and sign-ups sharing an email or phone, eps=1"

    def _counts(self, query):
        r = _records(query, 2)
        _, ie, ce = np.unique(r[:, 0], return_inverse=True, return_counts=True)
        _, ip, cp = np.unique(r[:, 1], return_inverse=True, return_counts=True)
        linked = (ce[ie.ravel()] >= 2) | (cp[ip.ravel()] >= 2)
        return np.array([len(r), int(np.count_nonzero(linked))], dtype=np.int64)

    def sample(self, query, n):
        c = self._counts(query)
        out = np.empty((n, 2), dtype=np.int64)
        out[:, 0] = c[0] + _dlap(self._rng, 1.0 / self.EPS_TOTAL, n)
        out[:, 1] = c[1] + _dlap(self._rng, self._linked_sens / self.EPS_LINKED, n)
        return out


# --------------------------------------------------------------------------------------
# 9. price highs: days setting a new all-time high price level
# --------------------------------------------------------------------------------------
class PriceHighs(_Adapter):
    """Trades (time in days, price); the price level floor(price / 10), clamped to 0..9,
    the highest level taken at each distinct time; the number of times whose level beats
    every earlier time's (new all-time highs).  For any non-empty dataset the count lies in
    1..10, so replacing one trade moves it by at most 9.  Discrete Gaussian, sigma = 9:
    0.5-zCDP."""

    columns = 2
    domain = [(0.0, 365.0), (0.0, 100.0)]
    neighbours = "replace"
    output_kind = "integer"
    claim = "zcdp:rho=0.5"
    sensitivity = 9
    RHO = 0.5

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho18.price_highs." + ("broken" if broken else "correct")
        self._sigma = self.sensitivity / math.sqrt(2.0 * self.RHO)
        self.description = "days at a new high price level (10 levels), replace, 0.5-zCDP"

    def release_without_noise(self, query):
        r = np.asarray(query, dtype=float).reshape(-1, 2)
        price = np.clip(r[:, 1], 0.0, 100.0)
        if self.broken:
            level = price  # BUG: raw prices, not the 10 price levels the Delta assumes
        else:
            level = np.minimum(np.floor(price / 10.0), 9.0)
        times, at = np.unique(r[:, 0], return_inverse=True)
        best = np.full(len(times), -1.0)
        np.maximum.at(best, at.ravel(), level)
        return int(1 + np.count_nonzero(best[1:] > np.maximum.accumulate(best)[:-1]))

    def sample(self, query, n):
        f = self.release_without_noise(query)
        return f + _dgauss(self._rng, self._sigma, n)


# --------------------------------------------------------------------------------------
# 10. gap histogram: log2-binned gaps between consecutive distinct timestamps
# --------------------------------------------------------------------------------------
class GapHistogram(_Adapter):
    """Timestamps (seconds of a day); the gaps between consecutive distinct timestamps in
    6 log2 bins [1], [2,3], [4,7], [8,15], [16,31], [32, inf).  A timestamp inside a gap
    removes it and adds two: when both halves fall in one lower bin the bins move by -1 and
    +2, L2^2 = 5.  Discrete Gaussian per bin, sigma^2 = 5: 0.5-zCDP."""

    domain = (0, 86399)
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = 6
    claim = "zcdp:rho=0.5"
    RHO = 0.5
    EDGES = np.array([2, 4, 8, 16, 32])

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho18.gap_histogram." + ("broken" if broken else "correct")
        if broken:
            self._l2_squared = 3  # BUG: three bins moved by one each, not -1 and +2
        else:
            self._l2_squared = 5
        self._sigma = math.sqrt(self._l2_squared / (2.0 * self.RHO))
        self.description = "log2 histogram of inter-arrival gaps, add/remove, 0.5-zCDP"

    def _hist(self, query):
        t = np.unique(np.clip(_records(query, 1)[:, 0], 0, 86399))
        bins = np.searchsorted(self.EDGES, np.diff(t), side="right")
        return np.bincount(bins, minlength=6).astype(np.int64)

    def sample(self, query, n):
        h = self._hist(query)
        return h + _dgauss(self._rng, self._sigma, (n, 6))


_CLASSES = [
    ClusteredSightings,
    EngagedEvents,
    LowDegreeEdges,
    BigComponents,
    DualRoleAlert,
    TruncatedWedges,
    FavouriteGenre,
    LinkedSignups,
    PriceHighs,
    GapHistogram,
]

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]

TRUE_VALUES = {
    "ho18.clustered_sightings.correct": 1.0,
    "ho18.clustered_sightings.broken": 1.25,
    "ho18.engaged_events.correct": 1.0,
    "ho18.engaged_events.broken": 1.25,
    "ho18.low_degree_edges.correct": 1.0,
    "ho18.low_degree_edges.broken": 1.5,
    "ho18.big_components.correct": 1.0,
    "ho18.big_components.broken": 1.5639,
    "ho18.dual_role_alert.correct": 1.0,
    "ho18.dual_role_alert.broken": 2.0,
    "ho18.truncated_wedges.correct": 1.0,
    "ho18.truncated_wedges.broken": 4.0,
    "ho18.favourite_genre.correct": 1.0,
    "ho18.favourite_genre.broken": 1.5,
    "ho18.linked_signups.correct": 1.0,
    "ho18.linked_signups.broken": 1.375,
    "ho18.price_highs.correct": 0.5,
    "ho18.price_highs.broken": math.inf,
    "ho18.gap_histogram.correct": 0.5,
    "ho18.gap_histogram.broken": 5 / 6,
}

TRUE_DETAILS = {
    "ho18.clustered_sightings.correct": "eps 1 exactly, attained (replace): 4 isolated "
    "diagonal corners around c and a far record, the far one replaced by c: count 0 -> 5.",
    "ho18.clustered_sightings.broken": "eps 5/4 = 1.25: noise scale 4 for a change of 5 on "
    "the same pair.",
    "ho18.engaged_events.correct": "eps 1 exactly per user of 2 events: sessions {0,1}, "
    "{40,41}, {500,501}, {540,541} and the user's events 20 and 520, 0 -> 10.",
    "ho18.engaged_events.broken": "eps 10/8 = 1.25 on that pair; copies of one event move "
    "the count by at most 6 and a chain of three sessions by 8 = the calibration, so only "
    "two bridges in different places show it.",
    "ho18.low_degree_edges.correct": "mu 1 exactly: two non-adjacent degree-3 nodes with "
    "low-degree neighbours, their edge drops 6 edges.",
    "ho18.low_degree_edges.broken": "mu 6/4 = 1.5 on that pair (sigma 4 for a change of 6).",
    "ho18.big_components.correct": "eps 1 at delta 1e-5 (analytic Gaussian, mu 0.26805): two "
    "3-node components joined by an edge, 0 -> 6.",
    "ho18.big_components.broken": "sigma 14.9225 for a change of 6: mu 0.40208, eps 1.5639 at "
    "delta 1e-5 (delta at eps 1: 1.36e-3).",
    "ho18.dual_role_alert.correct": "eps 1 exactly when the transfer adds 2 dual-role "
    "accounts (payer already a payee, payee already a payer): P[bit] ratio e^1 at every "
    "count (bit 1 for counts <= 3, bit 0 for counts >= 4); counts 3 -> 5: 0.229 -> 0.622.",
    "ho18.dual_role_alert.broken": "eps 2 on that pair (scale 1, shift 2): e.g. counts 3 -> 5, "
    "P[alert] 0.0989 -> 0.7311; shift 1 alone gives only eps 1.",
    "ho18.truncated_wedges.correct": "RDP scale 1 (sup over orders of the Gaussian's "
    "alpha*36/(2*72) / (alpha/4) = 1): two non-adjacent degree-3 nodes joined, +6.",
    "ho18.truncated_wedges.broken": "RDP scale (6/3)^2 = 4 (rho 1 for a claimed 0.25): sigma "
    "sqrt(18) for a change of 6 on that pair; a change of 3 (one endpoint) gives scale 1.",
    "ho18.favourite_genre.correct": "eps 1 as a supremum (EM eps1 = 0.5 two-sided + count "
    "0.5): a user tied between genres a and c, one more c record, c far more popular.",
    "ho18.favourite_genre.broken": "eps 2*0.5 + 0.5 = 1.5 (supremum). Genre 0: the tied user "
    "only, genre 1: 4 users: P[genre 0] 0.110 vs 0.052 (loss 0.74), with listeners >= 1: 1.24.",
    "ho18.linked_signups.correct": "eps 0.25 + 0.75 = 1 exactly: (e, p1), (e2, p) unlinked, "
    "add (e, p): total +1, linked +3.",
    "ho18.linked_signups.broken": "eps 0.25 + 3/(8/3) = 1.375 on that pair; a single partner "
    "(+2) gives only 0.25 + 0.75 = 1.",
    "ho18.price_highs.correct": "rho 0.5 (sup_a D_a/a of the discrete Gaussian, sigma 9, "
    "shift 9: 0.50000): a 10-step staircase of levels 0..9 after a first trade at level 9, "
    "that trade replaced by a late low one: 1 -> 10.",
    "ho18.price_highs.broken": "rho inf: m rising raw prices after a first trade at 100.0, "
    "that trade replaced by one at 1.0: 1 -> m + 1, unbounded in m; 20 steps give rho 2.47.",
    "ho18.gap_histogram.correct": "rho 0.5 up to the discrete Gaussian's slack: a 4 s gap "
    "split 2 + 2 ([4,7] -1, [2,3] +2).",
    "ho18.gap_histogram.broken": "rho 5/6 = 0.833 (sigma^2 3 for L2^2 5) on that pair; three "
    "distinct bins give only rho 0.5.",
}
