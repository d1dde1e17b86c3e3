"""Truncated-addition attack on the floating-point exponential mechanism (Ilvento 2020, attack 2).

With one large weight W first and many small weights w < ulp(W)/2 after it, every running sum
``W + w + w + ...`` rounds back to W: the cumulative weights of the small outcomes stay flat
and they can never be selected, although their true probability is positive.  Move every
utility by one sensitivity (the big one worse, the small ones better) and the small weights
grow by e^epsilon, enough to survive the additions: the same outcomes now have positive
probability.  Probability exactly 0 on one neighbour and positive on the other breaks pure DP
with epsilon = infinity (and (epsilon, delta)-DP whenever the positive side exceeds delta).

The probabilities involved are about 2^-53 -- far too small to see by sampling -- so this
attack is white-box: it needs the adapter's ``probabilities(query)`` oracle and reports an
exact finding (``auditor.statistics.exact``) with no sampling error.  To show that the zeros
are a floating-point artefact and not the mechanism, the report also gives the exact
probabilities of the textbook exponential mechanism (both conventions; 256-bit MPFR, see
``attacks.exact_selection``), and a finding is reported only when the textbook mechanism
gives the zeroed outcomes a probability far above float64's underflow (so an exact mechanism
whose float oracle merely underflows can never be flagged).

Assumptions:
    ``probabilities(query)`` is the distribution ``sample(query, n)`` draws from.  The gaps
    tried assume weights exp(+-c*u) with c = eps/(2*sensitivity) or eps/sensitivity.

References:
    Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential Privacy",
    CCS 2020, section 3 (truncated addition); cilvento/b2_exponential_mechanism demo.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from gmpy2 import mpfr

from attacks.exact_selection import exact_em_probabilities, exact_mass
from attacks.selection_common import (
    CONVENTIONS,
    Convention,
    NoEvents,
    bounds_note,
    declared_neighbours,
    index_set_event,
    index_set_text,
    pull_within,
    within,
)
from auditor.core.claim_kinds import is_point
from auditor.core.claims import Family
from auditor.core.oracles import oracle_probabilities
from auditor.core.results import ExactEvidence
from auditor.core.spec import AdapterSpec
from auditor.core.trials import Trial
from auditor.statistics.exact import exact_estimate

#: (k, gaps per weight scale): every gap with few outcomes first, then a few with many.  The
#: zero / positive split needs only a handful of small outcomes; exact oracles can cost O(k^3)
#: (report-noisy-max), so the large k gets only the gaps at the middle of the window.
SCAN = ((10, 17), (32, 5))
#: a zeroed set is reported only if its textbook probability is at least this
MIN_TEXTBOOK_PROBABILITY = 2.0**-900

_LN2 = math.log(2)


@dataclass(frozen=True)
class Pair:
    """x: the big outcome ``gap`` better than the small ones; x': every utility moved by Δ."""

    x: np.ndarray
    x_prime: np.ndarray
    gap: float


def gap_grid(c: float, sensitivity: float, points: int) -> np.ndarray:
    """Gaps g (utility units) around the window where the small weights are absorbed on x only.

    With ``W`` the big weight and ``w = W exp(-c g)``: absorbed on x when ``w < ulp(W)/2``,
    i.e. ``c g > 53..54 ln 2`` (the half-ulp is 2^-54..2^-53 of W), and not absorbed on x'
    where the ratio grew by ``exp(2 c sensitivity)``: ``c (g - 2 sensitivity) < 53..54 ln 2``.
    The grid is centred on that window and spans it with a margin of ``ln 2 / (2c)`` each side;
    ``points`` gaps, on multiples of 1 (sensitivity >= 1) or sensitivity/2, so that integer
    utilities stay integers (exact oracles are fastest on integers).
    """
    mid = 53.5 * _LN2 / c + sensitivity
    half = sensitivity + 1.5 * _LN2 / c
    unit = 1.0 if sensitivity >= 1.0 else sensitivity / 2.0
    step = unit * max(1, math.ceil(2 * half / (16 * unit)))
    offsets = step * (np.arange(points) - (points - 1) / 2)
    grid = np.unique(np.round((mid + offsets) / unit) * unit)
    return grid[grid > 2 * sensitivity]


def candidate_pairs(
    epsilon: float,
    sensitivity: float,
    convention: Convention,
    bounds: tuple[float, float] | None,
    scan: tuple[tuple[int, int], ...] = SCAN,
    monotone: bool = False,
) -> list[Pair]:
    """Neighbouring pairs around the absorption threshold, for both weight scales, few-k first
    (``scan``: the (k, gaps per weight scale) tried).  The big outcome moves away from the
    others and they towards it; under a ``monotone`` relation only they move (half the
    shift of the gap, the same direction for every utility)."""
    s = convention.sign
    # the big outcome sits at the best end of the declared range (or at 0)
    big = 0.0 if bounds is None else (bounds[1] if s > 0 else bounds[0])
    pairs = []
    for k, points in scan:
        for c in (epsilon / (2 * sensitivity), epsilon / sensitivity):
            for gap in gap_grid(c, sensitivity, points):
                x = np.full(k, big - s * gap)
                x[0] = big
                x_prime = x - s * sensitivity
                x_prime[1:] = x[1:] + s * sensitivity
                if monotone:
                    x_prime[0] = x[0]
                x_prime = pull_within(x, x_prime, sensitivity)
                if within(x, bounds) and within(x_prime, bounds):
                    pairs.append(Pair(x, x_prime, float(gap)))
    return pairs


