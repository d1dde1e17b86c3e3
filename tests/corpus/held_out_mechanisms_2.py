"""A second set of held-out mechanisms for dp-audit, written by a session that read only
docs/writing-an-adapter.md, docs/claims.md and README.md (not our tests, adapters or attacks).
Plain numpy; no dp-audit import.  Run them all (about 2.5 minutes on 2 cores):

    dp-audit run --adapter tests/corpus/held_out_mechanisms_2.py:ADAPTERS --out held-out-2

Measured at the default budget, seed 0 (2026-11-27): no correct one is a violation, every
broken one is (certified bound / true value: clamped sum 2.0 / 2.0 (white-box, from
release_without_noise), noisy average 1.05 / 1.5, unary encoding 1.44 / 2.0, zCDP Gaussian
rho 0.171 / 0.32, Gumbel top-2 1.04 / 1.9, shared-noise SVT 2.56 / inf, replace-one histogram
0.79 / 1.0, discrete Gaussian 1.38 / 2.22 at delta 2.5e-4).  The run found one dp-audit bug:
the report pointed to a reproducer it had not written (the white-box sensitivity finding).
``tests/corpus/labels.toml`` keeps these verdicts.

Eight mechanisms, each in a correct and a broken variant, plus three "edge" adapters that
stretch the documented output contract a little.  Every broken variant states its TRUE privacy
parameter next to the claim (derivations in comments; numeric ones in derive*.py beside this
file).
"""

import numpy as np

GRID = 2.0**-20


def _grid(x):
    """Round to multiples of 2^-20 (post-processing) so float low-bit artefacts do not count."""
    return np.round(np.asarray(x, dtype=float) / GRID) * GRID


class _Base:
    vectorised = True
    library = "heldout2"

    def __init__(self):
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def _two_sided_geometric(self, alpha, size):
        """Discrete Laplace: P[k] proportional to alpha^|k| (difference of two geometrics)."""
        p = 1.0 - alpha
        return self._rng.geometric(p, size=size).astype(np.int64) - self._rng.geometric(
            p, size=size
        ).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# 1. Clamped integer sum over a dataset (add/remove), two-sided geometric noise, int32 output.
#    Records are reals in [-8, 4]; the code floors and clamps them to integers in [-8, 4].
#    Correct: Delta = max(|lo|, |hi|) = 8, alpha = exp(-eps/8): pure eps-DP.
#    Broken ("clamp bug"): noise calibrated to hi = 4 (forgets the negative clamp bound).
#      Adding one record at -8 moves the sum by 8; discrete Laplace with alpha = exp(-eps/4)
#      has likelihood ratio alpha^-8 = exp(2 eps) at every output.  TRUE eps = 2.0 vs claim 1.0.
# ---------------------------------------------------------------------------------------------
class ClampedGeoSum(_Base):
    input_kind = "dataset"
    output_kind = "integer"
    neighbours = "add_remove"
    domain = (-8.0, 4.0)
    epsilon, delta = 1.0, 0.0

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "heldout2.clamped-geo-sum" + (".broken" if broken else "")
        lo, hi = self.domain
        # the Delta the noise is calibrated to
        self.sensitivity = hi if broken else max(abs(lo), abs(hi))
        self.description = "floor+clamp to [-8,4], integer sum + discrete Laplace, int32 out"

    def release_without_noise(self, query):
        x = np.asarray(query, dtype=float)
        lo, hi = self.domain
        return int(np.clip(np.floor(x), lo, hi).astype(np.int64).sum())

    def sample(self, query, n):
        s = self.release_without_noise(query)
        alpha = np.exp(-self.epsilon / self.sensitivity)
        return (s + self._two_sided_geometric(alpha, n)).astype(np.int32)


