"""Precision-based attack on floating-point additive noise (Haney et al. 2022), model-free.

For binary64 round-to-nearest and *any* double ``n``, ``2**j ⊕ n`` is a multiple of
``2**(j-53)``: if the result has magnitude ``>= 2**(j-1)`` its ulp is at least ``2**(j-53)``;
otherwise ``n`` lies in ``[-3*2**(j-1), -2**(j-1)]``, the sum is exact (Sterbenz) and both terms
are multiples of ``2**(j-53)``.  At input 0 the output is the noise itself, whose low bits are
finer than that whenever ``|n| < 2**(j-1)``.  So with neighbours 0 and ``2**j <= sensitivity``
the event "output is not a multiple of ``2**(j-53)``" has probability exactly 0 at ``2**j`` and
about ``P[|n| < 2**(j-1)] / 2`` or more at 0, whatever the noise distribution (Laplace,
Gaussian, ...), as long as it is a double added in floating point.  Bounds that exclude 0 use
``2**e`` inside them and an input up to one sensitivity nearer 0 (``grid_pair``).

Generalisation to noise added in a rescaled space, ``y = fl(fl(a/s ⊕ n) * s)`` (OpenDP <= 0.4):
with ``c = fl(a/s)``, ``c ⊕ n`` is a multiple of ``ulp(c)/2`` by the same argument, so ``a`` is
impossible when no double ``t`` with ``fl(t*s) = y`` (a short run of doubles next to ``y/s``) is a
multiple of ``ulp(c)/2``.  The scan is conservative: a run touching the edge of the scanned
window, or no run at all, counts as possible.

The distinguisher learns from the training split which test to use: the plain grid, a coarser
grid every training output at ``2**j`` lies on (float32 noise, fixed-point code), or one of the
rescaled tests at the scales the declared claim implies (``D/e``, ``D*(1/e)``, ``1/(e/D)``,
division by ``e/D``).  Only tests with no hit among the training outputs at ``2**j`` are
eligible; the one with most hits at 0 is proposed.  Exact mechanisms (outputs on a coarse
grid at both inputs: snapping, discretised Laplace) give no hit at 0, so nothing is proposed.

Assumptions:
    Outputs are doubles produced by round-to-nearest binary64 arithmetic (no FMA contraction
    of the final addition, no x87 extended precision) for the zero-probability guarantee.
    Soundness never depends on it: events are certified on fresh samples.

References:
    Haney, Desfontaines, Hartman, Shrestha, Hay, "Precision-based attacks and interval
    refining: how to break, then fix, differential privacy on finite computers" (2022).
    Mironov, CCS 2012 (the porous output set of float mechanisms).
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field

import numpy as np

from attacks.float_pair import (
    FloatPairDistinguisher,
    PerCoordinate,
    float_inputs,
    float_training,
    float_trial,
    per_coordinate_outputs,
    vector_pair,
)
from auditor.core.claims import Family
from auditor.core.distance import pull_within
from auditor.core.kinds import Norm
from auditor.core.source import event_code, literal
from auditor.core.spec import AdapterSpec
from auditor.core.trials import CertificationPlan, Event, Trial
from auditor.statistics.events.bit_events import coarsest_grid

#: doubles scanned on each side of y/s for the preimage of y under t -> fl(t*s)
_SCAN = 4


def not_multiple(t: np.ndarray, grid: float) -> np.ndarray:
    """``t`` is not a multiple of the power of two ``grid``, exactly (fast path: exact scaling).

    ``t / grid`` is exact unless it underflows, which happens only for ``|t| < grid`` (then
    ``t`` is a multiple only if it is 0, and an underflow to 0 errs on the side of "multiple").
    """
    off: np.ndarray
    if grid < 2.0**-1022:
        off = (np.fmod(t, grid) != 0) & ~np.isnan(t)
        return off
    with np.errstate(over="ignore"):
        z = t * (1.0 / grid)  # inf for huge t: a multiple, and floor(inf) == inf says so
    off = (z != np.floor(z)) & ~np.isnan(z)  # NaN ("no answer") is on no grid and off none
    return off


@dataclass(frozen=True)
class GridTest:
    """ "``y`` cannot come from input ``x_prime``": no admissible pre-image is a multiple of ``grid``.

    ``rescale`` is None for noise added in the output space; otherwise ``("mul", s)`` for
    ``y = fl(t * s)`` or ``("div", d)`` for ``y = fl(t / d)``.
    """

    grid: float
    rescale: tuple[str, float] | None = None
    origin: str = "theory"

    @property
    def description(self) -> str:
        g = f"2^{math.frexp(self.grid)[1] - 1}"
        if self.rescale is None:
            return f"output is not a multiple of {g} ({self.origin} grid of the other input)"
        kind, s = self.rescale
        how = f"t * {s!r}" if kind == "mul" else f"t / {s!r}"
        return f"no double t with fl({how}) = output is a multiple of {g} ({self.origin} grid)"

    def off_grid(self, y: np.ndarray) -> np.ndarray:
        if self.rescale is None:
            return not_multiple(np.asarray(y, dtype=np.float64), self.grid)
        kind, s = self.rescale
        return off_rescaled_grid(y, self.grid, kind, s)

    def event(self) -> Event:
        return Event(self.description, self.off_grid, white_box=False, code=self.code())

    def code(self) -> str:
        """Standalone source of :meth:`off_grid` (``Event.source``)."""
        parts = [f"GRID = {literal(self.grid)}", _SOURCES["not_multiple"]]
        if self.rescale is None:
            return event_code(
                "not_multiple(np.asarray(x, dtype=np.float64), GRID)", "\n\n".join(parts)
            )
        kind, s = self.rescale
        parts += [f"_SCAN = {_SCAN}", _SOURCES["off_rescaled_grid"]]
        return event_code(f"off_rescaled_grid(x, GRID, {kind!r}, {literal(s)})", "\n\n".join(parts))


def off_rescaled_grid(y: np.ndarray, grid: float, kind: str, s: float) -> np.ndarray:
    """No double ``t`` with ``fl(t * s) == y`` (``kind`` "mul") or ``fl(t / s) == y`` ("div")
    is a multiple of ``grid``: scans the ``2 * _SCAN + 1`` doubles around ``y / s``."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(all="ignore"):
        t0 = y / s if kind == "mul" else y * s
        # the 2*_SCAN+1 doubles around t0, stepped by magnitude (bit pattern +- i)
        bits = np.abs(t0).view(np.int64)
        steps = np.arange(-_SCAN, _SCAN + 1, dtype=np.int64)[:, None]
        t = np.copysign((bits + steps).view(np.float64), t0)
        match = (t * s if kind == "mul" else t / s) == y
        on_grid = ~not_multiple(t, grid)
        possible = (
            (match & on_grid).any(axis=0)
            | match[0]
            | match[-1]
            | ~match.any(axis=0)
            | (np.abs(t0) < 2.0**-1000)  # stepping would cross zero: give up, conservatively
            | ~np.isfinite(t0)
        )
        impossible: np.ndarray = ~possible
        return impossible


