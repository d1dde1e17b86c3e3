"""Report-noisy-max with its value, and noisy top-k: exact selections with structured outputs.

Why this module: "report the noisy max *and* its noisy value" and "report the top k" are two
places where implementations quietly overspend: releasing the selection noise's value is not
covered by the selection's proof, and one-shot top-k statements are easy to misquote.  These
references spend the budget in ways whose proofs are one line, and give exact output
probabilities for tests and white-box audits.

**ReportNoisyMaxWithValue** (utilities u_1..u_d, integers, sensitivity Delta, an integer):

1. index ``i ~ ReportNoisyMax(epsilon_1)``: the exact permute-and-flip sampler of
   :class:`report_noisy_max.ReportNoisyMax`, which is report-noisy-max with exponential noise of
   scale ``2 Delta / epsilon_1`` (Ding et al. 2021), epsilon_1-DP (McKenna & Sheldon 2020, Thm. 1);
2. value ``v = u_i + nu`` with **fresh** ``nu ~ DLap(Delta / epsilon_2)`` (the discrete Laplace
   mechanism, epsilon_2-DP for one query of sensitivity Delta; Dwork–Roth Thm. 3.6 with the
   discrete Laplace, whose pmf ratio over a shift s is ``e^{|s| epsilon_2 / Delta}``).

Claim: **(epsilon_1 + epsilon_2)-DP** by composition (Dwork & Roth, "The Algorithmic Foundations
of Differential Privacy", 2014, Thm. 3.14; here the second step depends on the first, which pure
DP allows because ``P[i, v] = P[i] P[v | i]`` and each factor's ratio is bounded on its own).
By default ``epsilon_1 = epsilon_2 = epsilon / 2``.  Releasing instead the noisy value that won
the selection is a different mechanism, not covered here.

**NoisyTopK** (peeling): k rounds of the same exact permute-and-flip, each with ``epsilon / k``,
each round choosing among the indices not yet chosen; the output is the chosen indices in rank
order.  Claim: **epsilon-DP** by k-fold composition (Dwork–Roth Thm. 3.14, adaptive form as
above: ``P[i_1..i_k] = prod_j P[i_j | i_1..i_{j-1}]``, and each round is an (epsilon/k)-DP
selection on the remaining utilities, which still have sensitivity Delta).

Why peeling and not a one-shot statement: the one-shot analyses are for continuous noise.
One-shot top-k with Gumbel noise is *equal in distribution* to peeling the exponential mechanism
(Durfee & Rogers, "Practical Differentially Private Top-k Selection with Pay-what-you-get
Composition", NeurIPS 2019, §4), and Gumbel noise cannot be drawn exactly from integers; the
one-shot Laplace analyses (Qiao, Su, Zhang, "Oneshot Differentially Private Top-k Selection",
ICML 2021, an (epsilon, delta) statement; Ding et al.'s noisy top-k with gap, PVLDB 2019, pure)
assume ties have probability 0, whereas with integer-valued discrete noise ties are frequent and
the proofs would need a tie-breaking argument we do not have.  One-shot top-k with exponential
noise is a different distribution from peeling permute-and-flip (memorylessness does not survive
conditioning on the winner's noisy value; a simulation at u = (0, 1, 3) shows probabilities off
by up to 0.017).  Peeling permute-and-flip has no noisy values to tie, needs no tie-breaking
beyond the uniform order inside permute-and-flip, and is exactly epsilon-DP.

Exactness: epsilon is rounded down to a multiple of 2^-30 (``params.rational_floor``) and split
into dyadic parts whose sum is at most the claim; the selection is
:class:`ReportNoisyMax` (CKS20 Bernoulli(exp(-gamma)) coins, uniform integers), the value noise
the exact discrete Laplace sampler.  Exact probabilities: selection probabilities from
:meth:`ReportNoisyMax.probabilities` (MPFR, dynamic programming), times the discrete Laplace pmf.

References:
    McKenna, Sheldon, "Permute-and-Flip: A new mechanism for differentially private selection",
    NeurIPS 2020.  Ding, Kifer, Saleh, Dong, Wang, Steinke, "The Permute-and-Flip Mechanism is
    Identical to Report-Noisy-Max with Exponential Noise", 2021.  Dwork, Roth, 2014, §3.3-3.5.
    Durfee, Rogers, NeurIPS 2019.  Qiao, Su, Zhang, ICML 2021.  Ding, Wang, Zhang, Kifer, "Free
    Gap Information from the Differentially Private Sparse Vector and Noisy Max Mechanisms",
    PVLDB 13(3), 2019.  Canonne, Kamath, Steinke, NeurIPS 2020 (exact discrete Laplace).

Assumptions:
    ``rng.integers`` is exactly uniform; utilities are integers of sensitivity ``<= Delta``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.bernoulli import as_fraction
from reference_mechanisms.discrete_laplace import discrete_laplace_pmf, sample_discrete_laplace
from reference_mechanisms.params import (
    check_count,
    check_epsilon,
    check_integer,
    check_integer_queries,
    check_integer_sensitivity,
    rational_floor,
)
from reference_mechanisms.randomness import IntegerSource, resolve_rng
from reference_mechanisms.report_noisy_max import ReportNoisyMax

__all__ = ["INDEX_VALUE_DTYPE", "NoisyTopK", "ReportNoisyMaxWithValue"]

#: dtype of a :class:`ReportNoisyMaxWithValue` release
INDEX_VALUE_DTYPE = np.dtype([("index", np.int64), ("value", np.int64)])


def _selector(epsilon_part: Fraction, sensitivity: int, name: str) -> ReportNoisyMax:
    """A ReportNoisyMax whose rational epsilon is exactly ``epsilon_part`` (a 2^-30 multiple)."""
    sel = ReportNoisyMax(float(epsilon_part), sensitivity)
    if sel.epsilon_rational != epsilon_part:  # float(epsilon_part) inexact: epsilon >= 2^23
        raise ValueError(f"{name}={float(epsilon_part)!r} is too large to represent exactly")
    return sel


def _utilities(utilities: Any) -> tuple[np.ndarray, np.ndarray]:
    """(int64, float64) views of integer utilities (exact: |u| <= 2^52)."""
    u = check_integer_queries(utilities, "utilities")
    return u, u.astype(np.float64)


class ReportNoisyMaxWithValue:
    """Report-noisy-max (exact permute-and-flip) plus the winner's utility with fresh noise.

    Args:
        epsilon: the claim (> 0); the mechanism spends ``floor(epsilon 2^30) / 2^30`` in total.
        sensitivity: Delta, a positive integer bound on each utility's sensitivity.
        select_share: fraction of epsilon spent on the selection (in (0, 1), default 1/2).

    Claim: ``epsilon``-DP (``delta = 0``): ``epsilon_select + epsilon_value <= epsilon``.

    Raises:
        ValueError: an argument out of range (the message names it and its value).
    """

    def __init__(
        self, epsilon: float, sensitivity: Any = 1, *, select_share: Any = Fraction(1, 2)
    ) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.sensitivity = check_integer_sensitivity(sensitivity)
        share = as_fraction(select_share, "select_share")
        if not 0 < share < 1:
            raise ValueError(f"select_share={select_share!r} must be in (0, 1)")
        self.select_share = share
        self.epsilon_rational = rational_floor(self.epsilon)
        #: the selection's and the value's epsilon (multiples of 2^-30; sum = epsilon_rational)
        self.epsilon_select = rational_floor(
            self.epsilon_rational * share, name="epsilon * select_share"
        )
        self.epsilon_value = self.epsilon_rational - self.epsilon_select
        if self.epsilon_value <= 0:
            raise ValueError(f"select_share={select_share!r} leaves no epsilon for the value")
        self.selector = _selector(self.epsilon_select, self.sensitivity, "epsilon")
        #: discrete Laplace scale of the value noise, Delta / epsilon_value
        self.value_scale: Fraction = Fraction(self.sensitivity) / self.epsilon_value

    def __repr__(self) -> str:
        return (
            f"ReportNoisyMaxWithValue(epsilon={self.epsilon!r}, sensitivity={self.sensitivity}, "
            f"select_share={self.select_share})"
        )

    def sample(self, utilities: Any, n: int, rng: IntegerSource | None = None) -> np.ndarray:
        """``n`` independent releases: structured array of shape (n,), fields index and value.

        Raises:
            ValueError: utilities not a non-empty 1-D integer array (|u| <= 2^52); ``n`` negative.
        """
        u, uf = _utilities(utilities)
        n = check_count(n)
        rng = resolve_rng(rng)
        out = np.zeros(n, dtype=INDEX_VALUE_DTYPE)
        if n == 0:
            return out
        idx = self.selector.sample(uf, n, rng)
        out["index"] = idx
        out["value"] = u[idx] + sample_discrete_laplace(self.value_scale, n, rng)
        return out

    def index_probabilities(self, utilities: Any, precision: int = 128) -> list[gmpy2.mpfr]:
        """P[index = i] for every i (mpfr, ``precision`` bits)."""
        _, uf = _utilities(utilities)
        return self.selector.probabilities(uf, precision)

    def probability(
        self, index: int, value: int, utilities: Any, precision: int = 128
    ) -> gmpy2.mpfr:
        """P[index, value] = P[index] * DLap pmf(value - u[index]) (mpfr), for tests and audits."""
        u, _ = _utilities(utilities)
        index = check_integer(index, "index", minimum=0, maximum=u.size - 1)
        value = check_integer(value, "value")
        p_index = self.index_probabilities(u, precision)[index]
        with gmpy2.context(gmpy2.get_context(), precision=precision):
            return p_index * discrete_laplace_pmf(
                value - int(u[index]), self.value_scale, precision
            )


class NoisyTopK:
    """Noisy top-k by peeling: k exact permute-and-flip rounds with ``epsilon / k`` each.

    Args:
        epsilon: the claim (> 0); each round spends ``epsilon / k`` rounded down to a multiple
            of 2^-30 (after epsilon itself is rounded down to one).
        k: number of indices reported (>= 1; at most the number of utilities).
        sensitivity: Delta, a positive integer bound on each utility's sensitivity.

    Claim: ``epsilon``-DP (``delta = 0``): ``k * epsilon_round <= epsilon``.

    Raises:
        ValueError: an argument out of range (the message names it and its value).
    """

    def __init__(self, epsilon: float, k: int, sensitivity: Any = 1) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.k = check_integer(k, "k", minimum=1)
        self.sensitivity = check_integer_sensitivity(sensitivity)
        self.epsilon_rational = rational_floor(self.epsilon)
        #: epsilon of each round (a multiple of 2^-30, times k at most epsilon_rational)
        self.epsilon_round = rational_floor(self.epsilon_rational / self.k, name="epsilon / k")
        self.selector = _selector(self.epsilon_round, self.sensitivity, "epsilon / k")

    def __repr__(self) -> str:
        return f"NoisyTopK(epsilon={self.epsilon!r}, k={self.k}, sensitivity={self.sensitivity})"

    def _check_size(self, d: int) -> None:
        if self.k > d:
            raise ValueError(f"k={self.k} must be <= the number of utilities ({d})")

    def sample(self, utilities: Any, n: int, rng: IntegerSource | None = None) -> np.ndarray:
        """``n`` independent releases: int64 array (n, k), row = chosen indices in rank order.

        Each round runs :meth:`ReportNoisyMax.sample` once per distinct set of indices already
        chosen (the releases sharing it are one batch), on the remaining utilities.

        Raises:
            ValueError: utilities not a non-empty 1-D integer array (|u| <= 2^52), fewer than k
                of them; ``n`` negative.
        """
        _, uf = _utilities(utilities)
        n = check_count(n)
        rng = resolve_rng(rng)
        d = uf.size
        self._check_size(d)
        out = np.zeros((n, self.k), dtype=np.int64)
        if n == 0:
            return out
        everyone = np.arange(d)
        for j in range(self.k):
            if j == 0:
                out[:, 0] = self.selector.sample(uf, n, rng)
                continue
            chosen_sets, group = np.unique(np.sort(out[:, :j], axis=1), axis=0, return_inverse=True)
            group = group.reshape(-1)
            order = np.argsort(group, kind="stable")
            bounds = np.cumsum(np.bincount(group, minlength=len(chosen_sets)))[:-1]
            for chosen, rows in zip(chosen_sets, np.split(order, bounds), strict=True):
                remaining = np.setdiff1d(everyone, chosen)
                pick = self.selector.sample(uf[remaining], rows.size, rng)
                out[rows, j] = remaining[pick]
        return out

    def probability(self, ranking: Any, utilities: Any, precision: int = 128) -> gmpy2.mpfr:
        """P[release = ``ranking``] (mpfr): the product of the rounds' selection probabilities."""
        _, uf = _utilities(utilities)
        self._check_size(uf.size)
        rank = self._check_ranking(ranking, uf.size)
        return self._ranking_probability(rank, uf, {}, precision)

    def probabilities(
        self, utilities: Any, precision: int = 128
    ) -> dict[tuple[int, ...], gmpy2.mpfr]:
        """P[ranking] for every ordered k-tuple of distinct indices (d!/(d-k)! of them)."""
        _, uf = _utilities(utilities)
        self._check_size(uf.size)
        cache: dict[tuple[int, ...], list[gmpy2.mpfr]] = {}
        return {
            rank: self._ranking_probability(rank, uf, cache, precision)
            for rank in itertools.permutations(range(uf.size), self.k)
        }

    def _check_ranking(self, ranking: Any, d: int) -> tuple[int, ...]:
        try:
            rank = tuple(int(v) for v in np.asarray(ranking).reshape(-1))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"ranking={ranking!r} must be a sequence of indices") from exc
        if len(rank) != self.k or len(set(rank)) != self.k or not all(0 <= v < d for v in rank):
            raise ValueError(f"ranking={ranking!r} must be {self.k} distinct indices in [0, {d})")
        return rank

    def _ranking_probability(
        self,
        rank: tuple[int, ...],
        uf: np.ndarray,
        cache: dict[tuple[int, ...], list[gmpy2.mpfr]],
        precision: int,
    ) -> gmpy2.mpfr:
        with gmpy2.context(gmpy2.get_context(), precision=precision):
            prob = gmpy2.mpfr(1)
            for j, i in enumerate(rank):
                chosen = set(rank[:j])
                remaining = tuple(v for v in range(uf.size) if v not in chosen)
                if remaining not in cache:
                    cache[remaining] = self.selector.probabilities(uf[list(remaining)], precision)
                prob *= cache[remaining][remaining.index(i)]
            return prob
