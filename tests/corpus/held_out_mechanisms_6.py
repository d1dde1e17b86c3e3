# ruff: noqa: SIM108 - each bug sits in its own branch, beside the correct line, as written
"""Held-out mechanisms, set 6: implementation bugs as they happen in real code.

Fourteen mechanisms, each as a CORRECT adapter and a BROKEN adapter (28 adapters in all).
The broken twin of each mechanism differs from the correct one by one realistic coding mistake
(a numpy parameter read the wrong way, a sensitivity formula for the other neighbouring
relation, noise drawn in the wrong place or shared between outputs, clamping after the noise
instead of before, an off-by-one in a threshold, a budget spent twice, ...).  Every broken
adapter states its TRUE privacy parameter next to its claim, with a short derivation in a
comment beside the bug; the numbers were checked with small exact / quadrature scripts kept
outside the repository.

This set was written BLIND: its author read only README.md, docs/writing-an-adapter.md,
docs/claims.md and docs/vector-outputs.md of dp-audit, and none of its source, tests, benches
or other documents; it was never run through dp-audit while it was written.  It uses plain
numpy and math only and does not import dp-audit.

Run it with (about three minutes on 2 cores)

    dp-audit run --adapter tests/corpus/held_out_mechanisms_6.py:ADAPTERS --out held-out-6

Measured at the default budget, seed 0 (2026-11-28, dp-audit 8b1f4b7): no correct one is a
violation, no adapter ends in error, 12 of 14 broken ones are found (certified / true):
histogram with numpy's geometric p 0.668 / 0.860, shared exponentials 0.617 / 1.2, GDP with
log10 mu 0.261 / 0.313, zCDP Gaussian calibrated to L-inf rho 0.274 / 0.5 (on cells), gamma
scale for rate 0.993 / 1.25, rounded query 1.126 / 1.333, replace-one sum with the add/remove
sensitivity 0.8 / 0.8 (white-box, from release_without_noise), clamp after noise 0.827 / 1.2,
double-spent mean 1.203 / 1.5, k-RR normalisation 1.201 / 1.531, exponential mechanism not
halved 0.730 / 1.4, RAPPOR's f 3.912 / 4.598.  Missed: the sparse vector with fresh threshold
noise (its loss above the claim sits in far tails: 1.06 on the simplest event) and the
stability histogram broken in delta alone (an event of probability 1.65e-3 against the
claimed 1e-3, which screening's few outputs per candidate pair cannot single out; found at
``--budget 2000000`` since commit 32b0508: 1.66 at delta 1e-3).  The first
run (commit b0720a5 plus the cells) certified the replace-one sum statistically at 0.519: the
white-box sensitivity check had no candidate pair on a small integer domain (fixed in 8b1f4b7).
``tests/corpus/labels.toml`` keeps these verdicts.

Every real-valued output is rounded to a 2^-20 grid (post-processing, so each claim is
unchanged): floating-point low bits carry nothing, and what the broken variants leak they
leak in their statistics.  Every correct variant is private as claimed (each derivation is in
its class docstring).

Broken variants (claim -> true value; "sup" = the exact supremum of the privacy loss):

| mechanism | input -> output | claim | true (broken) |
|---|---|---|---|
| histogram_geometric_p | vector(l1) -> integer[query] | eps 0.55 | eps 0.8603 |
| two_bin_laplace_shared_exponential | vector(l1), m = 2 -> real[2] | eps 0.6 | eps 1.2 |
| gaussian_log10 | scalar -> real | mu 0.206407 (GDP) | mu 0.31321 |
| gaussian_linf_as_l2 | vector(linf), m = 2 -> real[2] | rho 0.25 (zCDP) | rho 0.5 |
| l2_laplace_gamma_scale | vector(l2), m = 3 -> real[3] | eps 0.8 | eps 1.25 |
| rounded_query_geometric | scalar (Delta 1.5) -> integer | eps 1 | eps 4/3 |
| sum_replace_sensitivity | dataset(-6..10, replace) -> real | eps 0.5 | eps 0.8 |
| mean_clamp_after_noise | dataset(0..90, replace) -> real | eps 0.8 | eps 1.2 |
| noisy_mean_record | dataset(0..10, add/remove) -> record | eps 1 | eps 1.5 |
| krr_normalisation | local(0..3) -> integer | eps 1 | eps 1.5313 |
| exp_mech_not_halved | vector(linf) -> index | eps 0.7 | eps 1.4 (sup) |
| svt_fresh_threshold_noise | vector(linf), m = 7 -> index/none | eps 1 | eps 1.75 (sup) |
| stability_histogram_threshold | dataset(0..7), real[8]/NaN | (0.5, 1e-3) | delta 1.65e-3 |
| unary_rappor_f | local(0..7) -> boolean[8] | eps 3 | eps 4.5978 |

The bugs, in the same order:

- numpy geometric given p = e^-eps instead of 1 - e^-eps (true eps = -ln(1 - e^-0.55));
- Laplace built as E_j - E_{j+1} from d + 1 exponentials: adjacent bins reuse one (true d eps);
- log10 instead of ln in the classic sigma (true mu = claim x sqrt(ln 10));
- sigma calibrated to the L-inf bound instead of the L2 sensitivity sqrt(2) (true rho x2);
- numpy gamma given the rate eps/Delta as its scale (true eps = Delta^2/eps);
- query rounded to an integer before noise still calibrated to 1.5 (rounded answers move by 2);
- the add/remove sensitivity max(|lo|, |hi|) = 10 used under replace-one (needs 16);
- clipping bounds (0, 60) applied to the noisy mean, not to the records in (0, 90);
- count gets eps/2, then the sum's noise spends the whole eps again (true 1.5 eps);
- k-RR keep probability for "one of the other values" combined with "any value";
- exponential mechanism at exp(eps u / Delta) for a non-monotone utility (true 2 eps);
- AboveThreshold's noisy threshold redrawn for every query (true 7 eps / 4 for 7 queries);
- stability histogram threshold missing its "1 +" (delta x e^eps; eps at the claimed delta is
  unbounded, since the new bin is released by one neighbour only);
- RAPPOR's f set to the per-bit flip probability (true 2 ln(1 + 2 e^(eps/2))).

Subtle ones: two_bin_laplace_shared_exponential (every coordinate is exactly Laplace, only
the joint law leaks); rounded_query_geometric (x1.33; only pairs whose rounded answers land 2
apart see it, about half of the full moves of 1.5); gaussian_linf_as_l2 (zCDP is the claim kind
audited least tightly); svt_fresh_threshold_noise (its supremum is reached in far tails; near
the threshold each answer leaks about 0.18-0.2 instead of 0.25, so about 1.2-1.4 is what events
of reasonable probability show).  stability_histogram_threshold is broken in delta, not in
epsilon: its leak is an event that one neighbour produces with probability 1.65e-3 and the
other never (stability_histogram_threshold: dataset(0..7, add/remove) -> real[8] or NaN).

`TRUE_VALUES` maps every adapter name to its (claim, true value) as text.
"""