#: the grid tests' source for reproducers, read when this module is loaded (the file on disk
#: may change later)
_SOURCES = {f.__name__: inspect.getsource(f) for f in (not_multiple, off_rescaled_grid)}


def rescaled_tests(x_prime: float, sensitivity: float, epsilon: float) -> list[GridTest]:
    """Tests for noise added in the space rescaled by the declared Laplace scale."""
    d, e = float(sensitivity), float(epsilon)
    out: list[GridTest] = []
    pairs = [(("mul", s), x_prime / s) for s in (d / e, d * (1.0 / e), 1.0 / (e / d))]
    pairs.append((("div", e / d), x_prime * (e / d)))
    for rescale, c in pairs:
        if not (math.isfinite(c) and c != 0):
            continue
        # ulp(c)/2, or half of that when c is a power of two (robust to how c was rounded)
        grid = float(np.spacing(np.nextafter(abs(c), 0.0))) / 2
        test = GridTest(grid, rescale, origin=f"rescaled by {rescale[1]!r}")
        if grid > 0 and test not in out:
            out.append(test)
    return out


@dataclass
class PrecisionDistinguisher(FloatPairDistinguisher):
    """Chooses the grid test with no training hit at ``x_prime`` and most hits at ``x``."""

    tests: list[GridTest]
    chosen: GridTest | None = field(default=None, compare=False)

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        self.chosen = None
        floats = float_training(train_x, train_x_prime)
        if floats is None:
            return []
        a, b = floats
        tests = list(self.tests)
        learned = coarsest_grid(b)
        if math.isfinite(learned) and learned > tests[0].grid:
            tests.insert(1, GridTest(learned, None, origin="learned"))
        best, best_hits = None, 0
        for test in tests:
            if test.off_grid(b).any():
                continue
            hits = int(np.count_nonzero(test.off_grid(a)))
            if hits > best_hits:
                best, best_hits = test, hits
        self.chosen = best
        return [] if best is None else [best.event()]


