"""Held-out mechanisms, set 5: edge cases of the adapter contract.

Seventeen adapters written from the contract documents only (README.md,
docs/writing-an-adapter.md, docs/claims.md, docs/vector-outputs.md). Their author did not
read dp-audit's source, tests or other bench files, and did not run dp-audit on them. Each
is either CORRECT (private exactly as claimed under the declared neighbouring relation) or
BROKEN (a realistic bug). A broken adapter's true parameter is given next to its claim.

They exercise legal but unusual corners of the contract. There are outputs that are "none"
almost always (AboveThreshold with a threshold of 200, a histogram that suppresses almost
every bin). There are records that mix nullable index, ternary("query"), index_set,
integer and real fields, and a deterministic field (the exact dataset size under replace,
which is public). Noise scales run from epsilon = 0.01 to epsilon = 20, there are integer
answers near 1e12, a dataset domain 1e-6 wide and another +-1e9 wide, a local domain {0, 1}
with a real output that takes only two values, a d = 500 boolean vector and a d = 300
nullable real vector. Query lengths are 1 (returned as shape (n, 1)), 8 and 64. One adapter declares min_records and another
release_without_noise. An integer field is stored in a float array (NaN-capable). Claims
take every text form the docs allow: pure, approx with delta > 0, gdp, zcdp and rdp. One
correct claim is tight (a non-Gaussian 1-GDP) and one is 100x loose.

Run:

    dp-audit run --adapter tests/corpus/held_out_mechanisms_5.py:ADAPTERS --out held-out-5

Measured (default budget, seed 0, 2026-11-28): no correct one is a violation, none ends in
error.  Found (certified / true): unary encoding spending eps twice 1.59 / 2, variance
passed as the standard deviation rho 1.16 / 2, count-sum-mean 1.11 / 1.5, clipping after
the noise 1.38 / 1.68, compacted histogram 5.21 / inf, AboveThreshold's noiseless shortcut
5.20 / inf.  The first run (commit 050ae7b) missed the noiseless "none" gate (0 / inf): the
base search read a response only where both ends of the probed range hold one value, and
above the gate the pick varies; since it also reads one end that holds a value the other
never shows, the gate is found at 5.44.

Every real-valued output is rounded to a 2^-20 grid, so floating-point low bits carry
nothing. That is post-processing and leaves every claim as it is. `seed(entropy)` reseeds a
numpy Generator, so an audit with a fixed --seed replays.

| # | adapter | input -> output | claim | status | true parameter |
|---|---|---|---|---|---|
| 1 | ho5.above-threshold-silent(T=200) | vector(linf,1) m=64 -> record{first: index?, answers: ternary[query]} | pure eps=1 | correct | eps = 1 (Lyu et al. Alg. 1, c = 1) |
| 2 | ho5.above-threshold-silent.shortcut | same | pure eps=1 | BROKEN: skips the SVT (answers "none") when max(q) < T - 2, on the true data | eps = inf; delta(any eps) >= 0.997 (all 64 at T-3 vs T-2), 0.343 (one query moved) |
| 3 | ho5.unary-rr-500 | local 0..499 -> boolean[500] | pure eps=1 | correct | eps = 0.99994 (probabilities on a 2^-16 grid, rounded down) |
| 4 | ho5.unary-rr-500.double-spend | same | pure eps=1 | BROKEN: each bit flipped at eps, but a change of value moves 2 bits | eps = 2 (1.99990) |
| 5 | ho5.rr-two-values.gdp | local 0..1 -> real, values only -1.0 / +1.0 | gdp mu=1 | correct, TIGHT (keep p = Phi(0.5): trade-off kink on G_1) | mu = 1 (eps-DP with eps = 0.807) |
| 6 | ho5.huge-count.loose | scalar int in [1e12, 1e12+1e6] -> integer | pure eps=1 | correct, 100x LOOSE (discrete Laplace at eps=0.01) | eps = 0.01 |
| 7 | ho5.near-exact-count(eps=20) | scalar int, sens 3 -> integer | pure eps=20 | correct, tight (output = q with prob 0.99746) | eps = 20 |
| 8 | ho5.narrow-offset-sum | dataset replace, domain (1000, 1000.000001) -> real | pure eps=0.25 | correct (records quantised to 2^20 steps, integer sum, m*lo added as public constant) | eps = 0.25 |
| 9 | ho5.em-with-none | vector(linf,1) m=8 -> record{pick: index?, top2: index_set[2]} | pure eps=1 | correct (EM with a virtual "none" candidate at utility 5: eps/3; Gumbel top-2: 2 eps/3) | eps = 1 |
| 10 | ho5.em-with-none.noiseless-gate | same | pure eps=1 | BROKEN: pick = -1 whenever max(q) < 5 (no noise) | eps = inf (delta = 1: pick is -1 surely at max(q) = 4.5, never at 5.5) |
| 11 | ho5.moments-record | dataset replace, domain (0.0, 1.0), min_records=5 -> record{n: integer (exact), mean, var} | pure eps=1 (text "pure:eps=1") | correct | eps = 1 |
| 12 | ho5.count-sum-mean.wide | dataset add_remove, domain (-1e9, 1e9) -> record{count: integer (float array), sum, mean?} nullable | pure eps=1 | BROKEN: count gets eps/2, but the sum's noise is still calibrated to the whole eps | eps = 1.5 |
| 13 | ho5.stability-histogram-300 | dataset add_remove, domain 0..299 -> real[300] nullable | (eps, delta) = (1, 1e-5) | correct: empty bins are "none" deterministically, the others released iff c + Lap(1) > 1 + ln(1/(2 delta)) | (1, 1e-5), delta tight |
| 14 | ho5.histogram.compacted | dataset replace, domain 0..9 -> real[10] nullable | (eps, delta) = (1, 1e-5) | BROKEN: empty bins dropped, later bins shift left, NaN padding | not (eps, delta)-DP for any delta < 1 (delta = 1) |
| 15 | ho5.gaussian-64.rdp | vector(l2,1) m=64 -> real[query] | rdp alpha/8 at alpha = 2..32 | correct, tight (sigma = 2) | eps(alpha) = alpha/8 |
| 16 | ho5.gaussian-1.zcdp.variance-as-std | vector(l2,1) m=1 -> real[query], shape (n, 1) | zcdp rho=1 | BROKEN: passes sigma^2 = 0.5 to numpy as the standard deviation | rho = 2 (2-GDP) |
| 17 | ho5.local-clip-after-noise | local 0..9 -> real (atoms at 2 and 7) | pure eps=1 | BROKEN: clip(v + Lap(5), 2, 7) instead of clip(v, 2, 7) + Lap(5) | eps = 1.6849 |

The derivations and numbers for the broken adapters are in the docstrings of each class (and
in /tmp/ho5/true_values.py of the authoring session).

Not used because the docs give no text form for them (they need `auditor.core.claim_kinds`,
and this module must not import dp-audit): the delta(eps) profile and f-DP claims.
"""

