"""Exact models of floating-point Laplace samplers, for membership tests.

A model answers "could the implementation output exactly ``y`` when the true answer is
``loc``?".  The samplers modelled here all compute

    y = loc + N   (y <= loc)      or      y = loc - N   (y >= loc),      N = op(log(arg_j))

where ``arg_j = j * 2**-g`` is an exact dyadic determined by the integer index ``j`` of the
uniform, ``log`` is the implementation's logarithm and ``op`` its scaling (``L * scale``,
``L / (epsilon/sensitivity)``, ...).  For a fixed sign each map ``j -> y`` is monotone (correctly
or faithfully rounded ``log``, ``*``, ``/`` and ``+`` are monotone), so the preimage of ``y`` is an
interval of ``j`` and membership is decided by bisection, vectorised over all outputs.

Which samplers share which model (the output *sets* coincide, so one model covers them):

* ``g = 52`` -- numpy ``Generator.laplace`` and ``RandomState.laplace`` (``U = k * 2**-53``;
  ``U >= 0.5: loc - scale*log(2.0 - U - U)``, ``0 < U < 0.5: loc + scale*log(U + U)``), and the
  inverse CDF ``value - scale*sign(u)*log(1 - 2|u|)`` with ``u = random() - 0.5`` from Python's
  ``random.random()`` or numpy's ``random()``/``uniform(-0.5, 0.5)``: ``u`` is exactly
  ``(k - 2**52) * 2**-53``, so ``1 - 2|u|`` and ``2U``, ``2 - 2U`` are the same dyadics ``j * 2**-52``,
  and ``scale*sign(u)`` is exact, so the sign can be applied either side of the product.
* ``g = 53`` -- the transformation ``(2Z - 1) * scale * ln(U)`` with a random sign, ``U = k * 2**-53``
  (``random()`` or ``1 - random()``), and ``RandomState.exponential(scale) * sign``
  (``-log(1 - U)``).  Its output set contains the ``g = 52`` set (``log(2j * 2**-53)``), so models
  are tried most specific first.
* The logarithm: the C library's ``log`` (``math.log``; what numpy's own C samplers call) or
  ``numpy.log`` applied to arrays or numpy scalars, which on this kind of machine is a SIMD
  implementation that differs from the C library on ~0.35 % of arguments; and the ``log1p(-2|u|)``
  spelling with either library.  These are four different models.

Not modelled (documented, not forgotten): difference of two exponentials and ratio-of-uniforms
samplers draw two uniforms per output, so the output set is the image of ~2**106 pairs, which
covers practically every double in range: there is no porous support to exploit and no
interval preimage to bisect.  numpy ``Generator.exponential`` (ziggurat) likewise.  The
model-free precision attack (``attacks.precision``) covers all of these.

Exactness discipline: bisection runs with the vectorised numpy function; when the
implementation's logarithm is the C library's, every window position whose fast value lies
within a few ulps of ``y`` is re-evaluated with the C library (``math.log``/``math.log1p``), which
is what decides.  (numpy's SIMD ``log``/``log1p`` were measured to stay within 1 ulp of the C
library; the tolerance allows 8 ulps.)  An imperfect model can only make the attack weaker,
never unsound: its events are certified on fresh samples like any other.

References:
    Mironov, "On significance of the least significant bits for differential privacy" (CCS 2012),
    sections 4.5-4.7 (reconstructing the uniform, membership of an output).
    numpy ``distributions.c::random_laplace``; CPython ``random.random`` (53-bit grid).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: window of uniform indices around the bisection point re-checked exactly, in checking order
_OFFSETS = (0, -1, 1, -2, 2)
#: re-check a window position with the exact logarithm when its fast value is within
#: _NEAR_ULPS ulps of the noise (+3 ulps of the output) of ``y``.  A 1-ulp change of the log moves
#: the noise by <= 3 ulps (<= 4 with two roundings) and the output by one more.
_NEAR_ULPS = 6.0
#: relative slack of the bracket from inverting the sampler (checked; too tight only costs time)
_BRACKET_REL = 2.0**-49
#: outputs processed per block
_BLOCK = 1 << 17


def _elementwise(fn: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    def apply(x: np.ndarray) -> np.ndarray:
        return np.fromiter(map(fn, x.tolist()), dtype=np.float64, count=x.size)

    return apply


@dataclass(frozen=True)
class LogImpl:
    """The sampler's logarithm: a fast vectorised version and, if different, the exact one.

    ``shifted`` means the sampler calls ``log1p(arg - 1)`` (``arg - 1`` is exact for the dyadic
    arguments used here) instead of ``log(arg)``.
    """

    label: str
    fast: Callable[[np.ndarray], np.ndarray]
    exact: Callable[[np.ndarray], np.ndarray] | None
    shifted: bool = False

    def __call__(self, arg: np.ndarray, exact: bool = False) -> np.ndarray:
        x = arg - 1.0 if self.shifted else arg
        fn = self.exact if (exact and self.exact is not None) else self.fast
        return fn(x)


LIBM_LOG = LogImpl("C-library log", np.log, _elementwise(math.log))
NUMPY_LOG = LogImpl("numpy.log (vectorised)", np.log, None)
LIBM_LOG1P = LogImpl("C-library log1p", np.log1p, _elementwise(math.log1p), shifted=True)
NUMPY_LOG1P = LogImpl("numpy.log1p (vectorised)", np.log1p, None, shifted=True)
LOG_IMPLS = (LIBM_LOG, NUMPY_LOG, LIBM_LOG1P, NUMPY_LOG1P)


@dataclass(frozen=True)
class ScaleOp:
    """How the log of the uniform becomes the noise magnitude: ``L*a``, ``L/a`` or ``(L*a)/b``.

    Each is monotone non-decreasing in ``L`` for positive ``a`` and ``b``.
    """

    kind: str
    a: float
    b: float = 1.0

    def __call__(self, log_u: np.ndarray) -> np.ndarray:
        if self.kind == "mul":
            return log_u * self.a
        if self.kind == "div":
            return log_u / self.a
        return (log_u * self.a) / self.b

    @property
    def nominal(self) -> float:
        """The real factor this operation approximates (used only to bracket the bisection)."""
        if self.kind == "mul":
            return self.a
        if self.kind == "div":
            return 1.0 / self.a
        return self.a / self.b

    @property
    def label(self) -> str:
        if self.kind == "mul":
            return f"log * {self.a!r}"
        if self.kind == "div":
            return f"log / {self.a!r}"
        return f"(log * {self.a!r}) / {self.b!r}"


def _dyadic(bits: int) -> Callable[[np.ndarray], np.ndarray]:
    def arg(j: np.ndarray) -> np.ndarray:
        return j.astype(np.float64) * 2.0**-bits  # exact: j <= 2**53

    return arg


def _numpy_high(j: np.ndarray) -> np.ndarray:
    # numpy's upper branch with k = 2**53 - j: U = 1 - j*2**-53 (exact), arg = (2.0 - U) - U,
    # whose first subtraction rounds when k is odd.
    u = 1.0 - j.astype(np.float64) * 2.0**-53
    return (2.0 - u) - u


@dataclass(frozen=True)
class Branch:
    """One monotone branch of a sampler: ``y = loc + sign * op(log(arg(j)))``, ``j_lo <= j <= j_hi``.

    ``arg`` is increasing in ``j`` and close to ``j * 2**-bits`` (used to bracket the search).
    ``sign = +1`` gives outputs ``<= loc``, ``sign = -1`` outputs ``>= loc``.
    """

    sign: float
    j_lo: int
    j_hi: int
    bits: int
    arg: Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Sampler:
    """A sampler's branch structure and the uniform grid it draws from."""

    label: str
    branches: tuple[Branch, ...]