from __future__ import annotations

import math

import numpy as np

_GRID = float(2**20)


def _on_grid(x):
    """Round to the 2^-20 grid (post-processing; NaN stays NaN)."""
    return np.round(np.asarray(x, dtype=np.float64) * _GRID) / _GRID


class _Base:
    """Common plumbing: name, seeding, provenance."""

    mechanism = "base"
    library = "held-out set 6 (blind)"
    vectorised = True
    true_value = ""  # text; filled per class for the broken variant

    def __init__(self, broken: bool = False):
        self.broken = bool(broken)
        self.name = f"ho6.{self.mechanism}.{'broken' if broken else 'correct'}"
        self.description = (self.bug + " TRUE: " + self.true_value) if broken else self.summary
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# --------------------------------------------------------------------------------------------
# 1. Histogram with two-sided geometric noise: numpy geometric's p read the wrong way.
# --------------------------------------------------------------------------------------------
class HistogramGeometric(_Base):
    """Noisy histogram: counts + (G1 - G2), G ~ numpy geometric(p), p = 1 - e^(-eps).

    numpy's geometric has P(k) = (1 - p)^(k - 1) p on k >= 1, so G1 - G2 has
    P(z) proportional to (1 - p)^|z| = e^(-eps |z|): the discrete Laplace, eps-DP for counts
    with L1 sensitivity 1 (one bin moves by one).
    """

    mechanism = "histogram_geometric_p"
    summary = "histogram + two-sided geometric, p = 1 - exp(-eps): eps-DP (L1 = 1)."
    bug = "BUG: geometric success probability p = exp(-eps) instead of 1 - exp(-eps)."
    # With p = e^-eps the ratio between neighbouring values is 1 - p = 1 - e^-eps, so the true
    # eps is -ln(1 - e^-0.55) = 0.86026 (x1.56).  (At eps = ln 2 the bug would be harmless.)
    true_value = "eps = -ln(1 - exp(-0.55)) = 0.8603 (claim 0.55)"
    epsilon, delta = 0.55, 0.0
    input_kind = "vector"
    norm = "l1"
    sensitivity = 1
    integer_queries = True
    output_kind = "integer"
    output_length = "query"

    def sample(self, query, n):
        q = np.rint(np.asarray(query, dtype=np.float64).reshape(-1)).astype(np.int64)
        eps = self.epsilon / self.sensitivity
        if self.broken:
            p = math.exp(-eps)  # BUG: "p is the decay factor alpha = e^-eps"
        else:
            p = -math.expm1(-eps)  # 1 - e^-eps
        shape = (n, q.size)
        g = self._rng.geometric
        return q + (g(p, shape) - g(p, shape))


