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

from auditor.adapters._provenance import (
    LEGACY_RANDOM_STATE_SOURCE,
    as_integer,
    installed_version,
    legacy_random_state,
)
from auditor.adapters.base import call_source, keywords, module_source
from auditor.core.source import literal
from auditor.core.space import Choice, Configurable, Range

_LIBRARY = "diffprivlib"

# Parameter spaces (``dp-audit run --search``, docs/search.md): what diffprivlib accepts and
# users plausibly pass.  Each adapter's ``space`` names arguments of its own constructor.
_EPSILON = Range(0.01, 10.0, log=True)
_DELTA = Range(1e-12, 0.1, log=True)
_SENSITIVITY = Range(1e-3, 1e6, log=True)
#: bounds of a query or of the records: unit, symmetric, wide, large magnitude
_BOUNDS = Choice(((0.0, 1.0), (-10.0, 10.0), (-1000.0, 1000.0), (0.0, 1e6)))


class _DiffprivlibAdapter(Configurable):
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

    #: what the reproducer imports from ``diffprivlib``
    _reproducer_imports = "mechanisms"

    def _reproducer_code(self) -> str:
        """The reproducer's ``sample`` (and ``probabilities``), drawing from ``random_state``."""
        raise NotImplementedError

    def reproducer_source(self) -> str:
        """Python source, runnable on its own, that draws this adapter's outputs without
        dp-audit (``seed`` and ``sample`` as here, bitwise)."""
        return module_source(
            self,
            ["import numpy as np", f"from diffprivlib import {self._reproducer_imports}"],
            LEGACY_RANDOM_STATE_SOURCE,
            self._reproducer_code(),
        )


class _Additive(_DiffprivlibAdapter):
    """An additive mechanism: ``mechanism.randomise(query)`` called ``n`` times."""

    family = "additive"
    integer_queries = False
    _dtype: type = np.float64
    #: ``_value`` in the reproducer
    _value_source = "float(query)"

    #: the class in ``diffprivlib.mechanisms`` this adapter drives
    _class: str = ""
    space = {"epsilon": _EPSILON, "sensitivity": _SENSITIVITY}

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

    def _reproducer_code(self) -> str:
        arguments = [*keywords(**self._arguments()), "random_state=random_state"]
        dtype = f"np.{np.dtype(self._dtype).name}"
        return "\n".join(
            [
                "def sample(query, n):",
                f"    value = {self._value_source}",
                call_source(f"    mechanism = mechanisms.{self._class}", arguments),
                "    return np.fromiter("
                f"(mechanism.randomise(value) for _ in range(n)), {dtype}, count=n)",
            ]
        )


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
    space = {**_Additive.space, "bounds": _BOUNDS}

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
    #: at most the width of the smallest bounds (see ``__init__``)
    space = {**LaplaceTruncated.space, "sensitivity": Range(1e-3, 1.0, log=True)}

    def __init__(
        self,
        epsilon: float = 1.0,
        sensitivity: float = 1.0,
        bounds: tuple[float, float] = (-10.0, 10.0),
    ) -> None:
        # Beyond upper - lower the library's scale equation has no root: its scale is NaN and
        # ``randomise`` rejects every draw forever.
        if not float(sensitivity) <= float(bounds[1]) - float(bounds[0]):
            raise ValueError(f"sensitivity={sensitivity!r} must be at most upper - lower")
        super().__init__(epsilon, sensitivity, bounds)


class Geometric(_Additive):
    """``diffprivlib.mechanisms.Geometric``: two-sided geometric noise on integer queries."""

    name = "diffprivlib.geometric"
    description = "diffprivlib.mechanisms.Geometric (two-sided geometric, float log/floor sampler)"
    integer_queries = True
    _dtype = np.int64
    _value_source = "int(query)"
    _class = "Geometric"
    space = {"epsilon": _EPSILON, "sensitivity": Range(1, 1e6, log=True, integer=True)}

    def __init__(self, epsilon: float = 1.0, sensitivity: int = 1) -> None:
        super().__init__(epsilon, 0.0, as_integer(sensitivity, "sensitivity"))

    def _value(self, query: float) -> int:
        return as_integer(query)