def _textbook(query: np.ndarray, spec: AdapterSpec, sign: int) -> list[mpfr]:
    assert spec.sensitivity is not None
    return exact_em_probabilities(query, spec.claim.epsilon, spec.sensitivity, sign)


def _matching_convention(p: np.ndarray, query: np.ndarray, spec: AdapterSpec) -> Convention:
    """The convention whose textbook probabilities are closest (total variation) to ``p``."""

    def distance(conv: Convention) -> float:
        exact = np.array([float(v) for v in _textbook(query, spec, conv.sign)])
        return float(np.abs(exact - p).sum())

    return min(CONVENTIONS, key=distance)


@dataclass
class ZeroedOutcomesCheck:
    """The white-box check: outcomes with probability exactly 0 on one neighbour only."""

    pairs: list[Pair]

    def _evidence(
        self,
        spec: AdapterSpec,
        pos_q: np.ndarray,
        zero_q: np.ndarray,
        p_pos: np.ndarray,
        zeroed: np.ndarray,
    ) -> ExactEvidence | None:
        """Evidence for the outcomes ``zeroed`` on ``zero_q``, if the textbook mechanism gives
        them a probability there far above float64 underflow."""
        mass = float(np.sum(p_pos[zeroed]))
        conv = _matching_convention(p_pos, pos_q, spec)
        textbook_zero = exact_mass(_textbook(zero_q, spec, conv.sign), zeroed)
        if textbook_zero < MIN_TEXTBOOK_PROBABILITY:
            return None
        textbook_pos = exact_mass(_textbook(pos_q, spec, conv.sign), zeroed)
        event = (
            f"{index_set_text(zeroed, len(pos_q))}: outcomes the implementation's probabilities() "
            f"gives exactly 0 on x' but {mass:.3g} on x; the textbook exponential mechanism "
            f"({conv.name}, the closer of the two conventions; exact 256-bit MPFR) gives them "
            f"{float(textbook_zero):.3g} on x' and {float(textbook_pos):.3g} on x, so the zeros "
            f"are floating-point truncation "
            f"(white-box, assumes probabilities() describes sample())"
        )
        estimate = exact_estimate(mass, 0.0, spec.claim.delta, event)
        code = index_set_event(zeroed, len(pos_q)).source()
        return ExactEvidence(pos_q, zero_q, estimate, event_code=code)

    def __call__(self, spec: AdapterSpec) -> ExactEvidence | None:
        """The first pair (in scan order) with a zeroed set that passes the textbook guard."""
        assert spec.sensitivity is not None
        for pair in self.pairs:
            if not declared_neighbours(spec, pair.x, pair.x_prime):
                continue  # never report a pair outside the declared relation
            p = oracle_probabilities(spec, pair.x)
            p_prime = oracle_probabilities(spec, pair.x_prime)
            for pos_q, zero_q, p_pos, p_zero in (
                (pair.x_prime, pair.x, p_prime, p),
                (pair.x, pair.x_prime, p, p_prime),
            ):
                zeroed = np.flatnonzero((p_zero == 0.0) & (p_pos > 0.0))
                # a point claim forgives a mass up to delta; no curve forgives any mass on
                # outcomes impossible on x' (the curve's test decides, in the certifier)
                forgiven = spec.claim.delta if is_point(spec.claim) else 0.0
                if zeroed.size and float(np.sum(p_pos[zeroed])) > forgiven:
                    evidence = self._evidence(spec, pos_q, zero_q, p_pos, zeroed)
                    if evidence is not None:
                        return evidence
        return None


def _scan(declared: int | None) -> tuple[tuple[int, int], ...]:
    """``SCAN``, or for a mechanism over a declared number of candidates (which may refuse any
    other) that number alone, with as many gaps as the nearest larger k of ``SCAN`` gets."""
    if declared is None:
        return SCAN
    if declared < 2:
        return ()  # one outcome: nothing to select
    points = next((p for k, p in SCAN if k >= declared), SCAN[-1][1])
    return ((declared, points),)


class TruncatedAdditionAttack:
    """Ilvento's truncated-addition attack, decided exactly from the adapter's oracle."""

    name = "truncated-addition"
    description = (
        "one big weight first and many small ones absorbed by the running sum; white-box: "
        "compares the adapter's probabilities() on neighbours (Ilvento 2020)"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        return spec.family is Family.SELECTION and spec.has_probabilities

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        assert spec.sensitivity is not None
        bounds = spec.utility_bounds
        scan = _scan(spec.input.length)
        trials = []
        for convention in CONVENTIONS:
            pairs = candidate_pairs(
                spec.claim.epsilon, spec.sensitivity, convention, bounds, scan, spec.input.monotone
            )
            if not pairs:
                continue
            shown = pairs[len(pairs) // 2]
            better = "higher" if convention.sign > 0 else "lower"
            trials.append(
                Trial(
                    x=shown.x,
                    x_prime=shown.x_prime,
                    distinguisher=NoEvents(),
                    description=(
                        f"truncated addition, {convention.name} utilities: outcome 0 "
                        f"({better} utility, big weight, first) and k-1 small ones; "
                        f"{len(pairs)} (gap, k) pairs scanned around w/W = 2^-53, k in "
                        f"{tuple(k for k, _ in scan)}; x' moves "
                        f"outcome 0 worse and the rest better by the sensitivity; white-box "
                        f"comparison of probabilities()" + bounds_note(bounds)
                    ),
                    exact=ZeroedOutcomesCheck(pairs),
                )
            )
        return trials