# --------------------------------------------------------------------------------------------
# 2. Two-bin Laplace histogram whose Laplace draws share exponentials between bins.
# --------------------------------------------------------------------------------------------
class TwoBinSharedExponential(_Base):
    """Two noisy counts (yes / no), each + Laplace(1/eps) built as E1 - E2 with E ~ Exp(1/eps).

    Correct: two fresh exponentials per bin, so the noise is i.i.d. Laplace(Delta/eps) and the
    release is eps-DP for L1 sensitivity Delta = 1.
    """

    mechanism = "two_bin_laplace_shared_exponential"
    summary = "2 counts + i.i.d. Laplace(1/eps) (difference of fresh exponentials): eps-DP."
    bug = (
        "BUG: d + 1 exponentials per row, bin j gets E_j - E_{j+1} (one exponential reused by "
        "adjacent bins)."
    )
    # Derivation.  N_j = E_j - E_{j+1}, E_1..E_3 i.i.d. Exp(b), b = 1/eps.  Each N_j is exactly
    # Laplace(b), but the joint density is (given E_3 = t, E_2 = t + N_2, E_1 = t + N_1 + N_2,
    # all >= 0, i.e. t >= m(N) = max(0, -N_2, -N_1 - N_2)):
    #   p(N) = b^-2 / 3 * exp(-(3 m(N) + N_1 + 2 N_2) / b).
    # The exponent is piecewise linear; moving one bin by 1 changes it by at most 2 (e.g. on
    # {N_1 + N_2 < min(0, N_2)} it is -(2 N_1 + N_2)/b, slope 2 in N_1, a region of large
    # probability), and by exactly 2 there.  True eps = 2/b = 2 eps = 1.2.  (For d bins it
    # would be d * eps: hence query_length = 2.)  Checked against quadrature and Monte Carlo.
    true_value = "eps = 2 * 0.6 = 1.2 (claim 0.6)"
    epsilon, delta = 0.6, 0.0
    input_kind = "vector"
    norm = "l1"
    sensitivity = 1.0
    query_length = 2
    output_kind = "real"
    output_length = "query"

    def sample(self, query, n):
        q = np.asarray(query, dtype=np.float64).reshape(-1)
        d = q.size
        b = self.sensitivity / self.epsilon
        if self.broken:
            e = self._rng.exponential(b, size=(n, d + 1))
            noise = e[:, :-1] - e[:, 1:]  # BUG: E_{j+1} is reused by bin j + 1
        else:
            e = self._rng.exponential(b, size=(n, d, 2))
            noise = e[..., 0] - e[..., 1]
        return _on_grid(q + noise)


# --------------------------------------------------------------------------------------------
# 3. Scalar Gaussian, sigma from the classic formula, claimed as mu-GDP: log10 instead of ln.
# --------------------------------------------------------------------------------------------
class GaussianLog10(_Base):
    """Gaussian mechanism, sigma = Delta sqrt(2 ln(1.25/delta)) / eps at (eps, delta) = (1, 1e-5).

    It documents "adds N(0, sigma^2)", i.e. mu-GDP with mu = Delta / sigma = 0.2064066...;
    the claim is that value rounded UP to 6 decimals (0.206407).
    """

    mechanism = "gaussian_log10"
    summary = "scalar Gaussian, classic sigma at (1, 1e-5): mu = Delta/sigma = 0.2064066-GDP."
    bug = "BUG: sigma = Delta * sqrt(2 * log10(1.25/delta)) / eps (log10 instead of ln)."
    # sigma_bug = sigma * sqrt(log10(x) / ln(x)) = sigma / sqrt(ln 10): true mu = Delta/sigma_bug
    # = 0.2064066 * sqrt(ln 10) = 0.3132070 (x1.517).
    true_value = "mu = 0.3132070 (claim 0.206407)"
    family = "additive"
    claim = "gdp:mu=0.206407"
    sensitivity = 1.0
    _eps, _delta = 1.0, 1e-5

    def _sigma(self):
        if self.broken:
            log = math.log10  # BUG
        else:
            log = math.log
        return self.sensitivity * math.sqrt(2.0 * log(1.25 / self._delta)) / self._eps

    def sample(self, query, n):
        return _on_grid(float(query) + self._rng.normal(0.0, self._sigma(), size=n))