from __future__ import annotations

import math

import numpy as np

GRID = 2.0**20


def _grid(x):
    """Round to the 2^-20 grid (post-processing)."""
    return np.round(np.asarray(x, dtype=np.float64) * GRID) / GRID


def _dlap(rng, t, size):
    """Discrete Laplace: P(k) proportional to exp(-t |k|), as a difference of geometrics."""
    p = -math.expm1(-t)
    return rng.geometric(p, size=size).astype(np.int64) - rng.geometric(p, size=size).astype(
        np.int64
    )


class _Base:
    vectorised = True
    library = "held-out-5"

    def __init__(self):
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)


# ---------------------------------------------------------------------------------------
# 1, 2. AboveThreshold with a far threshold: "none" almost always.
# ---------------------------------------------------------------------------------------


class AboveThresholdSilent(_Base):
    """AboveThreshold (Lyu, Su & Li 2017, Alg. 1 with c = 1) over 64 queries, threshold 200.

    rho ~ Lap(2/eps), nu_i ~ Lap(4/eps): eps-DP for queries of sensitivity 1 that move in any
    direction (linf neighbours). The release is the full answer sequence, 0 (below) until
    the first 1 (above) and -1 (halted) after it, plus the index of the 1 (-1 if there is
    none). The index is a function of the sequence. Queries near 0 give "none" and all zeros
    with probability 1 - O(e^-50).
    """

    name = "ho5.above-threshold-silent(eps=1,T=200)"
    description = (
        "AboveThreshold over 64 queries, threshold 200; record of first index and ternary answers"
    )
    epsilon, delta = 1.0, 0.0
    input_kind = "vector"
    norm, sensitivity = "linf", 1
    query_length = 64
    output_kind = "record"
    fields = {"first": "index", "answers": ("ternary", "query")}
    nullable = True
    _threshold = 200.0
    _shortcut = None  # the broken variant sets a margin

    def sample(self, query, n):
        q = np.asarray(query, dtype=np.float64).reshape(-1)
        m = q.size
        out = np.empty(n, dtype=[("first", np.int64), ("answers", np.int8, (m,))])
        if self._shortcut is not None and q.max() < self._threshold - self._shortcut:
            # BUG (broken variant): "no query is within reach of the threshold, skip the SVT".
            out["first"] = -1
            out["answers"] = 0
            return out
        e = self.epsilon
        rho = self._rng.laplace(0.0, 2.0 / e, size=(n, 1))
        nu = self._rng.laplace(0.0, 4.0 / e, size=(n, m))
        above = (q[None, :] + nu) >= (self._threshold + rho)
        fired = above.any(axis=1)
        first = np.where(fired, np.argmax(above, axis=1), -1).astype(np.int64)
        pos = np.arange(m)[None, :]
        f = np.where(fired, first, m)[:, None]
        answers = np.where(pos < f, 0, np.where(pos == f, 1, -1)).astype(np.int8)
        out["first"] = first
        out["answers"] = answers
        return out


