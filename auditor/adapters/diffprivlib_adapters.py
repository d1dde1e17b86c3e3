"""Adapters for IBM's diffprivlib (``pip install dp-audit[libs]``).

diffprivlib's mechanisms release one value per ``randomise`` call, so every adapter here loops in
Python (``vectorised = False``).  All of them accept a ``random_state``: ``seed(entropy)`` hands
them a ``numpy.random.RandomState`` derived from the entropy; until then the library's own
default is used (``secrets.SystemRandom`` for mechanisms, numpy's global state for ``tools``).

diffprivlib is imported lazily: importing this module is cheap, and :func:`builtin_adapters`
raises ``ImportError`` when the library is missing (the loader reports it as skipped).

References:
    Holohan et al., "Diffprivlib: The IBM Differential Privacy Library", arXiv:1907.02444 (2019).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer, installed_version, legacy_random_state

_LIBRARY = "diffprivlib"


class _DiffprivlibAdapter:
    """Common provenance and seeding for the diffprivlib adapters."""

    library = _LIBRARY
    vectorised = False

    def __init__(self) -> None:
        self.library_version = installed_version(_LIBRARY)
        self._random_state: np.random.RandomState | None = None

    def seed(self, entropy: int) -> None:
        """Re-seed: the library's mechanisms draw from a RandomState made from ``entropy``."""
        self._random_state = legacy_random_state(entropy)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    name = "diffprivlib.?"


class _Additive(_DiffprivlibAdapter):
    """An additive mechanism: ``mechanism.randomise(query)`` called ``n`` times."""

    family = "additive"
    integer_queries = False
    _dtype: type = np.float64

    #: the class in ``diffprivlib.mechanisms`` this adapter drives
    _class: str = ""

    def __init__(self, epsilon: float, delta: float, sensitivity: float) -> None:
        super().__init__()
        self.epsilon = float(epsilon)
        self.delta = float(delta)
        self.sensitivity = sensitivity
        self._mechanism()  # validate the parameters now, through the library

    def _arguments(self) -> dict[str, Any]:
        """The library constructor's arguments: the claim, and the bounds when declared."""
        arguments: dict[str, Any] = {"epsilon": self.epsilon, "sensitivity": self.sensitivity}
        if self.delta:
            arguments["delta"] = self.delta
        if hasattr(self, "query_bounds"):
            arguments["lower"], arguments["upper"] = self.query_bounds
        return arguments

    def _mechanism(self) -> Any:
        """A fresh library mechanism, seeded with the current ``random_state``."""
        from diffprivlib import mechanisms

        return getattr(mechanisms, self._class)(
            **self._arguments(), random_state=self._random_state
        )

    def _value(self, query: float) -> float | int:
        return float(query)

    def sample(self, query: float, n: int) -> np.ndarray:
        """``n`` independent releases of ``query``; 1-D array of length ``n``."""
        value = self._value(query)
        mechanism = self._mechanism()
        return np.fromiter((mechanism.randomise(value) for _ in range(n)), self._dtype, count=n)


class Laplace(_Additive):
    """``diffprivlib.mechanisms.Laplace``: Laplace(Δ/ε) by its four-uniform sampler, in floats."""

    name = "diffprivlib.laplace"
    description = "diffprivlib.mechanisms.Laplace (float Laplace, 4-uniform cos/log sampler)"
    _class = "Laplace"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, 0.0, float(sensitivity))


class LaplaceTruncated(_Additive):
    """``diffprivlib.mechanisms.LaplaceTruncated``: Laplace output clamped to ``bounds``."""

    name = "diffprivlib.laplace_truncated"
    description = "diffprivlib.mechanisms.LaplaceTruncated (Laplace, output clamped to bounds)"
    _class = "LaplaceTruncated"

    def __init__(
        self,
        epsilon: float = 1.0,
        sensitivity: float = 1.0,
        bounds: tuple[float, float] = (-10.0, 10.0),
    ) -> None:
        self.query_bounds = (float(bounds[0]), float(bounds[1]))
        super().__init__(epsilon, 0.0, float(sensitivity))