# --------------------------------------------------------------------------------------------
# 4. Vector Gaussian under L-inf neighbours, zCDP: sigma calibrated to the L-inf bound.
# --------------------------------------------------------------------------------------------
class GaussianLinfAsL2(_Base):
    """Two answers, each moving by at most 1 (L-inf); i.i.d. N(0, sigma^2) per entry.

    rho-zCDP needs sigma^2 = Delta_2^2 / (2 rho) with Delta_2 = Delta_inf * sqrt(d) = sqrt(2):
    sigma = sqrt(d / (2 rho)) = 2 for rho = 0.25.
    """

    mechanism = "gaussian_linf_as_l2"
    summary = "2 answers (L-inf 1) + N(0, 4) each: 0.25-zCDP (Delta_2 = sqrt 2)."
    bug = "BUG: sigma = Delta_inf / sqrt(2 rho): the L-inf bound used as the L2 sensitivity."
    # sigma_bug = 1/sqrt(0.5) = sqrt 2; the move (1, 1) has L2 norm sqrt 2, so
    # true rho = 2 / (2 * 2) = 0.5 = 2 * claim (mu-equivalent x1.41).
    true_value = "rho = 0.5 (claim 0.25)"
    claim = "zcdp:rho=0.25"
    _rho = 0.25
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1.0
    query_length = 2
    output_kind = "real"
    output_length = "query"

    def sample(self, query, n):
        q = np.asarray(query, dtype=np.float64).reshape(-1)
        d = q.size
        if self.broken:
            sigma = self.sensitivity * math.sqrt(1.0 / (2.0 * self._rho))  # BUG: forgot sqrt(d)
        else:
            sigma = self.sensitivity * math.sqrt(d / (2.0 * self._rho))
        return _on_grid(q + self._rng.normal(0.0, sigma, size=(n, d)))


# --------------------------------------------------------------------------------------------
# 5. L2 ("multivariate") Laplace: numpy gamma's scale given the rate.
# --------------------------------------------------------------------------------------------
class L2LaplaceGamma(_Base):
    """K-norm mechanism for the L2 ball: noise density proportional to exp(-eps ||z||_2 / Delta).

    Sampled as a uniform direction times a radius ~ Gamma(shape d, scale Delta/eps) (the radial
    density is r^(d-1) e^(-eps r / Delta)).  ||z + v|| - ||z|| <= ||v|| <= Delta: eps-DP for
    L2 sensitivity Delta.
    """

    mechanism = "l2_laplace_gamma_scale"
    summary = "3 answers + L2-Laplace noise, radius Gamma(d, Delta/eps): eps-DP (L2 = 1)."
    bug = "BUG: rng.gamma(d, eps / Delta): the rate passed as numpy's scale."
    # Radius scale s = eps/Delta = 0.8 instead of 1.25: density exp(-||z|| / s), loss
    # Delta / s = Delta^2 / eps = 1.25 (exact; x1.56).
    true_value = "eps = Delta^2/eps = 1.25 (claim 0.8)"
    epsilon, delta = 0.8, 0.0
    input_kind = "vector"
    norm = "l2"
    sensitivity = 1.0
    query_length = 3
    output_kind = "real"
    output_length = "query"

    def sample(self, query, n):
        q = np.asarray(query, dtype=np.float64).reshape(-1)
        d = q.size
        direction = self._rng.normal(size=(n, d))
        direction /= np.linalg.norm(direction, axis=1, keepdims=True)
        if self.broken:
            radius = self._rng.gamma(d, self.epsilon / self.sensitivity, size=(n, 1))  # BUG
        else:
            radius = self._rng.gamma(d, self.sensitivity / self.epsilon, size=(n, 1))
        return _on_grid(q + radius * direction)


# --------------------------------------------------------------------------------------------
# 6. Scalar query rounded to an integer before discrete noise.
# --------------------------------------------------------------------------------------------
class RoundedQueryGeometric(_Base):
    """Real query (sensitivity 1.5) snapped to the nearest integer, plus two-sided geometric.

    np.rint moves each answer by at most 1/2, so neighbouring rounded answers differ by at most
    floor(1.5 + 1) = 2 (checked by brute force); noise P(z) ~ exp(-eps |z| / 2) is eps-DP.
    """

    mechanism = "rounded_query_geometric"
    summary = "rint(query) + discrete Laplace calibrated to the rounded sensitivity 2: eps-DP."
    bug = "BUG: the query is rounded, but the noise is still calibrated to Delta = 1.5."
    # alpha = exp(-eps/1.5) while rounded answers can differ by 2 (q = 0 -> 0, q' = 1.5 -> 2):
    # true eps = 2 * eps / 1.5 = 4/3 (x1.33; exact).
    true_value = "eps = 2/1.5 = 1.3333 (claim 1)"
    epsilon, delta = 1.0, 0.0
    input_kind = "scalar"
    sensitivity = 1.5
    output_kind = "integer"

    def sample(self, query, n):
        k = int(np.rint(float(query)))  # snap to the integer grid the noise lives on
        if self.broken:
            delta_int = self.sensitivity  # BUG: rounding can add up to 1 to the sensitivity
        else:
            delta_int = math.floor(self.sensitivity + 1.0)
        p = -math.expm1(-self.epsilon / delta_int)
        g = self._rng.geometric
        return k + (g(p, n) - g(p, n))


