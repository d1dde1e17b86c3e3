"""The built-in adapters' parameter spaces (``space`` and ``with_parameters``, docs/search.md).

For every built-in adapter of textbook, diffprivlib, OpenDP and python-dp (the libraries' when
they import): the space is well formed and names arguments of the adapter's constructor; at the
points of ``design(space, 8, seed=0)`` the adapter is either rejected (``ValueError`` or
``TypeError``, for at most a quarter of the points, else the space is wrong) or rebuilt under
its own name, holding the values it was given, passing ``check_adapter`` and drawing outputs of
the declared shape.  A rebuilt adapter's reproducer carries its new parameters.
"""

from __future__ import annotations

import importlib
import inspect
import math
import numbers
from typing import Any

import numpy as np
import pytest

from auditor.adapters import textbook
from auditor.core.kinds import InputKind
from auditor.core.source import literal
from auditor.core.space import check_space, design
from auditor.core.spec import check_adapter, typical_query
from auditor.engine.parameter_search import searchable
from auditor.engine.sampling import check_outputs

#: the library adapter modules, and the library each needs
LIBRARIES = (
    ("diffprivlib_adapters", "diffprivlib"),
    ("opendp_adapters", "opendp"),
    ("pydp_adapters", "pydp"),
)
#: design points per adapter, and how many of them the adapter may reject
POINTS = 8
MAX_REJECTED = POINTS // 4
#: outputs drawn per rebuilt adapter
N = 10
#: score vectors this long for vector inputs of free length (as ``attacks.neighbours``)
VECTOR_LENGTH = 10
#: adapters whose eight rebuilds and draws take seconds (the library is called per output on
#: datasets, or searches for its noise scale)
SLOW = {
    "diffprivlib.tools.histogramdd",
    "diffprivlib.tools.quantile",
    "opendp.gaussian",
    "opendp.vector_gaussian",
    "opendp.private_quantile",
}
#: where an adapter keeps a parameter when not under the parameter's own name
ALIASES = {
    "bounds": "query_bounds",
    "bins": "output_length",
    "m": "output_length",
    "d": "query_length",
}


def _adapters() -> list[Any]:
    adapters = list(textbook.builtin_adapters())
    for module_name, library in LIBRARIES:
        try:
            importlib.import_module(library)
        except ImportError:
            continue
        module = importlib.import_module(f"auditor.adapters.{module_name}")
        adapters += module.builtin_adapters() + module.vector_adapters()
    return adapters


ADAPTERS = _adapters()
IDS = [a.name for a in ADAPTERS]


def _marked(adapter: Any) -> Any:
    marks = [pytest.mark.slow] if adapter.name in SLOW else []
    return pytest.param(adapter, id=adapter.name, marks=marks)


def _declared(adapter: Any, name: str) -> Any:
    """What the adapter was built with for ``name``: the library's own parameter when the
    claim differs from it (``library_epsilon``, OpenDP's ``_target_epsilon``), else the
    attribute of that name or its alias."""
    for attr in (f"library_{name}", f"_target_{name}", name, ALIASES.get(name)):
        if attr is not None and hasattr(adapter, attr):
            return getattr(adapter, attr)
    raise AssertionError(f"{adapter.name}: no attribute holds {name!r}")


def _same(declared: Any, value: Any) -> bool:
    """``declared`` holds ``value``: equal numbers, equal sequences, or a list of ``value``
    items built from a count (OpenDP's categories and candidates)."""
    if isinstance(value, tuple | list):
        return len(declared) == len(value) and all(map(_same, declared, value))
    if isinstance(value, numbers.Integral) and isinstance(declared, list):
        return len(declared) == value
    return float(declared) == float(value)


def _query(adapter: Any) -> Any:
    spec = check_adapter(adapter)
    if spec.input.kind is InputKind.VECTOR and spec.input.length is None:
        return np.linspace(0.0, 3.0, VECTOR_LENGTH)
    if spec.input.kind is InputKind.DATASET and spec.integer_domain:
        assert spec.exact_domain is not None
        lo, hi = spec.exact_domain
        return np.array([lo, lo, hi, hi], dtype=np.int64)
    return typical_query(spec)