class AboveThresholdShortcut(AboveThresholdSilent):
    """BROKEN. The same mechanism with a fast path on the true data: if max(q) < T - 2, it
    returns "none" (all zeros) without running the SVT.

    True privacy: eps = infinity. Take x with every entry at T - 3 and x' with every entry at
    T - 2 (linf distance 1). x never fires, while x' fires with probability 0.997 (64
    queries with Lap(4) noise, threshold noise Lap(2); /tmp/ho5/true_values.py). Moving a
    single entry from T - 3 to T - 2, the others far below, it fires with probability
    P(Lap(4) - Lap(2) >= 2) = 0.343. So delta(eps) >= 0.997 at every eps.
    """

    name = "ho5.above-threshold-silent.shortcut(eps=1,T=200)"
    description = "AboveThreshold with a noiseless 'max(q) < T - 2' fast path (broken)"
    _shortcut = 2.0


# ---------------------------------------------------------------------------------------
# 3, 4. Unary-encoding randomized response, d = 500 bits.
# ---------------------------------------------------------------------------------------


class UnaryRR500(_Base):
    """Symmetric unary encoding (RAPPOR-style, one-time) over 500 values.

    Bit v is 1 with probability p, every other bit with probability 1 - p. Changing the
    value moves two bits, so eps_true = 2 ln(p / (1 - p)). p = e^(eps/2) / (1 + e^(eps/2)),
    rounded DOWN to a 2^-16 grid (k/65536), so eps_true = 0.99994 <= 1.
    """

    name = "ho5.unary-rr-500(eps=1)"
    description = "symmetric unary encoding, 500 bits, local DP"
    epsilon, delta = 1.0, 0.0
    input_kind = "local"
    domain = (0, 499)
    output_kind = "boolean"
    output_length = 500
    _per_bit_eps = 0.5  # eps / 2: the two bits that move share the budget

    def _k(self):
        p = math.exp(self._per_bit_eps) / (1.0 + math.exp(self._per_bit_eps))
        return int(math.floor(p * 65536))

    def sample(self, query, n):
        v = int(round(float(np.asarray(query).reshape(-1)[0])))
        k = self._k()  # P(true bit = 1) = k / 65536
        d = 500
        out = np.empty((n, d), dtype=bool)
        chunk = 16384
        for s in range(0, n, chunk):
            r = self._rng.integers(0, 65536, size=(min(chunk, n - s), d), dtype=np.uint16)
            out[s : s + chunk] = r < (65536 - k)  # other bits: 1 w.p. 1 - p
            out[s : s + chunk, v] = r[:, v] < k  # the true bit: 1 w.p. p
        return out