# --------------------------------------------------------------------------------------------
# 7. Bounded sum under replace-one, with the add/remove sensitivity.
# --------------------------------------------------------------------------------------------
class SumReplace(_Base):
    """Sum of integer records clamped to (-6, 10), plus Laplace(Delta/eps), replace-one.

    Replacing one record moves the sum by at most hi - lo = 16: Laplace(16/eps) is eps-DP.
    `release_without_noise` is the integer sum the noise is added to; `sensitivity` is the
    Delta the noise is calibrated to (16 here; 10 in the broken twin).
    """

    mechanism = "sum_replace_sensitivity"
    summary = "clamped sum, replace-one, Laplace(16/eps): eps-DP."
    bug = "BUG: Delta = max(|lo|, |hi|) = 10 (the add/remove formula) under replace-one."
    # Replace -6 by 10: the sum moves by 16 with noise of scale 10/eps: true eps = 1.6 * 0.5
    # = 0.8 (exact; x1.6).
    true_value = "eps = 16/10 * 0.5 = 0.8 (claim 0.5)"
    epsilon, delta = 0.5, 0.0
    input_kind = "dataset"
    domain = (-6, 10)
    neighbours = "replace"
    output_kind = "real"

    def __init__(self, broken=False):
        super().__init__(broken)
        lo, hi = self.domain
        if self.broken:
            self.sensitivity = max(abs(lo), abs(hi))  # BUG: add/remove sensitivity
        else:
            self.sensitivity = hi - lo

    def release_without_noise(self, query):
        x = np.rint(np.asarray(query, dtype=np.float64).reshape(-1))
        x = np.clip(x, *self.domain).astype(np.int64)
        return int(x.sum())

    def sample(self, query, n):
        s = self.release_without_noise(query)
        return _on_grid(s + self._rng.laplace(0.0, self.sensitivity / self.epsilon, size=n))


# --------------------------------------------------------------------------------------------
# 8. Mean with clipping bounds narrower than the data domain: clamp after the noise.
# --------------------------------------------------------------------------------------------
class MeanClampAfterNoise(_Base):
    """Mean of records in (0, 90), clipped to (0, 60) first, replace-one (n public).

    Clipped mean moves by at most 60/n; + Laplace(60/(n eps)), then the result clamped to
    (0, 60) (post-processing): eps-DP.
    """

    mechanism = "mean_clamp_after_noise"
    summary = "mean of records clipped to (0, 60), + Laplace(60/(n eps)), result clamped: eps-DP."
    bug = "BUG: records not clipped; only the noisy mean is clamped to (0, 60)."
    # The unclipped mean moves by up to 90/n with noise of scale 60/(n eps); the clamp is
    # post-processing and keeps the full ratio (n = 1, records 0 vs 90: P[out = 0] = 1/2 vs
    # exp(-1.5 eps)/2).  True eps = 1.5 * 0.8 = 1.2 (exact; x1.5).
    true_value = "eps = 90/60 * 0.8 = 1.2 (claim 0.8)"
    epsilon, delta = 0.8, 0.0
    input_kind = "dataset"
    domain = (0, 90)
    neighbours = "replace"
    min_records = 1
    output_kind = "real"
    clip_bounds = (0.0, 60.0)

    def sample(self, query, n):
        x = np.asarray(query, dtype=np.float64).reshape(-1)
        a, b = self.clip_bounds
        m = x.size
        if m == 0:  # never sent (min_records, and replace keeps the size); data-independent
            return np.full(n, (a + b) / 2.0)
        if not self.broken:
            x = np.clip(x, a, b)
        # BUG (broken twin): the line above is skipped; the clamp below "does the clipping".
        mean = float(np.mean(x))
        noisy = mean + self._rng.laplace(0.0, (b - a) / (m * self.epsilon), size=n)
        return _on_grid(np.clip(noisy, a, b))


