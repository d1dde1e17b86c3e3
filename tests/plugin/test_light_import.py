"""The pytest plugin is loaded by every pytest run where dp-audit is installed: keep it light."""

from __future__ import annotations

import subprocess
import sys

import auditor

CHECK = """
import sys
import auditor.shell.pytest_plugin, auditor
heavy = [m for m in ("numpy", "scipy", "matplotlib", "pandas", "attacks") if m in sys.modules]
assert not heavy, heavy
auditor.run_audit, auditor.assert_private  # resolved on first use
assert "numpy" in sys.modules
"""


def test_importing_the_plugin_imports_nothing_heavy() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_public_name_resolves() -> None:
    assert sorted(auditor.__all__) == sorted(auditor._EXPORTS)
    for name in auditor.__all__:
        assert getattr(auditor, name).__name__ == name
