# ruff: noqa: SIM108, B905
"""Held-out mechanisms, set 17: graphs (edge-level DP) and contingency tables.

What this is
------------
Eleven mechanisms on edge-record graphs and categorical contingency tables, each as a
CORRECT adapter (private exactly as claimed under its declared neighbouring relation, and
tight or nearly so) and a BROKEN twin that differs by one realistic implementation bug,
marked `# BUG` on the line the correct adapter uses.  22 adapters in `ADAPTERS`, named
`ho17.<mechanism>.correct` / `ho17.<mechanism>.broken`.  `TRUE_VALUES` maps every name to
its true value in the claim's own parameter (eps for pure and approximate claims, at the
claimed delta; mu for GDP; rho for zCDP; the scale s of the claimed curve for RDP;
math.inf when unbounded); `TRUE_DETAILS` says how it was obtained and which neighbouring
pair attains it.  Every input is a dataset (add/remove one record); all randomness comes
from the generator that `seed(entropy)` sets; every real output is rounded to a 2^-20 grid.

How it was written
------------------
Blind: the author read only dp-audit's README.md, docs/writing-an-adapter.md,
docs/claims.md and docs/vector-outputs.md -- no source, tests, other held-out sets or
history -- and did not import or run dp-audit.  Plain numpy (math for the analytic
Gaussian).  Sensitivities were enumerated with the adapters' own `stat` code and with
independent re-implementations, the samplers checked against their exact pmfs, and the
true values computed exactly (closed forms, exact Renyi sums, the analytic-Gaussian delta
curve); the check scripts are in /tmp/ho17/ (listed below).

Theme
-----
(a) Edge-level DP on graphs given as datasets of edge records (two node-id columns, a
weight column for one) under add/remove of one edge record: edge and node counts, degree
histogram, truncated degree vector, triangle count, truncated 2-star count, connected pairs,
node strengths.  Repeated records are multi-edges where a statistic counts records, and are
merged where it reads a simple graph; self-loops are dropped wherever adjacency is read.
(b) Marginals and contingency tables of multi-column categorical datasets: all two-way
marginals, a normalised (synthetic-data style) table, a data cube made consistent by least
squares, and an MWEM select-measure loop.

Mechanisms (input / columns; output; claim; the bug; true value of the broken twin and the
pair it needs)
---------------------------------------------------------------------------------------
 1. edge_node_counts -- edges (u, v), ids 0..15; integer (2): [#edge records, #distinct
    nodes] + discrete Laplace, eps/2 each, node Delta = 2; pure eps = 1.  BUG: node-count
    sensitivity 1.  True eps 1.5: add an edge between two nodes absent from the graph.
 2. degree_histogram -- edges, ids 0..7; real (8): histogram of degrees 0..7 (>= 7 in the
    last bin) + N(0, sigma^2), Delta_2 = sqrt(8); 1-GDP.  BUG: Delta_2 = 2 ("four bins move
    by 1").  True mu sqrt(2) = 1.414: add an edge between two nodes of the same degree
    d < 7 (two isolated nodes: bin 0 -2, bin 1 +2).
 3. degree_vector_clipped -- edges, ids 0..7; integer (8): degrees truncated at 5 +
    discrete Laplace, L1 Delta = 2; pure eps = 1.  BUG: sensitivity counted per node (1).
    True eps 2: add an edge whose two endpoints both have degree < 5.
 4. triangle_count -- edges, ids 0..5 (simple graph); integer: triangles + discrete Laplace
    with Delta = V - 2 = 4 (degree bound 5); pure eps = 1.  BUG: Delta = the graph's own
    max degree (local sensitivity used as global).  True eps infinite: any pair whose max
    degree differs, e.g. {(0,1)} vs {(0,1),(0,2)}: discrete Laplace of scale 1 vs 2.
 5. wedge_count -- edges, ids 0..7 (simple graph); real: sum_v C(min(deg v, 5), 2) +
    N(0, 128), Delta = 2 (D - 1) = 8; RDP eps(a) = a / 4 (orders 2, 3, 4, 8, 16, 32).  BUG:
    degrees truncated at D + 1.  True scale (10/8)^2 = 1.5625: add (u, v) where u and v
    both have 5 distinct neighbours among the other 6 nodes.
 6. connected_pairs -- edges, ids 0..5; integer: node pairs joined by a path + discrete
    Gaussian, Delta = 3 * 3 = 9; 0.5-zCDP.  BUG: Delta = V - 1 = 5.  True rho 1.62: add the
    edge joining two components of 3 nodes (e.g. paths 0-1-2 and 3-4-5, add (2, 3)).
 7. node_strength -- weighted edges (u, v, w), ids 0..7, w in 0..9 clipped at 5; real (8):
    per-node strength + analytic-Gaussian noise for Delta_2 = 5 sqrt(2); (1, 1e-6)-DP.
    BUG: self-loops kept, so (u, u, w) adds 2w to u (Delta_2 = 10).  True eps 1.4547 at
    delta 1e-6: add a self-loop of weight >= 5.
 8. all_two_way_marginals -- 4 columns with 2, 3, 2, 4 levels; integer (44): the 6 two-way
    marginals + discrete Laplace at eps/6; pure eps = 1.  BUG: each marginal given the full
    budget.  True eps 6: add any record.
 9. normalised_table -- 2 columns, 3 levels each; real (9): noisy table (discrete Laplace,
    eps = 1), negatives zeroed, divided by its own noisy total; pure eps = 1 (tight: "only
    cell j positive", c_j = 0 vs 1, ratio exactly e).  BUG: divided by the true total N.
    True eps infinite: any pair; outputs lie on k/N vs k/(N+1) (one record vs two: entries
    1/2 appear only on the larger dataset).
10. data_cube -- 2 columns, 3 x 4 levels; real (12): total, both marginals and the cells
    each + N(0, sigma^2), made consistent by least squares (equal variances, so the GLS
    release keeps all information), Delta_2 = 2; 1-GDP.  BUG: the total treated as public
    (sigma for 3 levels).  True mu 2/sqrt(3) = 1.1547: add any record.
11. mwem -- 2 columns, 4 x 4 levels; record (total, picks[3], answers[3], synthetic[16]):
    MWEM over 24 counting queries, 3 rounds, noisy total eps 0.1, exponential mechanism
    (Gumbel-max) eps 0.1, Laplace measurement eps 0.2; pure eps = 1 (sup over states).
    BUG: multiplicative-weights update with the exact answer instead of the noisy one.  True
    eps infinite: synthetic = F(total, picks, true answers), so any pair whose picks hit a
    changed query (e.g. add a record to a 10-record table: about 1/3 of outputs lie outside
    the smaller dataset's support).

Check scripts (in /tmp/ho17/)
-----------------------------
- check_sensitivity.py: exhaustive enumeration of all 2^15 simple graphs on 6 nodes
  (triangles, connected pairs, and the explored edge-order projection), every degree pair
  for the degree histogram/vector and the wedge count, random multigraphs and weighted
  graphs (node strengths with and without self-loops), every record of the 4-column domain
  for the marginals; record order, repeats and self-loops checked not to matter.
- check_claims.py: chi-square checks of the discrete Laplace and discrete Gaussian samplers;
  exact sup_a D_a/a of the discrete Gaussian (0.5 and 1.62); the analytic Gaussian sigma and
  the broken twin's eps at delta = 1e-6; the data cube's exact mu from the covariance of the
  released cells; the normalised table's tight event and the broken lattice; the triangle
  scales.
- check_mwem.py: the correct synthetic table is a post-processing of the released fields;
  the first pick follows exp(0.1 * score / 2); the broken synthetic table betrays the true
  answers (probability 1 vs 0.67 of matching D's).
- smoke.py: import, names, shapes, dtypes, grid, seed replay, speed.

Run: dp-audit run --adapter tests/corpus/held_out_mechanisms_17.py:ADAPTERS --out held-out-17
(not run by the author).

Measured at the default budget, seed 0 (2026-12-01, after the author handed it over): no
correct one is a violation, no adapter ends in error.  Broken twins, certified / true:
edge_node_counts 1.261 / 1.5, degree_histogram mu 1.129 / 1.414, degree_vector_clipped
1.614 / 2, triangle_count 1.000001 / inf (the noise scale read from the graph: found on a
pair of two small graphs, barely), all_two_way_marginals 2.34 / 6, normalised_table 5.20 /
inf, data_cube mu 1.052 / 1.155, mwem 4.8 / inf.  Missed: wedge_count (scale 0.12 / 1.5625:
both ends of the added edge must have 5 distinct neighbours), connected_pairs (rho 0.011 /
1.62: two 3-node components joined) -- worst pairs that need a graph's structure, which no
fixed or random dataset pair met -- and node_strength (0.10 / 1.455 at delta 1e-6, an
analytic Gaussian: its excess lies in tails near delta; a self-loop of the largest weight
was the pair screened).  8 of 11 found.  Random datasets with their columns drawn apart
(added the same day) raised the correct twins' bounds toward their claims (data_cube mu
0.71 -> 0.97, degree_histogram 0.65 -> 0.97, all_two_way_marginals 0 -> 0.81).
"""

