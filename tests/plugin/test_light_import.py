"""The pytest plugin is loaded by every pytest run where dp-audit is installed: keep it light."""

from __future__ import annotations

import subprocess
import sys

import auditor
import dp_audit

CHECK = """
import sys
import dp_audit.pytest_plugin, dp_audit, auditor
heavy = [m for m in ("numpy", "scipy", "matplotlib", "pandas", "attacks") if m in sys.modules]
assert not heavy, heavy
auditor.run_audit, dp_audit.assert_private  # resolved on first use
assert "numpy" in sys.modules
"""


def test_importing_the_plugin_imports_nothing_heavy() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_every_public_name_resolves() -> None:
    assert sorted(auditor.__all__) == sorted(auditor._EXPORTS)
    for name in auditor.__all__:
        assert getattr(auditor, name).__name__ == name
    assert dp_audit.__all__ == ["assert_private"]
    assert dp_audit.assert_private.__module__ == "dp_audit.pytest_plugin"


def test_the_library_does_not_name_the_shell_above_it() -> None:
    import pytest

    with pytest.raises(AttributeError, match=r"auditor.assert_private moved to dp_audit"):
        auditor.assert_private  # noqa: B018
    old = subprocess.run([sys.executable, "-m", "auditor", "run"], capture_output=True, text=True)
    assert old.returncode == 2
    assert "'python -m auditor' is now 'python -m dp_audit'" in old.stderr


def test_a_module_path_of_dp_audit_0_1_names_its_new_home() -> None:
    import pytest

    with pytest.raises(ModuleNotFoundError, match=r"auditor.runner moved to auditor.engine.runner"):
        import auditor.runner  # noqa: F401
    with pytest.raises(ModuleNotFoundError, match=r"auditor.backends moved to auditor.engine"):
        from auditor.backends.local import LocalProcessSampler  # noqa: F401
    with pytest.raises(ModuleNotFoundError, match=r"auditor.pytest_plugin moved to dp_audit"):
        import auditor.pytest_plugin  # noqa: F401
    with pytest.raises(ModuleNotFoundError, match=r"auditor.shell moved to dp_audit"):
        import auditor.shell.cli  # noqa: F401
    with pytest.raises(ModuleNotFoundError, match="No module named"):
        import auditor.no_such_module  # noqa: F401
