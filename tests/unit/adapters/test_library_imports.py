"""Library adapter modules import without their library; ``builtin_adapters`` raises ImportError.

The loader relies on this to list the built-ins cheaply and to mark a missing library as
"skipped, install the extra".  Runs whether or not the libraries are installed.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

MODULES = {
    "auditor.adapters.diffprivlib_adapters": "diffprivlib",
    "auditor.adapters.opendp_adapters": "opendp",
    "auditor.adapters.pydp_adapters": "pydp",
    "auditor.adapters.pipeline_dp_adapters": "pipeline_dp",
}


@pytest.mark.parametrize(("module", "library"), MODULES.items())
def test_builtin_adapters_raises_import_error_when_library_is_missing(monkeypatch, module, library):
    mod = importlib.import_module(module)
    monkeypatch.setitem(sys.modules, library, None)  # makes `import library` raise ImportError
    for name in [m for m in sys.modules if m.startswith(library + ".")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError):
        mod.builtin_adapters()
    if hasattr(mod, "vector_adapters"):  # the opt-in group of the same library
        with pytest.raises(ImportError):
            mod.vector_adapters()


def test_importing_the_adapter_modules_imports_no_library():
    code = (
        "import sys, auditor.adapters.builtin, auditor.adapters.textbook, "
        + ", ".join(MODULES)
        + "\nprint(sorted(m for m in ('diffprivlib', 'opendp', 'pydp', 'pipeline_dp', 'sklearn') if m in sys.modules))"
    )
    root = Path(__file__).resolve().parents[3]  # the checkout whose `auditor` is under test
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.strip() == "[]"


def test_library_targets_are_registered_with_the_libs_extra():
    from auditor.adapters.builtin import BUILTIN_TARGETS, OPT_IN_TARGETS

    registered = {
        target.split(":")[0]: (library, extra)
        for target, library, extra in BUILTIN_TARGETS + OPT_IN_TARGETS
    }
    for module in MODULES:
        assert registered[module][1] == "libs"