import math

import numpy as np

_GRID = float(2**20)


def _grid(values):
    """Round to the 2^-20 grid (post-processing: the low float bits leak nothing)."""
    return np.round(np.asarray(values, dtype=np.float64) * _GRID) / _GRID


def _records(query, columns, domain):
    """The dataset as an (m, columns) int64 array, each column clipped to its bounds."""
    a = np.rint(np.asarray(query, dtype=np.float64).reshape(-1, columns)).astype(np.int64)
    for j, (lo, hi) in enumerate(domain):
        a[:, j] = np.clip(a[:, j], lo, hi)
    return a


def _dlap(rng, t, size):
    """Discrete Laplace, P[k] proportional to exp(-t |k|) (difference of two geometrics)."""
    p = -math.expm1(-t)
    return rng.geometric(p, size).astype(np.int64) - rng.geometric(p, size).astype(np.int64)


def _dgauss(rng, sigma2, size):
    """Discrete Gaussian N_Z(0, sigma2) (Canonne-Kamath-Steinke rejection from a discrete
    Laplace of scale t = floor(sigma) + 1), any shape."""
    shape = (size,) if np.isscalar(size) else tuple(size)
    total = int(np.prod(shape))
    t = math.floor(math.sqrt(sigma2)) + 1
    out = np.empty(total, dtype=np.int64)
    filled = 0
    while filled < total:
        m = int((total - filled) * 1.8) + 32
        y = _dlap(rng, 1.0 / t, m)
        keep = rng.random(m) < np.exp(-((np.abs(y) - sigma2 / t) ** 2) / (2.0 * sigma2))
        y = y[keep][: total - filled]
        out[filled : filled + y.size] = y
        filled += y.size
    return out.reshape(shape)