# --------------------------------------------------------------------------------------------
# 9. Noisy count and noisy mean released together: the budget spent twice.
# --------------------------------------------------------------------------------------------
class NoisyMeanRecord(_Base):
    """Records in (0, 10), add/remove.  Releases (noisy count, noisy sum / noisy count).

    eps/2 to the count (Laplace(2/eps), sensitivity 1) and eps/2 to the sum (Laplace(20/eps),
    sensitivity max(|lo|, |hi|) = 10); the mean is post-processing of the two (NaN when the
    noisy count is below 1): eps-DP by composition.
    """

    mechanism = "noisy_mean_record"
    summary = "record (count: eps/2, mean = noisy sum (eps/2) / noisy count): eps-DP."
    bug = "BUG: the sum's noise is calibrated to the full eps after the count spent eps/2."
    # Loss = eps_count + eps_sum = 0.5 + 1.0 = 1.5, and it is attained: adding a record at 10 to
    # n >= 2 records, on {noisy count in [1, n], noisy sum <= S} both Laplace ratios are at their
    # maximum, and (count, mean) <-> (count, sum) is one-to-one there.  True eps = 1.5 (x1.5).
    true_value = "eps = 0.5 + 1.0 = 1.5 (claim 1)"
    epsilon, delta = 1.0, 0.0
    input_kind = "dataset"
    domain = (0, 10)
    neighbours = "add_remove"
    output_kind = "record"
    fields = {"count": "real", "mean": "real"}
    nullable = True

    def sample(self, query, n):
        lo, hi = self.domain
        x = np.clip(np.asarray(query, dtype=np.float64).reshape(-1), lo, hi)
        count, total = float(x.size), float(x.sum())
        eps_count = self.epsilon / 2.0
        if self.broken:
            eps_sum = self.epsilon  # BUG: "the mean is one query, it gets epsilon"
        else:
            eps_sum = self.epsilon - eps_count
        sens_sum = max(abs(lo), abs(hi))
        noisy_count = count + self._rng.laplace(0.0, 1.0 / eps_count, size=n)
        noisy_sum = total + self._rng.laplace(0.0, sens_sum / eps_sum, size=n)
        ok = noisy_count >= 1.0
        mean = np.full(n, np.nan)
        mean[ok] = noisy_sum[ok] / noisy_count[ok]
        out = np.empty(n, dtype=[("count", np.float64), ("mean", np.float64)])
        out["count"] = _on_grid(noisy_count)
        out["mean"] = _on_grid(mean)
        return out


# --------------------------------------------------------------------------------------------
# 10. k-ary randomized response with the wrong normalisation.
# --------------------------------------------------------------------------------------------
class KaryRandomizedResponse(_Base):
    """4-ary randomized response: the true value w.p. e^eps / (e^eps + 3), else one of the 3
    other values uniformly (each 1 / (e^eps + 3)): ratio e^eps, eps-LDP."""

    mechanism = "krr_normalisation"
    summary = "4-ary randomized response, keep w.p. e^eps/(e^eps+3), else another value: eps-LDP."
    bug = (
        "BUG: keep w.p. e^eps/(e^eps+k-1) (the 'other value' formula), else a uniform draw over "
        "ALL k values (which can return the true value again)."
    )
    # p = e/(e+3).  P(v) = p + (1-p)/4, P(other) = (1-p)/4; ratio = 1 + 4p/(1-p) = 1 + 4e/3:
    # true eps = ln(1 + 4e/3) = 1.53134 (exact; x1.53).
    true_value = "eps = ln(1 + 4e/3) = 1.5313 (claim 1)"
    epsilon, delta = 1.0, 0.0
    input_kind = "local"
    domain = (0, 3)
    output_kind = "integer"

    def sample(self, query, n):
        lo, hi = self.domain
        k = hi - lo + 1
        v = int(np.rint(float(query))) - lo
        ee = math.exp(self.epsilon)
        p_keep = ee / (ee + k - 1)
        keep = self._rng.random(n) < p_keep
        if self.broken:
            other = self._rng.integers(0, k, size=n)  # BUG: uniform over all k values
        else:
            other = self._rng.integers(0, k - 1, size=n)
            other = other + (other >= v)  # uniform over the k - 1 values other than v
        return np.where(keep, v, other).astype(np.int64) + lo


