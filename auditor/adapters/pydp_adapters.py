"""Adapters for python-dp (PyDP), the Python wrapper of Google's C++ DP library.

``pip install dp-audit[libs]`` installs it (distribution ``python-dp``, imported as ``pydp``).
PyDP releases one value per call (``add_noise``, ``quick_result``), so every adapter loops in
Python (``vectorised = False``).  The C++ library draws from its own secure generator and offers
no seed, so these adapters have no ``seed``.  PyDP is imported lazily; :func:`builtin_adapters`
raises ``ImportError`` when it is missing.

References:
    Google differential-privacy library, "Secure Noise Generation" (granularity-rounded Laplace
    and Gaussian); OpenMined PyDP.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer, installed_version
from auditor.adapters.base import NamedRepr, call_source, keywords, module_source
from auditor.core.source import literal
from auditor.core.space import Choice, Configurable, Range

_DISTRIBUTION = "python-dp"

# Parameter spaces (``dp-audit run --search``, docs/search.md): what python-dp accepts and
# users plausibly pass.  Each adapter's ``space`` names arguments of its own constructor.
_EPSILON = Range(0.01, 10.0, log=True)
_DELTA = Range(1e-12, 0.1, log=True)
_SENSITIVITY = Range(1e-3, 1e6, log=True)
#: bounds of the records: unit, symmetric, wide, large magnitude
_BOUNDS = Choice(((0.0, 1.0), (-10.0, 10.0), (-1000.0, 1000.0), (0.0, 1e6)))
_QUANTILES = Choice(((0.25, 0.5, 0.75), (0.1, 0.9), (0.01, 0.5, 0.99)))


class _PyDPAdapter(NamedRepr, Configurable):
    """Provenance, and the PyDP object rebuilt on demand (pybind11 objects do not pickle)."""

    library = "python-dp"
    vectorised = False
    #: the C++ library draws from its own secure generator (BoringSSL's ``RAND_bytes``),
    #: created in each process that loads PyDP: copies in several workers never replay one
    #: stream, though none can be seeded
    os_entropy = True
    delta = 0.0
    name = "pydp.?"
    #: the PyDP class (or factory) ``_build`` calls with ``_arguments()``: (module, name)
    _api: tuple[str, str] = ("", "")
    #: the reproducer's ``sample``, on the object built as ``_reproducer_object``
    _reproducer_object = "mechanism"
    _reproducer_sample = ""

    def __init__(self) -> None:
        self.library_version = installed_version(_DISTRIBUTION)
        self._object_cache: Any = None

    def _arguments(self) -> dict[str, Any]:
        raise NotImplementedError

    def _build(self) -> Any:
        module, name = self._api
        return getattr(import_module(module), name)(**self._arguments())

    def reproducer_source(self) -> str:
        """Python source, runnable on its own, that draws this adapter's outputs without
        dp-audit: the same PyDP object, then ``sample`` as here (PyDP cannot be seeded)."""
        module, name = self._api
        return module_source(
            self,
            ["import numpy as np", f"from {module} import {name}"],
            call_source(f"{self._reproducer_object} = {name}", keywords(**self._arguments())),
            self._reproducer_sample,
        )

    @property
    def _object(self) -> Any:
        if self._object_cache is None:
            self._object_cache = self._build()
        return self._object_cache

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_object_cache"] = None
        return state


def _check_epsilon(epsilon: float) -> float:
    if not epsilon > 0:
        raise ValueError(f"epsilon={epsilon!r} must be > 0")
    return float(epsilon)


class LaplaceMechanism(_PyDPAdapter):
    """``pydp.algorithms.numerical_mechanisms.LaplaceMechanism`` on float queries."""

    name = "pydp.laplace"
    family = "additive"
    description = "python-dp LaplaceMechanism.add_noise (Google's granularity-rounded Laplace)"
    _api = ("pydp.algorithms.numerical_mechanisms", "LaplaceMechanism")
    space = {"epsilon": _EPSILON, "sensitivity": _SENSITIVITY}
    _reproducer_sample = """
        def sample(query, n):
            value = float(query)
            return np.fromiter((mechanism.add_noise(value) for _ in range(n)), np.float64, count=n)
        """

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0) -> None:
        super().__init__()
        self.epsilon = _check_epsilon(epsilon)
        self.sensitivity = float(sensitivity)
        self._object  # noqa: B018  (validate through the library now)

    def _arguments(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "sensitivity": self.sensitivity}

    def sample(self, query: float, n: int) -> np.ndarray:
        """``n`` independent releases of ``query`` (a float: PyDP's int overload is not used)."""
        add_noise, value = self._object.add_noise, float(query)
        return np.fromiter((add_noise(value) for _ in range(n)), np.float64, count=n)


class GaussianMechanism(LaplaceMechanism):
    """``pydp.algorithms.numerical_mechanisms.GaussianMechanism`` (L2 sensitivity)."""

    name = "pydp.gaussian"
    description = "python-dp GaussianMechanism.add_noise (Google's analytic Gaussian calibration)"
    _api = ("pydp.algorithms.numerical_mechanisms", "GaussianMechanism")
    space = {"epsilon": _EPSILON, "delta": _DELTA, "sensitivity": _SENSITIVITY}

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        if not 0 < delta < 1:
            raise ValueError(f"delta={delta!r} must be in (0, 1)")
        self.delta = float(delta)
        super().__init__(epsilon, sensitivity)

    def _arguments(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self.delta, "sensitivity": self.sensitivity}


class GaussianMechanismGDP(GaussianMechanism):
    """``GaussianMechanism`` audited against the stronger promise its noise makes: μ-GDP.

    Google's library documents its Gaussian mechanism as adding N(0, σ²) noise (sampled by the
    binomial approximation of "Secure Noise Generation"), σ from its analytic calibration:
    ``CalculateGaussianStddev`` in ``cc/algorithms/internal/gaussian-stddev-calculator.cc``
    binary-searches Balle & Wang's (2018, Thm. 8) δ(σ) to a relative 1e-3 and returns the
    upper end, so σ is at least what (ε, δ, Δ₂) needs.  N(0, σ²) noise is exactly μ-GDP
    with μ = Δ/σ (Dong, Roth & Su 2019, Thm. 2.7).  σ is the library's own: the mechanism's
    ``std`` attribute (3.732421875 at ε = 1, δ = 1e-5, Δ = 1), not re-derived here.

    ``library_epsilon`` / ``library_delta`` are what the library is called with; ``epsilon`` /
    ``delta`` are the (ε, δ) point the μ-GDP claim implies at its report δ (as for
    ``opendp.gaussian_zcdp``).  Sampling is the parent's.
    """

    name = "pydp.gaussian.gdp"

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, sensitivity: float = 1.0) -> None:
        self.library_epsilon, self.library_delta = _check_epsilon(epsilon), float(delta)
        super().__init__(epsilon, delta, sensitivity)
        from auditor.core.claim_kinds import GaussianDP

        #: the noise's standard deviation, as the library computes it
        self.sigma = float(self._object.std)
        self.claim = GaussianDP(self.sensitivity / self.sigma)
        self.epsilon, self.delta = self.claim.epsilon, self.claim.delta
        self.description = (
            f"python-dp GaussianMechanism.add_noise (eps={self.library_epsilon:g}, "
            f"delta={self.library_delta:g}): the N(0, σ²) noise its docs state, as μ-GDP with "
            f"μ = Δ/σ = {self.claim.mu:.6g} (σ = {self.sigma:.6g}, the library's std)"
        )

    def _arguments(self) -> dict[str, Any]:
        """The library is called with its own (ε, δ), not the point the GDP claim implies."""
        arguments = super()._arguments()
        arguments["epsilon"], arguments["delta"] = self.library_epsilon, self.library_delta
        return arguments


