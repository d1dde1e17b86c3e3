"""The Tumult adapters are opt-in and cost nothing unless named: registered with the
``tumult`` extra outside the default targets, importable without Tumult or PySpark, and
``builtin_adapters`` raises ImportError (the loader's "skipped") when Tumult is missing.
Runs whether or not Tumult is installed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from auditor.adapters.builtin import BUILTIN_TARGETS, OPT_IN_TARGETS

TARGET = "auditor.adapters.tumult_adapters:builtin_adapters"


def test_registered_opt_in_with_the_tumult_extra():
    assert TARGET not in [target for target, _, _ in BUILTIN_TARGETS]  # `dp-audit run` unchanged
    (entry,) = [row for row in OPT_IN_TARGETS if row[0] == TARGET]
    assert entry[2] == "tumult"


def test_importing_the_module_imports_neither_tumult_nor_spark():
    code = (
        "import sys, auditor.adapters.tumult_adapters\n"
        "print(sorted(m for m in ('tmlt', 'pyspark', 'py4j') if m in sys.modules))"
    )
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.strip() == "[]"


def test_builtin_adapters_raises_import_error_without_tumult(monkeypatch):
    from auditor.adapters import tumult_adapters

    for name in [m for m in sys.modules if m == "tmlt" or m.startswith("tmlt.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "tmlt.analytics", None)  # `import tmlt.analytics` fails
    with pytest.raises(ImportError):
        tumult_adapters.builtin_adapters()