class Gaussian(_Additive):
    """``diffprivlib.mechanisms.Gaussian``: classic σ = Δ·sqrt(2 ln(1.25/δ))/ε (ε ≤ 1)."""

    name = "diffprivlib.gaussian"
    description = "diffprivlib.mechanisms.Gaussian (classic calibration, epsilon <= 1)"
    _class = "Gaussian"
    #: the library rejects epsilon > 1 for the classic calibration
    space = {
        "epsilon": Range(0.01, 1.0, log=True),
        "delta": _DELTA,
        "sensitivity": _SENSITIVITY,
    }

    def __init__(self, epsilon: float = 0.5, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, delta, float(sensitivity))


class GaussianAnalytic(_Additive):
    """``diffprivlib.mechanisms.GaussianAnalytic``: Balle & Wang's analytic calibration."""

    name = "diffprivlib.gaussian_analytic"
    description = "diffprivlib.mechanisms.GaussianAnalytic (Balle-Wang analytic calibration)"
    _class = "GaussianAnalytic"
    space = {"epsilon": _EPSILON, "delta": _DELTA, "sensitivity": _SENSITIVITY}

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, delta, float(sensitivity))


class _NoiseAsGDP(_Additive):
    """A diffprivlib Gaussian audited against the stronger promise its noise makes.

    diffprivlib documents these mechanisms as adding N(0, σ²) noise (``randomise`` adds
    ``standard_normal * self._scale``, the normal drawn as (Z₁ + Z₂)/√2, and ``variance()``
    returns ``self._scale ** 2``).  That noise is exactly μ-GDP with μ = Δ/σ (Dong, Roth & Su,
    "Gaussian Differential Privacy", 2019, Thm. 2.7), a whole trade-off curve that implies the
    (ε, δ) point the parent adapter audits.  σ is the library's own, ``sqrt(variance(0))`` of
    the mechanism built with the library's (ε, δ): nothing is re-derived here.

    ``library_epsilon`` / ``library_delta`` are the parameters the library is called with;
    ``epsilon`` / ``delta`` are the (ε, δ) point the μ-GDP claim implies at its report δ (as
    for ``opendp.gaussian_zcdp``).  Sampling is the parent's.
    """

    #: what the library's documentation calls the mechanism, for the description
    _documented = ""

    def __init__(self, epsilon: float, delta: float, sensitivity: float) -> None:
        self.library_epsilon, self.library_delta = float(epsilon), float(delta)
        super().__init__(epsilon, delta, sensitivity)
        from auditor.core.claim_kinds import GaussianDP

        #: the noise's standard deviation, as the library computes it
        self.sigma = float(np.sqrt(self._mechanism().variance(0.0)))
        self.claim = GaussianDP(self.sensitivity / self.sigma)
        self.epsilon, self.delta = self.claim.epsilon, self.claim.delta
        self.description = (
            f"diffprivlib.mechanisms.{self._class} ({self._documented}, "
            f"eps={self.library_epsilon:g}, delta={self.library_delta:g}): the N(0, σ²) noise "
            f"its docs state, as μ-GDP with μ = Δ/σ = {self.claim.mu:.6g} (σ = {self.sigma:.6g})"
        )

    def _arguments(self) -> dict[str, Any]:
        """The library is called with its own (ε, δ), not the point the GDP claim implies."""
        arguments = super()._arguments()
        arguments["epsilon"], arguments["delta"] = self.library_epsilon, self.library_delta
        return arguments