class LaplaceBoundedDomain(LaplaceTruncated):
    """``diffprivlib.mechanisms.LaplaceBoundedDomain``: Laplace conditioned on the bounds."""

    name = "diffprivlib.laplace_bounded_domain"
    description = "diffprivlib.mechanisms.LaplaceBoundedDomain (Laplace conditioned on bounds, scale adjusted)"
    _class = "LaplaceBoundedDomain"


class Geometric(_Additive):
    """``diffprivlib.mechanisms.Geometric``: two-sided geometric noise on integer queries."""

    name = "diffprivlib.geometric"
    description = "diffprivlib.mechanisms.Geometric (two-sided geometric, float log/floor sampler)"
    integer_queries = True
    _dtype = np.int64
    _class = "Geometric"

    def __init__(self, epsilon: float = 1.0, sensitivity: int = 1) -> None:
        super().__init__(epsilon, 0.0, as_integer(sensitivity, "sensitivity"))

    def _value(self, query: float) -> int:
        return as_integer(query)


class Gaussian(_Additive):
    """``diffprivlib.mechanisms.Gaussian``: classic σ = Δ·sqrt(2 ln(1.25/δ))/ε (ε ≤ 1)."""

    name = "diffprivlib.gaussian"
    description = "diffprivlib.mechanisms.Gaussian (classic calibration, epsilon <= 1)"
    _class = "Gaussian"

    def __init__(self, epsilon: float = 0.5, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, delta, float(sensitivity))


class GaussianAnalytic(_Additive):
    """``diffprivlib.mechanisms.GaussianAnalytic``: Balle & Wang's analytic calibration."""

    name = "diffprivlib.gaussian_analytic"
    description = "diffprivlib.mechanisms.GaussianAnalytic (Balle-Wang analytic calibration)"
    _class = "GaussianAnalytic"

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, delta, float(sensitivity))


class Snapping(LaplaceTruncated):
    """``diffprivlib.mechanisms.Snapping``: Mironov's snapping mechanism (the LSB fix)."""

    name = "diffprivlib.snapping"
    _class = "Snapping"

    def __init__(
        self,
        epsilon: float = 1.0,
        sensitivity: float = 1.0,
        bounds: tuple[float, float] = (-10.0, 10.0),
    ) -> None:
        super().__init__(epsilon, sensitivity, bounds)
        from diffprivlib.mechanisms import snapping

        # Mironov's proof needs a correctly rounded log; diffprivlib falls back to numpy's.
        log = "crlibm log_rn" if snapping.log_rn is not np.log else "numpy log: crlibm missing"
        self.description = f"diffprivlib.mechanisms.Snapping (snapping mechanism, {log})"