NUMPY_SAMPLER = Sampler(
    "numpy laplace (U=k*2^-53; U+U | (2.0-U)-U)",
    (Branch(1.0, 1, (1 << 52) - 1, 52, _dyadic(52)), Branch(-1.0, 1, 1 << 52, 52, _numpy_high)),
)
INVERSE_CDF_SAMPLER = Sampler(
    "inverse CDF sign(u)*log(1-2|u|), u=U-0.5 (U=k*2^-53)",
    (Branch(1.0, 1, 1 << 52, 52, _dyadic(52)), Branch(-1.0, 1, 1 << 52, 52, _dyadic(52))),
)
LOG_U_SAMPLER = Sampler(
    "random sign * log(U) (U=k*2^-53)",
    (Branch(1.0, 1, 1 << 53, 53, _dyadic(53)), Branch(-1.0, 1, 1 << 53, 53, _dyadic(53))),
)
#: most specific first: the log(U) output set contains the other two
SAMPLERS = (NUMPY_SAMPLER, INVERSE_CDF_SAMPLER, LOG_U_SAMPLER)


@dataclass(frozen=True)
class LaplaceSamplerModel:
    """One exact sampler model: branch structure, logarithm, scaling.

    ``reachable(y, loc)`` is exact when the model is the implementation (see the module notes).
    """

    sampler: Sampler
    log: LogImpl
    scale: ScaleOp

    @property
    def label(self) -> str:
        return f"{self.sampler.label}, {self.log.label}, noise = {self.scale.label}"

    def constructor(self) -> str:
        """Python source that builds this model from the names of this module."""
        op = self.scale
        return (
            f"LaplaceSamplerModel(SAMPLERS[{SAMPLERS.index(self.sampler)}], "
            f"LOG_IMPLS[{LOG_IMPLS.index(self.log)}], ScaleOp({op.kind!r}, {op.a!r}, {op.b!r}))"
        )

    def _h(
        self, branch: Branch, j: np.ndarray, loc: float, exact: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        noise = self.scale(self.log(branch.arg(j), exact))
        return loc + branch.sign * noise, noise

    def reachable(self, y: np.ndarray, loc: float) -> np.ndarray:
        """Boolean array: which outputs ``y`` (1-D float array) the sampler can produce at ``loc``."""
        y = np.asarray(y, dtype=np.float64)
        if y.size > _BLOCK:  # blocks that stay in cache are ~30 % faster
            return np.concatenate(
                [self.reachable(y[i : i + _BLOCK], loc) for i in range(0, y.size, _BLOCK)]
            )
        loc = float(loc)
        hit: np.ndarray = (
            y == loc
        )  # the uniform giving log(1) = 0 (or a superset of the support there)
        with np.errstate(all="ignore"):
            for branch in self.sampler.branches:
                idx = np.flatnonzero(~hit & ((y < loc) if branch.sign > 0 else (y > loc)))
                if idx.size:
                    hit[idx] = self._branch_hits(branch, y[idx], loc)
        return hit

    def _branch_hits(self, branch: Branch, y: np.ndarray, loc: float) -> np.ndarray:
        def above(h: np.ndarray, target: np.ndarray) -> np.ndarray:
            # h is increasing in j for sign +1 and decreasing for sign -1, so {j : above} is an
            # upper set of j either way
            return h >= target if branch.sign > 0 else h <= target

        lo, hi = self._bracket(branch, y, loc, above)
        active = np.flatnonzero(lo < hi)
        while active.size:
            a_lo, a_hi = lo[active], hi[active]
            mid = (a_lo + a_hi) >> 1
            up = above(self._h(branch, mid, loc)[0], y[active])
            hi[active] = np.where(up, mid, a_hi)
            lo[active] = np.where(up, a_lo, mid + 1)
            active = active[lo[active] < hi[active]]
        return self._window(branch, y, loc, lo)

    def _bracket(
        self,
        branch: Branch,
        y: np.ndarray,
        loc: float,
        above: Callable[[np.ndarray, np.ndarray], np.ndarray],
    ) -> tuple[np.ndarray, np.ndarray]:
        """A narrow range of j from inverting the sampler, checked; the full range where not.

        The invariant the bisection needs is ``not above(j_lo - 1)`` and ``above(j_hi)``; where
        the estimate does not satisfy it the element falls back to the branch's whole range
        (``above`` always holds at the branch's top, where log(arg) is 0 or nearly).
        """
        scale = abs(self.scale.nominal)
        log_u = -np.abs(y - loc) / scale
        err = _BRACKET_REL * (np.abs(log_u) + (np.abs(y) + abs(loc)) / scale) + 2.0**-1000
        size = float(1 << branch.bits)
        lo_f = np.exp(log_u - err) * size * (1 - 2.0**-50) - 4.0
        hi_f = np.exp(log_u + err) * size * (1 + 2.0**-50) + 4.0
        lo = np.clip(np.floor(lo_f), branch.j_lo, branch.j_hi).astype(np.int64)
        hi = np.clip(np.ceil(hi_f), branch.j_lo, branch.j_hi).astype(np.int64)
        below = np.maximum(lo - 1, branch.j_lo)
        bad = ~above(self._h(branch, hi, loc)[0], y) | (
            (lo > branch.j_lo) & above(self._h(branch, below, loc)[0], y)
        )
        lo[bad] = branch.j_lo
        hi[bad] = branch.j_hi
        return lo, hi

    def _window(self, branch: Branch, y: np.ndarray, loc: float, lo: np.ndarray) -> np.ndarray:
        """Exact decision over a few uniforms around the bisection point, undecided ones only."""
        hit = np.zeros(y.shape, dtype=bool)
        undecided = np.arange(y.size)
        for off in _OFFSETS:
            if not undecided.size:
                break
            j = np.clip(lo[undecided] + off, branch.j_lo, branch.j_hi)
            target = y[undecided]
            h, noise = self._h(branch, j, loc)
            if self.log.exact is None:
                decided = h == target
            else:
                tol = _NEAR_ULPS * np.spacing(np.abs(noise)) + 3.0 * np.spacing(np.abs(h))
                near = np.flatnonzero(np.abs(h - target) <= tol)
                decided = np.zeros(undecided.size, dtype=bool)
                if near.size:
                    exact = self._h(branch, j[near], loc, exact=True)[0]
                    decided[near[exact == target[near]]] = True
            hit[undecided[decided]] = True
            undecided = undecided[~decided]
        return hit


def scale_ops(sensitivity: float, epsilon: float) -> list[ScaleOp]:
    """The ways textbook code turns Laplace(sensitivity/epsilon) into arithmetic, deduplicated.

    Raises:
        ValueError: sensitivity or epsilon is not a positive finite number.
    """
    for name, value in (("sensitivity", sensitivity), ("epsilon", epsilon)):
        if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
            raise ValueError(f"{name}={value!r} must be a positive finite number")
    d, e = float(sensitivity), float(epsilon)
    ops = [ScaleOp("mul", s) for s in (d / e, d * (1.0 / e), 1.0 / (e / d))]
    ops.append(ScaleOp("div", e / d))
    ops.append(ScaleOp("div", e) if d == 1.0 else ScaleOp("muldiv", d, e))
    unique: list[ScaleOp] = []
    for op in ops:
        if op not in unique:
            unique.append(op)
    return unique


def candidate_models(sensitivity: float, epsilon: float) -> list[LaplaceSamplerModel]:
    """Every modelled sampler at the declared scale, most specific and most common first."""
    return [
        LaplaceSamplerModel(sampler, log, op)
        for sampler in SAMPLERS
        for log in LOG_IMPLS
        for op in scale_ops(sensitivity, epsilon)
    ]


def numpy_laplace_model(scale: float) -> LaplaceSamplerModel:
    """numpy's Laplace sampler (Generator and RandomState) at ``scale``, as numpy computes it."""
    return LaplaceSamplerModel(NUMPY_SAMPLER, LIBM_LOG, ScaleOp("mul", scale))