class BoundedSum(_PyDPAdapter):
    """``pydp.algorithms.laplacian.BoundedSum`` on float records with explicit bounds.

    One record per user (l0 = linf = 1): adding or removing a record moves the sum by at most
    max(|lower|, |upper|), Google's add/remove neighbour relation.
    """

    name = "pydp.bounded_sum"
    family = "dataset"
    neighbours = "add_remove"
    description = "python-dp BoundedSum (float, clamp to bounds, Laplace)"
    _api = ("pydp.algorithms.laplacian", "BoundedSum")
    space = {"epsilon": _EPSILON, "domain": _BOUNDS}
    _reproducer_object = "algorithm"
    _reproducer_sample = """
        def sample(query, n):
            records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
            return np.fromiter((algorithm.quick_result(records) for _ in range(n)), np.float64, count=n)
        """

    def __init__(self, epsilon: float = 1.0, domain: tuple[float, float] = (0.0, 1.0)) -> None:
        super().__init__()
        self.epsilon = _check_epsilon(epsilon)
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")
        self._object  # noqa: B018

    def _arguments(self) -> dict[str, Any]:
        lower, upper = self.domain
        return {
            "epsilon": self.epsilon,
            "lower_bound": lower,
            "upper_bound": upper,
            "dtype": "float",
        }

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (1-D records; clamped to ``domain`` by PyDP)."""
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        quick_result = self._object.quick_result
        return np.fromiter((quick_result(records) for _ in range(n)), np.float64, count=n)


class Count(BoundedSum):
    """``pydp.algorithms.laplacian.Count``: noisy number of records (add/remove, Δ = 1)."""

    name = "pydp.count"
    description = "python-dp Count (integer Laplace on the record count)"
    _api = ("pydp.algorithms.laplacian", "Count")
    #: the count's noise does not depend on the records' domain
    space = {"epsilon": _EPSILON}

    def _arguments(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "dtype": "float"}


class Percentile(BoundedSum):
    """``pydp.algorithms.laplacian.Percentile`` on float records with explicit bounds: Google's
    quantile tree, one percentile per release; ε-DP, one record per user (add/remove)."""

    name = "pydp.percentile"
    _api = ("pydp.algorithms.laplacian", "Percentile")
    space = {"epsilon": _EPSILON, "percentile": Range(0.0, 1.0), "domain": _BOUNDS}

    def __init__(
        self,
        epsilon: float = 1.0,
        percentile: float = 0.9,
        domain: tuple[float, float] = (0.0, 100.0),
    ) -> None:
        if not 0 <= percentile <= 1:
            raise ValueError(f"percentile={percentile!r} must be in [0, 1]")
        self.percentile = float(percentile)
        super().__init__(epsilon, domain)
        self.description = (
            f"python-dp Percentile(percentile={self.percentile:g}, bounds={self.domain}, float):"
            " quantile tree with Laplace noise"
        )

    def _arguments(self) -> dict[str, Any]:
        lower, upper = self.domain
        return {
            "epsilon": self.epsilon,
            "percentile": self.percentile,
            "lower_bound": lower,
            "upper_bound": upper,
            "dtype": "float",
        }


class Median(BoundedSum):
    """``pydp.algorithms.laplacian.Median`` on float records: the 0.5 percentile; ε-DP."""

    name = "pydp.median"
    _api = ("pydp.algorithms.laplacian", "Median")

    def __init__(self, epsilon: float = 1.0, domain: tuple[float, float] = (0.0, 100.0)) -> None:
        super().__init__(epsilon, domain)
        self.description = (
            f"python-dp Median(bounds={self.domain}, float): quantile tree with Laplace noise"
        )


class QuantileTree(_PyDPAdapter):
    """``pydp.algorithms.quantile_tree.QuantileTree``: records added to a fresh tree, then
    ``compute_quantiles(epsilon, 0, 1, 1, quantiles, "laplace")``: several quantiles from one
    noisy tree.  ε-DP for the whole vector (the quantiles are post-processing of one noisy
    tree) with one record per user (``max_partitions_contributed = 1``,
    ``max_contributions_per_partition = 1``): add/remove neighbours.
    """

    name = "pydp.quantile_tree"
    _api = ("pydp.algorithms.quantile_tree", "QuantileTree")
    input_kind = "dataset"
    neighbours = "add_remove"
    output_kind = "real"
    #: the library's default tree is 4 high, 16 wide; much larger ones (16^8 leaves) hang
    space = {
        "epsilon": _EPSILON,
        "quantiles": _QUANTILES,
        "domain": _BOUNDS,
        "tree_height": Range(1, 5, integer=True),
        "branching_factor": Range(2, 32, log=True, integer=True),
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        quantiles: tuple[float, ...] = (0.25, 0.5, 0.75),
        domain: tuple[float, float] = (0.0, 100.0),
        tree_height: int = 4,
        branching_factor: int = 16,
    ) -> None:
        super().__init__()
        self.epsilon = _check_epsilon(epsilon)
        self.quantiles = [float(q) for q in quantiles]
        self.output_length = len(self.quantiles)
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")
        self.tree_height, self.branching_factor = int(tree_height), int(branching_factor)
        self._tree([])  # validate through the library now
        self.description = (
            f"python-dp QuantileTree(height {self.tree_height}, branching "
            f"{self.branching_factor}, bounds {self.domain}).compute_quantiles({self.quantiles},"
            " laplace): one noisy tree per release"
        )

    def _arguments(self) -> dict[str, Any]:
        lower, upper = self.domain
        return {
            "lower": lower,
            "upper": upper,
            "tree_height": self.tree_height,
            "branching_factor": self.branching_factor,
        }

    def _compute_arguments(self) -> tuple[Any, ...]:
        """``compute_quantiles``'s: epsilon, delta, max partitions and contributions, ..."""
        return (self.epsilon, 0.0, 1, 1, self.quantiles, "laplace")

    def _tree(self, records: list[float]) -> Any:
        tree = self._build()
        for x in records:
            tree.add_entry(x)
        return tree

    def reproducer_source(self) -> str:
        """Python source, runnable on its own, that draws this adapter's outputs without
        dp-audit: a fresh tree per release, as here (PyDP cannot be seeded)."""
        build = call_source("        tree = QuantileTree", keywords(**self._arguments()))
        compute = ", ".join(map(literal, self._compute_arguments()))
        return module_source(
            self,
            ["import numpy as np", "from pydp.algorithms.quantile_tree import QuantileTree"],
            f"""
def sample(query, n):
    records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
    out = np.empty((n, {self.output_length}), dtype=np.float64)
    for i in range(n):
{build}
        for x in records:
            tree.add_entry(x)
        out[i] = tree.compute_quantiles({compute})
    return out
""",
        )

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query``, each from a fresh tree: shape (n, quantiles)."""
        records = [float(x) for x in np.asarray(query, dtype=np.float64).ravel()]
        out = np.empty((n, self.output_length), dtype=np.float64)
        for i in range(n):
            tree = self._tree(records)
            out[i] = tree.compute_quantiles(*self._compute_arguments())
        return out


class PartitionSelection(_PyDPAdapter):
    """``pydp.algorithms.partition_selection.create_partition_strategy(strategy, epsilon,
    delta, 1)``: ``should_keep(num_users)`` for one partition, a bit per release.

    The query is the partition's number of users (an integer >= 0); with
    ``max_partitions_contributed = 1`` one user moves it by 1, so neighbours differ by 1.
    Claim: (ε, δ)-DP (the strategies' documented guarantee; Desfontaines, Voss, Gipson, Mandayam,
    "Differentially private partition selection", PoPETs 2022, for "truncated_geometric").
    """

    input_kind = "scalar"
    sensitivity = 1
    integer_queries = True
    query_bounds = (0, 1_000_000)
    output_kind = "boolean"
    _api = ("pydp.algorithms.partition_selection", "create_partition_strategy")
    space = {"epsilon": _EPSILON, "delta": _DELTA}
    _reproducer_object = "strategy"
    _reproducer_sample = """
        def sample(query, n):
            users = int(query)
            return np.fromiter((strategy.should_keep(users) for _ in range(n)), np.int64, count=n)
        """

    def __init__(
        self, strategy: str = "truncated_geometric", epsilon: float = 1.0, delta: float = 1e-5
    ) -> None:
        super().__init__()
        if not 0 < delta < 1:
            raise ValueError(f"delta={delta!r} must be in (0, 1)")
        self.strategy = str(strategy)
        self.epsilon, self.delta = _check_epsilon(epsilon), float(delta)
        self.name = f"pydp.partition_selection.{self.strategy}"
        self._object  # noqa: B018  (validate through the library now)
        self.description = (
            f"python-dp create_partition_strategy({self.strategy!r}, epsilon, delta, "
            "max_partitions_contributed=1).should_keep(num_users)"
        )

    def with_parameters(self, **values: Any) -> PartitionSelection:
        """This strategy at ``values`` (the strategy is part of the adapter's name)."""
        return type(self)(self.strategy, **values)

    def _arguments(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "max_partitions_contributed": 1,
        }

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` keep/drop bits (1 = keep) for a partition of ``query`` users."""
        users = as_integer(query)
        if users < 0:
            raise ValueError(f"query={query!r} must be a number of users >= 0")
        should_keep = self._object.should_keep
        return np.fromiter((should_keep(users) for _ in range(n)), np.int64, count=n)


def builtin_adapters() -> list[Any]:
    """PyDP's mechanisms at their default audit parameters (raises ImportError if absent)."""
    import pydp  # noqa: F401  (ImportError here means: skipped, install the extra)

    return [
        LaplaceMechanism(),
        GaussianMechanism(),
        GaussianMechanismGDP(),
        BoundedSum(),
        Count(),
    ]


def vector_adapters() -> list[Any]:
    """python-dp's quantiles and partition selection (opt-in: one library call per output)."""
    import pydp  # noqa: F401  (ImportError here means: skipped, install the extra)

    return [
        Percentile(),
        Median(),
        QuantileTree(),
        PartitionSelection("truncated_geometric"),
        PartitionSelection("laplace"),
    ]
