"""Textbook floating-point mechanisms: the code people write from the definitions.

They are correct on paper and leak in practice; the harness must find that.  Each one is a
faithful copy of the naive formula, not a strawman.
"""

from __future__ import annotations

import math
import platform
import random
import textwrap
from typing import Any

import numpy as np

from auditor.adapters.base import (
    GENERATOR_SEED_SOURCE,
    SeededAdapter,
    assignments,
    module_source,
)
from auditor.core.space import Choice, Configurable, Range

# Parameter spaces (``dp-audit run --search``, docs/search.md), as for the library adapters:
# each adapter's ``space`` names arguments of its own constructor.
_EPSILON = Range(0.01, 10.0, log=True)
_DELTA = Range(1e-12, 0.1, log=True)
_SENSITIVITY = Range(1e-3, 1e6, log=True)


class _Searchable(Configurable):
    """Epsilon and the sensitivity searched by default; rebuilt under the adapter's own name
    (which the constructors otherwise derive from epsilon)."""

    name: str
    space = {"epsilon": _EPSILON, "sensitivity": _SENSITIVITY}

    def with_parameters(self, **values: Any) -> Any:
        return type(self)(**values, name=self.name)  # type: ignore[call-arg]


class _Reproducible(SeededAdapter, _Searchable):
    """A textbook mechanism on the seeded Generator, with a standalone reproducer: its
    parameters (``_reproducer_parameters``), the Generator and ``seed`` as in
    :class:`SeededAdapter`, then the code of ``_reproducer_code`` (``sample``, ...)."""

    epsilon: float
    sensitivity: float

    def _reproducer_parameters(self) -> str:
        return assignments(EPSILON=self.epsilon, SENSITIVITY=self.sensitivity)

    def _reproducer_code(self) -> str:
        raise NotImplementedError

    def reproducer_source(self) -> str:
        """Python source, runnable on its own, that draws this adapter's outputs without
        dp-audit (``seed`` and ``sample`` as here, bitwise)."""
        return module_source(
            self,
            ["import numpy as np"],
            f"{self._reproducer_parameters()}\n{GENERATOR_SEED_SOURCE}",
            self._reproducer_code(),
        )


class TextbookLaplace(_Reproducible):
    """``value + numpy Laplace(0, sensitivity / epsilon)`` in float64.

    References:
        Dwork, McSherry, Nissim, Smith (2006): the Laplace mechanism.
        Mironov (CCS 2012): why this float implementation is not differentially private.
    """

    family = "additive"
    library = "numpy"
    description = "value + numpy.random.Generator.laplace(0, sensitivity/epsilon)"

    def __init__(
        self, epsilon: float = 1.0, sensitivity: float = 1.0, name: str | None = None
    ) -> None:
        super().__init__()
        self.epsilon = epsilon
        self.delta = 0.0
        self.sensitivity = sensitivity
        self.name = name or f"textbook.laplace(eps={epsilon:g})"
        self.library_version = np.__version__

    def sample(self, query: Any, n: int) -> np.ndarray:
        return float(query) + self._rng.laplace(0.0, self.sensitivity / self.epsilon, size=n)

    def _reproducer_code(self) -> str:
        return """
            def sample(query, n):
                return float(query) + rng.laplace(0.0, SENSITIVITY / EPSILON, size=n)
            """


def _check_epsilon(epsilon: float) -> float:
    if not epsilon > 0:
        raise ValueError(f"epsilon={epsilon!r} must be > 0")
    return float(epsilon)