def grid_pair(spec: AdapterSpec) -> tuple[float, float, int] | None:
    """The inputs ``(x, x_prime)`` and the ``e`` with ``x_prime = +-2**e``, within the
    sensitivity and the declared bounds, or None when none fit.

    ``x_prime ⊕ n`` is a multiple of ``2**(e-53)`` whatever the noise; the test has power when
    outputs at ``x`` fall below ``2**(e-1)`` in magnitude, where doubles are finer.  With 0 in
    the bounds that is ``x = 0`` (the noise alone) and ``2**e <= sensitivity``.  Bounds that
    exclude 0 take ``x = x_prime - sensitivity`` (toward 0, kept in the bounds) and the
    ``2**e`` inside them nearest to where ``x + n`` falls below ``2**(e-1)`` most often: for
    Laplace or Gaussian noise of scale ``s`` that is ``2**(e-1)`` near ``0.55 s``, here in
    ``(s/2, s]``, with ``s`` the least noise the claim allows (``sensitivity / epsilon``), the
    sampler being unknown.
    """
    assert spec.sensitivity is not None
    sensitivity = float(spec.sensitivity)
    j = neighbour_power_of_two(sensitivity)
    if j is None:
        return None
    pair = float_inputs(spec, math.ldexp(1.0, j))
    if pair is not None and pair[0] == 0.0:
        return pair[0], pair[1], j
    lo, hi = spec.input_bounds or (-math.inf, math.inf)
    if lo <= 0.0 <= hi:
        return None
    sign = 1.0 if lo > 0 else -1.0
    near, far = (lo, hi) if lo > 0 else (-hi, -lo)  # magnitudes
    if spec.integer_queries:
        near, far = math.ceil(near), math.floor(far)
    lowest = math.frexp(near)[1]  # 2**(lowest-1) <= near < 2**lowest
    highest = math.frexp(far)[1] - 1  # 2**highest <= far
    scale = sensitivity / float(spec.claim.epsilon)
    e = math.frexp(scale)[1] if math.isfinite(scale) and scale > 0 else lowest
    e = max(lowest, min(e, highest))
    x_prime = math.ldexp(1.0, e)
    if x_prime > far or e - 53 < -1074:
        return None
    step = math.floor(sensitivity) if spec.integer_queries else sensitivity
    # pulled towards x_prime by ulps where rounding would put it past the step
    x = float(pull_within([x_prime], [max(near, x_prime - step)], Norm.LINF, step)[0])
    if not x < x_prime:
        return None
    return sign * x, sign * x_prime, e


def neighbour_power_of_two(sensitivity: float) -> int | None:
    """``j`` with ``2**j <= sensitivity < 2**(j+1)``, or None when ``2**(j-53)`` is not a double."""
    if not (math.isfinite(sensitivity) and sensitivity > 0):
        return None
    j = math.frexp(sensitivity)[1] - 1
    return j if j - 53 >= -1074 else None


class PrecisionAttack:
    """Haney et al.'s precision-based attack: output-grid tests, no sampler model."""

    name = "precision"
    description = (
        "precision-based attack (Haney et al. 2022): outputs off the grid every "
        "2^j + noise lies on, for any floating-point noise"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        if not (spec.family is Family.ADDITIVE or per_coordinate_outputs(spec)):
            return False
        if not spec.sensitivity:
            return False
        j = neighbour_power_of_two(float(spec.sensitivity))
        return j is not None and (j >= 0 or not spec.integer_queries)

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        assert spec.sensitivity is not None
        pair = grid_pair(spec)
        if pair is None:
            return []
        x, x_prime, e = pair
        move = f"{'-' if x_prime < 0 else ''}2^{e}"
        tests = [GridTest(math.ldexp(1.0, e - 53))]
        tests += rescaled_tests(x_prime, spec.sensitivity, spec.claim.epsilon)
        if spec.family is not Family.ADDITIVE:
            vx, vx_prime, moved = vector_pair(spec, x, x_prime)
            parts = {c: PrecisionDistinguisher(x, x_prime, tests) for c in moved}
            return [
                Trial(
                    x=vx,
                    x_prime=vx_prime,
                    distinguisher=PerCoordinate(parts),
                    description=(
                        f"{len(vx)} queries at 0, {len(moved)} moved to {move}; output-grid "
                        "tests per coordinate, learned on training outputs"
                    ),
                )
            ]
        how = f"= {move} (within the sensitivity); output-grid tests learned on training outputs"
        return [float_trial(x, x_prime, PrecisionDistinguisher(x, x_prime, tests), how)]