# --------------------------------------------------------------------------------------------
# 11. Exponential mechanism (Gumbel-max) without the factor 1/2.
# --------------------------------------------------------------------------------------------
class ExpMechNotHalved(_Base):
    """Exponential mechanism over the candidates, P[i] ~ exp(eps u_i / (2 Delta)), sampled as
    argmax(u + Gumbel(scale 2 Delta / eps)); utilities move by at most Delta = 1 each, in any
    direction (no monotonicity): eps-DP."""

    mechanism = "exp_mech_not_halved"
    summary = "exponential mechanism, Gumbel scale 2 Delta/eps, non-monotone utility: eps-DP."
    bug = "BUG: Gumbel scale Delta/eps, i.e. exp(eps u / Delta), for a non-monotone utility."
    # Loss for output i: [u_i - u'_i]/beta + log(sum_j e^{u'_j/beta} / sum_j e^{u_j/beta});
    # with u'_i = u_i - 1, u'_j = u_j + 1 and u_i -> -inf it tends to 2/beta = 2 eps = 1.4 (sup;
    # from k equal utilities to (-1, +1, ..., +1) it is ln((1 + (k-1) e^{2 eps}) / k): 1.30 at
    # k = 8, where the correct twin loses 0.64).
    true_value = "eps = 2 * 0.7 = 1.4 (claim 0.7; supremum)"
    family = "selection"
    epsilon, delta = 0.7, 0.0
    sensitivity = 1.0

    def sample(self, query, n):
        u = np.asarray(query, dtype=np.float64).reshape(-1)
        if self.broken:
            beta = self.sensitivity / self.epsilon  # BUG: the monotone-case scale
        else:
            beta = 2.0 * self.sensitivity / self.epsilon
        return np.argmax(u + self._rng.gumbel(0.0, beta, size=(n, u.size)), axis=1)


# --------------------------------------------------------------------------------------------
# 12. AboveThreshold whose threshold noise is redrawn for every query.
# --------------------------------------------------------------------------------------------
class SVTFreshThreshold(_Base):
    """AboveThreshold (sparse vector, cutoff 1) over 7 queries, threshold T = 0.

    rho ~ Laplace(Delta/eps1) once, nu_i ~ Laplace(2 Delta/eps2), eps1 = eps2 = eps/2; output the
    index of the first i with q_i + nu_i >= T + rho, or -1 (none): eps-DP (Lyu, Su, Li 2017,
    Alg. 1 with c = 1; non-monotone queries, L-inf sensitivity 1).
    """

    mechanism = "svt_fresh_threshold_noise"
    summary = "AboveThreshold, 7 queries, threshold noise drawn once: eps-DP."
    bug = "BUG: the noisy threshold T + rho is recomputed inside the loop (fresh rho per query)."
    # With a fresh rho_i the comparisons are independent: P[first above = k] =
    # prod_{i<k} F(T - q_i) * (1 - F(T - q_k)), F the CDF of nu - rho (Laplace 4/eps minus
    # Laplace 2/eps).  log F is concave, so each factor's loss for a move of 1 is at most the
    # limit of the heavier tail, 1/b_max = eps/4, reached only in the far tail; the output
    # "none" (7 factors) gives sup = 7 eps / 4 = 1.75 (x1.75).  Near the threshold each factor
    # loses 0.18-0.20 (computed exactly), so practical events show about 1.2-1.4.
    true_value = "eps = 7/4 = 1.75 (claim 1; supremum, reached in far tails)"
    epsilon, delta = 1.0, 0.0
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1.0
    query_length = 7
    output_kind = "index"
    nullable = True
    threshold = 0.0

    def sample(self, query, n):
        q = np.asarray(query, dtype=np.float64).reshape(-1)
        m = q.size
        eps1 = eps2 = self.epsilon / 2.0
        if self.broken:
            rho = self._rng.laplace(0.0, self.sensitivity / eps1, size=(n, m))  # BUG
        else:
            rho = self._rng.laplace(0.0, self.sensitivity / eps1, size=(n, 1))
        nu = self._rng.laplace(0.0, 2.0 * self.sensitivity / eps2, size=(n, m))
        above = q + nu >= self.threshold + rho
        first = np.argmax(above, axis=1).astype(np.int64)
        first[~above.any(axis=1)] = -1
        return first


