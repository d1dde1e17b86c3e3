"""The sparse vector technique benchmarks: Lyu, Su and Li's SVT1-6, NumericalSVT, SVT3/4 in parallel."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from auditor.adapters.benchmarks.common import LYU, Benchmark, _count, _g, _vector

# --- the sparse vector technique ------------------------------------------------------------


class _SparseVector(Benchmark):
    """One noisy threshold ``T + rho`` and per-query noise ``nu_i``; ⊤ when
    ``q_i + nu_i >= T + rho``, halting after ``cutoff`` ⊤ (``cutoff=None``: never halts).

    Subclasses set the noise scales (as multiples of sensitivity / epsilon), whether the
    threshold noise is redrawn after a ⊤ (Alg. 2) and whether a ⊤ releases ``q_i + nu_i``
    (Alg. 3).  Queries have sensitivity 1 each: L∞ neighbours, as the testers' ``ALL_DIFFER``.
    """

    input_kind = "vector"
    norm = "linf"
    sensitivity = 1.0
    output_kind = "ternary"
    output_length = "query"
    _label: ClassVar[str] = ""
    #: defaults of the testers' runs (cutoff None: the algorithm has no cutoff)
    _default_cutoff: ClassVar[int | None] = 1
    _default_threshold: ClassVar[float] = 1.0

    def __init__(
        self,
        epsilon: float = 0.1,
        cutoff: int | None = None,
        threshold: float | None = None,
        queries: int = 10,
    ) -> None:
        super().__init__(epsilon)
        if self._default_cutoff is None:
            if cutoff is not None:
                raise ValueError(f"{type(self).__name__} has no cutoff (got cutoff={cutoff!r})")
            self.cutoff: int | None = None
        else:
            self.cutoff = _count(self._default_cutoff if cutoff is None else cutoff, "cutoff")
        self.threshold = float(self._default_threshold if threshold is None else threshold)
        if not math.isfinite(self.threshold):
            raise ValueError(f"threshold={threshold!r} must be finite")
        self.query_length = _count(queries, "queries")
        extra = []
        if self.cutoff != self._default_cutoff:
            extra.append(f"c={self.cutoff}")
        if self.threshold != self._default_threshold:
            extra.append(f"t={_g(self.threshold)}")
        if self.query_length != 10:
            extra.append(f"m={self.query_length}")
        suffix = "".join("," + e for e in extra)
        self.name = f"benchmark.{self._label}(eps={_g(epsilon)}{suffix})"

    # noise scales; c = cutoff (1 when there is none), all times sensitivity
    def rho_scale(self) -> float:
        raise NotImplementedError

    def nu_scale(self) -> float | None:
        """The query noise's scale (None: no query noise)."""
        raise NotImplementedError

    @property
    def _c(self) -> int:
        return 1 if self.cutoff is None else self.cutoff

    def _compare(
        self, q: np.ndarray, n: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """The (n, m) comparisons ``q_i + nu_i >= T + rho`` (as if nothing halted) and the
        (n, m) noisy answers ``q_i + nu_i``; Alg. 2 overrides this to redraw rho after a ⊤."""
        rho = rng.laplace(0.0, self.rho_scale(), size=(n, 1))
        scale = self.nu_scale()
        if scale is None:
            noisy = np.broadcast_to(q, (n, q.size))
        else:
            noisy = rng.laplace(0.0, scale, size=(n, q.size))
            noisy += q  # in place: the same sums, without a second (n, m) array
        return noisy >= self.threshold + rho, noisy

    def _answered(self, above: np.ndarray) -> np.ndarray:
        """Where an answer is given: before the cutoff-th ⊤ (everywhere without a cutoff)."""
        if self.cutoff is None:
            return np.ones_like(above, dtype=bool)
        # counted in the smallest integer type that holds m: a cumulative sum of booleans in
        # numpy's default int64 took most of the sampler's time on short rows
        tops = np.cumsum(above, axis=1, dtype=np.min_scalar_type(above.shape[1]))
        tops -= above
        answered: np.ndarray = tops < self.cutoff
        return answered

    def _draw(self, q: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        above, _ = self._compare(q, n, rng)
        out = above.astype(np.int8)
        out[~self._answered(above)] = -1
        return out

    def sample(self, query: Any, n: int) -> np.ndarray:
        return self._draw(_vector(query), n, self._rng)


class SVT1(_SparseVector):
    """Lyu, Su, Li Alg. 1 (StatDP's ``SVT``): rho ~ Lap(2/eps), nu ~ Lap(4c/eps); epsilon-DP."""

    _label = "svt1"
    _default_threshold = 0.5
    description = (
        f"SVT with cutoff c ({LYU}, Fig. 1 Alg. 1; StatDP's SVT): rho ~ Lap(2/eps), "
        "nu_i ~ Lap(4c/eps), answers T/F until the c-th T; eps-DP (Lyu et al.)."
    )

    def rho_scale(self) -> float:
        return 2.0 * self.sensitivity / self.epsilon

    def nu_scale(self) -> float | None:
        return 4.0 * self._c * self.sensitivity / self.epsilon


class SVT2(_SparseVector):
    """Lyu, Su, Li Alg. 2 (Dwork & Roth 2014's SVT): rho ~ Lap(2c/eps), redrawn after every ⊤,
    nu ~ Lap(4c/eps); epsilon-DP.  (Not in StatDP; DP-Sniper's wrapper adds it.)"""

    _label = "svt2"
    description = (
        f"SVT of Dwork & Roth 2014 ({LYU}, Fig. 1 Alg. 2): rho ~ Lap(2c/eps), redrawn after "
        "every T, nu_i ~ Lap(4c/eps), halts after c T; eps-DP (Lyu et al.)."
    )

    def rho_scale(self) -> float:
        return 2.0 * self._c * self.sensitivity / self.epsilon

    def nu_scale(self) -> float | None:
        return 4.0 * self._c * self.sensitivity / self.epsilon

    def _compare(
        self, q: np.ndarray, n: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        scale = self.nu_scale()
        assert scale is not None
        noisy = q + rng.laplace(0.0, scale, size=(n, q.size))
        rho = rng.laplace(0.0, self.rho_scale(), size=n)
        above = np.empty((n, q.size), dtype=bool)
        for i in range(q.size):  # a loop over the m queries, not over the n outputs
            above[:, i] = noisy[:, i] >= self.threshold + rho
            fresh = rng.laplace(0.0, self.rho_scale(), size=n)
            rho = np.where(above[:, i], fresh, rho)
        return above, noisy


class SVT3(_SparseVector):
    """Lyu, Su, Li Alg. 3 (from Roth's 2011 lecture notes; StatDP's ``iSVT4``): rho ~ Lap(2/eps),
    nu ~ Lap(2c/eps), and each ⊤ releases the noisy answer ``q_i + nu_i``.

    Output: a real vector, the released value at each ⊤ and NaN elsewhere (⊥ or halted).
    """

    _label = "svt3"
    output_kind = "real"
    nullable = True
    correct = False
    description = (
        f"SVT releasing q_i + nu_i at each T ({LYU}, Fig. 1 Alg. 3, from Roth's lecture notes; "
        "StatDP's iSVT4): rho ~ Lap(2/eps), nu_i ~ Lap(2c/eps). Broken: 'INCORRECT: Output the "
        "noisy query instead of True' (StatDP's source); inf-DP in Lyu et al.'s Fig. 1."
    )

    def rho_scale(self) -> float:
        return 2.0 * self.sensitivity / self.epsilon

    def nu_scale(self) -> float | None:
        return 2.0 * self._c * self.sensitivity / self.epsilon

    def _draw(self, q: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        above, noisy = self._compare(q, n, rng)
        released = above & self._answered(above)
        return np.where(released, noisy, np.nan)


class SVT4(_SparseVector):
    """Lyu, Su, Li Alg. 4 (Lee & Clifton 2014; StatDP's ``iSVT3``): eps1 = eps/4,
    rho ~ Lap(4/eps), nu ~ Lap(4/(3 eps)) whatever c; only ((1 + 6c)/4) eps-DP."""

    _label = "svt4"
    correct = False
    description = (
        f"SVT of Lee & Clifton 2014 ({LYU}, Fig. 1 Alg. 4; StatDP's iSVT3): rho ~ Lap(4/eps), "
        "nu_i ~ Lap(4/(3 eps)), halts after c T. Broken: the query noise does not scale with c "
        "('INCORRECT: noise added to queries doesn't scale with N', StatDP's source); Lyu et al. "
        "show it is only ((1+6c)/4)eps-DP."
    )

    def rho_scale(self) -> float:
        return 4.0 * self.sensitivity / self.epsilon

    def nu_scale(self) -> float | None:
        return 4.0 * self.sensitivity / (3.0 * self.epsilon)


class SVT5(_SparseVector):
    """Lyu, Su, Li Alg. 5 (Stoddard et al. 2014; StatDP's ``iSVT1``): rho ~ Lap(2/eps), no query
    noise and no cutoff: infinity-DP."""

    _label = "svt5"
    _default_cutoff = None
    correct = False
    description = (
        f"SVT of Stoddard et al. 2014 ({LYU}, Fig. 1 Alg. 5; StatDP's iSVT1): noisy threshold "
        "rho ~ Lap(2/eps), no query noise, no cutoff. Broken: 'INCORRECT: no noise added to the "
        "queries' (StatDP's source); inf-DP in Lyu et al.'s Fig. 1."
    )

    def rho_scale(self) -> float:
        return 2.0 * self.sensitivity / self.epsilon

    def nu_scale(self) -> float | None:
        return None


class SVT6(_SparseVector):
    """Lyu, Su, Li Alg. 6 (Chen et al. 2015; StatDP's ``iSVT2``): rho ~ Lap(2/eps),
    nu ~ Lap(2/eps), no cutoff: infinity-DP (the loss grows with the number of ⊤)."""

    _label = "svt6"
    _default_cutoff = None
    correct = False
    description = (
        f"SVT of Chen et al. 2015 ({LYU}, Fig. 1 Alg. 6; StatDP's iSVT2): rho ~ Lap(2/eps), "
        "nu_i ~ Lap(2/eps), no cutoff. Broken: 'INCORRECT: no bounds on the True's to output' "
        "(StatDP's source); inf-DP in Lyu et al.'s Fig. 1, the loss grows with every T answered."
    )

    def rho_scale(self) -> float:
        return 2.0 * self.sensitivity / self.epsilon

    def nu_scale(self) -> float | None:
        return 2.0 * self.sensitivity / self.epsilon


class NumericalSVT(_SparseVector):
    """Numerical sparse vector (ShadowDP, Wang et al. PLDI 2019; Dwork & Roth's NumericSparse):
    rho ~ Lap(3/eps), nu ~ Lap(6c/eps), and each ⊤ releases ``q_i + Lap(3c/eps)`` (fresh noise);
    halts after c ⊤; epsilon-DP (verified by ShadowDP for ALL_DIFFER neighbours).

    Output: a real vector, the released value at each ⊤ and NaN elsewhere (ShadowDP writes 0
    for ⊥; NaN is the same information, see the module docstring).
    """

    _label = "numerical_svt"
    _default_cutoff = 2
    output_kind = "real"
    nullable = True
    description = (
        "Numerical SVT (ShadowDP, Wang et al. PLDI 2019): rho ~ Lap(3/eps), nu_i ~ Lap(6c/eps), "
        "each T releases q_i + Lap(3c/eps) (fresh noise), halts after c T; eps-DP (verified by "
        "ShadowDP)."
    )

    def rho_scale(self) -> float:
        return 3.0 * self.sensitivity / self.epsilon

    def nu_scale(self) -> float | None:
        return 6.0 * self._c * self.sensitivity / self.epsilon

    def _draw(self, q: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        above, _ = self._compare(q, n, rng)
        released = above & self._answered(above)
        values = q + rng.laplace(0.0, 3.0 * self._c * self.sensitivity / self.epsilon, (n, q.size))
        return np.where(released, values, np.nan)


class SVT34Parallel(Benchmark):
    """SVT3 and SVT4 run side by side on the same queries (DP-Sniper's ``SVT34Parallel``), each
    with half the claimed epsilon (DP-Sniper: 0.1 each, c = 2, T = 1).

    Output: 2m reals, SVT3's m entries (values, NaN for none) then SVT4's m answers as 1.0 /
    0.0 / -1.0 (⊤ / ⊥ / halted).  Claim: the composition of the two halves' claims, epsilon.
    """

    input_kind = "vector"
    norm = "linf"
    sensitivity = 1.0
    output_kind = "real"
    nullable = True
    correct = False

    def __init__(
        self, epsilon: float = 0.2, cutoff: int = 2, threshold: float = 1.0, queries: int = 10
    ) -> None:
        super().__init__(epsilon)
        half = self.epsilon / 2.0
        self.parts = (
            SVT3(half, cutoff=cutoff, threshold=threshold, queries=queries),
            SVT4(half, cutoff=cutoff, threshold=threshold, queries=queries),
        )
        self.query_length = self.parts[0].query_length
        self.output_length = 2 * self.query_length
        extra = ""
        if (cutoff, threshold, queries) != (2, 1.0, 10):
            extra = f",c={cutoff},t={_g(threshold)},m={queries}"
        self.name = f"benchmark.svt34_parallel(eps={_g(epsilon)}{extra})"
        self.description = (
            f"Lyu et al.'s Alg. 3 and Alg. 4 run side by side on the same queries, each at "
            f"eps/2 = {_g(half)}, c = {cutoff} (DP-Sniper's SVT34Parallel); claim: their "
            "composition. Broken, as both halves are: Alg. 3 is inf-DP and Alg. 4 "
            "((1+6c)/4)(eps/2)-DP (Lyu et al. 2017, Fig. 1)."
        )

    def sample(self, query: Any, n: int) -> np.ndarray:
        q = _vector(query, length=self.query_length)
        values = self.parts[0]._draw(q, n, self._rng)
        answers = self.parts[1]._draw(q, n, self._rng).astype(float)
        return np.concatenate([values, answers], axis=1)
