"""dp-audit's application shell, the top layer: the ``dp-audit`` command line (also
``python -m dp_audit``), the pytest plugin, loading built-in adapters by name and progress
output.  It may import everything; nothing of dp-audit imports it.

Its one public name is the plugin's ``assert_private``; the library's are in ``auditor``.  It is
imported on first use (PEP 562), so loading the plugin imports no more than the plugin does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["assert_private"]

if TYPE_CHECKING:
    from dp_audit.pytest_plugin import assert_private


def __getattr__(name: str) -> Any:
    if name == "assert_private":
        from dp_audit.pytest_plugin import assert_private

        return assert_private
    raise AttributeError(f"module 'dp_audit' has no attribute {name!r}")
