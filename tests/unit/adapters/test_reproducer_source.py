"""Adapters' reproducers: ``reproducer_source()`` is a standalone module drawing the same outputs.

For every built-in adapter (textbook, and the libraries' adapters when the library imports): the
source, run as a fresh module, defines ``sample`` (``seed`` iff the adapter is seedable,
``probabilities`` iff it has that oracle) and imports nothing of dp-audit.  Seedable adapters
must agree bitwise after the same seeds, two calls in a row; the others (PyDP, OpenDP draw from
their own secure generators) in distribution: 2,000 draws each, means and standard deviations
within a quarter of a standard deviation (about 8 standard errors: a correct reproducer fails a
given check with probability below 1e-12).  A deliberately wrong source fails either check.
"""

from __future__ import annotations

import ast
import importlib
import json
import math
import subprocess
import sys
import sysconfig
from typing import Any

import numpy as np
import pytest

from auditor.adapters import textbook
from auditor.adapters.base import call_source
from auditor.core.kinds import InputKind
from auditor.core.source import literal
from auditor.core.spec import check_adapter

#: dp-audit's own packages: a reproducer must import none of them
DP_AUDIT = {"dp_audit", "auditor", "attacks", "reports", "reference_mechanisms", "dp_params"}
#: what a reproducer may import: the standard library, numpy, scipy, the library under test
ALLOWED = set(sys.stdlib_module_names) | {
    "numpy",
    "scipy",
    "diffprivlib",
    "pydp",
    "opendp",
    "opacus",
    "torch",
}
#: the libraries whose adapters have reproducers: adapter module, the library's import name
LIBRARIES = (
    ("diffprivlib_adapters", "diffprivlib"),
    ("pydp_adapters", "pydp"),
    ("opendp_adapters", "opendp"),
    ("opacus_adapters", "opacus"),
)
#: draws per distribution check
N_STAT = 2000
#: means and standard deviations may differ by this many standard deviations
TOLERANCE = 0.25


def _adapters() -> list[Any]:
    adapters = list(textbook.builtin_adapters())
    for module_name, library in LIBRARIES:
        try:
            importlib.import_module(library)
        except ImportError:
            continue
        module = importlib.import_module(f"auditor.adapters.{module_name}")
        adapters += module.builtin_adapters() + getattr(module, "vector_adapters", list)()
    return adapters


ADAPTERS = _adapters()
REPRODUCIBLE = [a for a in ADAPTERS if hasattr(a, "reproducer_source")]
SEEDED = [a for a in REPRODUCIBLE if callable(getattr(a, "seed", None))]
UNSEEDED = [a for a in REPRODUCIBLE if not callable(getattr(a, "seed", None))]


def _by_name(name: str) -> Any:
    return next(a for a in ADAPTERS if a.name == name)


def _ids(adapters: list[Any]) -> list[str]:
    return [a.name for a in adapters]


def _load(source: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(source, "<reproducer>", "exec"), namespace)
    return namespace


def _queries(adapter: Any) -> tuple[Any, Any]:
    """Two valid, different queries of the adapter's input kind (x, and a neighbour of it)."""
    spec = check_adapter(adapter)
    kind = spec.input.kind
    if kind is InputKind.SCALAR:
        return (11, 12) if spec.integer_queries else (0.0, 1.0)
    if kind is InputKind.LOCAL:
        assert spec.exact_domain is not None
        return spec.exact_domain
    if kind is InputKind.VECTOR:
        length = spec.input.length or 4
        x = np.linspace(0.0, 3.0, length)
        return x, x[::-1].copy()
    assert kind is InputKind.DATASET and spec.exact_domain is not None
    lo, hi = spec.exact_domain
    if spec.integer_domain:
        x = np.array([lo, lo + 1, lo + 1, hi - 1, hi, hi], dtype=np.int64)
    else:
        x = np.linspace(lo, hi, 12)
    if spec.input.columns > 1:
        x = np.column_stack([np.roll(x, c) for c in range(spec.input.columns)])
    return x, x[:-1]


def _assert_same_draws(adapter: Any, namespace: dict[str, Any]) -> None:
    """After ``seed(e)`` both give bitwise the same outputs, over two calls in a row."""
    n = 2000 if adapter.vectorised else 200
    for entropy in (7, 2**70 + 3):
        adapter.seed(entropy)
        namespace["seed"](entropy)
        for query in _queries(adapter):
            expected, got = adapter.sample(query, n), namespace["sample"](query, n)
            assert isinstance(got, np.ndarray) and got.dtype == expected.dtype
            assert got.shape == expected.shape
            assert np.array_equal(got, expected) and got.tobytes() == expected.tobytes()


