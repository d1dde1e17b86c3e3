"""Adapter targets: ``module:attr``, ``path/to/file.py:attr``, or the name of an entry point in
the group ``dp_audit.adapters``.  ``attr`` may be an adapter, a list of adapters, or a
zero-argument callable returning either.  Part of the adapter contract: the shell loads what the
user names, and worker processes load their own copy from the same target.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from auditor.core.errors import AdapterLoadError, adapter_code

ENTRY_POINT_GROUP = "dp_audit.adapters"


def _is_adapter(obj: Any) -> bool:
    declares = hasattr(obj, "family") or hasattr(obj, "output_kind")
    return hasattr(obj, "sample") and declares and not isinstance(obj, type)


@dataclass(frozen=True)
class NotAnAdapter:
    """Stands in for an item of a target's list that is not an adapter: the run reports it as
    an ``error`` (``check_adapter`` raises ``problem``) and audits the rest of the list."""

    name: str
    problem: str


def expand(obj: Any, target: str) -> list[Any]:
    """An adapter, a list of adapters, or a zero-argument callable returning either.

    Raises:
        AdapterLoadError: the target holds no adapter at all.
    """
    if not _is_adapter(obj) and callable(obj):
        with adapter_code(f"target {target!r}: calling it", AdapterLoadError):
            obj = obj()
    items = list(obj) if isinstance(obj, list | tuple) else [obj]
    found = [
        item if _is_adapter(item) else _not_an_adapter(item, target, i)
        for i, item in enumerate(items)
    ]
    if not any(_is_adapter(item) for item in items):
        raise AdapterLoadError(
            f"target {target!r} holds no adapter: "
            + (_why_not_an_adapter(items[0], 0) if items else "it is an empty list")
        )
    return found


def _not_an_adapter(item: Any, target: str, index: int) -> NotAnAdapter:
    return NotAnAdapter(
        f"{target}[{index}]", f"target {target!r}: {_why_not_an_adapter(item, index)}"
    )


def _why_not_an_adapter(item: Any, index: int) -> str:
    """``item {index}, <what it is>, is not an adapter: it <what it lacks>``."""
    try:
        with adapter_code("repr", AdapterLoadError):
            name = getattr(item, "name", None)
            shown = f"adapter {name!r}" if isinstance(name, str) else repr(item)
    except AdapterLoadError:  # its own __repr__ (or name) failed: its type says enough
        shown = f"<{type(item).__name__} object>"
    if len(shown) > 80:
        shown = shown[:77] + "..."
    if isinstance(item, type):
        lacks = "is a class: the target must name an instance (MyAdapter(), not MyAdapter)"
    elif hasattr(item, "sample"):
        lacks = (
            "has 'sample' but declares neither 'family' (additive | selection | binary | "
            "dataset) nor 'input_kind' and 'output_kind'"
        )
    else:
        lacks = "has no 'sample(query, n)' method"
    return f"item {index}, {shown}, is not an adapter: it {lacks}"


def _load_file(path: Path, target: str) -> Any:
    if not path.is_file():
        raise AdapterLoadError(f"target {target!r}: no such file {str(path)!r}")
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
    module_name = f"dp_audit_user_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise AdapterLoadError(f"target {target!r}: cannot load {str(path)!r} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    # as `python file.py` does, the file's folder is importable: its siblings (`import helper`)
    # load; appended, so a sibling never shadows an installed module of the same name
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.append(folder)
    try:
        with adapter_code(f"target {target!r}: importing {str(path)!r}", AdapterLoadError):
            spec.loader.exec_module(module)
    except AdapterLoadError:
        sys.modules.pop(module_name, None)
        raise
    return module


def _load_module(name: str, target: str) -> Any:
    try:
        with adapter_code(f"target {target!r}: importing {name!r}", AdapterLoadError):
            return importlib.import_module(name)
    except AdapterLoadError as exc:
        missing = exc.__cause__
        if isinstance(missing, ModuleNotFoundError) and missing.name is not None:
            # the module itself, or one it imports: say which
            raise AdapterLoadError(
                f"target {target!r}: cannot import module {missing.name!r}"
            ) from missing
        raise


def entry_points() -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def load_target(target: str) -> list[Any]:
    """Load the adapters a target names.

    Raises:
        AdapterLoadError: the module, file, attribute or entry point does not exist or fails.
    """
    if not isinstance(target, str) or not target.strip():
        raise AdapterLoadError(
            f"target {target!r} must be 'module:attr', 'file.py:attr' or an entry-point name"
        )
    if ":" not in target:
        eps = entry_points()
        if target not in eps:
            known = ", ".join(sorted(eps)) or "none installed"
            raise AdapterLoadError(
                f"target {target!r} is not 'module:attr' or 'file.py:attr', and no entry point "
                f"{target!r} in group {ENTRY_POINT_GROUP!r} (known: {known})"
            )
        ep = eps[target]
        dist = ep.dist.name if ep.dist else "?"
        with adapter_code(
            f"entry point {target!r} from distribution {dist!r}: loading it", AdapterLoadError
        ):
            obj = ep.load()
        return expand(obj, target)
    where, _, attr = target.rpartition(":")
    if not where or not attr:
        raise AdapterLoadError(f"target {target!r} must be 'module:attr' or 'file.py:attr'")
    module = (
        _load_file(Path(where), target)
        if where.endswith(".py") or "/" in where
        else _load_module(where, target)
    )
    obj = module
    for part in attr.split("."):
        with adapter_code(f"target {target!r}: reading {attr!r}", AdapterLoadError):
            found = hasattr(obj, part)
            obj = getattr(obj, part) if found else None
        if not found:
            raise AdapterLoadError(f"target {target!r}: {where!r} has no attribute {attr!r}")
    return expand(obj, target)
