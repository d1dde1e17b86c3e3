"""The sparse vector technique (AboveThreshold and SVT with cutoff c), exact on integer queries.

Why this module: SVT is the textbook example of a mechanism whose published variants are mostly
*not* private (Lyu, Su, Li 2017 list six, four of them broken), so an audit harness needs a
reference whose output distribution is known exactly, to test attacks against and to serve as a
negative control.

**Statement implemented** (Lyu, Su, Li, "Understanding the Sparse Vector Technique for
Differential Privacy", PVLDB 10(6), 2017, Algorithm 1, "SVT with cutoff c"; with c = 1 it is
AboveThreshold, Dwork & Roth, "The Algorithmic Foundations of Differential Privacy", 2014,
Algorithm 1 in §3.6, Theorem 3.23).  For queries q_1..q_k of sensitivity Delta, thresholds T_i:

1. ``epsilon_1 = epsilon / 2``, ``epsilon_2 = epsilon - epsilon_1``, ``rho ~ Lap(Delta/epsilon_1)``.
2. For each query in turn: ``nu_i ~ Lap(2 c Delta / epsilon_2)``; output ⊤ if
   ``q_i + nu_i >= T_i + rho``, else ⊥; after the c-th ⊤, halt (every later query: not answered).

The threshold noise rho is drawn **once** and not re-drawn after a ⊤ (Lyu–Su–Li's Alg. 1; the
re-noising of Dwork–Roth's "Sparse", their Alg. 2 in §3.6, is not needed).  With
``epsilon_1 = epsilon_2 = epsilon/2`` the scales are ``2 Delta/epsilon`` for rho and
``4 c Delta/epsilon`` for nu, exactly Dwork–Roth's ``Lap(2/epsilon)`` and ``Lap(4/epsilon)`` for
c = 1, Delta = 1.  Claim: **epsilon-DP** (Lyu–Su–Li §3: Alg. 1 is (epsilon_1 + epsilon_2)-DP;
Dwork–Roth Theorem 3.23 for c = 1).  ``monotonic=True`` uses
``nu ~ Lap(c Delta/epsilon_2)``, the variant Lyu–Su–Li give for *monotonic* queries (between
neighbours, every q_i moves in the same direction): the threshold is then shifted by 0 or by Delta
to follow the queries, so each ⊤ pays for a relative shift of Delta instead of 2 Delta and half
the query noise suffices; the claim is void for non-monotonic neighbours (the tests exhibit a
violation).  ``threshold_share`` sets
``epsilon_1 = share * epsilon`` (the proof holds for any split; Lyu–Su–Li discuss tuning it).

**Why the proof survives discrete noise.**  Here every noise is a *discrete* Laplace
(``P[x] ∝ exp(-|x|/scale)`` on the integers, CKS20's exact sampler) and queries, thresholds and
Delta are integers.  Lyu–Su–Li's proof for Alg. 1 writes ``P[a] = sum_z P[rho = z] f(z) g(z)``
(⊥ and ⊤ factors), substitutes ``z -> z + Delta`` (a bijection of the integers because Delta is
an integer), and uses only (i) ``P[rho = z] <= e^{epsilon_1} P[rho = z + Delta]``, (ii)
monotonicity of ``P[nu < m]`` in m, and (iii)
``P[nu >= m] <= e^{2 Delta/scale} P[nu >= m + 2 Delta]``; all three hold verbatim for the
discrete Laplace (its pmf ratio over a shift s is at most ``e^{|s|/scale}``).  Ties
``q_i + nu_i = T_i + rho`` now have positive probability; they are ⊤ (the ``>=`` of the
algorithm), and the proof never needed them to be null.

**Exactness.**  epsilon is rounded *down* to a multiple of 2^-30 (``params.rational_floor``), so
every scale is rational and the noise is sampled exactly; the comparison is on int64.  Exact
pattern probabilities (for tests and white-box audits) are lattice sums over the threshold noise,
``sum_z P[rho = z] prod_i P[nu_i ... T_i + z - q_i]``: the finitely many terms between the
queries' offsets are summed directly, and the two infinite tails in closed form (beyond the
offsets every factor is ``alpha w^z`` or ``1 - alpha w^z``, so a tail is a finite sum of
geometric series).  Nothing is truncated; MPFR rounding is the only error, and a conditioning
check raises if cancellation in the tail series could cost more than ``precision - 80`` bits.

Output: one release is a ternary int8 sequence of length k: 1 = ⊤ (above), 0 = ⊥ (below),
-1 = not answered (halted).

References:
    Lyu, Su, Li, "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB
    10(6), 2017 (Algorithm 1 and its privacy theorem, §3; the broken variants,
    Algs. 3-6: no query noise, no cutoff, too little noise).
    Dwork, Roth, "The Algorithmic Foundations of Differential Privacy", 2014, §3.6
    (AboveThreshold, Algorithm 1, Theorem 3.23).
    Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020
    (exact discrete Laplace sampling).

Assumptions:
    ``rng.integers`` is exactly uniform; the queries are integer-valued with sensitivity
    ``<= Delta`` (an integer); thresholds are data-independent.  Sampling time depends on the
    noise drawn (timing channel, as for every exact rejection sampler).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.bernoulli import as_fraction
from reference_mechanisms.discrete_laplace import discrete_laplace_pmf, sample_discrete_laplace
from reference_mechanisms.params import (
    QUERY_BOUND,
    check_count,
    check_epsilon,
    check_integer,
    check_integer_queries,
    check_integer_sensitivity,
    rational_floor,
)
from reference_mechanisms.randomness import IntegerSource, resolve_rng

__all__ = [
    "ABOVE",
    "BELOW",
    "HALTED",
    "QUERY_BOUND",
    "AboveThreshold",
    "SparseVector",
    "check_integer_queries",
    "check_integer_sensitivity",
    "check_threshold",
    "svt_pattern_probability",
    "svt_patterns",
]

#: Answer codes of a release.
ABOVE, BELOW, HALTED = 1, 0, -1
#: Bits the tail series may lose to cancellation below the working precision (see module doc).
_GUARD_BITS = 80


def _check_share(share: Any, name: str) -> Fraction:
    f = as_fraction(share, name)
    if not 0 < f < 1:
        raise ValueError(f"{name}={share!r} must be in (0, 1)")
    return f


def svt_patterns(k: int, cutoff: int | None) -> list[tuple[int, ...]]:
    """Every possible release of SVT on ``k`` queries (``cutoff=None``: never halts), in order.

    A release answers a prefix: it stops right after the ``cutoff``-th ⊤ (the rest is -1), or
    answers all k queries with fewer than ``cutoff`` ⊤.
    """
    k = check_integer(k, "k", minimum=1)
    if cutoff is not None:
        cutoff = check_integer(cutoff, "cutoff", minimum=1)

    def rec(prefix: tuple[int, ...], tops: int) -> Iterator[tuple[int, ...]]:
        if len(prefix) == k:
            yield prefix
        elif cutoff is not None and tops == cutoff:
            yield prefix + (HALTED,) * (k - len(prefix))
        else:
            yield from rec(prefix + (BELOW,), tops)
            yield from rec(prefix + (ABOVE,), tops + 1)

    return list(rec((), 0))


def _answered(pattern: Sequence[int], cutoff: int | None) -> int | None:
    """How many queries ``pattern`` answers, or None if SVT cannot output it."""
    tops = 0
    for i, a in enumerate(pattern):
        if a == HALTED:
            if cutoff is None or tops < cutoff or any(b != HALTED for b in pattern[i:]):
                return None
            return i
        if cutoff is not None and tops >= cutoff:
            return None  # answered after the cutoff-th ⊤
        tops += a == ABOVE
    return len(pattern)


def _check_pattern(pattern: Any, k: int) -> tuple[int, ...]:
    try:
        p = tuple(int(v) for v in np.asarray(pattern).reshape(-1))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"pattern={pattern!r} must be a sequence of -1, 0, 1") from exc
    if len(p) != k or any(v not in (ABOVE, BELOW, HALTED) for v in p):
        raise ValueError(f"pattern={pattern!r} must be {k} entries from -1, 0, 1")
    return p


def _mpfr(x: Fraction) -> gmpy2.mpfr:
    return gmpy2.mpfr(gmpy2.mpq(x.numerator, x.denominator))


def _poly_one_minus(coefs: list[gmpy2.mpfr]) -> list[gmpy2.mpfr]:
    """Coefficients of ``prod_j (1 - c_j w)`` in powers of w (signed elementary polynomials)."""
    out = [gmpy2.mpfr(1)]
    for c in coefs:
        nxt = out + [gmpy2.mpfr(0)]
        for d, v in enumerate(out):
            nxt[d + 1] -= c * v
        out = nxt
    return out


def _tail_sum(
    const: gmpy2.mpfr, poly: list[gmpy2.mpfr], base: gmpy2.mpfr, r: gmpy2.mpfr, t: int, start: int
) -> tuple[gmpy2.mpfr, gmpy2.mpfr]:
    """``sum_{y >= start} const base^y w^t sum_d poly[d] w^d`` with ``w = r^y``, in closed form.

    Returns (value, sum of the absolute values of the series' terms) for the conditioning check.
    """
    val, mag = gmpy2.mpfr(0), gmpy2.mpfr(0)
    for d, c in enumerate(poly):
        x = base * r ** (t + d)
        term = c * x**start / (1 - x)
        val += term
        mag += abs(term)
    return const * val, const * mag


def _scales(query_scale: Any, threshold_scale: Any | None) -> tuple[Fraction, Fraction | None]:
    """The query noise's scale and the threshold noise's (None: no threshold noise), exact.

    Raises:
        ValueError: a scale that is not a number > 0.
    """
    nu_scale = as_fraction(query_scale, "query_scale")
    if nu_scale <= 0:
        raise ValueError(f"query_scale={query_scale!r} must be > 0")
    rho_scale = None if threshold_scale is None else as_fraction(threshold_scale, "threshold_scale")
    if rho_scale is not None and rho_scale <= 0:
        raise ValueError(f"threshold_scale={threshold_scale!r} must be > 0")
    return nu_scale, rho_scale


def _tails(
    s_top: list[int], s_bot: list[int], rates: tuple[Any, Any, Any], ends: tuple[int, int]
) -> tuple[tuple[gmpy2.mpfr, gmpy2.mpfr], tuple[gmpy2.mpfr, gmpy2.mpfr]]:
    """The two tail series of :func:`svt_pattern_probability` beyond ``ends = (lo, hi)``, each
    as (sum, magnitude), at the caller's gmpy2 precision; ``rates = (kappa, r, r_rho)``."""
    kappa, r, r_rho = rates
    lo, hi = ends
    one_r = 1 + r
    # upper tail: ⊤ factor a_i w, ⊥ factor 1 - a_j w, a = r^s / (1 + r), w = r^z
    a_top = gmpy2.mpfr(1)
    for s in s_top:
        a_top *= r**s / one_r
    up = _tail_sum(
        kappa * a_top, _poly_one_minus([r**s / one_r for s in s_bot]), r_rho, r, len(s_top), hi
    )
    # lower tail, y = -z: ⊥ factor b_j w, ⊤ factor 1 - b_i w, b = r^(1 - s) / (1 + r), w = r^y
    b_bot = gmpy2.mpfr(1)
    for s in s_bot:
        b_bot *= r ** (1 - s) / one_r
    down = _tail_sum(
        kappa * b_bot,
        _poly_one_minus([r ** (1 - s) / one_r for s in s_top]),
        r_rho,
        r,
        len(s_bot),
        -lo,
    )
    return up, down


def svt_pattern_probability(
    pattern: Any,
    queries: Any,
    thresholds: Any,
    query_scale: Any,
    threshold_scale: Any | None,
    cutoff: int | None,
    precision: int = 256,
) -> gmpy2.mpfr:
    """P[SVT outputs ``pattern``] on integer ``queries``, to ``precision`` bits (mpfr).

    The SVT family of Lyu–Su–Li with discrete Laplace noise: ``rho ~ DLap(threshold_scale)``
    (``None``: no threshold noise, rho = 0), ``nu_i ~ DLap(query_scale)``, ⊤ iff
    ``q_i + nu_i >= T_i + rho``, halt after ``cutoff`` ⊤ (``None``: never halt).  Impossible
    patterns have probability 0.  No truncation (see the module docstring).

    Raises:
        ValueError: bad queries, thresholds, scales or pattern; ``precision`` below 128 bits.
        ArithmeticError: cancellation would leave fewer than 80 good bits; raise ``precision``.
    """
    q = check_integer_queries(queries)
    k = q.size
    t = _thresholds(thresholds, k)
    p = _check_pattern(pattern, k)
    precision = check_integer(precision, "precision", minimum=128)
    nu_scale, rho_scale = _scales(query_scale, threshold_scale)
    m = _answered(p, cutoff)
    with gmpy2.context(gmpy2.get_context(), precision=precision):
        if m is None:
            return gmpy2.mpfr(0)
        # offsets s_i = T_i - q_i: ⊤ iff nu_i >= s_i + rho
        s_top = [int(t[i] - q[i]) for i in range(m) if p[i] == ABOVE]
        s_bot = [int(t[i] - q[i]) for i in range(m) if p[i] == BELOW]
        r = gmpy2.exp(-1 / _mpfr(nu_scale))
        one_r = 1 + r

        def ge(x: int) -> gmpy2.mpfr:  # P[nu >= x]; the small side is computed directly
            return r**x / one_r if x >= 0 else 1 - r ** (1 - x) / one_r

        def lt(x: int) -> gmpy2.mpfr:  # P[nu < x] = P[nu >= 1 - x], without cancellation
            return ge(1 - x)

        def integrand(z: int) -> gmpy2.mpfr:
            v = gmpy2.mpfr(1)
            for s in s_top:
                v *= ge(s + z)
            for s in s_bot:
                v *= lt(s + z)
            return v

        if rho_scale is None:
            return integrand(0)
        kappa = discrete_laplace_pmf(0, rho_scale, precision)
        r_rho = gmpy2.exp(-1 / _mpfr(rho_scale))
        offsets = s_top + s_bot
        # z >= hi: every s + z >= 0 and z >= 0; z <= lo: every s + z <= 1 and z <= 0
        hi = max([0] + [-s for s in offsets])
        lo = min([0, hi - 1] + [1 - s for s in offsets])
        total, mag = gmpy2.mpfr(0), gmpy2.mpfr(0)
        for z in range(lo + 1, hi):
            term = kappa * r_rho ** abs(z) * integrand(z)
            total += term
            mag += term
        (up, up_mag), (down, down_mag) = _tails(s_top, s_bot, (kappa, r, r_rho), (lo, hi))
        total += up + down
        mag += up_mag + down_mag
        if total <= 0 or mag > total * gmpy2.mpfr(2) ** (precision - _GUARD_BITS):
            raise ArithmeticError(
                f"precision={precision} is too low for this pattern's tail series; raise it"
            )
        return total


def check_threshold(threshold: Any) -> int | np.ndarray:
    """An integer threshold (``int``) or per-query thresholds (int64 array), |T| <= 2^52."""
    if isinstance(threshold, np.ndarray) and threshold.ndim == 0:
        threshold = threshold.item()
    if isinstance(threshold, (np.ndarray, list, tuple)):
        return check_integer_queries(threshold, "threshold")
    if isinstance(threshold, (float, np.floating)) and float(threshold).is_integer():
        threshold = int(threshold)
    return check_integer(threshold, "threshold", minimum=-QUERY_BOUND, maximum=QUERY_BOUND)


def _thresholds(threshold: Any, k: int) -> np.ndarray:
    """The per-query thresholds as an int64 array of length k (a scalar is broadcast)."""
    t = check_threshold(threshold)
    if isinstance(t, np.ndarray):
        if t.size != k:
            raise ValueError(f"threshold has {t.size} entries for {k} queries")
        return t
    return np.full(k, t, dtype=np.int64)


class SparseVector:
    """SVT with cutoff c (Lyu–Su–Li 2017, Alg. 1) with exact discrete Laplace noise.

    Args:
        epsilon: the claim (> 0); the mechanism uses ``floor(epsilon 2^30) / 2^30``.
        threshold: integer T, or a 1-D integer array of per-query thresholds T_i.
        cutoff: c >= 1, the number of ⊤ answers after which the mechanism halts.
        sensitivity: Delta, a positive integer bound on every query's sensitivity.
        monotonic: use Lyu–Su–Li's ``Lap(c Delta / epsilon_2)`` query noise, valid only if every
            query moves in the same direction between neighbouring datasets.
        threshold_share: the fraction of epsilon spent on the threshold (default 1/2).

    Claim: ``epsilon``-DP (``delta = 0``) for integer queries of sensitivity ``<= Delta``.

    Raises:
        ValueError: an argument out of range (the message names it and its value).
    """

    def __init__(
        self,
        epsilon: float,
        threshold: Any,
        cutoff: int,
        sensitivity: Any = 1,
        *,
        monotonic: bool = False,
        threshold_share: Any = Fraction(1, 2),
    ) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.threshold: int | np.ndarray = check_threshold(threshold)
        self.cutoff = check_integer(cutoff, "cutoff", minimum=1)
        self.sensitivity = check_integer_sensitivity(sensitivity)
        if not isinstance(monotonic, (bool, np.bool_)):
            raise ValueError(f"monotonic={monotonic!r} must be a bool")
        self.monotonic = bool(monotonic)
        self.threshold_share = _check_share(threshold_share, "threshold_share")
        self.epsilon_rational = rational_floor(self.epsilon)
        #: epsilon_1 (threshold) and epsilon_2 (queries); they sum to ``epsilon_rational``
        self.epsilon_threshold = self.epsilon_rational * self.threshold_share
        self.epsilon_queries = self.epsilon_rational - self.epsilon_threshold
        delta_q = Fraction(self.sensitivity)
        self.threshold_scale: Fraction = delta_q / self.epsilon_threshold
        factor = self.cutoff if self.monotonic else 2 * self.cutoff
        self.query_scale: Fraction = factor * delta_q / self.epsilon_queries

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(epsilon={self.epsilon!r}, threshold={self.threshold!r}, "
            f"cutoff={self.cutoff}, sensitivity={self.sensitivity}, monotonic={self.monotonic})"
        )

    def thresholds(self, k: int) -> np.ndarray:
        """The thresholds for ``k`` queries (int64); ValueError if a threshold array mismatches."""
        return _thresholds(self.threshold, k)

    def sample(self, queries: Any, n: int, rng: IntegerSource | None = None) -> np.ndarray:
        """``n`` independent releases on ``queries``: int8 array of shape (n, k).

        Entries: 1 = ⊤, 0 = ⊥, -1 = not answered (halted after the c-th ⊤).

        Raises:
            ValueError: queries not a non-empty 1-D integer array (|q| <= 2^52); ``n`` negative;
                a threshold array of the wrong length.
        """
        q = check_integer_queries(queries)
        n = check_count(n)
        rng = resolve_rng(rng)
        k = q.size
        t = self.thresholds(k)
        rho = sample_discrete_laplace(self.threshold_scale, n, rng)
        nu = sample_discrete_laplace(self.query_scale, n * k, rng).reshape(n, k)
        above = q[None, :] + nu >= t[None, :] + rho[:, None]
        tops_before = np.cumsum(above, axis=1) - above  # ⊤ strictly before each query
        answered = tops_before < self.cutoff
        return np.where(answered, above, HALTED).astype(np.int8)

    def patterns(self, k: int) -> list[tuple[int, ...]]:
        """Every release this mechanism can output on ``k`` queries."""
        return svt_patterns(k, self.cutoff)

    def pattern_probability(self, pattern: Any, queries: Any, precision: int = 256) -> gmpy2.mpfr:
        """P[release = ``pattern``] on ``queries`` (mpfr, ``precision`` bits), for tests/audits."""
        q = check_integer_queries(queries)
        return svt_pattern_probability(
            pattern,
            q,
            self.thresholds(q.size),
            self.query_scale,
            self.threshold_scale,
            self.cutoff,
            precision,
        )

    def pattern_probabilities(
        self, queries: Any, precision: int = 256
    ) -> dict[tuple[int, ...], gmpy2.mpfr]:
        """P[pattern] for every possible release on ``queries`` (sums to 1)."""
        q = check_integer_queries(queries)
        return {p: self.pattern_probability(p, q, precision) for p in self.patterns(q.size)}


class AboveThreshold(SparseVector):
    """AboveThreshold (Dwork–Roth Alg. 1 / Thm 3.23): SVT with cutoff c = 1, exact.

    ``rho ~ DLap(2 Delta / epsilon)``, ``nu_i ~ DLap(4 Delta / epsilon)`` (``2 Delta/epsilon``
    with ``monotonic=True``); halts after the first ⊤.  Claim: ``epsilon``-DP.

    Raises:
        ValueError: an argument out of range (the message names it and its value).
    """

    def __init__(
        self,
        epsilon: float,
        threshold: Any,
        sensitivity: Any = 1,
        *,
        monotonic: bool = False,
        threshold_share: Any = Fraction(1, 2),
    ) -> None:
        super().__init__(
            epsilon,
            threshold,
            1,
            sensitivity,
            monotonic=monotonic,
            threshold_share=threshold_share,
        )

    def __repr__(self) -> str:
        return (
            f"AboveThreshold(epsilon={self.epsilon!r}, threshold={self.threshold!r}, "
            f"sensitivity={self.sensitivity}, monotonic={self.monotonic})"
        )