class UnaryRR500DoubleSpend(UnaryRR500):
    """BROKEN. Each bit gets the whole eps, but a change of value moves two bits.

    p = e^1 / (1 + e^1) (on the 2^-16 grid): eps_true = 2 ln(k / (65536 - k)) = 1.99990 for
    a claimed 1.
    """

    name = "ho5.unary-rr-500.double-spend(eps=1)"
    description = "symmetric unary encoding calibrated per bit (broken)"
    _per_bit_eps = 1.0


# ---------------------------------------------------------------------------------------
# 5. Binary randomized response with a real output of two values, tight GDP claim.
# ---------------------------------------------------------------------------------------


class RRTwoValuesGDP(_Base):
    """Randomized response on a bit, released as the real -1.0 or +1.0. The bit is kept
    with probability p = Phi(0.5), minus 1e-12 for safety.

    Its trade-off curve is piecewise linear through (0, 1), (1 - p, 1 - p), (1, 0). The kink
    lies on G_1, since Phi(Phi^-1(p) - 1) = Phi(-0.5) = 1 - p, and G_1 is convex, so it lies
    below both chords. The mechanism is therefore exactly 1-GDP, and mu-GDP for no mu < 1.
    A TIGHT claim on a non-Gaussian mechanism whose output takes two values. As pure DP it
    is eps = ln(p / (1 - p)) = 0.807.
    """

    name = "ho5.rr-two-values.gdp(mu=1)"
    description = "binary randomized response as +-1.0, claimed 1-GDP (tight)"
    claim = "gdp:mu=1"
    input_kind = "local"
    domain = (0, 1)
    output_kind = "real"
    _p_keep = 0.5 * (1.0 + math.erf(0.5 / math.sqrt(2.0))) - 1e-12

    def sample(self, query, n):
        v = int(round(float(np.asarray(query).reshape(-1)[0])))
        keep = self._rng.random(n) < self._p_keep
        bit = np.where(keep, v, 1 - v)
        return _grid(2.0 * bit - 1.0)


# ---------------------------------------------------------------------------------------
# 6, 7. Integer additive mechanisms: huge counts with huge noise, and almost no noise.
# ---------------------------------------------------------------------------------------


class HugeCountLoose(_Base):
    """A count near 1e12 plus discrete Laplace noise at eps = 0.01 (scale 100), returned as
    int64. It claims eps = 1 and its true eps is 0.01: a correct and very LOOSE claim.
    """

    name = "ho5.huge-count.loose(claim=1,true=0.01)"
    description = "count near 1e12, discrete Laplace eps=0.01, claim 1"
    epsilon, delta = 1.0, 0.0
    input_kind = "scalar"
    sensitivity = 1
    integer_queries = True
    query_bounds = (10**12, 10**12 + 10**6)
    output_kind = "integer"
    _noise_epsilon = 0.01

    def sample(self, query, n):
        q = np.int64(
            math.floor(float(np.asarray(query).reshape(-1)[0]))
        )  # floor keeps integer shifts
        return q + _dlap(self._rng, self._noise_epsilon / self.sensitivity, n)


class NearExactCount(_Base):
    """Discrete Laplace at eps = 20 for sensitivity 3: P(k) proportional to exp(-20 |k| / 3).
    The output equals the true answer with probability (1 - a) / (1 + a) = 0.99746
    (a = e^(-20/3)). Exactly 20-DP, a TIGHT claim: the ratio at any output is e^(20 * shift/3).
    """

    name = "ho5.near-exact-count(eps=20,sens=3)"
    description = "discrete Laplace, eps=20, sensitivity 3"
    epsilon, delta = 20.0, 0.0
    input_kind = "scalar"
    sensitivity = 3
    integer_queries = True
    output_kind = "integer"

    def sample(self, query, n):
        q = np.int64(
            math.floor(float(np.asarray(query).reshape(-1)[0]))
        )  # floor keeps integer shifts
        return q + _dlap(self._rng, self.epsilon / self.sensitivity, n)


# ---------------------------------------------------------------------------------------
# 8. A sum over a domain 1e-6 wide at offset 1000.
# ---------------------------------------------------------------------------------------


