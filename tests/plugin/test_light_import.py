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


def test_a_module_path_of_dp_audit_0_1_names_its_new_home() -> None:
    import pytest

    with pytest.raises(ModuleNotFoundError, match=r"auditor.runner moved to auditor.engine.runner"):
        import auditor.runner  # noqa: F401
    with pytest.raises(ModuleNotFoundError, match=r"auditor.backends moved to auditor.engine"):
        from auditor.backends.local import LocalProcessSampler  # noqa: F401
    with pytest.raises(ModuleNotFoundError, match=r"auditor.pytest_plugin moved to auditor.shell"):
        import auditor.pytest_plugin  # noqa: F401
    with pytest.raises(ModuleNotFoundError, match="No module named"):
        import auditor.no_such_module  # noqa: F401