class Exponential(_DiffprivlibAdapter):
    """``diffprivlib.mechanisms.Exponential``: exponential mechanism, higher utility is better.

    The library shifts utilities by their maximum before exponentiating, then samples by
    comparing one uniform with the cumulative probabilities.  ``probabilities(query)`` returns
    the library's own (float) selection probabilities.
    """

    name = "diffprivlib.exponential"
    family = "selection"
    delta = 0.0
    #: higher utility is more likely (diffprivlib's convention)
    maximise = True
    description = "diffprivlib.mechanisms.Exponential (max-shifted float weights, cumulative sum)"

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0) -> None:
        super().__init__()
        self.epsilon = float(epsilon)
        self.sensitivity = float(sensitivity)
        self._mechanism([0.0, 1.0])

    def _mechanism(self, query: Any) -> Any:
        from diffprivlib.mechanisms import Exponential as _Exponential

        return _Exponential(
            epsilon=self.epsilon,
            sensitivity=self.sensitivity,
            utility=[float(u) for u in np.asarray(query, dtype=np.float64).ravel()],
            random_state=self._random_state,
        )

    def probabilities(self, query: Any) -> np.ndarray:
        """The library's selection probabilities for utility vector ``query`` (length k)."""
        cumulative = np.asarray(self._mechanism(query)._probabilities, dtype=np.float64)
        return np.diff(cumulative, prepend=0.0)

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` selected indices in ``[0, k)`` for utility vector ``query``."""
        mechanism = self._mechanism(query)
        return np.fromiter((mechanism.randomise() for _ in range(n)), np.int64, count=n)


class Binary(_DiffprivlibAdapter):
    """``diffprivlib.mechanisms.Binary``: randomized response on the labels ``"0"``/``"1"``."""

    name = "diffprivlib.binary"
    family = "binary"
    delta = 0.0
    description = "diffprivlib.mechanisms.Binary (randomized response, one float uniform)"

    def __init__(self, epsilon: float = 1.0) -> None:
        super().__init__()
        self.epsilon = float(epsilon)
        self._mechanism()

    def _mechanism(self) -> Any:
        from diffprivlib.mechanisms import Binary as _Binary

        return _Binary(
            epsilon=self.epsilon, value0="0", value1="1", random_state=self._random_state
        )

    def sample(self, query: int, n: int) -> np.ndarray:
        """``n`` released bits (0/1) for the true bit ``query``."""
        bit = as_integer(query)
        if bit not in (0, 1):
            raise ValueError(f"query={query!r} must be a bit, 0 or 1")
        mechanism, label = self._mechanism(), str(bit)
        return np.fromiter((int(mechanism.randomise(label)) for _ in range(n)), np.int64, count=n)


class _Tool(_DiffprivlibAdapter):
    """A ``diffprivlib.tools`` aggregate on a 1-D dataset with declared bounds."""

    family = "dataset"
    delta = 0.0
    #: diffprivlib calibrates to ``upper - lower`` (sum) or ``(upper - lower)/n`` (mean), and
    #: truncates to a range that depends on n: the replace-one neighbour relation.
    neighbours = "replace"

    def __init__(self, epsilon: float = 1.0, domain: tuple[float, float] = (0.0, 1.0)) -> None:
        super().__init__()
        self.epsilon = float(epsilon)
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")

    def _tool(self) -> Any:
        raise NotImplementedError

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (a 1-D array of records in ``domain``)."""
        from diffprivlib import BudgetAccountant

        tool = self._tool()
        data = np.asarray(query, dtype=np.float64).ravel()
        # A private accountant: the library's default one would record every release.
        accountant = BudgetAccountant()
        random_state = self._random_state
        out = np.empty(n, dtype=np.float64)
        for i in range(n):
            out[i] = tool(
                data,
                epsilon=self.epsilon,
                bounds=self.domain,
                random_state=random_state,
                accountant=accountant,
            )
        return out


class ToolsSum(_Tool):
    """``diffprivlib.tools.sum`` with bounds: clip, float sum, LaplaceTruncated(upper − lower)."""

    name = "diffprivlib.tools.sum"
    description = "diffprivlib.tools.sum (clip to bounds, numpy float sum, LaplaceTruncated)"

    def _tool(self) -> Any:
        from diffprivlib.tools import sum as dp_sum

        return dp_sum


class ToolsMean(_Tool):
    """``diffprivlib.tools.mean`` with bounds: clip, float mean, LaplaceTruncated((u − l)/n)."""

    name = "diffprivlib.tools.mean"
    description = "diffprivlib.tools.mean (clip to bounds, numpy float mean, LaplaceTruncated)"

    def _tool(self) -> Any:
        from diffprivlib.tools import mean as dp_mean

        return dp_mean


def builtin_adapters() -> list[Any]:
    """diffprivlib's mechanisms at their default audit parameters (raises ImportError if absent)."""
    import diffprivlib  # noqa: F401  (ImportError here means: skipped, install the extra)

    return [
        Laplace(),
        LaplaceTruncated(),
        LaplaceBoundedDomain(),
        Geometric(),
        Gaussian(),
        GaussianAnalytic(),
        Snapping(),
        Exponential(),
        Binary(),
        ToolsSum(),
        ToolsMean(),
    ]