class NarrowOffsetSum(_Base):
    """The sum of m records in [1000, 1000.000001] under replace-one (m is public).

    Each record is clamped and quantised to u = round((x - lo) / (hi - lo) * 2^20), an
    integer in [0, 2^20]. x - lo is exact (Sterbenz) and the division is monotone and at most
    1. The integer sum S has sensitivity 2^20 exactly. Release m*lo + (S + Lap(2^20/eps)) *
    (hi - lo) / 2^20, rounded to 2^-20. Given the public m, that is post-processing of S +
    Lap(Delta/eps), so it is eps-DP. In output units the noise scale is about 4e-6, four grid
    steps. `release_without_noise` returns S, an int.
    """

    name = "ho5.narrow-offset-sum(eps=0.25)"
    description = "quantised sum over a domain 1e-6 wide at offset 1000"
    epsilon, delta = 0.25, 0.0
    input_kind = "dataset"
    domain = (1000.0, 1000.000001)
    neighbours = "replace"
    sensitivity = 2**20  # of the integer statistic release_without_noise returns
    output_kind = "real"

    def _s(self, query):
        lo, hi = self.domain
        x = np.clip(np.asarray(query, dtype=np.float64).reshape(-1), lo, hi)
        u = np.round((x - lo) / (hi - lo) * GRID).astype(np.int64)
        return x.size, int(u.sum())

    def release_without_noise(self, query):
        return self._s(query)[1]

    def sample(self, query, n):
        lo, hi = self.domain
        m, s = self._s(query)
        noisy = s + self._rng.laplace(0.0, self.sensitivity / self.epsilon, size=n)
        return _grid(m * lo + noisy * ((hi - lo) / GRID))


# ---------------------------------------------------------------------------------------
# 9, 10. Exponential mechanism with "none", and top-2.
# ---------------------------------------------------------------------------------------


class EMWithNone(_Base):
    """A record of two selections over 8 utilities of sensitivity 1 (linf, any direction).

    pick: the exponential mechanism over the 8 candidates plus a virtual "none" candidate
    with the constant utility T = 5, at eps/3 (Gumbel noise of scale 2/(eps/3)). It is -1
    when "none" wins: with probability e^(5/6) / (e^(5/6) + 8) = 0.22 at utilities 0, and
    nearly always for utilities far below 5. The virtual
    candidate's utility does not move, so the utility sensitivity stays 1.
    top2: an ordered Gumbel top-2 at eps/3 per pick, fresh noise. This is peeling EM (Durfee
    & Rogers 2019), 2 eps/3. Total: eps.
    """

    name = "ho5.em-with-none(eps=1)"
    description = "exponential mechanism with a 'none' candidate, plus Gumbel top-2"
    epsilon, delta = 1.0, 0.0
    input_kind = "vector"
    norm, sensitivity = "linf", 1
    query_length = 8
    output_kind = "record"
    fields = {"pick": "index", "top2": ("index_set", 2)}
    nullable = True
    _none_utility = 5.0
    _noiseless_gate = False

    def sample(self, query, n):
        q = np.asarray(query, dtype=np.float64).reshape(-1)
        m = q.size
        e3 = self.epsilon / 3.0
        out = np.empty(n, dtype=[("pick", np.int64), ("top2", np.int64, (2,))])
        if self._noiseless_gate:
            # BUG (broken variant): the gate looks at the true utilities.
            if q.max() < self._none_utility:
                pick = np.full(n, -1, dtype=np.int64)
            else:
                g = self._rng.gumbel(0.0, 2.0 / e3, size=(n, m))
                pick = np.argmax(q[None, :] + g, axis=1).astype(np.int64)
        else:
            u = np.append(q, self._none_utility)
            g = self._rng.gumbel(0.0, 2.0 / e3, size=(n, m + 1))
            w = np.argmax(u[None, :] + g, axis=1)
            pick = np.where(w == m, -1, w).astype(np.int64)
        g2 = self._rng.gumbel(0.0, 2.0 / e3, size=(n, m))
        top2 = np.argsort(-(q[None, :] + g2), axis=1)[:, :2]
        out["pick"] = pick
        out["top2"] = top2
        return out


