"""The report-noisy-max benchmarks (StatDP's ReportNoisyMax1-4) and their exact-argmax sampler."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from auditor.adapters.benchmarks.common import Benchmark, _count, _g, _vector

# --- report noisy max -------------------------------------------------------------------------

#: a chunk with more rows than this share to redraw one by one is drawn the plain way instead
_REDRAW_SHARE = 1 / 64
#: uniforms drawn and ranked at a time (a block of rows stays in the processor's cache)
_BLOCK_VALUES = 1 << 15
#: the shortcut pays when queries repeat at least this many times on average
_MIN_REPEATS = 4


def laplace_argmax(rng: np.random.Generator, q: np.ndarray, scale: float, n: int) -> np.ndarray:
    """``(q + rng.laplace(0.0, scale, size=(n, q.size))).argmax(axis=1)``: the same indices from
    the same generator state, which it leaves where that call leaves it, without computing most
    of the noise when queries repeat (the attacks' inputs: many equal answers, a few moved).

    numpy draws a Laplace value from one uniform ``U`` (``rng.random``'s draw; ``U == 0`` is
    redrawn): ``-scale * log(2 - 2U)`` if ``U >= 0.5``, else ``scale * log(2U)``, increasing in
    ``U``.  Among equal queries the largest noisy answer is therefore the one with the largest
    uniform (the first of equal ones, as ``argmax`` picks), and only each group's largest
    uniform needs a logarithm.  Rows where that shortcut has too little room to be sure --
    two uniforms of a group close enough to round to the same answer, or two groups' noisy
    maxima close enough for numpy's vectorised ``log`` to rank them unlike the C library's --
    are redrawn exactly: a copy of the generator is advanced to the row, which is drawn with
    ``laplace`` itself.  Without repeated queries, a zero uniform, or a generator that cannot
    ``advance``, the plain draw is made.
    """
    k = q.size
    values, inverse = np.unique(q, return_inverse=True)
    bits = rng.bit_generator

    def plain() -> np.ndarray:
        out: np.ndarray = (q + rng.laplace(0.0, scale, size=(n, k))).argmax(axis=1)
        return out

    if k < _MIN_REPEATS * len(values) or n == 0 or not hasattr(bits, "advance"):
        return plain()
    # every answer and noise value is below `big` in size; the rounding of the answers and the
    # error of either log are far below 2^-40 of it, so uniforms `delta` apart give answers in
    # the same order, and noisy maxima `margin` apart keep their order under either log
    big = float(np.max(np.abs(q))) + 40.0 * scale
    delta = 2.0**-40 * (1.0 + big / scale)
    margin = 2.0**-36 * (big + scale)
    groups = [np.flatnonzero(inverse == g) for g in range(len(values))]
    top = np.empty((n, len(values)))
    index = np.empty((n, len(values)), dtype=np.intp)
    unsure = np.zeros(n, dtype=bool)
    start = bits.state
    step = max(1, _BLOCK_VALUES // k)
    for lo in range(0, n, step):
        # rows in cache-sized blocks: consecutive calls draw the uniforms of one call
        u = rng.random((min(step, n - lo), k))
        if not u.all():  # numpy's Laplace redraws a zero uniform: the streams part there
            bits.state = start
            return plain()
        rows = np.arange(len(u))
        part = slice(lo, lo + len(u))
        for g, cols in enumerate(groups):
            if len(cols) == 1:
                index[part, g], top[part, g] = cols[0], u[:, cols[0]]
                continue
            together = cols[-1] - cols[0] + 1 == len(cols)
            block = u[:, cols[0] : cols[-1] + 1] if together else u[:, cols]
            at = block.argmax(axis=1)
            best = block[rows, at]
            index[part, g] = cols[at]
            top[part, g] = best
            unsure[part] |= np.count_nonzero(block >= (best - delta)[:, None], axis=1) > 1
    rows = np.arange(n)
    noise = np.where(
        top >= 0.5, 0.0 - scale * np.log(2.0 - top - top), 0.0 + scale * np.log(top + top)
    )
    noisy = values + noise
    win = noisy.argmax(axis=1)
    if len(values) > 1:
        ranked = np.sort(noisy, axis=1)
        unsure |= ranked[:, -1] - ranked[:, -2] <= margin
    out: np.ndarray = index[rows, win]
    redraw = np.flatnonzero(unsure)
    if len(redraw) > n * _REDRAW_SHARE:
        bits.state = start
        return plain()
    if len(redraw):
        _redraw_rows(bits, start, q, scale, redraw, out)
    return out


def _redraw_rows(
    bits: Any, start: Any, q: np.ndarray, scale: float, redraw: np.ndarray, out: np.ndarray
) -> None:
    """Set ``out[i]`` for each row ``i`` in ``redraw`` to the plain draw's index: a copy of the
    generator (state ``start``) advanced to the row draws it with ``laplace`` itself."""
    k = q.size
    again: Any = type(bits)()  # one that can advance (checked by the caller)
    again.state = start
    exact = np.random.Generator(again)
    done = 0
    for i in redraw.tolist():
        again.advance((i - done) * k)
        out[i] = (q + exact.laplace(0.0, scale, size=k)).argmax()
        done = i + 1


class _NoisyMax(Benchmark):
    """``q_i + noise(2/epsilon)`` for each of m queries of sensitivity 1 (L∞ neighbours); the
    index of the largest (``value = False``) or the largest noisy value itself."""

    input_kind = "vector"
    norm = "linf"
    sensitivity = 1.0
    _label: ClassVar[str] = ""
    _exponential: ClassVar[bool] = False
    _value: ClassVar[bool] = False

    def __init__(self, epsilon: float = 0.1, queries: int = 5) -> None:
        super().__init__(epsilon)
        self.query_length = _count(queries, "queries")
        self.output_kind = "real" if self._value else "index"
        suffix = "" if self.query_length == 5 else f",m={self.query_length}"
        self.name = f"benchmark.{self._label}(eps={_g(epsilon)}{suffix})"

    def sample(self, query: Any, n: int) -> np.ndarray:
        q = _vector(query)
        scale = 2.0 * self.sensitivity / self.epsilon
        if self._exponential:
            noisy = q + self._rng.exponential(scale, size=(n, q.size))
        elif not self._value:
            return laplace_argmax(self._rng, q, scale, n)
        else:
            noisy = q + self._rng.laplace(0.0, scale, size=(n, q.size))
        out: np.ndarray = noisy.max(axis=1) if self._value else noisy.argmax(axis=1)
        return out


class ReportNoisyMax1(_NoisyMax):
    """Report noisy max with Laplace(2/epsilon) noise (Ding et al. Alg. 5; StatDP
    ``noisy_max_v1a``): epsilon-DP (Dwork & Roth 2014, §3.3; Laplace(2/eps) rather than
    Laplace(1/eps) because the queries need not be monotone)."""

    _label = "report_noisy_max1"
    description = (
        "Report noisy max (Ding et al. CCS 2018 Alg. 5, StatDP's noisy_max_v1a): index of the "
        "largest q_i + Laplace(2/eps); eps-DP (Dwork & Roth 2014, Sec. 3.3)."
    )


class ReportNoisyMax2(_NoisyMax):
    """Report noisy max with Exponential(2/epsilon) noise (Ding et al. Alg. 6; StatDP
    ``noisy_max_v2a``): epsilon-DP; it is the permute-and-flip mechanism (Ding et al. 2021)."""

    _label = "report_noisy_max2"
    _exponential = True
    description = (
        "Report noisy max with exponential noise (Ding et al. CCS 2018 Alg. 6, StatDP's "
        "noisy_max_v2a): index of the largest q_i + Exponential(2/eps); eps-DP (it is "
        "permute-and-flip, Ding et al. 2021)."
    )


class ReportNoisyMax3(_NoisyMax):
    """The largest noisy *value* ``max_i(q_i + Laplace(2/epsilon))`` (Ding et al. Alg. 7;
    StatDP ``noisy_max_v1b``).  Broken: a post-processing of all m noisy answers, so at most
    ``m * epsilon / 2``-DP, and that is attained in the left tail (0.25 for m = 5)."""

    _label = "report_noisy_max3"
    _value = True
    correct = False
    description = (
        "Noisy max returning the value (Ding et al. CCS 2018 Alg. 7, StatDP's noisy_max_v1b): "
        "max_i(q_i + Laplace(2/eps)). Broken: 'INCORRECT: returning maximum value instead of "
        "the index' (StatDP's source); it is m*eps/2-DP."
    )


class ReportNoisyMax4(_NoisyMax):
    """The largest noisy value with Exponential(2/epsilon) noise (Ding et al. Alg. 8; StatDP
    ``noisy_max_v2b``).  Broken: the output is never below ``max_i q_i``, so an output between
    ``max q'`` and ``max q`` is impossible on q and possible on q' (epsilon = ∞)."""

    _label = "report_noisy_max4"
    _exponential = True
    _value = True
    correct = False
    description = (
        "Noisy max with exponential noise returning the value (Ding et al. CCS 2018 Alg. 8, "
        "StatDP's noisy_max_v2b). Broken: 'INCORRECT: returning the maximum value instead of "
        "the index' (StatDP's source); outputs below max_i q_i are impossible, so eps = inf."
    )