def test_every_library_is_covered() -> None:
    # a library's adapters may live in a package (``auditor.adapters.opendp_adapters.noise``)
    modules = {part for a in ADAPTERS for part in type(a).__module__.split(".")}
    assert "textbook" in modules
    for module_name, library in LIBRARIES:
        if importlib.util.find_spec(library) is not None:
            assert module_name in modules


@pytest.mark.parametrize("adapter", ADAPTERS, ids=IDS)
def test_space_names_constructor_arguments(adapter: Any) -> None:
    assert searchable(adapter)
    space = check_space(adapter.space, adapter.name)
    parameters = inspect.signature(type(adapter)).parameters
    assert set(space) <= set(parameters), set(space) - set(parameters)


@pytest.mark.parametrize("adapter", [_marked(a) for a in ADAPTERS])
def test_rebuilt_at_the_design_points(adapter: Any) -> None:
    rejected = []
    for values in design(adapter.space, POINTS, seed=0):
        try:
            rebuilt = adapter.with_parameters(**values)
        except (ValueError, TypeError) as exc:
            assert "unexpected keyword" not in str(exc)
            rejected.append((values, exc))
            continue
        assert type(rebuilt) is type(adapter) and rebuilt.name == adapter.name
        for name, value in values.items():
            assert _same(_declared(rebuilt, name), value), (name, value)
        spec = check_adapter(rebuilt)
        query = _query(rebuilt)
        if spec.seedable:
            rebuilt.seed(0)
        outputs = check_outputs(spec, query, N, rebuilt.sample(query, N))
        assert len(outputs) == N
    assert len(rejected) <= MAX_REJECTED, rejected


def _rebuilt(name: str, **values: Any) -> Any:
    adapter = next((a for a in ADAPTERS if a.name == name), None)
    if adapter is None:
        pytest.skip(f"{name} is not installed")
    return adapter.with_parameters(**values)


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("diffprivlib.laplace", {"epsilon": 0.0123456789, "sensitivity": 37.5}),
        ("pydp.gaussian", {"epsilon": 0.0123456789, "delta": 3.5e-9, "sensitivity": 37.5}),
        ("textbook.laplace(eps=1)", {"epsilon": 0.0123456789, "sensitivity": 37.5}),
    ],
)
def test_reproducer_carries_the_rebuilt_parameters(name: str, values: dict[str, Any]) -> None:
    rebuilt = _rebuilt(name, **values)
    source = rebuilt.reproducer_source()
    for value in values.values():
        assert literal(value) in source
    if callable(getattr(rebuilt, "seed", None)):
        # and it draws what the rebuilt adapter draws, bitwise
        namespace: dict[str, Any] = {}
        exec(compile(source, "<reproducer>", "exec"), namespace)
        rebuilt.seed(5)
        namespace["seed"](5)
        assert np.array_equal(rebuilt.sample(2.0, 50), namespace["sample"](2.0, 50))


def test_bounded_domain_rejects_a_sensitivity_wider_than_its_bounds() -> None:
    # the library's scale would be NaN and its rejection sampler would never return
    pytest.importorskip("diffprivlib")
    from auditor.adapters.diffprivlib_adapters import LaplaceBoundedDomain

    with pytest.raises(ValueError, match="upper - lower"):
        LaplaceBoundedDomain(sensitivity=2.5, bounds=(0.0, 2.0))
    assert LaplaceBoundedDomain(sensitivity=2.0, bounds=(0.0, 2.0)).sensitivity == 2.0


def test_partition_selection_keeps_its_strategy() -> None:
    rebuilt = _rebuilt("pydp.partition_selection.laplace", epsilon=0.5, delta=1e-8)
    assert rebuilt.strategy == "laplace" and math.isclose(rebuilt.delta, 1e-8)