class EMWithNoneNoiselessGate(EMWithNone):
    """BROKEN. pick is -1 whenever the TRUE max utility is below 5. Otherwise it is plain EM
    over the 8 candidates. top2 is as in the correct variant.

    True privacy: eps = infinity. At x = (4.5, ..., 4.5) pick is -1 with probability 1. At
    x' = (5.5, 4.5, ...) (linf distance 1) pick is never -1. So delta = 1 for pick alone, at
    any eps.
    """

    name = "ho5.em-with-none.noiseless-gate(eps=1)"
    description = "selection gated by a noiseless threshold on the max utility (broken)"
    _noiseless_gate = True


# ---------------------------------------------------------------------------------------
# 11. A record with an exact (public) size, under replace-one, with min_records.
# ---------------------------------------------------------------------------------------


class MomentsRecord(_Base):
    """Records in [0, 1], replace-one neighbours (the size m is public), at least 5 records.

    Each record is clamped and quantised to u = round(x * 2^20), an integer in [0, 2^20].
    Both sums are exact in int64: S1 = sum u has sensitivity 2^20 and S2 = sum u^2 has
    sensitivity 2^40. Each gets Laplace noise calibrated to eps/2. The release is n = m
    exactly (a deterministic, public field), mean = S1~ / (2^20 m) and
    var = S2~ / (2^40 m) - mean^2: post-processing, so eps-DP.
    """

    name = "ho5.moments-record(eps=1)"
    description = "exact size, noisy mean and variance; replace-one, min_records=5"
    claim = "pure:eps=1"
    input_kind = "dataset"
    domain = (0.0, 1.0)
    neighbours = "replace"
    min_records = 5
    output_kind = "record"
    fields = {"n": "integer", "mean": "real", "var": "real"}
    _eps = 1.0

    def sample(self, query, n):
        x = np.clip(np.asarray(query, dtype=np.float64).reshape(-1), 0.0, 1.0)
        m = x.size
        if m < self.min_records:
            raise ValueError(f"needs at least {self.min_records} records, got {m}")
        u = np.round(x * GRID).astype(np.int64)
        s1 = int(u.sum())
        s2 = int((u * u).sum())
        e2 = self._eps / 2.0
        n1 = s1 + self._rng.laplace(0.0, 2.0**20 / e2, size=n)
        n2 = s2 + self._rng.laplace(0.0, 2.0**40 / e2, size=n)
        mean = n1 / (GRID * m)
        var = n2 / (GRID * GRID * m) - mean * mean
        out = np.empty(n, dtype=[("n", np.int64), ("mean", np.float64), ("var", np.float64)])
        out["n"] = m
        out["mean"] = _grid(mean)
        out["var"] = _grid(var)
        return out


# ---------------------------------------------------------------------------------------
# 12. count / sum / mean over a wide domain, budget split wrong.
# ---------------------------------------------------------------------------------------


class CountSumMeanWide(_Base):
    """BROKEN. Integer records in [-1e9, 1e9] with add/remove neighbours. Three fields:
    count = m + discrete Laplace at eps/2 (stored in a float64 array: an integer field of a
    nullable record), sum = S + discrete Laplace at eps / 1e9 (the bug: the whole eps, not
    eps/2), and mean = sum / count, NaN when the noisy count is <= 0.

    True privacy: adding one record at 1e9 moves the count by 1 (loss 0.5, exact for the
    discrete Laplace) and the sum by 1e9 (loss 1.0). The fields are independent, so the sup
    of the loss is eps_true = 1.5 for a claimed 1. The mean is post-processing.
    """

    name = "ho5.count-sum-mean.wide(eps=1)"
    description = "count eps/2, sum still at eps (broken split); domain +-1e9"
    epsilon, delta = 1.0, 0.0
    input_kind = "dataset"
    domain = (-(10**9), 10**9)
    neighbours = "add_remove"
    output_kind = "record"
    fields = {"count": "integer", "sum": "real", "mean": "real"}
    nullable = True
    _bound = 10**9

    def sample(self, query, n):
        x = np.clip(np.asarray(query).reshape(-1).astype(np.int64), -self._bound, self._bound)
        m = x.size
        s = int(x.sum())
        e = self.epsilon
        count = m + _dlap(self._rng, e / 2.0, n)
        total = s + _dlap(self._rng, e / self._bound, n)  # BUG: should be (e / 2) / bound
        cf = count.astype(np.float64)
        tf = total.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(count > 0, tf / np.where(count > 0, cf, 1.0), np.nan)
        out = np.empty(n, dtype=[("count", np.float64), ("sum", np.float64), ("mean", np.float64)])
        out["count"] = cf
        out["sum"] = _grid(tf)
        out["mean"] = _grid(mean)
        return out