class GaussianGDP(_NoiseAsGDP, Gaussian):
    """``diffprivlib.mechanisms.Gaussian`` as μ-GDP: σ = Δ·sqrt(2 ln(1.25/δ))/ε, μ = Δ/σ."""

    name = "diffprivlib.gaussian.gdp"
    _documented = "classic calibration"

    def __init__(self, epsilon: float = 0.5, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        super().__init__(epsilon, delta, float(sensitivity))


class GaussianAnalyticGDP(_NoiseAsGDP, GaussianAnalytic):
    """``diffprivlib.mechanisms.GaussianAnalytic`` as μ-GDP: σ from Balle & Wang's analytic
    calibration (the library's binary search), μ = Δ/σ."""

    name = "diffprivlib.gaussian_analytic.gdp"
    _documented = "Balle-Wang analytic calibration"

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
    space = {"epsilon": _EPSILON, "sensitivity": _SENSITIVITY}

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

    def _reproducer_code(self) -> str:
        arguments = keywords(epsilon=self.epsilon, sensitivity=self.sensitivity)
        construct = call_source(
            "    return mechanisms.Exponential",
            [*arguments, "utility=utility", "random_state=random_state"],
        )
        return f"""
def exponential(query):
    utility = [float(u) for u in np.asarray(query, dtype=np.float64).ravel()]
{construct}


def probabilities(query):
    cumulative = np.asarray(exponential(query)._probabilities, dtype=np.float64)
    return np.diff(cumulative, prepend=0.0)


def sample(query, n):
    mechanism = exponential(query)
    return np.fromiter((mechanism.randomise() for _ in range(n)), np.int64, count=n)
"""

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
    space = {"epsilon": _EPSILON}

    def __init__(self, epsilon: float = 1.0) -> None:
        super().__init__()
        self.epsilon = float(epsilon)
        self._mechanism()

    def _mechanism(self) -> Any:
        from diffprivlib.mechanisms import Binary as _Binary

        return _Binary(
            epsilon=self.epsilon, value0="0", value1="1", random_state=self._random_state
        )

    def _reproducer_code(self) -> str:
        arguments = keywords(epsilon=self.epsilon, value0="0", value1="1")
        construct = call_source(
            "    mechanism = mechanisms.Binary", [*arguments, "random_state=random_state"]
        )
        return f"""
def sample(query, n):
{construct}
    label = str(int(query))
    return np.fromiter((int(mechanism.randomise(label)) for _ in range(n)), np.int64, count=n)
"""

    def sample(self, query: int, n: int) -> np.ndarray:
        """``n`` released bits (0/1) for the true bit ``query``."""
        bit = as_integer(query)
        if bit not in (0, 1):
            raise ValueError(f"query={query!r} must be a bit, 0 or 1")
        mechanism, label = self._mechanism(), str(bit)
        return np.fromiter((int(mechanism.randomise(label)) for _ in range(n)), np.int64, count=n)


#: how the tools adapters turn a query into the data they pass (``_records`` in reproducers)
_RECORDS = "np.asarray(query, dtype=np.float64).ravel()"


def _tools_reproducer(
    function: str, arguments: list[str], records: str, width: int = 1, edges: bool = False
) -> str:
    """A reproducer's ``sample``: ``tools.<function>(data, arguments...)`` once per release
    (``width`` values each; ``edges``: it returns ``(counts, edges)``, the counts released)."""
    parts = ["data", *arguments, "random_state=random_state", "accountant=accountant"]
    if edges:
        release = call_source(f"        counts, _ = tools.{function}", parts)
        release += "\n        out[i] = counts.ravel()"
    else:
        release = call_source(f"        out[i] = tools.{function}", parts)
    shape = "n" if width == 1 else f"(n, {width})"
    return f"""
def sample(query, n):
    data = {records}
    accountant = BudgetAccountant()  # a private one: the default would record every release
    out = np.empty({shape}, dtype=np.float64)
    for i in range(n):
{release}
    return out
"""


class _Tool(_DiffprivlibAdapter):
    """A ``diffprivlib.tools`` aggregate on a 1-D dataset with declared bounds."""

    family = "dataset"
    delta = 0.0
    #: diffprivlib calibrates to ``upper - lower`` (sum) or ``(upper - lower)/n`` (mean), and
    #: truncates to a range that depends on n: the replace-one neighbour relation.
    neighbours = "replace"
    space = {"epsilon": _EPSILON, "domain": _BOUNDS}

    def __init__(self, epsilon: float = 1.0, domain: tuple[float, float] = (0.0, 1.0)) -> None:
        super().__init__()
        self.epsilon = float(epsilon)
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")

    #: the ``diffprivlib.tools`` function released
    _function = ""
    _reproducer_imports = "BudgetAccountant, tools"

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (a 1-D array of records in ``domain``)."""
        from diffprivlib import BudgetAccountant, tools

        tool = getattr(tools, self._function)
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

    def _reproducer_code(self) -> str:
        arguments = keywords(epsilon=self.epsilon, bounds=self.domain)
        return _tools_reproducer(self._function, arguments, _RECORDS)


class ToolsSum(_Tool):
    """``diffprivlib.tools.sum`` with bounds: clip, float sum, LaplaceTruncated(upper − lower)."""

    name = "diffprivlib.tools.sum"
    description = "diffprivlib.tools.sum (clip to bounds, numpy float sum, LaplaceTruncated)"
    _function = "sum"


class ToolsMean(_Tool):
    """``diffprivlib.tools.mean`` with bounds: clip, float mean, LaplaceTruncated((u − l)/n)."""

    name = "diffprivlib.tools.mean"
    description = "diffprivlib.tools.mean (clip to bounds, numpy float mean, LaplaceTruncated)"
    _function = "mean"


class _VectorTool(_DiffprivlibAdapter):
    """A ``diffprivlib.tools`` function on a dataset with declared bounds, one release per call.

    Releases that are vectors (a histogram's counts, several quantiles) use the kinds contract:
    ``input_kind = "dataset"``, ``output_kind`` with ``output_length`` = the release's length.
    """

    input_kind = "dataset"
    delta = 0.0
    #: the default relation of these tools: add or remove one record (a histogram's counts are
    #: calibrated to sensitivity 1, which only holds for add/remove)
    neighbours = "add_remove"
    output_kind = "real"

    def __init__(self, epsilon: float) -> None:
        super().__init__()
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        self.epsilon = float(epsilon)

    #: the ``diffprivlib.tools`` function released
    _function = ""
    #: whether it returns ``(counts, edges)``, of which the counts are released
    _edges = False
    _reproducer_imports = "BudgetAccountant, tools"
    #: ``_records`` in the reproducer
    _records_source = _RECORDS

    def _records(self, query: Any) -> np.ndarray:
        return np.asarray(query, dtype=np.float64).ravel()

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The function's positional arguments after the data, and its keyword arguments but
        ``random_state`` and ``accountant``."""
        raise NotImplementedError

    def _release(self, data: np.ndarray, accountant: Any) -> Any:
        from diffprivlib import tools

        positional, keyword = self._arguments()
        release = getattr(tools, self._function)(
            data, *positional, **keyword, random_state=self._random_state, accountant=accountant
        )
        return release[0] if self._edges else release

    def _reproducer_code(self) -> str:
        positional, keyword = self._arguments()
        arguments = [*map(literal, positional), *keywords(**keyword)]
        width = getattr(self, "output_length", 1)
        return _tools_reproducer(
            self._function, arguments, self._records_source, width, self._edges
        )

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query``: shape (n,) or (n, output_length)."""
        from diffprivlib import BudgetAccountant

        data = self._records(query)
        accountant = BudgetAccountant()  # private: the default one would record every release
        width = getattr(self, "output_length", 1)
        out = np.empty((n, width), dtype=np.float64)
        for i in range(n):
            out[i] = np.ravel(self._release(data, accountant))
        return out[:, 0] if width == 1 else out


def _bounds(domain: tuple[float, float], name: str = "domain") -> tuple[float, float]:
    lo, hi = float(domain[0]), float(domain[1])
    if not lo < hi:
        raise ValueError(f"{name}={domain!r} must have lower < upper")
    return lo, hi


class ToolsHistogram(_VectorTool):
    """``diffprivlib.tools.histogram`` over ``bins`` equal bins of ``domain``: numpy's counts,
    then ``GeometricTruncated(epsilon, sensitivity=1, lower=0)`` on each count.

    Claim: epsilon-DP (the docstring: noise "added using GeometricTruncated to satisfy
    differential privacy"; ``range`` given, so no ``PrivacyLeakWarning``).  Sensitivity 1 per
    histogram is the add/remove relation: one record moves one count by 1.
    """

    name = "diffprivlib.tools.histogram"
    output_kind = "integer"
    _function, _edges = "histogram", True
    space = {
        "epsilon": _EPSILON,
        "bins": Range(2, 64, log=True, integer=True),
        "domain": _BOUNDS,
    }

    def __init__(
        self, epsilon: float = 1.0, bins: int = 10, domain: tuple[float, float] = (0.0, 10.0)
    ) -> None:
        super().__init__(epsilon)
        self.output_length = as_integer(bins, "bins")
        self.domain = _bounds(domain)
        self.description = (
            f"diffprivlib.tools.histogram(bins={self.output_length}, range={self.domain}): "
            "numpy counts + GeometricTruncated(sensitivity=1) per bin; epsilon-DP per its "
            "docstring; add/remove neighbours"
        )

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (), {"epsilon": self.epsilon, "bins": self.output_length, "range": self.domain}


class ToolsHistogramdd(_VectorTool):
    """``diffprivlib.tools.histogramdd`` on records of ``len(bins)`` columns, counts flattened
    in C order (the first column's bin varies slowest); the same noise as the 1-D histogram.

    Claim: epsilon-DP for the whole table (its docstring), add/remove neighbours.
    """

    name = "diffprivlib.tools.histogramdd"
    output_kind = "integer"
    _function, _edges = "histogramdd", True
    _records_source = "np.asarray(query, dtype=np.float64)"
    #: two columns: bins per column, and one (lower, upper) per column
    space = {
        "epsilon": _EPSILON,
        "bins": Choice(((3, 3), (2, 8), (6, 6))),
        "domain": Choice(
            (((0.0, 1.0), (0.0, 1.0)), ((-10.0, 10.0), (0.0, 1.0)), ((0.0, 1e6), (-1e3, 1e3)))
        ),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        bins: tuple[int, ...] = (3, 3),
        domain: tuple[tuple[float, float], ...] = ((0.0, 1.0), (0.0, 1.0)),
    ) -> None:
        super().__init__(epsilon)
        self.bins = tuple(as_integer(b, "bins") for b in bins)
        if len(domain) != len(self.bins):
            raise ValueError(f"domain={domain!r} needs one (lower, upper) per column")
        self.domain = tuple(_bounds(d) for d in domain)
        self.columns = len(self.bins)
        self.output_length = int(np.prod(self.bins))
        self.description = (
            f"diffprivlib.tools.histogramdd(bins={self.bins}, range={list(self.domain)}): "
            "numpy counts + GeometricTruncated(sensitivity=1) per cell; epsilon-DP per its "
            "docstring; add/remove neighbours"
        )

    def _records(self, query: Any) -> np.ndarray:
        data = np.asarray(query, dtype=np.float64)
        if data.ndim != 2 or data.shape[1] != self.columns:
            raise ValueError(f"dataset must have shape (m, {self.columns}), got {data.shape}")
        return data

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (), {"epsilon": self.epsilon, "bins": self.bins, "range": list(self.domain)}


class ToolsQuantile(_VectorTool):
    """``diffprivlib.tools.quantile`` of several quantiles at once: Smith's exponential
    mechanism (intervals between the clipped, sorted records, weighted by length), each
    quantile with ``epsilon / len(quantiles)``; a uniform point of the chosen interval.

    Claim: epsilon-DP "over the entire output, with epsilon split evenly between each output
    value" (its docstring).  The utility ``-|i - q n|`` moves by at most 1 when a record is
    added or removed as well as when one is replaced, so add/remove is declared.
    """

    name = "diffprivlib.tools.quantile"
    _function = "quantile"
    space = {
        "epsilon": _EPSILON,
        "quantiles": Choice(((0.25, 0.5, 0.75), (0.1, 0.9), (0.01, 0.5, 0.99))),
        "domain": _BOUNDS,
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        quantiles: tuple[float, ...] = (0.25, 0.5, 0.75),
        domain: tuple[float, float] = (0.0, 100.0),
    ) -> None:
        super().__init__(epsilon)
        self.quantiles = tuple(float(q) for q in quantiles)
        self.output_length = len(self.quantiles)
        self.domain = _bounds(domain)
        self.description = (
            f"diffprivlib.tools.quantile(quant={list(self.quantiles)}, bounds={self.domain}): "
            "exponential mechanism over intervals (Smith 2011), epsilon split evenly; "
            "add/remove neighbours"
        )

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (list(self.quantiles),), {"epsilon": self.epsilon, "bounds": self.domain}


class ToolsPercentile(_VectorTool):
    """``diffprivlib.tools.percentile`` of one percentile (quantile ``percent / 100``): one real.

    Claim: epsilon-DP (its docstring), add/remove neighbours as for the quantile.
    """

    name = "diffprivlib.tools.percentile"
    _function = "percentile"
    space = {"epsilon": _EPSILON, "percent": Range(0.0, 100.0), "domain": _BOUNDS}

    def __init__(
        self,
        epsilon: float = 1.0,
        percent: float = 90.0,
        domain: tuple[float, float] = (0.0, 100.0),
    ) -> None:
        super().__init__(epsilon)
        self.domain = _bounds(domain)
        self.percent = float(percent)
        self.description = (
            f"diffprivlib.tools.percentile(percent={self.percent:g}, bounds={self.domain}): "
            "exponential mechanism over intervals (Smith 2011); add/remove neighbours"
        )

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (self.percent,), {"epsilon": self.epsilon, "bounds": self.domain}


class ToolsMedian(ToolsPercentile):
    """``diffprivlib.tools.median``: the 0.5 quantile, one real; epsilon-DP, add/remove."""

    name = "diffprivlib.tools.median"
    _function = "median"
    space = {"epsilon": _EPSILON, "domain": _BOUNDS}

    def __init__(self, epsilon: float = 1.0, domain: tuple[float, float] = (0.0, 100.0)) -> None:
        super().__init__(epsilon, 50.0, domain)
        self.description = (
            f"diffprivlib.tools.median(bounds={self.domain}): exponential mechanism over "
            "intervals (Smith 2011); add/remove neighbours"
        )

    def _arguments(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return (), {"epsilon": self.epsilon, "bounds": self.domain}


def builtin_adapters() -> list[Any]:
    """diffprivlib's mechanisms at their default audit parameters (raises ImportError if absent)."""
    import diffprivlib  # noqa: F401  (ImportError here means: skipped, install the extra)

    return [
        Laplace(),
        LaplaceTruncated(),
        LaplaceBoundedDomain(),
        Geometric(),
        Gaussian(),
        GaussianGDP(),
        GaussianAnalytic(),
        GaussianAnalyticGDP(),
        Snapping(),
        Exponential(),
        Binary(),
        ToolsSum(),
        ToolsMean(),
    ]


def vector_adapters() -> list[Any]:
    """diffprivlib's tools with vector or dataset outputs (opt-in: one library call per
    output makes each a minute or more at the default budget)."""
    import diffprivlib  # noqa: F401  (ImportError here means: skipped, install the extra)

    return [
        ToolsHistogram(),
        ToolsHistogramdd(),
        ToolsQuantile(),
        ToolsPercentile(),
        ToolsMedian(),
    ]