# ---------------------------------------------------------------------------------------------
# 2. Noisy average statistics over 2-column records (add/remove): releases
#    (sum col0, sum col1, count), each + Laplace, as float32 of shape (n, 3).  The average
#    sum/count is post-processing.  col0 in [0, 1], col1 in [-1, 1].
#    L1 sensitivity under add/remove: 1 + 1 + 1 = 3.
#    Correct: scale 3/eps per entry: pure eps-DP.
#    Broken: scale 2/eps (the count's sensitivity forgotten).  Adding record (1, 1) shifts all
#      three entries by 1; Laplace loss sum = 3 / (2/eps) = 1.5 eps, attained when all three
#      outputs lie beyond the shifted means.  TRUE eps = 1.5 vs claim 1.0.
# ---------------------------------------------------------------------------------------------
class NoisyAverageStats(_Base):
    input_kind = "dataset"
    columns = 2
    domain = ((0.0, 1.0), (-1.0, 1.0))
    neighbours = "add_remove"
    output_kind = "real"
    output_length = 3
    epsilon, delta = 1.0, 0.0

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "heldout2.noisy-average-stats" + (".broken" if broken else "")

    def sample(self, query, n):
        x = np.asarray(query, dtype=float).reshape(-1, 2)
        c0 = np.clip(x[:, 0], 0.0, 1.0).sum()
        c1 = np.clip(x[:, 1], -1.0, 1.0).sum()
        true = np.array([c0, c1, float(len(x))])
        scale = (2.0 if self.broken else 3.0) / self.epsilon
        out = true[None, :] + self._rng.laplace(0.0, scale, size=(n, 3))
        return _grid(out).astype(np.float32)


# ---------------------------------------------------------------------------------------------
# 3. Symmetric unary encoding (basic RAPPOR), local, k = 8, bool output of shape (n, 8).
#    Bit v is 1 w.p. p, every other bit w.p. 1 - p.  Changing v -> v' changes two bits, so
#    eps_true = 2 ln(p / (1 - p)).
#    Correct: p = e^{eps/2} / (1 + e^{eps/2})  ->  eps_true = eps.
#    Broken: p = e^eps / (1 + e^eps) (one-bit calibration)  ->  TRUE eps = 2.0 vs claim 1.0.
# ---------------------------------------------------------------------------------------------
class UnaryEncoding(_Base):
    input_kind = "local"
    domain = (0, 7)
    output_kind = "boolean"
    output_length = 8
    epsilon, delta = 1.0, 0.0

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "heldout2.unary-encoding" + (".broken" if broken else "")

    def sample(self, query, n):
        v = int(query)
        e = self.epsilon if self.broken else self.epsilon / 2
        p = np.exp(e) / (1.0 + np.exp(e))
        u = self._rng.random((n, 8))
        probs = np.full(8, 1.0 - p)
        probs[v] = p
        return u < probs[None, :]  # dtype bool


# ---------------------------------------------------------------------------------------------
# 4. Vector Gaussian, L2 sensitivity 1, 4 answers, claimed rho-zCDP with rho = 0.125.
#    Gaussian with std sigma and L2 sensitivity D is (D^2 / (2 sigma^2))-zCDP, exactly.
#    Correct: sigma = 2  ->  rho = 0.125.
#    Broken: sigma = 1.25  ->  TRUE rho = 1 / (2 * 1.5625) = 0.32 vs claim 0.125 (2.56x;
#      as mu-GDP: 0.8 vs 0.5).
# ---------------------------------------------------------------------------------------------
class VectorGaussianZCDP(_Base):
    input_kind = "vector"
    norm = "l2"
    sensitivity = 1.0
    query_length = 4
    output_kind = "real"
    output_length = "query"
    claim = "zcdp:rho=0.125"

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.sigma = 1.25 if broken else 2.0
        self.name = "heldout2.vector-gaussian-zcdp" + (".broken" if broken else "")

    def sample(self, query, n):
        q = np.asarray(query, dtype=float)
        return _grid(q[None, :] + self._rng.normal(0.0, self.sigma, size=(n, len(q))))