# ---------------------------------------------------------------------------------------
# 13, 14. Histograms whose "none" pattern depends on the data.
# ---------------------------------------------------------------------------------------


class StabilityHistogram300(_Base):
    """A histogram over 300 bins with add/remove neighbours. A bin with count 0 is always
    NaN (deterministically: it stands for a key the data does not contain). A bin with count
    c >= 1 is released as c + Lap(1/eps) when that exceeds tau = 1 + ln(1/(2 delta))/eps,
    and NaN otherwise.

    (eps, delta)-DP: one record moves one bin by 1. From c >= 1 to c + 1 the bin is
    post-processing of Laplace, eps. From 0 to 1 the release has probability
    P(1 + Lap(1/eps) > tau) = 0.5 exp(-eps (tau - 1)) = delta, and NaN is at least as likely
    on both sides up to e^eps. With eps = 1 and delta = 1e-5, tau = 11.82. Nearly every bin
    is NaN for small datasets.
    """

    name = "ho5.stability-histogram-300(eps=1,delta=1e-5)"
    description = "stability-based histogram, 300 bins, nullable"
    epsilon, delta = 1.0, 1e-5
    input_kind = "dataset"
    domain = (0, 299)
    neighbours = "add_remove"
    output_kind = "real"
    output_length = 300
    nullable = True

    def sample(self, query, n):
        x = np.clip(np.asarray(query).reshape(-1).astype(np.int64), 0, 299)
        c = np.bincount(x, minlength=300)
        tau = 1.0 + math.log(1.0 / (2.0 * self.delta)) / self.epsilon
        out = np.full((n, 300), np.nan)
        nz = np.flatnonzero(c)
        if nz.size:
            noisy = c[nz][None, :] + self._rng.laplace(0.0, 1.0 / self.epsilon, size=(n, nz.size))
            out[:, nz] = np.where(noisy > tau, _grid(noisy), np.nan)
        return out


class CompactedHistogram(_Base):
    """BROKEN. A histogram over 10 bins with replace-one neighbours and noise at the right
    scale (Lap(2/eps)). Only the non-empty bins are released, compacted to the front (as
    `np.unique(x, return_counts=True)` gives them) and padded with NaN.

    True privacy: the number of NaNs equals the number of empty bins, with no noise. For
    D = {0, 0} and D' = {0, 5}, coordinate 1 is NaN with probability 1 under D and 0 under
    D'. So the mechanism is (eps, delta)-DP for no delta < 1 at any eps (claimed (1, 1e-5)).
    """

    name = "ho5.histogram.compacted(eps=1,delta=1e-5)"
    description = "histogram that omits empty bins, shifting the rest (broken)"
    claim = "approx:eps=1,delta=1e-5"
    input_kind = "dataset"
    domain = (0, 9)
    neighbours = "replace"
    output_kind = "real"
    output_length = 10
    nullable = True
    _eps = 1.0

    def sample(self, query, n):
        x = np.clip(np.asarray(query).reshape(-1).astype(np.int64), 0, 9)
        _, counts = np.unique(x, return_counts=True)  # BUG: the keys are dropped
        k = counts.size
        out = np.full((n, 10), np.nan)
        if k:
            out[:, :k] = _grid(
                counts[None, :] + self._rng.laplace(0.0, 2.0 / self._eps, size=(n, k))
            )
        return out


# ---------------------------------------------------------------------------------------
# 15, 16. Gaussian vectors with curve claims.
# ---------------------------------------------------------------------------------------