# --------------------------------------------------------------------------------------------
# 13. Stability-based histogram: off-by-one in the release threshold.
# --------------------------------------------------------------------------------------------
class StabilityHistogram(_Base):
    """Histogram of categories 0..7 under add/remove; only non-empty bins can be released.

    Each non-empty bin: c + Laplace(1/eps), released if above tau = 1 + ln(1/(2 delta)) / eps,
    else NaN ("none"); empty bins are always NaN.  A bin going 0 -> 1 is released with
    probability P[1 + Z > tau] = exp(-(tau - 1) eps) / 2 = delta, never before; every other
    change is a Laplace ratio <= e^eps: (eps, delta)-DP, with delta exactly tight.
    """

    mechanism = "stability_histogram_threshold"
    summary = "stability histogram, Laplace(1/eps), tau = 1 + ln(1/(2 delta))/eps: (eps, delta)-DP."
    bug = "BUG: tau = ln(1/(2 delta)) / eps (the '1 +' for the count of the new bin forgotten)."
    # P[1 + Z > tau - 1] = exp(-(tau - 2) eps) / 2 = delta * e^eps = 1.6487e-3 at eps = 0.5
    # (x1.65 in delta).  That event has probability 0 on the neighbour without the record, so
    # delta(eps') >= 1.6487e-3 for every eps': at the claimed delta = 1e-3 epsilon is unbounded.
    true_value = "delta(0.5) = 1e-3 * e^0.5 = 1.6487e-3 (claim (0.5, 1e-3)); eps at 1e-3 unbounded"
    epsilon, delta = 0.5, 1e-3
    input_kind = "dataset"
    domain = (0, 7)
    neighbours = "add_remove"
    output_kind = "real"
    output_length = 8
    nullable = True

    def sample(self, query, n):
        lo, hi = self.domain
        k = hi - lo + 1
        x = np.clip(np.rint(np.asarray(query, dtype=np.float64).reshape(-1)), lo, hi)
        counts = np.bincount((x - lo).astype(np.int64), minlength=k)[:k].astype(np.float64)
        noisy = counts + self._rng.laplace(0.0, 1.0 / self.epsilon, size=(n, k))
        if self.broken:
            tau = math.log(1.0 / (2.0 * self.delta)) / self.epsilon  # BUG: off by one
        else:
            tau = 1.0 + math.log(1.0 / (2.0 * self.delta)) / self.epsilon
        release = (counts > 0) & (noisy > tau)
        return np.where(release, _on_grid(noisy), np.nan)


# --------------------------------------------------------------------------------------------
# 14. Unary encoding with RAPPOR-style randomisation: f confused with the flip probability.
# --------------------------------------------------------------------------------------------
class UnaryRappor(_Base):
    """One-hot encoding of a value in 0..7, each bit randomised as in RAPPOR's permanent
    randomized response: with probability f replaced by a fair coin, else kept.  Each bit is
    flipped w.p. f/2; two bits differ between any two values, so eps = 2 ln((1 - f/2)/(f/2)),
    i.e. f = 2 / (1 + e^(eps/2)): eps-LDP."""

    mechanism = "unary_rappor_f"
    summary = "one-hot + RAPPOR randomisation, f = 2/(1 + e^(eps/2)): eps-LDP."
    bug = "BUG: f = 1/(1 + e^(eps/2)) (the per-bit flip probability) used as RAPPOR's f."
    # Flip probability x = f/2 = 1 / (2 (1 + e^1.5)); (1 - x)/x = 1 + 2 e^1.5, two bits:
    # true eps = 2 ln(1 + 2 e^1.5) = 4.59783 (exact; x1.53).
    true_value = "eps = 2 ln(1 + 2 e^1.5) = 4.5978 (claim 3)"
    epsilon, delta = 3.0, 0.0
    input_kind = "local"
    domain = (0, 7)
    output_kind = "boolean"
    output_length = 8

    def sample(self, query, n):
        lo, hi = self.domain
        k = hi - lo + 1
        v = int(np.rint(float(query))) - lo
        bits = np.zeros((n, k), dtype=np.uint8)
        bits[:, v] = 1
        if self.broken:
            f = 1.0 / (1.0 + math.exp(self.epsilon / 2.0))  # BUG
        else:
            f = 2.0 / (1.0 + math.exp(self.epsilon / 2.0))
        u = self._rng.random((n, k))
        out = np.where(u < f / 2.0, 1, np.where(u < f, 0, bits))
        return out.astype(np.uint8)


_CLASSES = [
    HistogramGeometric,
    TwoBinSharedExponential,
    GaussianLog10,
    GaussianLinfAsL2,
    L2LaplaceGamma,
    RoundedQueryGeometric,
    SumReplace,
    MeanClampAfterNoise,
    NoisyMeanRecord,
    KaryRandomizedResponse,
    ExpMechNotHalved,
    SVTFreshThreshold,
    StabilityHistogram,
    UnaryRappor,
]

ADAPTERS = [cls(broken=b) for cls in _CLASSES for b in (False, True)]


def _claim_text(a) -> str:
    if getattr(a, "claim", None):
        return str(a.claim)
    if a.delta:
        return f"approx:eps={a.epsilon:g},delta={a.delta:g}"
    return f"pure:eps={a.epsilon:g}"


TRUE_VALUES = {
    a.name: (_claim_text(a), a.true_value if a.broken else "private as claimed") for a in ADAPTERS
}