# ---------------------------------------------------------------------------------------------
# 5. Noisy top-k (k = 2) via one-shot Gumbel, unordered index set, vector L-inf sensitivity 1,
#    6 candidates.  Gumbel top-k with scale b = k-fold peeling exponential mechanism with
#    weights exp(u / b).
#    Correct: b = 2 k Delta / eps = 4: each peel is an (eps/k)-DP exponential mechanism,
#      composition eps (unordered set is post-processing).
#    Broken: b = k Delta / eps = 2 (monotone-utility factor used for non-monotone L-inf
#      neighbours): each peel is (2 eps/k)-DP, so eps_true <= 2.  Exact Plackett-Luce
#      probabilities (derive2.py) reach a log-ratio of 1.90 at m = 6.  TRUE eps in
#      [1.90, 2.0] vs claim 1.0.
# ---------------------------------------------------------------------------------------------
class GumbelTopK(_Base):
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1.0
    query_length = 6
    output_kind = "index_set"
    output_length = 2
    ordered = False
    epsilon, delta = 1.0, 0.0

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "heldout2.gumbel-top2" + (".broken" if broken else "")

    def sample(self, query, n):
        q = np.asarray(query, dtype=float)
        k = 2
        b = (k if self.broken else 2 * k) * self.sensitivity / self.epsilon
        scores = q[None, :] + self._rng.gumbel(0.0, b, size=(n, len(q)))
        top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        return np.sort(top, axis=1).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# 6. Sparse-vector variant: threshold T = 2, cutoff c = 2 (halt after the 2nd "above"),
#    6 queries, ternary output (1 above, 0 below, -1 halted), L-inf sensitivity 1.
#    Correct (Lyu et al. Alg. 1 with eps1 = eps2 = eps/2): rho ~ Lap(Delta/eps1) = Lap(2),
#      nu_i ~ Lap(2 c Delta/eps2) = Lap(8), fresh per query: pure eps-DP.
#    Broken: vectorisation bug, query noise drawn with shape (n, 1) and broadcast, so one nu is
#      shared by all queries.  Then "above" iff q_i >= T + rho - nu with a single random
#      threshold, and q = (0, 1, ...) vs q' = (1, 0, ...) gives pattern (below, above) with
#      positive probability under q (T+rho-nu in (0, 1]) and probability 0 under q'.
#      TRUE eps = infinity vs claim 1.0.
# ---------------------------------------------------------------------------------------------
class SparseVector(_Base):
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1.0
    query_length = 6
    output_kind = "ternary"
    output_length = "query"
    epsilon, delta = 1.0, 0.0
    T, c = 2.0, 2

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "heldout2.svt-T2-c2" + (".broken" if broken else "")

    def sample(self, query, n):
        q = np.asarray(query, dtype=float)
        m = len(q)
        e1 = e2 = self.epsilon / 2
        rho = self._rng.laplace(0.0, self.sensitivity / e1, size=(n, 1))
        nu_shape = (n, 1) if self.broken else (n, m)
        nu = self._rng.laplace(0.0, 2 * self.c * self.sensitivity / e2, size=nu_shape)
        above = (q[None, :] + nu) >= (self.T + rho)
        cum = np.cumsum(above, axis=1)
        # entry i is halted if c aboves happened strictly before it
        before = cum - above
        out = above.astype(np.int64)
        out[before >= self.c] = -1
        return out


# ---------------------------------------------------------------------------------------------
# 7. Histogram over a dataset under replace-one, 5 equal bins on [0, 1], discrete Laplace
#    noise per bin, integer output of shape (n, 5).  Claim eps = 0.5.
#    Replacing one record moves one unit from one bin to another: L1 sensitivity 2.
#    Correct: alpha = exp(-eps/2) per bin: pure eps-DP.
#    Broken: alpha = exp(-eps) (add/remove sensitivity 1 used under replace): two bins each
#      shift by 1, loss 2 * eps.  TRUE eps = 1.0 vs claim 0.5.
# ---------------------------------------------------------------------------------------------
class ReplaceHistogram(_Base):
    input_kind = "dataset"
    domain = (0.0, 1.0)
    neighbours = "replace"
    output_kind = "integer"
    output_length = 5
    epsilon, delta = 0.5, 0.0

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "heldout2.replace-histogram" + (".broken" if broken else "")

    def sample(self, query, n):
        x = np.clip(np.asarray(query, dtype=float), 0.0, 1.0)
        bins = np.minimum(np.floor(x * 5).astype(np.int64), 4)
        counts = np.bincount(bins, minlength=5).astype(np.int64)
        delta1 = 1.0 if self.broken else 2.0
        alpha = np.exp(-self.epsilon / delta1)
        return counts[None, :] + self._two_sided_geometric(alpha, (n, 5))


