"""Neighbouring pairs to search: scalar queries.

**scalar** queries: 0 vs Δ, a moderate offset at ``PHASES`` phases of Δ and a large
magnitude (``scalar_pair_groups``, shared with the black box's additive trials); inside
declared query bounds, also a sweep of the whole range a step at a time (``SWEEP``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from attacks.neighbours.pair import Pair
from attacks.selection_common import largest_move
from auditor.core.spec import AdapterSpec

#: phases of the step at which a scalar query's moderate pair is screened (real answers)
PHASES = 8
#: moves shorter than the sensitivity, as fractions of it, screened beside the full ones
SHORT_FRACTIONS = (0.5, 0.25, 0.75)
#: pairs one sensitivity apart that sweep declared query bounds, at most: a range of up to
#: this many steps is swept a step at a time, so every answer in it is the lower end of a
#: pair's step (a clamp, cap or branch anywhere in the range sits inside one pair); a wider
#: range is swept at this many evenly spread bases
SWEEP = 64


def shifted(a: float, step: float) -> float:
    """The largest float <= a + step (rounding must never push a pair past the sensitivity)."""
    y = a + step
    while Fraction(y) - Fraction(a) > Fraction(step):
        y = math.nextafter(y, -math.inf)
    return y


def scalar_pair_groups(
    spec: AdapterSpec, rng: np.random.Generator
) -> list[tuple[bool, list[Pair]]]:
    """A scalar query's pairs one sensitivity apart, in groups ``(standard, pairs)``: 0 vs Δ
    (the standard group), then, at magnitudes drawn from ``rng``, a moderate offset a vs a + Δ
    (a random multiple of Δ; real answers at ``PHASES`` phases of Δ from a random one), a
    large one ±2**k vs ±2**k + Δ and real answers at the ties of rounding to whole numbers,
    for mechanisms whose noise or rounding depends on the magnitude or the position of the
    answer.  Inside declared query bounds only."""
    step = largest_move(spec)
    if step <= 0:
        return []
    groups: list[tuple[bool, list[Pair]]] = []
    standard = int(step) if spec.integer_queries else float(step)
    bounds = spec.query_bounds
    if bounds is None or bounds[0] <= 0 <= standard <= bounds[1]:  # else refused, maybe
        groups.append((True, [(0, standard, f"inputs 0 and {standard!r} (one sensitivity apart)")]))
    multiple = float(rng.integers(-100, 101))
    # ulp(2**k) = 2**(k - 52) must stay below the step, or x + step rounds back to x
    k_max = 50 if spec.integer_queries else min(50, math.floor(math.log2(step)) + 50)
    k = int(rng.integers(min(20, k_max), k_max + 1))
    large = float(rng.choice([-1.0, 1.0])) * 2.0**k
    # off the standard pair's grid: a mechanism that snaps or rounds its answer to a grid
    # loses most between answers on either side of a boundary
    phase = 0.0 if spec.integer_queries else float(rng.random())
    phases = [0.0] if spec.integer_queries else [(phase + j / PHASES) % 1 for j in range(PHASES)]
    moderate = [((multiple + f) * step, "a moderate offset") for f in phases]
    shorter = _shorter_moves(spec, step, multiple, phases)
    if not spec.integer_queries:
        # rounding half to even takes k + 1/2 to k and k + 3/2 to k + 2 (k even): see tie_pairs
        even = 2.0 * (multiple // 2)
        moderate += [(even + h, "a tie of rounding to whole numbers") for h in (0.5, 1.5)]
    offsets = [moderate, [(large, f"a large magnitude (±2**{k})")]]
    if bounds is not None:  # keep both inputs inside the range the mechanism accepts
        lo, hi = bounds
        offsets = [[(a, t) for a, t in group if lo <= a and a + step <= hi] for group in offsets]
        offsets = [group for group in offsets if group]
        if not offsets and spec.integer_queries:
            first, last = math.ceil(lo), math.floor(hi - step)
            if first <= last:
                offsets = [[(float(rng.integers(first, last + 1)), "a random offset")]]
        elif not offsets and hi - lo >= step:
            offsets = [[(lo + rng.random() * (hi - lo - step), "a random offset")]]
    if bounds is not None:
        shorter = [(a, m) for a, m in shorter if bounds[0] <= a and a + m <= bounds[1]]
        sweep = _sweep(bounds, step, phase, spec.integer_queries)
        sweep = [(a, t) for a, t in sweep if not (groups and a == 0)]  # the standard pair
        if sweep and offsets:
            offsets[0] = offsets[0] + sweep
        elif sweep:
            offsets = [sweep]
    for group in offsets:
        pairs: list[Pair] = []
        if group is offsets[0]:
            pairs += [_short_pair(spec, a, m) for a, m in shorter]
        for a, text in group:
            x: int | float
            x_prime: int | float
            if spec.integer_queries:
                x, x_prime = int(a), int(a) + int(step)
            else:
                x, x_prime = float(a), shifted(float(a), step)
                if x_prime == x:  # the step vanishes at this magnitude
                    continue
            pairs.append(
                (x, x_prime, f"inputs {x!r} and {x_prime!r} (one sensitivity apart at {text})")
            )
        if pairs:
            groups.append((False, pairs))
    return groups


def _sweep(
    bounds: tuple[float, float], step: float, phase: float, integer: bool
) -> list[tuple[float, str]]:
    """Bases ``a`` with ``a`` and ``a + step`` inside ``bounds``, a step apart from the lower
    bound (offset by ``phase`` of a step for real answers), at most ``SWEEP`` of them, evenly
    spread over a wider range.  The relation holds at every answer in the range, and a
    mechanism whose behaviour changes somewhere in it (a clamp at a bound off the grid, a
    branch at a threshold) loses only on the pairs that straddle that point."""
    lo, hi = bounds
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi - lo < step:
        return []
    last = math.floor((hi - lo - step) / step - (0 if integer else phase))
    shift = 0.0 if integer else phase
    js = range(last + 1) if last < SWEEP else np.unique(np.linspace(0, last, SWEEP).round())
    bases = [lo + (int(j) + shift) * step for j in js]
    if not bases or bases[-1] < hi - step:
        bases.append(hi - step)  # the pair at the top of the range
    return [(a, "a sweep of the declared range") for a in bases]


def _shorter_moves(
    spec: AdapterSpec, step: float, multiple: float, phases: list[float]
) -> list[tuple[float, float]]:
    """``(a, move)`` with moves shorter than the sensitivity at the moderate offset: real
    answers move by ``SHORT_FRACTIONS`` of it at four of the phases, integer ones by every
    whole step below it (at most ``SHORT_FRACTIONS`` many, spread).  The relation allows
    every move up to the sensitivity: a mechanism whose noise or rounding depends on where
    the answer sits within a step shows it only on a move that lands elsewhere in the step."""
    if spec.integer_queries:
        whole = int(step)
        moves = sorted({max(1, round(whole * f)) for f in SHORT_FRACTIONS} - {whole})
        return [(multiple * whole, float(m)) for m in moves]
    return [((multiple + f) * step, m * step) for f in phases[::2][:4] for m in SHORT_FRACTIONS]


def _short_pair(spec: AdapterSpec, a: float, move: float) -> Pair:
    if spec.integer_queries:
        x, y = int(a), int(a) + int(move)
        return x, y, f"inputs {x!r} and {y!r} (a move of {int(move)}, below the sensitivity)"
    x_f, y_f = float(a), float(a) + move
    return x_f, y_f, f"inputs {x_f!r} and {y_f!r} (a move of {move:g}, below the sensitivity)"