def _assert_same_distribution(adapter: Any, namespace: dict[str, Any]) -> None:
    """2,000 draws each: same shape and dtype; means and deviations agree per coordinate."""
    query = _queries(adapter)[0]
    expected, got = adapter.sample(query, N_STAT), namespace["sample"](query, N_STAT)
    assert isinstance(got, np.ndarray) and got.dtype == expected.dtype
    assert got.shape == expected.shape
    a, b = expected.astype(np.float64), got.astype(np.float64)
    scale = np.maximum(a.std(axis=0), b.std(axis=0)) + 1e-12
    assert np.all(np.abs(a.mean(axis=0) - b.mean(axis=0)) <= TOLERANCE * scale)
    assert np.all(np.abs(a.std(axis=0) - b.std(axis=0)) <= TOLERANCE * scale)


def _imported_modules(source: str) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module, "relative import"
            roots.add(node.module.split(".")[0])
    return roots


def test_every_library_and_textbook_adapter_has_a_reproducer():
    assert [a.name for a in ADAPTERS if a not in REPRODUCIBLE] == []
    assert len(REPRODUCIBLE) >= len(textbook.builtin_adapters())


@pytest.mark.parametrize("adapter", REPRODUCIBLE, ids=_ids(REPRODUCIBLE))
def test_source_defines_the_adapter_api_and_imports_no_dp_audit(adapter):
    source = adapter.reproducer_source()
    assert source.startswith(f"# Reproduces dp-audit's adapter {adapter.name}:\n")
    namespace = _load(source)
    assert callable(namespace.get("sample"))
    assert ("seed" in namespace) == callable(getattr(adapter, "seed", None))
    assert ("probabilities" in namespace) == callable(getattr(adapter, "probabilities", None))
    imported = _imported_modules(source)
    assert not imported & DP_AUDIT and imported <= ALLOWED, imported
    assert source == adapter.reproducer_source()  # deterministic


@pytest.mark.parametrize("adapter", SEEDED, ids=_ids(SEEDED))
def test_seeded_source_draws_bitwise_the_adapters_outputs(adapter):
    _assert_same_draws(adapter, _load(adapter.reproducer_source()))


@pytest.mark.parametrize(
    "adapter",
    [a for a in REPRODUCIBLE if callable(getattr(a, "probabilities", None))],
    ids=_ids([a for a in REPRODUCIBLE if callable(getattr(a, "probabilities", None))]),
)
def test_source_probabilities_are_the_adapters(adapter):
    namespace = _load(adapter.reproducer_source())
    for utilities in ([0.0, 1.0, 3.0, 0.5], [0.0, 2000.0, 1.0, 40.0], [5.0]):
        expected, got = adapter.probabilities(utilities), namespace["probabilities"](utilities)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)


@pytest.mark.parametrize("adapter", UNSEEDED, ids=_ids(UNSEEDED))
def test_unseeded_source_draws_the_adapters_distribution(adapter):
    _assert_same_distribution(adapter, _load(adapter.reproducer_source()))


def test_opendp_source_builds_a_measurement_with_the_same_privacy_map():
    """The reproduced measurement states exactly the adapter's privacy (scale, chain)."""
    adapters = [a for a in UNSEEDED if a.library == "opendp"]
    if not adapters:
        pytest.skip("opendp not installed")
    for adapter in adapters:
        d_in = getattr(adapter, "sensitivity", 1)
        measurement = _load(adapter.reproducer_source())["measurement"]
        assert measurement.map(d_in) == adapter._measurement.map(d_in), adapter.name


def test_bitwise_check_fails_for_a_wrong_epsilon():
    adapter = textbook.TextbookLaplace(epsilon=1.0)
    source = adapter.reproducer_source()
    wrong = source.replace("EPSILON = 1.0\n", "EPSILON = 1.0000000000000002\n")
    assert wrong != source
    _assert_same_draws(adapter, _load(source))
    with pytest.raises(AssertionError):
        _assert_same_draws(adapter, _load(wrong))


def test_bitwise_check_fails_for_a_wrong_seed_derivation():
    pytest.importorskip("diffprivlib")
    adapter = _by_name("diffprivlib.laplace")
    source = adapter.reproducer_source()
    wrong = source.replace("np.random.MT19937(np.random.SeedSequence(entropy))", "entropy % 2**32")
    assert wrong != source
    with pytest.raises(AssertionError):
        _assert_same_draws(adapter, _load(wrong))


