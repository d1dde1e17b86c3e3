"""``[tool.dp-audit]`` in a project's ``pyproject.toml``: the settings of ``dp-audit run`` for
that project, as pytest, ruff and mypy read theirs.  Flags on the command line win.

```toml
[tool.dp-audit]
targets = ["mylib/dp_adapters.py:ADAPTERS"]   # --adapter, repeated
attacks = ["black-box", "lsb-laplace"]        # --attack, repeated
budget = 1_000_000
seed = 7
alpha = 0.01
baseline = "ci/dp-audit-baseline.json"        # relative to the pyproject.toml
out = "build/dp-audit"                        # relative to the pyproject.toml
```
"""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from auditor.core.errors import InvalidArgument

TABLE = "dp-audit"


def _strings(value: Any) -> list[str]:
    if not (isinstance(value, list) and all(isinstance(v, str) and v for v in value) and value):
        raise argparse.ArgumentTypeError("expected a non-empty list of strings")
    return list(value)


def _targets(base: Path) -> Callable[[Any], list[str]]:
    """Targets; a file target's path is relative to the pyproject.toml, like every path here."""

    def check(value: Any) -> list[str]:
        out = []
        for target in _strings(value):
            where, colon, attr = target.rpartition(":")
            is_file = colon and (where.endswith(".py") or "/" in where)
            out.append(f"{base / where}:{attr}" if is_file else target)
        return out

    return check


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        raise argparse.ArgumentTypeError(f"expected true or false, got {value!r}")
    return value


def _scalar(convert: Callable[[str], Any]) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise argparse.ArgumentTypeError(f"expected a number, got {value!r}")
        return convert(str(value))

    return check


def _path(base: Path) -> Callable[[Any], Path]:
    def check(value: Any) -> Path:
        if not isinstance(value, str) or not value:
            raise argparse.ArgumentTypeError(f"expected a path, got {value!r}")
        return base / value

    return check


def find(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` (as ruff and pytest look)."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def run_defaults(
    start: Path, converters: dict[str, Callable[[str], Any]]
) -> tuple[Path | None, dict[str, Any]]:
    """The ``[tool.dp-audit]`` table of the nearest pyproject.toml as defaults for ``run``'s
    options (argparse destinations), each checked by the option's own converter.

    Args:
        converters: option destination -> the converter its flag uses (budget, seed, ...).

    Raises:
        InvalidArgument: the file is not TOML, or a key is unknown or its value is wrong; the
            message names the file and the key.
    """
    path = find(start)
    if path is None:
        return None, {}
    try:
        tool = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InvalidArgument(f"{str(path)!r}: cannot read it as TOML: {exc}") from None
    if not isinstance(tool, dict):  # ``tool = "x"``: no [tool.*] table can be read
        raise InvalidArgument(
            f"{str(path)!r}: 'tool' must be a table ([tool.{TABLE}]), not {type(tool).__name__}"
        )
    table = tool.get(TABLE)
    if table is None:
        return None, {}
    checks: dict[str, tuple[str, Callable[[Any], Any]]] = {
        "targets": ("adapter", _targets(path.parent)),
        "attacks": ("attack", _strings),
        "baseline": ("baseline", _path(path.parent)),
        "out": ("out", _path(path.parent)),
        "conditional-test": ("conditional_test", _flag),
        "tighten": ("tighten", _flag),
        **{
            key: (key.replace("-", "_"), _scalar(converters[key.replace("-", "_")]))
            for key in ("budget", "loop-budget", "futility", "alpha", "seed", "timeout", "workers")
        },
    }
    if not isinstance(table, dict):
        raise InvalidArgument(f"{str(path)!r}: [tool.{TABLE}] must be a table")
    defaults: dict[str, Any] = {}
    for key, value in table.items():
        if key not in checks:
            known = ", ".join(sorted(checks))
            raise InvalidArgument(
                f"{str(path)!r}: [tool.{TABLE}] has no setting {key!r} (known: {known})"
            )
        dest, check = checks[key]
        try:
            defaults[dest] = check(value)
        except argparse.ArgumentTypeError as exc:
            raise InvalidArgument(f"{str(path)!r}: [tool.{TABLE}] {key}: {exc}") from None
    return path, defaults