class TextbookLaplaceInverseCDF(_Searchable):
    """Inverse-CDF Laplace from Python's ``random.random()``: ``value − b·sgn(u)·ln(1 − 2|u|)``.

    ``u = random.random() − 0.5``, b = sensitivity/epsilon, one Python call per output (not
    vectorised).  ``seed(entropy)`` installs ``random.Random(entropy)``.

    References:
        Dwork, McSherry, Nissim, Smith (2006): the Laplace mechanism.
        Mironov (CCS 2012): the inverse-CDF sampler in floats reaches a porous, input-dependent
        set of doubles, so a single output can identify the input.

    Assumptions: ``random.random()`` returns 0.0 with probability 2⁻⁵³; then ``ln(0)`` raises,
    as the textbook code would.
    """

    family = "additive"
    library = "python"
    vectorised = False
    description = "value - b*sgn(u)*log(1 - 2|u|), u = random.random() - 0.5 (Python floats)"

    def __init__(
        self, epsilon: float = 1.0, sensitivity: float = 1.0, name: str | None = None
    ) -> None:
        self.epsilon = _check_epsilon(epsilon)
        self.delta = 0.0
        self.sensitivity = float(sensitivity)
        self.name = name or f"textbook.laplace_inverse_cdf(eps={epsilon:g})"
        self.library_version = platform.python_version()
        self._random = random.Random()

    def seed(self, entropy: int) -> None:
        self._random = random.Random(entropy)

    def sample(self, query: Any, n: int) -> np.ndarray:
        value, scale, uniform, log = (
            float(query),
            self.sensitivity / self.epsilon,
            self._random.random,
            math.log,
        )
        out = np.empty(n, dtype=np.float64)
        for i in range(n):
            u = uniform() - 0.5
            out[i] = value - scale * math.copysign(1.0, u) * log(1.0 - 2.0 * abs(u))
        return out

    def reproducer_source(self) -> str:
        """Python source, runnable on its own, that draws this adapter's outputs without
        dp-audit (``seed`` and ``sample`` as here, bitwise)."""
        parameters = assignments(EPSILON=self.epsilon, SENSITIVITY=self.sensitivity)
        return module_source(
            self,
            ["import math", "import random", "", "import numpy as np"],
            f"{parameters}\ngenerator = random.Random()",
            """
            def seed(entropy):
                global generator
                generator = random.Random(entropy)


            def sample(query, n):
                value, scale = float(query), SENSITIVITY / EPSILON
                out = np.empty(n, dtype=np.float64)
                for i in range(n):
                    u = generator.random() - 0.5
                    out[i] = value - scale * math.copysign(1.0, u) * math.log(1.0 - 2.0 * abs(u))
                return out
            """,
        )


class TextbookGaussian(_Reproducible):
    """``value + numpy normal(0, σ)`` with the classic σ = Δ·sqrt(2 ln(1.25/δ))/ε.

    References:
        Dwork & Roth (2014), Theorem A.1: (ε, δ)-DP for ε < 1.

    Assumptions: the classic bound needs epsilon < 1; larger values are rejected.
    """

    family = "additive"
    library = "numpy"
    space = {
        "epsilon": Range(0.01, 0.99, log=True),
        "delta": _DELTA,
        "sensitivity": _SENSITIVITY,
    }
    description = "value + numpy normal(0, sensitivity*sqrt(2 ln(1.25/delta))/epsilon)"

    def __init__(
        self,
        epsilon: float = 0.5,
        delta: float = 1e-5,
        sensitivity: float = 1.0,
        name: str | None = None,
    ) -> None:
        super().__init__()
        if not 0 < epsilon < 1:
            raise ValueError(
                f"epsilon={epsilon!r} must be in (0, 1) for the classic Gaussian bound"
            )
        if not 0 < delta < 1:
            raise ValueError(f"delta={delta!r} must be in (0, 1)")
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.sensitivity = float(sensitivity)
        self.sigma = self.sensitivity * math.sqrt(2.0 * math.log(1.25 / self.delta)) / self.epsilon
        self.name = name or f"textbook.gaussian(eps={epsilon:g},delta={delta:g})"
        self.library_version = np.__version__

    def sample(self, query: Any, n: int) -> np.ndarray:
        return float(query) + self._rng.normal(0.0, self.sigma, size=n)

    def _reproducer_parameters(self) -> str:
        return (
            f"# sensitivity * sqrt(2 ln(1.25 / delta)) / epsilon at epsilon={self.epsilon!r}, "
            f"delta={self.delta!r}, sensitivity={self.sensitivity!r}\n"
            + assignments(SIGMA=self.sigma)
        )

    def _reproducer_code(self) -> str:
        return """
            def sample(query, n):
                return float(query) + rng.normal(0.0, SIGMA, size=n)
            """


