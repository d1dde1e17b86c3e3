# ruff: noqa: SIM108, B905
"""Held-out mechanisms, set 12: noise shapes beyond plain Laplace and Gaussian.

What this is
------------
Twenty test subjects for dp-audit: ten mechanisms whose privacy depends on the *shape* of
their noise (its tails, its support, its discreteness, its steps) or on noise scaled to the
instance, each as a CORRECT adapter (private exactly as claimed, tight or nearly so) and a
BROKEN twin that differs from it by one realistic implementation bug, marked ``# BUG`` beside
the line of the correct version it replaces.

How it was written
------------------
Blind: the author read only README.md, docs/writing-an-adapter.md, docs/claims.md and
docs/vector-outputs.md of the repository, no source, test, bench file or other document,
and neither imported nor ran dp-audit.  The file needs only numpy, scipy and math.  Every
true value below was computed by the author's own scripts (exact pmf sums, quadrature,
closed forms, and Monte Carlo of these very samplers against the exact laws); see
``TRUE_DETAILS``.  Every real-valued output, correct or broken, is rounded to a 2^-20 grid
(post-processing, so the claim is unchanged): floating-point low bits leak nothing, and the
broken twins are broken in their statistics only.

Mechanisms: input -> output, claim; correct twin's true value; broken twin's bug -> true value
-------------------------------------------------------------------------------------------
1.  staircase: scalar (Delta=2) -> real, pure eps=1; correct exactly 1.0 (tight).
    Broken: steps of width 1, Delta never applied -> eps = 2.0 (gross, body of the law).
2.  bounded-laplace (Holohan et al. 2018): scalar in [0, 4] -> real in [0, 4], pure eps=1;
    correct scale recalibrated for the resampling, exactly 1.0. Broken: plain scale Delta/eps
    -> eps = 1.4774 (pair 0 vs 1, outputs next to the bound 0).
3.  truncated-laplace (Geng et al. 2020): scalar -> real, (eps=1, delta=1e-3); correct tight,
    its edge strip has mass exactly delta. Broken: np.clip instead of resampling -> atoms at
    q +- A: delta(eps) = 2.16e-3 at every eps, eps = inf at delta=1e-3 (support edge).
4.  skellam: vector (l1, 1, integer) -> integer vector, rdp:2=0.1653,4=0.3155,8=0.5517,16=0.8604
    (exact curve, rounded up). Broken: centred Poisson(6) - 6 -> RDP scale inf (support edge
    q - 6, probability e^-6 = 2.5e-3; the common support is within the claim).
5.  binomial: scalar integer -> integer, (eps=1, delta=1e-3); correct N=30, eps 0.9949 at
    delta. Broken: N=28 from the Gaussian calibration -> eps = 1.0418 (subtle, in the tails).
6.  discrete-gaussian (sigma 0.7): vector (l2, 1, integer) -> integer vector, zcdp:rho=1.0205;
    correct exactly 1.020408. Broken: discrete Laplace proposal without the "-0" rejection ->
    rho = 1.4329 (moderate; KL, outputs at the centre).
7.  cauchy-median (smooth sensitivity, Nissim et al. 2007, Bun & Steinke 2019): dataset of ints
    in [0, 10], replace one -> real, pure eps=1; correct true eps in [0.95, 1.0]. Broken: local
    sensitivity -> eps = inf (a median released without noise when records tie around it).
8.  snapped-geometric: scalar -> real on the grid 0.4 Z, pure eps=1; correct exactly 1.0.
    Broken: ignores the extra step from snapping -> eps = 1.2 (only pairs 3 steps apart).
9.  irwin-hall-gaussian: vector (l2, 1) -> real vector, gdp:mu=1; correct exactly 1.0.
    Broken: N(0,1) drawn as 12 uniforms - 6 -> mu = inf from the support edge (mass 2e-9);
    effective mu 1.08 / 1.14 / 1.21 with both errors >= 1e-3 / 1e-4 / 1e-5 (tails only).
10. piecewise (Wang et al. 2019): local value 0..8 -> real, pure eps=1; correct exactly 1.0.
    Broken: centre-piece probability of randomized response, e^eps/(e^eps+1) -> eps = 1.5.

Traps in the CORRECT adapters (features that are not leaks): the truncated Laplace's strip
next to its support edge has probability exactly delta; the binomial's support edge (2^-30)
and its steep privacy loss in the tails sit inside delta; the Cauchy median has enormous
outputs (heavy tails, scale up to 10/a); the Skellam and discrete Gaussian release small
integers with a few likely values; the bounded Laplace piles its mass inside [0, 4] and the
piecewise mechanism's support [-C, C] is the same for every input; the snapped geometric
releases multiples of 0.4 only.

Run (not run by the author):

    dp-audit run --adapter tests/corpus/held_out_mechanisms_12.py:ADAPTERS --out held-out-12

Measured at the default budget, seed 0 (2026-11-28, after the author handed it over): no
correct one is a violation (the heavy-tailed Cauchy median, the truncated Laplace's edge of
mass delta and the binomial's edge included), no adapter ends in error.  Found (certified /
true): staircase 1.775 / 2, bounded Laplace 1.024 / 1.477, discrete Gaussian rho 1.043 /
1.433, Skellam RDP scale 1.54 / inf, Cauchy median 5.16 / inf, piecewise 1.197 / 1.5, and,
since the first run, the clipped truncated Laplace 2.71 / inf (0.968 before: two point
masses of 5.8e-4 at the clip bounds with the edge strip make 2.16e-3 against delta = 1e-3,
and no event united atoms with a tail) and the snapped geometric 1.10 / 1.2 (0.604 before:
1.2 only for inputs off the grid such as 0.1 and 1.1, which no pair sent).  Missed: the
binomial (1.042 for a claimed 1, at 0.196) and the Irwin-Hall Gaussian (its excess in tails
of mass 1e-4 and beyond; mu 0.763).
``tests/corpus/labels.toml`` keeps these verdicts.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize

_GRID = 2.0**20
_CHUNK = 1 << 18


def _grid(x):
    """Round to a 2^-20 grid: post-processing that hides floating-point low bits."""
    return np.round(np.asarray(x, dtype=float) * _GRID) / _GRID


class _Base:
    broken = False
    vectorised = True
    library = "held-out set 12"

    def __init__(self):
        self.rng = np.random.default_rng()

    def seed(self, entropy):
        self.rng = np.random.default_rng(entropy)


# ---------------------------------------------------------------------------------------------
# 1. Staircase mechanism (Geng & Viswanath 2014), optimal gamma, Delta = 2
# ---------------------------------------------------------------------------------------------
class Staircase(_Base):
    """Scalar query, sensitivity 2, staircase noise with the optimal gamma: pure eps-DP, tight
    (density ratio exactly e^eps across one step)."""

    family = "additive"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 2.0

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho12.staircase" + (".broken" if broken else "")
        self.description = "staircase noise, eps=1, Delta=2" + (
            " (steps of width 1)" if broken else ""
        )

    def _noise(self, n):
        eps = self.epsilon
        if self.broken:
            width = 1.0  # BUG: the paper's unit-sensitivity staircase, Delta never applied
        else:
            width = self.sensitivity
        b = math.exp(-eps)
        gamma = 1.0 / (1.0 + math.exp(eps / 2.0))
        rng = self.rng
        sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        g = rng.geometric(1.0 - b, size=n) - 1.0  # P(G = k) = (1 - b) b^k, k >= 0
        u = rng.random(n)
        inner = rng.random(n) < gamma / (gamma + (1.0 - gamma) * b)
        mag = np.where(inner, (g + gamma * u) * width, (g + gamma + (1.0 - gamma) * u) * width)
        return sign * mag

    def sample(self, query, n):
        return _grid(float(query) + self._noise(n))


# ---------------------------------------------------------------------------------------------
# 2. Bounded Laplace by resampling (Holohan, Antonatos, Braghin, Mac Aonghusa 2018)
# ---------------------------------------------------------------------------------------------
def _bounded_laplace_eps(b, lo, hi, sens):
    """Pure eps of Laplace(b) resampled into [lo, hi]: sens/b + max log Z(q + sens)/Z(q)."""
    q = np.linspace(lo, hi - sens, 4001)

    def z(c):
        return 1.0 - 0.5 * np.exp(-(c - lo) / b) - 0.5 * np.exp(-(hi - c) / b)

    return float(np.max(sens / b + np.log(z(q + sens) / z(q))))


class BoundedLaplace(_Base):
    """True answers in [0, 4], Laplace noise resampled until the output is inside [0, 4]; the
    scale is recalibrated so that Delta/b + log of the worst ratio of acceptance probabilities
    equals eps (Holohan et al.): pure eps-DP, tight at the pair (0, 1) near output 0."""

    family = "additive"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1.0
    query_bounds = (0.0, 4.0)

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho12.bounded-laplace" + (".broken" if broken else "")
        lo, hi = self.query_bounds
        if broken:
            self.scale = self.sensitivity / self.epsilon  # BUG: the unbounded Laplace scale
        else:
            self.scale = optimize.brentq(
                lambda b: _bounded_laplace_eps(b, lo, hi, self.sensitivity) - self.epsilon,
                0.5,
                20.0,
                xtol=1e-13,
            )
        self.description = f"Laplace({self.scale:.4f}) resampled into [0, 4], eps=1"

    def sample(self, query, n):
        lo, hi = self.query_bounds
        q = min(max(float(query), lo), hi)
        out = np.empty(n)
        todo = np.arange(n)
        while todo.size:
            y = q + self.rng.laplace(0.0, self.scale, size=todo.size)
            ok = (y >= lo) & (y <= hi)
            out[todo[ok]] = y[ok]
            todo = todo[~ok]
        return _grid(out)


# ---------------------------------------------------------------------------------------------
# 3. Truncated Laplace for approximate DP (Geng, Ding, Guo, Kumar 2020)
# ---------------------------------------------------------------------------------------------
class TruncatedLaplace(_Base):
    """Laplace(Delta/eps) conditioned on |noise| <= A, A = (Delta/eps) log(1 + (e^eps - 1)/(2
    delta)): (eps, delta)-DP, tight.  The strip of width Delta at the edge of the support that
    the neighbour cannot reach has probability exactly delta."""

    family = "additive"
    epsilon = 1.0
    delta = 1e-3
    sensitivity = 1.0

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho12.truncated-laplace" + (".broken" if broken else "")
        self.scale = self.sensitivity / self.epsilon
        self.bound = self.scale * math.log1p((math.exp(self.epsilon) - 1.0) / (2.0 * self.delta))
        self.description = f"Laplace(1) truncated to +-{self.bound:.4f}, (1, 1e-3)"

    def _noise(self, n):
        a = self.bound
        if self.broken:
            return np.clip(self.rng.laplace(0.0, self.scale, size=n), -a, a)  # BUG: clip
        out = np.empty(n)
        todo = np.arange(n)
        while todo.size:
            z = self.rng.laplace(0.0, self.scale, size=todo.size)
            ok = np.abs(z) <= a
            out[todo[ok]] = z[ok]
            todo = todo[~ok]
        return out

    def sample(self, query, n):
        return _grid(float(query) + self._noise(n))


# ---------------------------------------------------------------------------------------------
# 4. Skellam mechanism (Agarwal, Kairouz, Liu 2021) on a histogram, RDP curve
# ---------------------------------------------------------------------------------------------
_SKELLAM_MU = 3.0
# exact D_alpha(Sk(3) + 1 || Sk(3)) at these orders (pmf sums over |k| <= 150), rounded up
_SKELLAM_CLAIM = "rdp:2=0.1653,4=0.3155,8=0.5517,16=0.8604"


class SkellamHistogram(_Base):
    """Integer counts (L1 sensitivity 1) plus independent Skellam(mu, mu) = Poisson(mu) -
    Poisson(mu) noise per bin, mu = 3.  Claimed: its exact Renyi curve at orders 2, 4, 8, 16
    (rounded up in the 4th digit)."""

    input_kind = "vector"
    norm = "l1"
    sensitivity = 1
    integer_queries = True
    output_kind = "integer"
    output_length = "query"
    claim = _SKELLAM_CLAIM

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho12.skellam" + (".broken" if broken else "")
        self.description = "histogram + Skellam(3) noise, RDP curve" + (
            " (centred Poisson)" if broken else ""
        )

    def sample(self, query, n):
        q = np.asarray(query, dtype=np.int64).reshape(-1)
        d = q.size
        mu = _SKELLAM_MU
        out = np.empty((n, d), dtype=np.int64)
        step = max(1, _CHUNK // max(d, 1))
        for s in range(0, n, step):
            m = min(step, n - s)
            if self.broken:
                noise = self.rng.poisson(2 * mu, size=(m, d)) - int(2 * mu)  # BUG: centred Poisson
            else:
                noise = self.rng.poisson(mu, size=(m, d)) - self.rng.poisson(mu, size=(m, d))
            out[s : s + m] = q[None, :] + noise
        return out


# ---------------------------------------------------------------------------------------------
# 5. Binomial mechanism, approximate DP
# ---------------------------------------------------------------------------------------------
class Binomial(_Base):
    """Integer query plus Binomial(N, 1/2) - N/2 noise.  N = 30 is the smallest even N whose
    exact delta(eps=1) is at most 1e-3 (9.64e-4; eps at delta=1e-3 is 0.9949).  The support
    edge q - N/2, which the neighbour q + 1 never produces, has probability 2^-30."""

    input_kind = "scalar"
    sensitivity = 1
    integer_queries = True
    output_kind = "integer"
    epsilon = 1.0
    delta = 1e-3

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho12.binomial" + (".broken" if broken else "")
        if broken:
            # analytic-Gaussian sigma for (1, 1e-3) is 2.5747; N = 4 sigma^2 rounded up to even
            self.trials = 28  # BUG: Gaussian-approximation calibration instead of the exact pmf
        else:
            self.trials = 30
        self.description = f"Binomial({self.trials}, 1/2) noise, (1, 1e-3)"

    def sample(self, query, n):
        q = int(round(float(query)))
        nn = self.trials
        return q + self.rng.binomial(nn, 0.5, size=n).astype(np.int64) - nn // 2


# ---------------------------------------------------------------------------------------------
# 6. Discrete Gaussian (Canonne, Kamath, Steinke 2020) at a small scale, sigma = 0.7
# ---------------------------------------------------------------------------------------------
_DG_SIGMA = 0.7


class DiscreteGaussianSmall(_Base):
    """Integer vector (L2 sensitivity 1) plus i.i.d. discrete Gaussian noise of sigma = 0.7,
    sampled exactly by CKS's rejection from a discrete Laplace.  rho = 1/(2 sigma^2) = 1.0204
    is attained at every integer order (sup_alpha D_alpha/alpha equals it)."""

    input_kind = "vector"
    norm = "l2"
    sensitivity = 1
    integer_queries = True
    output_kind = "integer"
    output_length = "query"
    claim = "zcdp:rho=1.0205"

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho12.discrete-gaussian" + (".broken" if broken else "")
        self.description = "discrete Gaussian sigma=0.7, rho=1.0205" + (
            " (discrete Laplace without the -0 rejection)" if broken else ""
        )

    def _dgauss(self, size):
        sigma = _DG_SIGMA
        s2 = sigma * sigma
        t = math.floor(sigma) + 1
        out = np.empty(size, dtype=np.int64)
        todo = np.arange(size)
        rng = self.rng
        while todo.size:
            m = todo.size
            # discrete Laplace of scale t, sign-magnitude: reject (negative, 0)
            v = rng.geometric(1.0 - math.exp(-1.0 / t), size=m) - 1
            neg = rng.random(m) < 0.5
            if self.broken:
                lap_ok = np.ones(m, dtype=bool)  # BUG: "-0" not rejected, 0 drawn twice as often
            else:
                lap_ok = ~(neg & (v == 0))
            y = np.where(neg, -v, v)
            acc = rng.random(m) < np.exp(-((np.abs(y) - s2 / t) ** 2) / (2.0 * s2))
            ok = lap_ok & acc
            out[todo[ok]] = y[ok]
            todo = todo[~ok]
        return out

    def sample(self, query, n):
        q = np.asarray(query, dtype=np.int64).reshape(-1)
        d = q.size
        out = np.empty((n, d), dtype=np.int64)
        step = max(1, _CHUNK // max(d, 1))
        for s in range(0, n, step):
            m = min(step, n - s)
            out[s : s + m] = q[None, :] + self._dgauss(m * d).reshape(m, d)
        return out


# ---------------------------------------------------------------------------------------------
# 7. Median with Cauchy noise scaled by the smooth sensitivity (Nissim, Raskhodnikova, Smith
#    2007; Bun & Steinke 2019)
# ---------------------------------------------------------------------------------------------
_MED_BETA = 0.05
_MED_A = 2.0 * math.sinh((1.0 - _MED_BETA) / 2.0)  # 2 asinh(a/2) + beta = 1


class CauchyMedian(_Base):
    """Lower median of integer records in [0, 10] (replace one), plus S(x)/a times a standard
    Cauchy, S the beta-smooth sensitivity of the median (beta = 0.05), a = 2 sinh(0.475).
    Shift costs 2 asinh(a/2) = 0.95, the dilation by e^beta at most 0.05: pure 1-DP."""

    input_kind = "dataset"
    domain = (0, 10)
    neighbours = "replace"
    output_kind = "real"
    epsilon = 1.0
    delta = 0.0

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho12.cauchy-median" + (".broken" if broken else "")
        self.description = "median + smooth-sensitivity Cauchy noise, eps=1" + (
            " (local sensitivity)" if broken else ""
        )

    def _median_and_scale(self, records):
        lo, hi = self.domain
        x = np.sort(np.clip(np.asarray(records, dtype=float).reshape(-1), lo, hi))
        n = x.size
        m = (n + 1) // 2  # 1-based index of the lower median
        pad = np.concatenate([np.full(n + 2, float(lo)), x, np.full(n + 2, float(hi))])
        off = n + 1  # pad[off + i] is x_i (1-based), x_i = lo for i <= 0, hi for i > n
        local = max(pad[off + m + 1] - pad[off + m], pad[off + m] - pad[off + m - 1])
        if self.broken:
            return x[m - 1], local  # BUG: local sensitivity in place of the smooth one
        s = local
        for k in range(1, n + 2):
            if math.exp(-k * _MED_BETA) * (hi - lo) <= s:
                break
            t = np.arange(k + 2)
            ak = float(np.max(pad[off + m + t] - pad[off + m + t - k - 1]))
            s = max(s, math.exp(-k * _MED_BETA) * ak)
        return x[m - 1], s

    def sample(self, query, n):
        med, s = self._median_and_scale(query)
        return _grid(med + (s / _MED_A) * self.rng.standard_cauchy(size=n))


# ---------------------------------------------------------------------------------------------
# 8. Geometric noise on a grid after snapping the query (discrete Laplace, unusual scale)
# ---------------------------------------------------------------------------------------------
class SnappedGeometric(_Base):
    """Real query snapped to the grid 0.4 Z, plus two-sided geometric noise in grid steps,
    released as a multiple of 0.4.  Snapping lets neighbours (|q - q'| <= 1 = 2.5 steps) land
    up to 3 steps apart, so the per-step parameter is eps/3: pure eps-DP, tight at pairs such
    as (0.1, 1.1)."""

    family = "additive"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1.0
    granularity = 0.4

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho12.snapped-geometric" + (".broken" if broken else "")
        g = self.granularity
        if broken:
            self.step_eps = self.epsilon * g / self.sensitivity  # BUG: ignores the snapping step
        else:
            # |q - q'| <= 2.5 steps before snapping: at most floor(2.5) + 1 = 3 after it
            self.step_eps = self.epsilon / (math.floor(self.sensitivity / g) + 1)
        self.description = f"snap to 0.4, geometric noise exp(-{self.step_eps:.3f}|k|)"

    def sample(self, query, n):
        g = self.granularity
        k = int(np.rint(float(query) / g))
        p = 1.0 - math.exp(-self.step_eps)
        z = self.rng.geometric(p, size=n) - self.rng.geometric(p, size=n)
        return _grid((k + z) * g)


# ---------------------------------------------------------------------------------------------
# 9. Gaussian noise on a vector, mu-GDP; the broken twin draws its "Gaussian" as 12 uniforms
# ---------------------------------------------------------------------------------------------
class GaussianVectorGDP(_Base):
    """Vector query (L2 sensitivity 1) plus N(0, 1) per entry: exactly 1-GDP.  The broken twin
    uses the old sum-of-12-uniforms approximation (mean 0, variance 1, support [-6, 6])."""

    input_kind = "vector"
    norm = "l2"
    sensitivity = 1.0
    output_kind = "real"
    output_length = "query"
    claim = "gdp:mu=1"
    sigma = 1.0

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho12.irwin-hall-gaussian" + (".broken" if broken else "")
        self.description = "vector + N(0,1) per entry, 1-GDP" + (
            " (Gaussian as 12 uniforms - 6)" if broken else ""
        )

    def sample(self, query, n):
        q = np.asarray(query, dtype=float).reshape(-1)
        d = q.size
        out = np.empty((n, d))
        step = max(1, _CHUNK // max(d, 1))
        for s in range(0, n, step):
            m = min(step, n - s)
            if self.broken:
                z = np.full((m, d), -6.0)  # BUG: sum of 12 uniforms minus 6 for a N(0, 1)
                for _ in range(12):
                    z += self.rng.random((m, d))
            else:
                z = self.rng.standard_normal((m, d))
            out[s : s + m] = _grid(q[None, :] + self.sigma * z)
        return out


# ---------------------------------------------------------------------------------------------
# 10. Piecewise mechanism for local DP (Wang et al. 2019), one value in 0..8
# ---------------------------------------------------------------------------------------------
class Piecewise(_Base):
    """Local value v in 0..8 mapped to t = v/4 - 1 in [-1, 1]; output in [-C, C], C = (e^{eps/2}
    + 1)/(e^{eps/2} - 1), uniform on the centre piece [l(t), l(t) + C - 1] with probability
    e^{eps/2}/(e^{eps/2} + 1), else uniform on the rest: densities in ratio e^eps, pure eps-LDP,
    tight for every pair of distinct values."""

    input_kind = "local"
    domain = (0, 8)
    output_kind = "real"
    epsilon = 1.0
    delta = 0.0

    def __init__(self, broken=False):
        super().__init__()
        self.broken = broken
        self.name = "ho12.piecewise" + (".broken" if broken else "")
        self.description = "piecewise mechanism, eps=1" + (
            " (centre-piece probability of randomized response)" if broken else ""
        )

    def sample(self, query, n):
        eps = self.epsilon
        h = math.exp(eps / 2.0)
        c = (h + 1.0) / (h - 1.0)
        lo, hi = self.domain
        v = min(max(int(query), lo), hi)
        t = 2.0 * (v - lo) / (hi - lo) - 1.0
        left = (c + 1.0) / 2.0 * t - (c - 1.0) / 2.0
        right = left + c - 1.0
        if self.broken:
            p_centre = math.exp(eps) / (math.exp(eps) + 1.0)  # BUG: randomized response's e^eps
        else:
            p_centre = h / (h + 1.0)
        rng = self.rng
        centre = rng.random(n) < p_centre
        u = rng.random(n)
        y_centre = left + (c - 1.0) * u
        w = (c + 1.0) * u  # the rest: [-C, left) then (right, C], total length C + 1
        y_rest = np.where(w < left + c, -c + w, right + (w - (left + c)))
        return _grid(np.where(centre, y_centre, y_rest))


def _pairs(cls):
    return [cls(broken=False), cls(broken=True)]


ADAPTERS = [
    *_pairs(Staircase),
    *_pairs(BoundedLaplace),
    *_pairs(TruncatedLaplace),
    *_pairs(SkellamHistogram),
    *_pairs(Binomial),
    *_pairs(DiscreteGaussianSmall),
    *_pairs(CauchyMedian),
    *_pairs(SnappedGeometric),
    *_pairs(GaussianVectorGDP),
    *_pairs(Piecewise),
]


_INF = float("inf")
_PRIV = "private as claimed"

TRUE_VALUES = {
    "ho12.staircase": ("pure eps=1", _PRIV),
    "ho12.staircase.broken": ("pure eps=1", 2.0),
    "ho12.bounded-laplace": ("pure eps=1", _PRIV),
    "ho12.bounded-laplace.broken": ("pure eps=1", 1.4774),
    "ho12.truncated-laplace": ("approx eps=1, delta=1e-3", _PRIV),
    "ho12.truncated-laplace.broken": ("approx eps=1, delta=1e-3", _INF),
    "ho12.skellam": (_SKELLAM_CLAIM, _PRIV),
    "ho12.skellam.broken": (_SKELLAM_CLAIM, _INF),
    "ho12.binomial": ("approx eps=1, delta=1e-3", _PRIV),
    "ho12.binomial.broken": ("approx eps=1, delta=1e-3", 1.0418),
    "ho12.discrete-gaussian": ("zcdp:rho=1.0205", _PRIV),
    "ho12.discrete-gaussian.broken": ("zcdp:rho=1.0205", 1.4329),
    "ho12.cauchy-median": ("pure eps=1", _PRIV),
    "ho12.cauchy-median.broken": ("pure eps=1", _INF),
    "ho12.snapped-geometric": ("pure eps=1", _PRIV),
    "ho12.snapped-geometric.broken": ("pure eps=1", 1.2),
    "ho12.irwin-hall-gaussian": ("gdp:mu=1", _PRIV),
    "ho12.irwin-hall-gaussian.broken": ("gdp:mu=1", _INF),
    "ho12.piecewise": ("pure eps=1", _PRIV),
    "ho12.piecewise.broken": ("pure eps=1", 1.5),
}

TRUE_DETAILS = {
    "ho12.staircase": (
        "Staircase density with steps of width Delta=2, decay e^-1 per step, inner fraction "
        "gamma=1/(1+e^0.5). A shift t <= 2 moves a point by at most one step, so the density "
        "ratio is at most e^1, and exactly e^1 on sets of positive mass (q=0 vs q'=2). Checked "
        "by max log f(x)/f(x+t) over a 1e-4 grid and 200 shifts in (0, 2]: 1.000000; the "
        "sampler's histogram matches the exact density (1e6 draws)."
    ),
    "ho12.staircase.broken": (
        "Steps of width 1 (Delta never applied) while neighbours move by 2: a shift of 2 crosses "
        "two steps, so f(x)/f(x+2) = e^2 for x in an inner piece (e.g. x in [0, 0.378) at q=0 "
        "against q'=-2, or outputs just above q against q+2). True eps = 2.0 exactly; same grid "
        "check gives 2.000000. Gross, everywhere in the body of the law."
    ),
    "ho12.bounded-laplace": (
        "Laplace(b) resampled into [0, 4]: density e^{-|y-q|/b} / (2b Z(q)), Z(q) = 1 - "
        "e^{-q/b}/2 - e^{-(4-q)/b}/2. Loss sup = 1/b + log Z(q+1)/Z(q), largest at q=0, q'=1 "
        "(and mirror 4, 3), approached as the output goes to 0. b = 1.56724 solves it = 1. A grid "
        "over all pairs |q-q'| <= 1 and outputs in [0, 4] gives 1.000000; MC of the sampler "
        "matches the truncated density and P[y<0.05] ratio 2.61 (exact 2.63 = e^{~0.97})."
    ),
    "ho12.bounded-laplace.broken": (
        "Scale Delta/eps = 1 as for unbounded Laplace (Holohan et al.'s point): the renormaliser "
        "adds log Z(1)/Z(0) = log(0.7912/0.4908) = 0.4774, so eps = 1.4774, attained by q=0 vs "
        "q'=1 (or 4 vs 3) on outputs close to the bound 0 (or 4). Density ratio near 0 checked "
        "by grid (1.47739) and MC (P[y<0.05] ratio 4.15 vs exact 4.17 = e^1.43 averaged over the "
        "strip). Moderate; the violation lives only next to the bounds."
    ),
    "ho12.truncated-laplace": (
        "Laplace(1) conditioned on |z| <= A = log(1 + (e-1)/2e-3) = 6.757. Inside the overlap the "
        "ratio is <= e; the strip [q-A, q+1-A) that q+1 cannot reach has mass exactly delta = "
        "1e-3 (closed form; grid integral of (p - e q)_+ gives 0.99999e-3). Tight (eps=1 at "
        "delta=1e-3), pair q, q+1, the strip at the support edge. MC strip mass 0.978e-3 +- 0.016."
    ),
    "ho12.truncated-laplace.broken": (
        "np.clip instead of resampling: atoms of mass e^{-A}/2 = 5.81e-4 at q-A and q+A, neither "
        "of which q+1 produces as an atom (q-A is outside its support, q+A inside its continuous "
        "part), and the strip [q-A, q+1-A) keeps its Laplace mass 5.81e-4 (e-1) = 9.99e-4: "
        "sup_S P_q(S) - e^eps P_{q+1}(S) = 2 * 5.81e-4 + 9.99e-4 = 2.16e-3 for "
        "every eps, so eps at delta=1e-3 is infinite. Pair q, q+1; events: the output equals q+-A "
        "(after the 2^-20 rounding) or lies below q+1-A. MC: P[y<1-A] = 1.56e-3 (exact 1.58e-3), "
        "P[y = A] = 5.80e-4."
    ),
    "ho12.skellam": (
        "Per bin Poisson(3) - Poisson(3) (pmf e^-6 I_k(6)); L1 sensitivity 1 on integer counts "
        "means one bin moves by one. Exact D_alpha (pmf sums over |k| <= 150, both orders, "
        "symmetric): 0.165231, 0.315472, 0.551607, 0.860362 at alpha 2, 4, 8, 16; claimed "
        "rounded up (ratios 0.9996-0.99996). MC pmf of the sampler matches (1e6 draws)."
    ),
    "ho12.skellam.broken": (
        "Skellam replaced by a centred Poisson, Poisson(6) - 6 (same mean and variance). Its "
        "support is bounded below: output q-6 has probability e^-6 = 2.48e-3 at q and 0 at q+1 "
        "(same bin), so D_alpha(P_q || P_{q+1}) is infinite at every order: RDP scale inf. On the "
        "common support the divergences are below the claim (0.154, 0.263, 0.423, 0.643), so "
        "the violation lives only at the support edge. MC: P[noise=-6] = 2.43e-3, min -6."
    ),
    "ho12.binomial": (
        "Binomial(30, 1/2) - 15 noise, integer queries, shift 1. Exact delta(1) = "
        "sum (p - e q)_+ = 9.638e-4 <= 1e-3, eps at delta=1e-3 = 0.9949 (nearly tight); 30 is "
        "the smallest even N that works. The edge q-15 (prob 2^-30) and the steep loss in the "
        "tails are inside delta. MC pmf matches."
    ),
    "ho12.binomial.broken": (
        "N = 28 from the analytic Gaussian calibration (sigma = 2.5747 for (1, 1e-3), 4 sigma^2 "
        "= 26.5, rounded up to even) ignoring the binomial's heavier privacy-loss tails: exact "
        "delta(1) = 1.216e-3, so eps at delta=1e-3 = 1.0418 (brentq on the exact pmf sums). Pair "
        "q, q+1; the excess sits in the tails (outputs beyond about q+-7). Subtle."
    ),
    "ho12.discrete-gaussian": (
        "Discrete Gaussian sigma=0.7 per entry (CKS rejection sampler); L2 sensitivity 1 over "
        "integer vectors allows only unit moves of one entry. For integer shifts D_alpha = "
        "alpha/(2 sigma^2) at integer alpha, so sup D_alpha/alpha = 1.020408 (computed over "
        "alpha in (1, 2000]: 1.020408, KL 1.020408) <= 1.0205. MC pmf of the sampler matches."
    ),
    "ho12.discrete-gaussian.broken": (
        "The discrete Laplace proposal skips the rejection of (negative sign, 0), so 0 is "
        "proposed twice as often and the output pmf is proportional to e^{-k^2/0.98} times 2 at "
        "k=0. Exact sup D_alpha/alpha = 1.4329, attained as alpha -> 1 (KL = 1.43293), for a "
        "single entry moved by 1 (outputs at the old and new centre). MC pmf matches the doubled "
        "law. Moderate (1.40x)."
    ),
    "ho12.cauchy-median": (
        "Lower median plus S/a * Cauchy, S the 0.05-smooth sensitivity of the median over [0, 10] "
        "with replace-one, a = 2 sinh(0.475). Bound: shift costs <= 2 asinh(a/2) = 0.95, the "
        "scale change e^{+-0.05} at most 0.05, so eps <= 1. Pair [0] vs [10] attains 0.95 "
        "exactly; 6,000 random pairs and a hill-climb over datasets of 2-15 records found "
        "nothing above 0.95 (closed-form sup of the Cauchy ratio), so the true eps is in "
        "[0.95, 1.0]. The module's S matches an independent implementation on 3,000 datasets; "
        "KS of the outputs against the Cauchy law passes."
    ),
    "ho12.cauchy-median.broken": (
        "Uses the local sensitivity max(x_{m+1}-x_m, x_m-x_{m-1}) instead of the smooth one. "
        "Where the records around the median tie it is 0 and the median is released without "
        "noise: [5, 5, 5] outputs exactly 5, its neighbour [5, 5, 10] has local sensitivity 5 "
        "and outputs 5 with probability 0. eps = inf (checked by sampling: 1.000 vs 0.000). "
        "Where both local sensitivities are positive (0..10 vs one record replaced) the loss "
        "is 0.95, so the leak needs ties at the median."
    ),
    "ho12.snapped-geometric": (
        "Snap q to the nearest multiple of 0.4 (rint), add two-sided geometric noise with "
        "parameter e^{-1/3} per step. |q - q'| <= 1 is 2.5 steps before snapping, at most 3 "
        "after; 3 * (1/3) = 1. Enumerating q on a 1e-4 grid over [-2, 2] with q' = q +- 1: max "
        "1.0 (e.g. q=0.1, q'=1.1, steps 0 and 3). MC pmf matches."
    ),
    "ho12.snapped-geometric.broken": (
        "Calibrated as eps*g/Delta = 0.4 per step (Delta/eps in output units), forgetting that "
        "snapping adds up to one step: a 3-step pair costs 1.2. eps = 1.2, attained only by pairs "
        "whose snapped values are 3 steps apart (q/0.4 with fractional part in (0, 0.5), e.g. "
        "0.1 vs 1.1); pairs such as 0 vs 1 (2 steps) cost 0.8. Moderate, query-dependent."
    ),
    "ho12.irwin-hall-gaussian": (
        "N(0,1) per entry, L2 sensitivity 1: exactly 1-GDP (mu = Delta/sigma). Outputs on a "
        "2^-20 grid (post-processing). KS against N(0,1) passes on five seeds."
    ),
    "ho12.irwin-hall-gaussian.broken": (
        "Each 'Gaussian' is the sum of 12 uniforms minus 6 (Irwin-Hall): support [-6, 6] and "
        "light tails. One entry moved by 1: the strip [q-6, q-5) is unreachable by q+1 "
        "(probability 1/12! = 2.1e-9), so the trade-off is below every G_mu and mu = inf. Its "
        "effective mu from threshold tests (exact Irwin-Hall cdf) is 0.996, 1.03, 1.08, 1.14, "
        "1.21, 1.29 when both errors are >= 0.1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6. Violation lives "
        "only in the far tails. MC tail masses match the exact cdf (P[z<-3.5] 1.22e-4)."
    ),
    "ho12.piecewise": (
        "Piecewise mechanism (Wang et al. 2019), t = v/4 - 1, C = (e^0.5+1)/(e^0.5-1) = 4.083; "
        "centre-piece density / outside density = e^0.5 (C+1)/(C-1) = e^1. Max log density ratio "
        "over all 72 ordered pairs of values on a grid: 1.000000 (any two distinct values; the "
        "end values 0 and 8 have disjoint centre pieces). MC histogram matches the density."
    ),
    "ho12.piecewise.broken": (
        "Centre-piece probability e^eps/(e^eps+1) copied from randomized response instead of "
        "e^{eps/2}/(e^{eps/2}+1): the density ratio becomes e^1 * e^0.5, eps = 1.5 exactly, for "
        "every pair of distinct values, on outputs in one value's centre piece and outside the "
        "other's (e.g. 0 vs 8, outputs near -C vs near C). Moderate."
    ),
}