def test_distribution_check_fails_for_a_wrong_sensitivity():
    pytest.importorskip("pydp")
    adapter = _by_name("pydp.laplace")
    source = adapter.reproducer_source()
    wrong = source.replace("sensitivity=1.0", "sensitivity=2.0")
    assert wrong != source
    with pytest.raises(AssertionError):
        _assert_same_distribution(adapter, _load(wrong))


#: run by a Python that cannot import dp-audit: the reproducer, then this
_DRIVER = """
import json
import sys

if "seed" in globals():
    seed(ENTROPY)
out = sample(QUERY, N)
assert not {"dp_audit", "auditor", "attacks", "reports", "reference_mechanisms", "dp_params"} & set(sys.modules)
print(json.dumps({"dtype": out.dtype.str, "shape": out.shape, "bytes": out.tobytes().hex(),
                  "mean": float(out.mean()), "std": float(out.std())}))
"""


def _run_standalone(source: str, query: Any, n: int, entropy: int, cwd: Any) -> dict[str, Any]:
    """``source`` run by ``python -I -S`` with only the standard library and site-packages on
    ``sys.path`` (no .pth files, so not dp-audit's editable install), from an empty directory."""
    paths = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    preamble = (
        f"import sys\nsys.path += {paths!r}\n"
        "import importlib.util\n"
        "assert importlib.util.find_spec('auditor') is None, 'dp-audit is importable'\n"
    )
    settings = f"ENTROPY, QUERY, N = {entropy!r}, {query!r}, {n!r}\n"
    code = preamble + source + "\n" + settings + _DRIVER
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.parametrize(
    "name", ["textbook.laplace(eps=1)", "diffprivlib.laplace", "pydp.laplace", "opendp.laplace"]
)
def test_reproducer_runs_without_dp_audit(name, tmp_path):
    library = name.split(".")[0]
    if library != "textbook":
        pytest.importorskip(library)
    adapter = _by_name(name)
    query, entropy, n = 1.0, 2**64 + 5, N_STAT
    got = _run_standalone(adapter.reproducer_source(), query, n, entropy, tmp_path)
    if callable(getattr(adapter, "seed", None)):
        adapter.seed(entropy)
    expected = adapter.sample(query, n)
    assert got["dtype"] == expected.dtype.str and tuple(got["shape"]) == expected.shape
    if callable(getattr(adapter, "seed", None)):
        assert got["bytes"] == expected.tobytes().hex()
    else:
        scale = max(got["std"], float(expected.std()))
        assert abs(got["mean"] - float(expected.mean())) <= TOLERANCE * scale
        assert abs(got["std"] - float(expected.std())) <= TOLERANCE * scale


@pytest.mark.parametrize(
    "value",
    [0.1, -0.0, 5e-324, 1.7976931348623157e308, math.inf, -math.inf, np.float64(1 / 3), 2**70],
)
def test_literals_evaluate_to_exactly_the_value(value):
    got = eval(literal(value), {})  # the literal's whole point: source that evaluates to it
    assert type(got) is (int if isinstance(value, int) else float)
    assert got == value and math.copysign(1.0, got) == math.copysign(1.0, value)
    assert eval(literal((value, [value, 'a"b'], None)), {}) == (got, [got, 'a"b'], None)


def test_literal_of_nan_and_of_an_unknown_type():
    assert math.isnan(eval(literal(math.nan), {}))
    with pytest.raises(TypeError):
        literal(object())


def test_long_calls_are_wrapped():
    assert call_source("x = f", ["a=1", "b=2"]) == "x = f(a=1, b=2)"
    wrapped = call_source("    result = module.function", [f"argument_{i}=1" for i in range(6)])
    assert wrapped.splitlines()[0] == "    result = module.function("
    assert len(wrapped.splitlines()) == 3 and wrapped.endswith("\n    )")
    ast.parse("def g():\n" + wrapped)
    long = call_source("x = f", [f"argument_number_{i}=1" for i in range(8)])
    assert len(long.splitlines()) == 10 and max(map(len, long.splitlines())) <= 100
    listed = call_source("xs = ", [repr(float(i)) for i in range(40)], "[]")
    assert eval(listed.split(" = ", 1)[1]) == [float(i) for i in range(40)]
