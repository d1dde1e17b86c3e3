"""dp-audit: attack and audit differential-privacy implementations.

``import auditor`` stays light: public helpers are imported on first use.
"""

from __future__ import annotations

from typing import Any

#: public name -> module that defines it (imported lazily by ``__getattr__``)
_LAZY = {"assert_private": "auditor.pytest_plugin"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'auditor' has no attribute {name!r}")