class NaiveExponential(_Reproducible):
    """Ilvento's naive exponential mechanism in float64 (the attack target of CCS 2020).

    Loss convention: *lower* utility is better (``maximise = False``).  Weights are
    ``np.exp(-(ε/(2Δ))·u)`` with no shift, so large utilities underflow to exactly 0.0; they are
    normalised by their left-to-right sum, accumulated left to right, and the first index whose
    cumulative weight is ≥ a uniform r is returned.  ``probabilities(query)`` is the same float
    computation (the white-box oracle).  Where the reference code finds no index (r above the
    last cumulative weight, or every weight 0 so the sums are NaN) it returns ``None``; here the
    last index is returned instead, so outputs stay in ``[0, k)``.

    References:
        Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential Privacy",
        CCS 2020 (``naive.py``: zero-rounding and truncated-addition attacks).
        McSherry & Talwar (2007): the exponential mechanism.
    """

    family = "selection"
    library = "numpy"
    maximise = False
    #: subtract min(u) first (the fix for underflow of every weight); False = Ilvento's naive code
    shift_by_min = False
    description = "Ilvento naive.py: np.exp(-(eps/2)u), normalise, cumulative sum, first c >= r"

    def __init__(
        self, epsilon: float = 1.0, sensitivity: float = 1.0, name: str | None = None
    ) -> None:
        super().__init__()
        self.epsilon = _check_epsilon(epsilon)
        self.delta = 0.0
        self.sensitivity = float(sensitivity)
        self.name = name or f"textbook.exponential_naive(eps={epsilon:g})"
        self.library_version = np.__version__

    def _cumulative(self, query: Any) -> tuple[np.ndarray, np.ndarray]:
        u = np.asarray(query, dtype=np.float64).ravel()
        if u.size == 0:
            raise ValueError("query=[] must hold at least one utility")
        if self.shift_by_min:
            u = u - u.min()
        with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
            weights = np.exp(-(self.epsilon / (2.0 * self.sensitivity)) * u)
            total = np.add.accumulate(weights)[-1]  # left to right, like Python's sum()
            normalised = weights / total
            cumulative = np.add.accumulate(normalised)
        return normalised, cumulative

    def probabilities(self, query: Any) -> np.ndarray:
        """The probabilities ``sample`` realises for ``query`` (the white-box oracle).

        Differences of the float cumulative sums, so a weight absorbed by the running sum gets
        probability 0 exactly as in ``sample``; mass the cumulative sums never reach goes to the
        last index, where ``sample`` puts it.
        """
        _, cumulative = self._cumulative(query)
        reached = np.minimum(np.nan_to_num(cumulative, nan=-np.inf), 1.0)
        reached = np.maximum.accumulate(np.maximum(reached, 0.0))
        p = np.diff(reached, prepend=0.0)
        p[-1] += 1.0 - reached[-1]
        return p

    def sample(self, query: Any, n: int) -> np.ndarray:
        _, cumulative = self._cumulative(query)
        r = self._rng.random(n)
        # first i with cumulative[i] >= r; NaN sums compare False, i.e. never found
        index = np.searchsorted(np.nan_to_num(cumulative, nan=-np.inf), r, side="left")
        return np.minimum(index, cumulative.size - 1).astype(np.int64)

    def _reproducer_code(self) -> str:
        cumulative = [
            "def cumulative(query):",
            "    u = np.asarray(query, dtype=np.float64).ravel()",
            *(["    u = u - u.min()"] if self.shift_by_min else []),
            '    with np.errstate(all="ignore"):',
            "        weights = np.exp(-(EPSILON / (2.0 * SENSITIVITY)) * u)",
            "        normalised = weights / np.add.accumulate(weights)[-1]",
            "        return np.add.accumulate(normalised)",
        ]
        return "\n".join(cumulative) + textwrap.dedent(
            """


            def probabilities(query):
                reached = np.minimum(np.nan_to_num(cumulative(query), nan=-np.inf), 1.0)
                reached = np.maximum.accumulate(np.maximum(reached, 0.0))
                p = np.diff(reached, prepend=0.0)
                p[-1] += 1.0 - reached[-1]
                return p


            def sample(query, n):
                c = np.nan_to_num(cumulative(query), nan=-np.inf)
                index = np.searchsorted(c, rng.random(n), side="left")
                return np.minimum(index, c.size - 1).astype(np.int64)
            """
        )


class MinShiftedExponential(NaiveExponential):
    """The naive mechanism with utilities shifted by their minimum (the best weight is 1.0).

    The shift stops every weight from underflowing at once but not the zero-rounding of the
    worst ones, nor the absorption of small weights in the running sums.
    """

    shift_by_min = True
    description = "naive.py with u - min(u): np.exp(-(eps/2)(u - min u)), cumulative sum"

    def __init__(
        self, epsilon: float = 1.0, sensitivity: float = 1.0, name: str | None = None
    ) -> None:
        super().__init__(
            epsilon, sensitivity, name or f"textbook.exponential_min_shifted(eps={epsilon:g})"
        )