class Gaussian64RDP(_Base):
    """64 answers with l2 sensitivity 1, N(0, 4) noise per entry (sigma = 2). The RDP curve
    is eps(alpha) = alpha * Delta^2 / (2 sigma^2) = alpha / 8, and the claim states it at
    alpha = 2, 4, 8, 16, 32 (tight).
    """

    name = "ho5.gaussian-64.rdp(sigma=2)"
    description = "vector Gaussian, l2 sensitivity 1, claimed as an RDP curve"
    claim = "rdp:2=0.25,4=0.5,8=1,16=2,32=4"
    input_kind = "vector"
    norm, sensitivity = "l2", 1
    query_length = 64
    output_kind = "real"
    output_length = "query"
    _sigma = 2.0

    def sample(self, query, n):
        q = np.asarray(query, dtype=np.float64).reshape(-1)
        return _grid(q[None, :] + self._rng.normal(0.0, self._sigma, size=(n, q.size)))


class Gaussian1ZCDPVarianceAsStd(_Base):
    """BROKEN. One answer (a vector of length 1, returned as shape (n, 1)) with l2
    sensitivity 1 and a claim of rho = 1 zCDP. The right sigma is Delta / sqrt(2 rho) =
    0.7071. The code computes the variance sigma^2 = Delta^2 / (2 rho) = 0.5 and passes it
    to numpy as the standard deviation.

    True privacy: rho = Delta^2 / (2 * 0.5^2) = 2 for a claimed 1 (2-GDP, where the claim
    means sqrt(2)-GDP).
    """

    name = "ho5.gaussian-1.zcdp.variance-as-std(rho=1)"
    description = "Gaussian with the variance passed as the scale (broken)"
    claim = "zcdp:rho=1"
    input_kind = "vector"
    norm, sensitivity = "l2", 1
    query_length = 1
    output_kind = "real"
    output_length = "query"
    _rho = 1.0

    def sample(self, query, n):
        q = np.asarray(query, dtype=np.float64).reshape(-1)
        variance = self.sensitivity**2 / (2.0 * self._rho)
        noise = self._rng.normal(0.0, variance, size=(n, q.size))  # BUG: scale=variance
        return _grid(q[None, :] + noise)  # shape (n, 1)


# ---------------------------------------------------------------------------------------
# 17. Local clipping after the noise.
# ---------------------------------------------------------------------------------------


class LocalClipAfterNoise(_Base):
    """BROKEN. Local values 0..9, clipping range [2, 7], Laplace noise of scale
    (7 - 2)/eps = 5. The intended clip(v, 2, 7) + Lap(5) is eps-DP. The code computes
    clip(v + Lap(5), 2, 7). Inside (2, 7) the density ratio of v = 0 to v = 9 is at most
    e^((9 - 4)/5) = e. The atom at 2, however, has P(Lap <= 2) = 1 - 0.5 e^(-0.4) under
    v = 0 and P(Lap <= -7) = 0.5 e^(-1.4) under v = 9.

    True privacy: eps = ln((1 - 0.5 e^-0.4) / (0.5 e^-1.4)) = 1.6849 for a claimed 1
    (/tmp/ho5/true_values.py checks every pair of values and both atoms).
    """

    name = "ho5.local-clip-after-noise(eps=1)"
    description = "local value clipped after adding noise calibrated to the clip range (broken)"
    epsilon, delta = 1.0, 0.0
    input_kind = "local"
    domain = (0, 9)
    output_kind = "real"
    _clip = (2.0, 7.0)

    def sample(self, query, n):
        v = float(round(float(np.asarray(query).reshape(-1)[0])))
        lo, hi = self._clip
        noise = self._rng.laplace(0.0, (hi - lo) / self.epsilon, size=n)
        return _grid(np.clip(v + noise, lo, hi))  # BUG: should be np.clip(v, lo, hi) + noise


ADAPTERS = (
    AboveThresholdSilent(),
    AboveThresholdShortcut(),
    UnaryRR500(),
    UnaryRR500DoubleSpend(),
    RRTwoValuesGDP(),
    HugeCountLoose(),
    NearExactCount(),
    NarrowOffsetSum(),
    EMWithNone(),
    EMWithNoneNoiselessGate(),
    MomentsRecord(),
    CountSumMeanWide(),
    StabilityHistogram300(),
    CompactedHistogram(),
    Gaussian64RDP(),
    Gaussian1ZCDPVarianceAsStd(),
    LocalClipAfterNoise(),
)