def _phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def _analytic_gaussian_sigma(eps, delta, l2):
    """Smallest sigma with N(0, sigma^2) noise (eps, delta)-DP at L2 sensitivity l2
    (Balle & Wang 2018: delta(eps) of the Gaussian with mu = l2 / sigma), by bisection."""

    def d(sigma):
        mu = l2 / sigma
        return _phi(-eps / mu + mu / 2) - math.exp(eps) * _phi(-eps / mu - mu / 2)

    lo, hi = 1e-3 * l2, 1e3 * l2
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if d(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def _dedup_edges(u, v):
    """The simple graph of edge records: self-loops dropped, (u, v) and (v, u) one edge."""
    keep = u != v
    a, b = np.minimum(u[keep], v[keep]), np.maximum(u[keep], v[keep])
    if a.size == 0:
        return a, b
    pairs = np.unique(np.stack([a, b], axis=1), axis=0)
    return pairs[:, 0], pairs[:, 1]


class _Base:
    input_kind = "dataset"
    neighbours = "add_remove"
    vectorised = True
    library = "held-out set 17"
    mech = "base"

    def __init__(self, broken=False):
        self.broken = broken
        self.name = f"ho17.{self.mech}.{'broken' if broken else 'correct'}"
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def _x(self, query):
        return _records(query, self.columns, self.domain)


# ---------------------------------------------------------------- (a) graphs


class EdgeNodeCounts(_Base):
    """Edge records (u, v), node ids 0..15.  Releases [number of edge records, number of
    distinct nodes touched], each with discrete Laplace noise of half the budget.  One added
    edge adds up to 2 new nodes (both endpoints), so the node count has sensitivity 2."""

    mech = "edge_node_counts"
    columns = 2
    domain = [(0, 15), (0, 15)]
    output_kind = "integer"
    output_length = 2
    epsilon, delta = 1.0, 0.0

    def stat(self, x):
        return len(x), int(np.unique(x).size)

    def sample(self, query, n):
        edges, nodes = self.stat(self._x(query))
        e_half = self.epsilon / 2
        node_sens = 1 if self.broken else 2  # BUG (broken): 1 -- "one edge, one more node"
        out = np.empty((n, 2), dtype=np.int64)
        out[:, 0] = edges + _dlap(self._rng, e_half / 1, n)
        out[:, 1] = nodes + _dlap(self._rng, e_half / node_sens, n)
        return out


class DegreeHistogram(_Base):
    """Edge records (u, v) on nodes 0..7 (self-loops dropped, repeated records are
    multi-edges).  Releases the degree histogram of the 8 nodes, bins 0..7 (degree >= 7 in
    the last bin), plus Gaussian noise: mu-GDP with mu = Delta_2 / sigma.  One edge moves two
    nodes up one bin each; when both had the same degree d, bin d drops by 2 and bin d + 1
    gains 2, so Delta_2 = sqrt(8)."""

    mech = "degree_histogram"
    columns = 2
    domain = [(0, 7), (0, 7)]
    output_kind = "real"
    output_length = 8
    claim = "gdp:mu=1"
    mu = 1.0
    V = 8

    def stat(self, x):
        u, v = x[:, 0], x[:, 1]
        keep = u != v
        deg = np.bincount(u[keep], minlength=self.V) + np.bincount(v[keep], minlength=self.V)
        return np.bincount(np.minimum(deg, self.V - 1), minlength=self.V).astype(np.float64)

    def sample(self, query, n):
        hist = self.stat(self._x(query))
        l2 = 2.0 if self.broken else math.sqrt(8.0)  # BUG (broken): 2 -- four bins move by 1
        sigma = l2 / self.mu
        return _grid(hist + self._rng.normal(0.0, sigma, (n, self.V)))


class DegreeVectorClipped(_Base):
    """Edge records (u, v) on nodes 0..7 (self-loops dropped).  Releases every node's degree
    truncated at D = 5, plus discrete Laplace noise, eps-DP.  One edge raises two degrees by
    at most 1 each: L1 sensitivity 2."""

    mech = "degree_vector_clipped"
    columns = 2
    domain = [(0, 7), (0, 7)]
    output_kind = "integer"
    output_length = 8
    epsilon, delta = 1.0, 0.0
    V, D = 8, 5

    def stat(self, x):
        u, v = x[:, 0], x[:, 1]
        keep = u != v
        deg = np.bincount(u[keep], minlength=self.V) + np.bincount(v[keep], minlength=self.V)
        return np.minimum(deg, self.D).astype(np.int64)

    def sample(self, query, n):
        deg = self.stat(self._x(query))
        l1 = 1 if self.broken else 2  # BUG (broken): 1 -- sensitivity counted per node
        return deg + _dlap(self._rng, self.epsilon / l1, (n, self.V))


class TriangleCount(_Base):
    """Edge records (u, v) on nodes 0..5, read as a simple graph (self-loops dropped,
    repeats merged).  Releases the triangle count plus discrete Laplace noise.  The node
    universe bounds every degree by 5, so one edge (u, v) closes at most 4 triangles (one per
    common neighbour): Delta = 4."""

    mech = "triangle_count"
    columns = 2
    domain = [(0, 5), (0, 5)]
    output_kind = "integer"
    output_length = 1
    epsilon, delta = 1.0, 0.0
    V = 6

    def stat(self, x):
        a, b = _dedup_edges(x[:, 0], x[:, 1])
        adj = np.zeros((self.V, self.V), dtype=np.int64)
        adj[a, b] = 1
        adj[b, a] = 1
        tri = int(np.trace(adj @ adj @ adj)) // 6
        dmax = int(adj.sum(axis=1).max())
        return tri, dmax

    def sample(self, query, n):
        tri, dmax = self.stat(self._x(query))
        if self.broken:
            sens = max(1, dmax)  # BUG (broken): the graph's own max degree (local, not global)
        else:
            sens = self.V - 2
        return tri + _dlap(self._rng, self.epsilon / sens, n)


class WedgeCount(_Base):
    """Edge records (u, v) on nodes 0..7, read as a simple graph (self-loops dropped,
    repeats merged).  Releases the number of 2-stars (wedges) sum_v C(min(deg v, D), 2) with
    degrees truncated at D = 5, plus Gaussian noise: Renyi DP with eps(a) = a Delta^2 /
    (2 sigma^2), where Delta = 2 (D - 1) = 8 (each endpoint's truncated degree rises by at
    most 1, adding at most D - 1 wedges centred there) and sigma = 8 sqrt(2): eps(a) = a / 4."""

    mech = "wedge_count"
    columns = 2
    domain = [(0, 7), (0, 7)]
    output_kind = "real"
    output_length = 1
    claim = "rdp:2=0.5,3=0.75,4=1,8=2,16=4,32=8"
    V, D = 8, 5
    sigma = 8.0 * math.sqrt(2.0)  # Delta = 2 (D - 1) = 8; Delta^2 / (2 sigma^2) = 1/4

    def stat(self, x):
        a, b = _dedup_edges(x[:, 0], x[:, 1])
        deg = np.bincount(a, minlength=self.V) + np.bincount(b, minlength=self.V)
        # BUG (broken): D + 1 ("a D-star has D + 1 nodes")
        cap = self.D + 1 if self.broken else self.D
        deg = np.minimum(deg, cap)
        return int(np.sum(deg * (deg - 1) // 2))

    def sample(self, query, n):
        w = self.stat(self._x(query))
        return _grid(w + self._rng.normal(0.0, self.sigma, n))


class ConnectedPairs(_Base):
    """Edge records (u, v) on nodes 0..5.  Releases the number of unordered node pairs joined
    by a path, sum over components of C(size, 2), plus discrete Gaussian noise: rho-zCDP with
    rho = Delta^2 / (2 sigma^2).  One edge merges two components of sizes a + b <= 6: Delta =
    max a b = 9."""

    mech = "connected_pairs"
    columns = 2
    domain = [(0, 5), (0, 5)]
    output_kind = "integer"
    output_length = 1
    claim = "zcdp:rho=0.5"
    rho = 0.5
    V = 6

    def stat(self, x):
        parent = list(range(self.V))

        def find(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        a, b = _dedup_edges(x[:, 0], x[:, 1])
        for s, t in zip(a.tolist(), b.tolist()):
            rs, rt = find(s), find(t)
            if rs != rt:
                parent[rs] = rt
        sizes = np.bincount([find(i) for i in range(self.V)], minlength=self.V)
        return int(np.sum(sizes * (sizes - 1) // 2))

    def sample(self, query, n):
        pairs = self.stat(self._x(query))
        # BUG (broken): V - 1
        sens = self.V - 1 if self.broken else (self.V // 2) * (self.V - self.V // 2)
        return pairs + _dgauss(self._rng, sens**2 / (2 * self.rho), n)


class NodeStrength(_Base):
    """Weighted edge records (u, v, w), nodes 0..7, weights 0..9 clipped at W = 5.  Releases
    each node's strength (sum of its incident clipped weights; self-loops dropped) plus
    Gaussian noise calibrated by the analytic Gaussian mechanism to (1, 1e-6)-DP at L2
    sensitivity sqrt(2) W (an edge adds w to two nodes)."""

    mech = "node_strength"
    columns = 3
    domain = [(0, 7), (0, 7), (0, 9)]
    output_kind = "real"
    output_length = 8
    epsilon, delta = 1.0, 1e-6
    V, W = 8, 5

    def __init__(self, broken=False):
        super().__init__(broken)
        self.sigma = _analytic_gaussian_sigma(self.epsilon, self.delta, math.sqrt(2.0) * self.W)

    def stat(self, x):
        u, v, w = x[:, 0], x[:, 1], np.minimum(x[:, 2], self.W)
        if self.broken:
            keep = np.ones(len(u), dtype=bool)  # BUG (broken): self-loop (u, u, w) adds 2w to u
        else:
            keep = u != v
        s = np.bincount(u[keep], weights=w[keep], minlength=self.V)
        s += np.bincount(v[keep], weights=w[keep], minlength=self.V)
        return s

    def sample(self, query, n):
        s = self.stat(self._x(query))
        return _grid(s + self._rng.normal(0.0, self.sigma, (n, self.V)))


# ------------------------------------------------------ (b) contingency tables


class AllTwoWayMarginals(_Base):
    """Records of 4 categorical columns with 2, 3, 2, 4 levels.  Releases all C(4, 2) = 6
    two-way marginals (44 cells) with discrete Laplace noise, eps-DP: one record adds 1 to
    one cell of each of the 6 tables, L1 sensitivity 6."""

    mech = "all_two_way_marginals"
    columns = 4
    domain = [(0, 1), (0, 2), (0, 1), (0, 3)]
    output_kind = "integer"
    output_length = 44
    epsilon, delta = 1.0, 0.0

    def stat(self, x):
        sizes = [hi - lo + 1 for lo, hi in self.domain]
        tables = []
        for i in range(4):
            for j in range(i + 1, 4):
                tables.append(
                    np.bincount(x[:, i] * sizes[j] + x[:, j], minlength=sizes[i] * sizes[j])
                )
        return np.concatenate(tables).astype(np.int64)

    def sample(self, query, n):
        c = self.stat(self._x(query))
        n_tables = 6
        # BUG (broken): eps each
        per_table = self.epsilon if self.broken else self.epsilon / n_tables
        return c + _dlap(self._rng, per_table, (n, c.size))


class NormalisedTable(_Base):
    """Records of 2 categorical columns with 3 levels each.  Releases a synthetic-data style
    distribution over the 9 cells: the noisy table (discrete Laplace, eps-DP at L1
    sensitivity 1), negative cells set to 0, divided by its own noisy total (post-processing;
    all zeros if nothing is left)."""

    mech = "normalised_table"
    columns = 2
    domain = [(0, 2), (0, 2)]
    output_kind = "real"
    output_length = 9
    epsilon, delta = 1.0, 0.0

    def sample(self, query, n):
        x = self._x(query)
        c = np.bincount(x[:, 0] * 3 + x[:, 1], minlength=9)
        noisy = np.maximum(c + _dlap(self._rng, self.epsilon, (n, 9)), 0).astype(np.float64)
        if self.broken:
            total = np.full((n, 1), float(len(x)))  # BUG (broken): normalised by the true total
        else:
            total = np.maximum(noisy.sum(axis=1, keepdims=True), 1.0)
        return _grid(noisy / total)


class DataCube(_Base):
    """Records of 2 categorical columns, A with 3 levels and B with 4.  A data cube with
    hierarchical consistency: the total, the A and B marginals and the 12 AB cells are each
    measured with N(0, sigma^2) noise, then made consistent by least squares (equal
    variances: ordinary = generalised least squares, a sufficient statistic, so the release
    keeps all of the 4 levels' information).  One record moves one entry of each of the 4
    levels: Delta_2 = 2, mu = 2 / sigma.  Releases the 12 consistent cells."""

    mech = "data_cube"
    columns = 2
    domain = [(0, 2), (0, 3)]
    output_kind = "real"
    output_length = 12
    claim = "gdp:mu=1"
    mu = 1.0

    def __init__(self, broken=False):
        super().__init__(broken)
        cells = np.eye(12)
        a_marg = np.kron(np.eye(3), np.ones((1, 4)))
        b_marg = np.kron(np.ones((1, 3)), np.eye(4))
        total = np.ones((1, 12))
        self.M = np.vstack([total, a_marg, b_marg, cells])  # 20 x 12
        self.P = np.linalg.solve(self.M.T @ self.M, self.M.T)  # 12 x 20 least-squares map

    def sample(self, query, n):
        x = self._x(query)
        c = np.bincount(x[:, 0] * 4 + x[:, 1], minlength=12).astype(np.float64)
        levels = 3 if self.broken else 4  # BUG (broken): the total treated as public
        sigma = math.sqrt(levels) / self.mu
        y = self.M @ c + self._rng.normal(0.0, sigma, (n, 20))
        return _grid(y @ self.P.T)


class MWEM(_Base):
    """Records of 2 categorical columns with 4 levels each (16 cells).  MWEM over 24 counting
    queries (the 8 one-way cells and the 16 cells), T = 3 rounds: a noisy total (Laplace,
    eps0 = 0.1) scales a uniform synthetic table; each round picks the query with the largest
    error |q(D) - q(A)| by the exponential mechanism (Gumbel-max, eps = 0.1, score
    sensitivity 1), measures it with Laplace noise (eps = 0.2) and updates A by
    multiplicative weights with the noisy answer.  Pure eps = 0.1 + 3 (0.1 + 0.2) = 1.
    Releases a record: the noisy total, the 3 picks, the 3 noisy answers and the final
    synthetic table."""

    mech = "mwem"
    columns = 2
    domain = [(0, 3), (0, 3)]
    output_kind = "record"
    fields = {
        "total": "real",
        "picks": ("integer", 3),
        "answers": ("real", 3),
        "synthetic": ("real", 16),
    }
    epsilon, delta = 1.0, 0.0
    T, eps0, eps_sel, eps_meas = 3, 0.1, 0.1, 0.2

    def __init__(self, broken=False):
        super().__init__(broken)
        one_way = np.vstack(
            [np.kron(np.eye(4), np.ones((1, 4))), np.kron(np.ones((1, 4)), np.eye(4))]
        )
        self.Q = np.vstack([one_way, np.eye(16)])  # 24 x 16, entries 0/1

    def sample(self, query, n):
        rng = self._rng
        x = self._x(query)
        c = np.bincount(x[:, 0] * 4 + x[:, 1], minlength=16).astype(np.float64)
        true_ans = self.Q @ c  # 24
        total = _grid(np.maximum(len(x) + rng.laplace(0.0, 1.0 / self.eps0, n), 1.0))
        A = np.repeat(total[:, None] / 16.0, 16, axis=1)
        picks = np.empty((n, self.T), dtype=np.int64)
        answers = np.empty((n, self.T))
        for t in range(self.T):
            score = np.abs(true_ans[None, :] - A @ self.Q.T)  # n x 24
            g = rng.gumbel(0.0, 1.0, score.shape)
            pick = np.argmax(self.eps_sel * score / 2.0 + g, axis=1)
            m = _grid(true_ans[pick] + rng.laplace(0.0, 1.0 / self.eps_meas, n))
            picks[:, t] = pick
            answers[:, t] = m
            q = self.Q[pick]  # n x 16
            qa = np.sum(q * A, axis=1)
            if self.broken:
                target = true_ans[pick]  # BUG (broken): update with the exact answer
            else:
                target = m
            step = np.clip((target - qa) / (2.0 * total), -50.0, 50.0)
            A = A * np.exp(q * step[:, None])
            A = A * (total / A.sum(axis=1))[:, None]
        dtype = [
            ("total", np.float64),
            ("picks", np.int64, (3,)),
            ("answers", np.float64, (3,)),
            ("synthetic", np.float64, (16,)),
        ]
        out = np.empty(n, dtype=dtype)
        out["total"] = total
        out["picks"] = picks
        out["answers"] = answers
        out["synthetic"] = _grid(A)
        return out


_CLASSES = [
    EdgeNodeCounts,
    DegreeHistogram,
    DegreeVectorClipped,
    TriangleCount,
    WedgeCount,
    ConnectedPairs,
    NodeStrength,
    AllTwoWayMarginals,
    NormalisedTable,
    DataCube,
    MWEM,
]

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]

_TRUE = {
    "edge_node_counts": (
        1.0,
        1.5,
        (
            "pure eps; node count Delta 2: add an edge (u, v), u != v, both new nodes; broken: 0.5 + 2 "
            "* 0.5 = 1.5"
        ),
    ),
    "degree_histogram": (
        1.0,
        math.sqrt(2.0),
        (
            "mu = sqrt(8) / sigma; pair: add an edge between two nodes of equal degree < 7; broken "
            "sigma = 2 -> sqrt(2)"
        ),
    ),
    "degree_vector_clipped": (
        1.0,
        2.0,
        (
            "pure eps, L1 Delta 2: add an edge whose endpoints both have degree < 5; broken scale 1/eps -> 2"
        ),
    ),
    "triangle_count": (
        1.0,
        math.inf,
        (
            "Delta 4 = V - 2 (add (u, v) with 4 common neighbours); broken: scale = max degree, differs"
            " between {(0,1)} and {(0,1),(0,2)}: unbounded"
        ),
    ),
    "wedge_count": (
        1.0,
        1.5625,
        (
            "RDP scale; Delta 8 (both endpoints at degree 4); broken cap 6 gives Delta 10 (both at "
            "degree 5): (10/8)^2"
        ),
    ),
    "connected_pairs": (
        0.5,
        1.62,
        (
            "rho = 81 / (2 sigma^2), exact discrete-Gaussian sum; merge two 3-node components; broken "
            "sigma^2 = 25 -> 1.62"
        ),
    ),
    "node_strength": (
        1.0,
        1.454671,
        (
            "eps at delta 1e-6 (analytic Gaussian curve); broken: self-loop (u, u, >=5) moves u by 10, "
            "mu 0.3348 vs 0.2367"
        ),
    ),
    "all_two_way_marginals": (
        1.0,
        6.0,
        (
            "pure eps, L1 Delta 6 (one cell in each of 6 tables): any record; broken: 6 tables at eps each"
        ),
    ),
    "normalised_table": (
        1.0,
        math.inf,
        (
            "tight event: only cell j positive, c_j 0 vs 1; broken: outputs on k/N vs k/(N+1) lattices,"
            " any pair"
        ),
    ),
    "data_cube": (
        1.0,
        2.0 / math.sqrt(3.0),
        (
            "mu^2 = 4 / sigma^2 exactly for the GLS-consistent cells; any record; broken sigma sqrt(3)"
        ),
    ),
    "mwem": (
        1.0,
        math.inf,
        (
            "pure eps 0.1 + 3 (0.1 + 0.2) by composition (sup over states); broken: synthetic table is "
            "F(total, picks, true answers)"
        ),
    ),
}
TRUE_VALUES = {}
TRUE_DETAILS = {}
for _mech, (_correct, _broken, _text) in _TRUE.items():
    TRUE_VALUES[f"ho17.{_mech}.correct"] = _correct
    TRUE_VALUES[f"ho17.{_mech}.broken"] = _broken
    TRUE_DETAILS[f"ho17.{_mech}.correct"] = "as claimed: " + _text
    TRUE_DETAILS[f"ho17.{_mech}.broken"] = _text
