"""Where the built-in adapters live.

Each target is a ``module:attr`` string naming a zero-argument callable that returns a list of
adapters.  Strings, not imports: listing the built-ins must not import optional libraries
(diffprivlib, OpenDP, python-dp).  A target whose library is missing is skipped with a note.
"""

from __future__ import annotations

#: ``(target, library, extra)``: ``extra`` is the pip extra that installs the library, or None.
BUILTIN_TARGETS: tuple[tuple[str, str, str | None], ...] = (
    ("auditor.adapters.textbook:builtin_adapters", "numpy", None),
    ("auditor.adapters.reference:builtin_adapters", "dp-audit", None),
    ("auditor.adapters.reference_selection:builtin_adapters", "dp-audit", None),
    ("auditor.adapters.reference_dataset:builtin_adapters", "dp-audit", None),
    ("auditor.adapters.diffprivlib_adapters:builtin_adapters", "diffprivlib", "libs"),
    ("auditor.adapters.opendp_adapters:builtin_adapters", "opendp", "libs"),
    ("auditor.adapters.pydp_adapters:builtin_adapters", "python-dp", "libs"),
)
