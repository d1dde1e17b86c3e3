"""What ``--adapter`` names: a target (``auditor.core.targets``), or built-in adapters by the names
``dp-audit list`` shows (``load_named``).  Built-ins are listed as strings in
``auditor.adapters.builtin`` and imported only when asked for.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from auditor.adapters.builtin import BUILTIN_TARGETS, OPT_IN_TARGETS
from auditor.core.errors import AdapterLoadError
from auditor.core.targets import entry_points, load_target


@dataclass(frozen=True)
class BuiltinGroup:
    """The adapters of one built-in target, or why they are not available."""

    target: str
    library: str
    extra: str | None
    adapters: tuple[Any, ...] = ()
    skipped: str | None = None
    opt_in: bool = False


def load_builtins(opt_in: bool = False) -> list[BuiltinGroup]:
    """Every built-in group of the default run (and the opt-in ones too, with ``opt_in``); a
    missing optional library is a skip note, never a crash."""
    groups = []
    targets = [(t, False) for t in BUILTIN_TARGETS]
    targets += [(t, True) for t in OPT_IN_TARGETS] if opt_in else []
    for (target, library, extra), optional in targets:
        try:
            groups.append(
                BuiltinGroup(target, library, extra, tuple(load_target(target)), opt_in=optional)
            )
        except (AdapterLoadError, ImportError) as exc:
            hint = f"; install it with: pip install 'dp-audit[{extra}]'" if extra else ""
            cause = exc.__cause__ or exc
            groups.append(
                BuiltinGroup(
                    target,
                    library,
                    extra,
                    skipped=f"{library} not available ({cause}){hint}",
                    opt_in=optional,
                )
            )
    return groups


def select_builtins(pattern: str) -> list[tuple[Any, str]]:
    """Built-in adapters named ``pattern`` exactly, or matching it when it holds ``*`` (a
    shell-style wildcard, e.g. ``'opendp.*'``), each with the target it is loaded from.

    Raises:
        AdapterLoadError: nothing matches; names the closest built-ins.
    """
    groups = load_builtins(opt_in=True)
    named = [(a, g.target) for g in groups for a in g.adapters]
    found = [(a, t) for a, t in named if a.name == pattern]
    if not found and "*" in pattern:
        # only '*' is a wildcard: built-in names hold '[' and '?' literally
        regex = re.compile(".*".join(re.escape(part) for part in pattern.split("*")))
        found = [(a, t) for a, t in named if regex.fullmatch(a.name)]
    if not found:
        close = difflib.get_close_matches(pattern, [a.name for a, _ in named], n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        # a missing library matters only to names from it ('opacus.noise_step')
        head = pattern.split(".", 1)[0].lower()
        hint += "".join(f"; {g.skipped}" for g in groups if g.skipped and head in g.library.lower())
        if pattern.endswith(".py"):
            hint += f"; a file target names its adapter too: '{pattern}:adapter'"
        raise AdapterLoadError(
            f"no built-in adapter or entry point is named {pattern!r}{hint} (an adapter target "
            "is 'module:attr', 'file.py:attr', an entry-point name, or built-in names as "
            "`dp-audit list` shows them, where '*' matches any text: 'textbook.*')"
        )
    return found


def load_named(target: str) -> list[tuple[Any, str]]:
    """The adapters ``--adapter TARGET`` names, each with the target a worker loads it from:
    a target for :func:`load_target`, else built-ins by name (:func:`select_builtins`)."""
    if ":" in target or target in entry_points():
        adapters = load_target(target)
        return [(a, _anchored(target)) for a in adapters]
    return select_builtins(target)


def _anchored(target: str) -> str:
    """A file target with its path made absolute: workers and reproducer scripts load it
    from wherever they run (a project file's targets are anchored the same way)."""
    where, _, attr = target.rpartition(":")
    if where.endswith(".py") or "/" in where:
        return f"{Path(where).resolve()}:{attr}"
    return target


def load_entry_point_adapters() -> list[tuple[str, list[Any] | str]]:
    """Adapters registered by installed plugins: ``(name, adapters or error message)``."""
    found: list[tuple[str, list[Any] | str]] = []
    for name in sorted(entry_points()):
        try:
            found.append((name, load_target(name)))
        except AdapterLoadError as exc:
            found.append((name, str(exc)))
    return found