# ---------------------------------------------------------------------------------------------
# 8. Discrete Gaussian on integers (scalar integer query, sensitivity 1), claimed
#    (eps, delta) = (1, 2.5e-4).  Sampled by inverse CDF over [-40 sigma, 40 sigma] (mass
#    outside is < 1e-300, below float64 resolution).
#    Exact profile for shift 1: delta(eps) = sum_x max(0, p(x) - e^eps p(x-1)) (derive.py).
#    Correct: sigma = 3  ->  delta(1) = 2.18e-4 <= 2.5e-4 (eps at delta=2.5e-4 is 0.984).
#    Broken: sigma = 1.5  ->  TRUE eps at delta = 2.5e-4 is 2.22 vs claim 1.0.
# ---------------------------------------------------------------------------------------------
class DiscreteGaussian(_Base):
    input_kind = "scalar"
    output_kind = "integer"
    sensitivity = 1
    integer_queries = True
    epsilon, delta = 1.0, 2.5e-4

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.sigma = 1.5 if broken else 3.0
        self.name = "heldout2.discrete-gaussian" + (".broken" if broken else "")
        K = int(np.ceil(40 * self.sigma))
        self._support = np.arange(-K, K + 1, dtype=np.int64)
        w = np.exp(-(self._support.astype(float) ** 2) / (2 * self.sigma**2))
        self._cdf = np.cumsum(w / w.sum())
        self._cdf[-1] = 1.0

    def sample(self, query, n):
        q = int(round(float(query)))
        idx = np.searchsorted(self._cdf, self._rng.random(n), side="right")
        idx = np.minimum(idx, len(self._support) - 1)
        return q + self._support[idx]


# ---------------------------------------------------------------------------------------------
# Edge adapters: all CORRECT mechanisms that stretch the output contract.
# ---------------------------------------------------------------------------------------------
class EdgeLaplaceList(_Base):
    """additive Laplace eps=1, returns a Python list instead of a 1-D array (docs: 1-D array)."""

    name = "heldout2.edge.laplace-list-output"
    family = "additive"
    epsilon, delta = 1.0, 0.0
    sensitivity = 1.0

    def sample(self, query, n):
        return _grid(float(query) + self._rng.laplace(0.0, 1.0, size=n)).tolist()


class EdgeLaplaceColumn(_Base):
    """additive Laplace eps=1, returns shape (n, 1) (docs: shape (n,) when d = 1)."""

    name = "heldout2.edge.laplace-n-by-1"
    family = "additive"
    epsilon, delta = 1.0, 0.0
    sensitivity = 1.0

    def sample(self, query, n):
        return _grid(float(query) + self._rng.laplace(0.0, 1.0, size=(n, 1)))


class EdgeRandomizedResponseBool(_Base):
    """binary randomized response eps=1 (keep w.p. e/(1+e)), returns numpy bool dtype."""

    name = "heldout2.edge.rr-bool-dtype"
    family = "binary"
    epsilon, delta = 1.0, 0.0

    def sample(self, query, n):
        bit = bool(int(query))
        keep = self._rng.random(n) < np.exp(self.epsilon) / (1.0 + np.exp(self.epsilon))
        return np.where(keep, bit, not bit)  # dtype bool


ADAPTERS = []
for _cls in (
    ClampedGeoSum,
    NoisyAverageStats,
    UnaryEncoding,
    VectorGaussianZCDP,
    GumbelTopK,
    SparseVector,
    ReplaceHistogram,
    DiscreteGaussian,
):
    ADAPTERS.append(_cls(broken=False))
    ADAPTERS.append(_cls(broken=True))
ADAPTERS += [EdgeLaplaceList(), EdgeLaplaceColumn(), EdgeRandomizedResponseBool()]
