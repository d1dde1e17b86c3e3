"""The held-out corpus (``tests/corpus``): its sets, their labels and which sets a run audits.

A set is a module ``tests/corpus/held_out_mechanisms*.py`` with an ``ADAPTERS`` list, written
blind by a session that had not seen dp-audit's own test mechanisms.  ``labels.toml`` holds one
record per adapter (label, claim, expected verdict, the reason of a known miss) and
``schedule.toml`` how long each set takes and when CI audits it.  Adding a set is its module,
its table in ``labels.toml`` and its line in ``schedule.toml``.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
LABELS = {"correct", "broken"}
VERDICTS = {"violation", "no_violation"}


@dataclass(frozen=True)
class Label:
    """What one adapter is and what the default run of its set must say about it."""

    label: str
    claim: str
    expect: str
    reason: str = ""

    @property
    def known_miss(self) -> bool:
        """A broken mechanism the default run does not find (``reason`` says why)."""
        return self.label == "broken" and self.expect == "no_violation"


def number(stem: str) -> int:
    """The set's number: ``held_out_mechanisms`` is 1, ``held_out_mechanisms_24`` is 24."""
    match = re.fullmatch(r"held_out_mechanisms(?:_(\d+))?", stem)
    if match is None:
        raise ValueError(f"{stem!r} is not a held-out set module")
    return int(match.group(1) or 1)


def set_id(stem: str) -> str:
    """Test ids and ``-k`` patterns: ``set01`` … ``set27`` (unique as substrings)."""
    return f"set{number(stem):02d}"


def stems() -> list[str]:
    """Every set module in the corpus, by number."""
    found = [p.stem for p in CORPUS.glob("held_out_mechanisms*.py")]
    return sorted(found, key=number)


@cache
def labels() -> dict[str, dict[str, Label]]:
    """``labels.toml``: set module → adapter name → its record."""
    with (CORPUS / "labels.toml").open("rb") as fh:
        raw = tomllib.load(fh)
    return {
        stem: {name: Label(**record) for name, record in table.items()}
        for stem, table in raw.items()
    }


@cache
def schedule() -> dict[str, Any]:
    """``schedule.toml``: ``shares`` and, per set, ``minutes`` and ``run`` ("core" or a share)."""
    with (CORPUS / "schedule.toml").open("rb") as fh:
        return tomllib.load(fh)


def load_set(stem: str) -> list[Any]:
    """The set's ``ADAPTERS``, its module loaded by path (the sets are data, not a package)."""
    spec = importlib.util.spec_from_file_location(stem, CORPUS / f"{stem}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.ADAPTERS)


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, timeout=30, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def rotation(root: Path) -> int | None:
    """The number CI's share is taken from: the commit count (``git rev-list --count HEAD``),
    so that consecutive commits cycle through the shares; in a shallow clone, where the count
    is meaningless, HEAD's hash read as a number.  None outside a git checkout."""
    if _git(root, "rev-parse", "--is-shallow-repository") == "false":
        count = _git(root, "rev-list", "--count", "HEAD")
        return int(count) if count else None
    head = _git(root, "rev-parse", "HEAD")
    return int(head, 16) if head else None


def select(which: str, share: int | None, plan: dict[str, Any]) -> list[str]:
    """The set modules a run audits.

    ``which``: ``all``; ``core`` (the sets whose ``run`` is "core"); ``ci`` (core plus the
    sets of share ``share`` modulo ``shares``: CI takes it from :func:`rotation`); or set
    numbers separated by commas (``24,27``).  Raises ValueError on anything else, or on
    ``ci`` without a share.
    """
    every = {number(stem): stem for stem in plan["sets"]}
    if which == "all":
        return sorted(plan["sets"], key=number)
    if which in ("core", "ci"):
        wanted: set[object] = {"core"}
        if which == "ci":
            if share is None:
                raise ValueError("--corpus=ci needs a share: a git clone, or --corpus-share")
            wanted.add(share % plan["shares"])
        chosen = [stem for stem, entry in plan["sets"].items() if entry["run"] in wanted]
        return sorted(chosen, key=number)
    try:
        numbers = [int(part) for part in which.split(",")]
    except ValueError:
        raise ValueError(f"--corpus={which!r}: give all, core, ci or set numbers (24,27)") from None
    unknown = [n for n in numbers if n not in every]
    if unknown:
        raise ValueError(f"--corpus={which!r}: no held-out set {unknown}")
    return [every[n] for n in sorted(set(numbers))]
