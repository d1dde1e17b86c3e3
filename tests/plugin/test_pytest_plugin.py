"""The pytest plugin, driven as a black box through ``pytester``.

Each test writes a test module, runs pytest on it in-process and checks outcomes and output.
The plugin is loaded through its ``pytest11`` entry point when dp-audit is installed with it,
else with ``-p dp_audit.pytest_plugin`` (never both: pytest refuses a plugin registered twice);
an entry point ``dp_audit`` that names another module (an install made before the shell moved to
``dp_audit``) is then blocked by its name.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

import pytest

import auditor.adapters.textbook  # noqa: F401
import auditor.engine.runner  # noqa: F401
from attacks import load_attacks

pytest_plugins = ["pytester"]

# In-process pytester runs restore sys.modules afterwards; extension modules (numpy, scipy)
# cannot be imported twice in one process, so everything the audits import is imported here,
# before any inner run.
load_attacks()

PLUGIN_ARGS = (
    []
    if any(ep.value == "dp_audit.pytest_plugin" for ep in entry_points(group="pytest11"))
    else ["-p", "no:dp_audit", "-p", "dp_audit.pytest_plugin"]
)

TESTS = '''
import numpy as np
from auditor.adapters.textbook import TextbookLaplace
from dp_audit.pytest_plugin import assert_private


class Response:
    """Randomized response keeping the bit with probability keep: epsilon ln(keep/(1-keep))."""
    family = "binary"
    delta = 0.0

    def __init__(self, name, keep, epsilon):
        self.name, self.keep, self.epsilon = name, keep, epsilon
        self._rng = np.random.default_rng(0)

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        kept = self._rng.random(n) < self.keep
        return np.where(kept, query, 1 - query).astype(np.int64)


def test_correct_response_passes():
    result = assert_private(Response("rr.correct", keep=0.6, epsilon=1.0))
    assert result.verdict == "no_violation"


def test_textbook_laplace_fails():
    assert_private(TextbookLaplace(epsilon=1.0), attacks=["lsb-laplace"])
'''


def _run(pytester: pytest.Pytester, *args: str) -> Any:
    pytester.makepyfile(test_audits=TESTS)
    return pytester.runpytest(*PLUGIN_ARGS, "--dp-audit-budget=5000", *args)


def test_one_audit_passes_one_fails_with_a_readable_message(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "--dp-audit-seed=7")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "dp-audit: --dp-audit-seed=7 --dp-audit-budget=5000 --dp-audit-alpha=0.05",
            "*AssertionError: dp-audit: textbook.laplace(eps=1) VIOLATES its claim (epsilon=1, delta=0)",
            "*certified epsilon >= * > claimed 1, at family-wise confidence 0.95",
            "*attack: lsb-laplace; inputs x=0.0, x'=1.0",
            "*event: output is a double that numpy* cannot produce at input 1.0",
            "*counts: * of * outputs on x, 0 of * on x'",
            "*replay: seed=7 budget=5000 alpha=0.05 (--dp-audit-seed=7)",
            "*FAILED test_audits.py::test_textbook_laplace_fails*",
        ]
    )
    # the traceback points at the test, not into the plugin
    assert "pytest_plugin.py" not in result.stdout.str()


def test_adapter_error_fails_with_its_message(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_error="""
from dp_audit.pytest_plugin import assert_private

class Raises:
    name, family, epsilon, delta = "broken", "binary", 1.0, 0.0
    def sample(self, query, n):
        raise RuntimeError("boom")

def test_broken():
    assert_private(Raises())
"""
    )
    result = pytester.runpytest(*PLUGIN_ARGS)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*dp-audit: broken ended in error: *RuntimeError: boom*"])


def test_bad_option_value_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_nothing="def test_nothing(): pass")
    result = pytester.runpytest(*PLUGIN_ARGS, "--dp-audit-alpha=2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dp-audit-alpha: expected a number in (0, 1), got '2'*"])