class TextbookRandomizedResponse(_Reproducible):
    """Keep the bit when a float uniform is below e^ε/(1 + e^ε), else flip it.

    References:
        Warner (1965), randomized response; Dwork & Roth (2014) §3.2.
    """

    family = "binary"
    library = "numpy"
    description = "bit if rng.random() < e^eps/(1+e^eps) else 1 - bit (float comparison)"
    space = {"epsilon": _EPSILON}

    def __init__(self, epsilon: float = 1.0, name: str | None = None) -> None:
        super().__init__()
        self.epsilon = _check_epsilon(epsilon)
        self.delta = 0.0
        self.keep_probability = math.exp(self.epsilon) / (1.0 + math.exp(self.epsilon))
        self.name = name or f"textbook.randomized_response(eps={epsilon:g})"
        self.library_version = np.__version__

    def sample(self, query: Any, n: int) -> np.ndarray:
        bit = int(query)
        if bit not in (0, 1) or bit != query:
            raise ValueError(f"query={query!r} must be a bit, 0 or 1")
        keep = self._rng.random(n) < self.keep_probability
        return np.where(keep, bit, 1 - bit).astype(np.int64)

    def _reproducer_parameters(self) -> str:
        return f"# e^epsilon / (1 + e^epsilon) at epsilon={self.epsilon!r}\n" + assignments(
            KEEP=self.keep_probability
        )

    def _reproducer_code(self) -> str:
        return """
            def sample(query, n):
                bit = int(query)
                return np.where(rng.random(n) < KEEP, bit, 1 - bit).astype(np.int64)
            """


class NaiveBoundedSum(_Reproducible):
    """Clamp records to ``domain``, ``np.sum`` in float64, add Laplace(Δ/ε), Δ = max(|lo|, |hi|).

    Δ is the real-number sensitivity under add/remove; the float sum's rounding error is not
    accounted for, which is what the sensitivity-underestimation attacks exploit.

    References:
        Casacuberta, Shoemate, Vadhan, Wagaman, "Widespread Underestimation of Sensitivity in
        Differentially Private Libraries and How to Fix It", CCS 2022.
    """

    family = "dataset"
    library = "numpy"
    neighbours = "add_remove"
    description = "np.sum(np.clip(x, lo, hi)) + Laplace(max(|lo|,|hi|)/eps) in float64"
    #: the records' bounds, which set the sensitivity: unit, symmetric, wide, large magnitude
    space = {
        "epsilon": _EPSILON,
        "domain": Choice(((0.0, 1.0), (-10.0, 10.0), (-1000.0, 1000.0), (0.0, 1e6))),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        domain: tuple[float, float] = (0.0, 1.0),
        name: str | None = None,
    ) -> None:
        super().__init__()
        self.epsilon = _check_epsilon(epsilon)
        self.delta = 0.0
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")
        self.sensitivity = max(abs(self.domain[0]), abs(self.domain[1]))
        self.name = name or f"textbook.bounded_sum(eps={epsilon:g})"
        self.library_version = np.__version__

    def sample(self, query: Any, n: int) -> np.ndarray:
        records = np.clip(np.asarray(query, dtype=np.float64).ravel(), *self.domain)
        total = np.sum(records, dtype=np.float64)
        return total + self._rng.laplace(0.0, self.sensitivity / self.epsilon, size=n)

    def _reproducer_parameters(self) -> str:
        lower, upper = self.domain
        return assignments(
            EPSILON=self.epsilon, LOWER=lower, UPPER=upper, SENSITIVITY=self.sensitivity
        )

    def _reproducer_code(self) -> str:
        return """
            def sample(query, n):
                records = np.clip(np.asarray(query, dtype=np.float64).ravel(), LOWER, UPPER)
                total = np.sum(records, dtype=np.float64)
                return total + rng.laplace(0.0, SENSITIVITY / EPSILON, size=n)
            """


def builtin_adapters() -> list[Any]:
    return [
        TextbookLaplace(epsilon=1.0),
        TextbookLaplaceInverseCDF(epsilon=1.0),
        TextbookGaussian(epsilon=0.5, delta=1e-5),
        NaiveExponential(epsilon=1.0),
        MinShiftedExponential(epsilon=1.0),
        TextbookRandomizedResponse(epsilon=1.0),
        NaiveBoundedSum(epsilon=1.0),
    ]
