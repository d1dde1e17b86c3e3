"""The example plugin's adapter honours the contract (imported from its folder, not installed).

Fixed seed; bounds ≥ 6 standard errors wide (false failure < 1e-8, deterministic under the seed).
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

PLUGIN = Path(__file__).resolve().parents[3] / "examples" / "plugin" / "dp_audit_example_plugin"


@pytest.fixture(scope="module")
def plugin():
    spec = importlib.util.spec_from_file_location("_example_plugin", PLUGIN / "__init__.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_laplace_contract_and_calibration(plugin):
    (adapter,) = plugin.adapters()
    assert adapter.name == "example.laplace" and adapter.family == "additive"
    assert (adapter.epsilon, adapter.delta, adapter.sensitivity) == (1.0, 0.0, 1.0)
    adapter.seed(11)
    x = adapter.sample(2.0, 20_000)
    assert isinstance(x, np.ndarray) and x.shape == (20_000,) and x.dtype == np.float64
    assert abs(x.mean() - 2.0) < 6 * math.sqrt(2) / math.sqrt(20_000)
    assert 0.95 < x.std() / math.sqrt(2) < 1.05
    adapter.seed(11)
    np.testing.assert_array_equal(x[:5], adapter.sample(2.0, 5))


def test_example_laplace_rejects_bad_epsilon(plugin):
    with pytest.raises(ValueError, match="epsilon"):
        plugin.ExampleLaplace(epsilon=0.0)


def test_entry_point_is_declared_in_the_plugin_group():
    import tomllib

    meta = tomllib.loads((PLUGIN.parent / "pyproject.toml").read_text())
    group = meta["project"]["entry-points"]["dp_audit.adapters"]
    assert group == {"example": "dp_audit_example_plugin:adapters"}
