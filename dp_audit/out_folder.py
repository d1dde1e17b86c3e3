"""The report folder of ``dp-audit run`` (``--out``): checked before anything is sampled.

The report set is written into a new folder and swapped with ``--out`` in one rename
(``reports.writing.write_report_set``), so whatever else ``--out`` held goes with the previous
set.  A folder is therefore accepted only when it is new, empty, or holds a report set dp-audit
wrote and nothing else: a user's own files (``--out docs``) are never replaced.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
from pathlib import Path

from auditor.core.errors import InvalidArgument
from auditor.core.text import printable

#: what a report set holds (``reproduce/`` scripts, ``tradeoff-*.png`` figures) and the
#: hidden files dp-audit leaves for a moment (its write test, atomic writes)
WRITTEN = (
    "report.json",
    "report.md",
    "report.html",
    "junit.xml",
    "reproduce",
    "tradeoff-*.png",
    ".dp-audit-write-test-*",
    ".*.tmp",
)


def _foreign(out: Path) -> list[str]:
    """Entries of folder ``out`` that dp-audit did not write (all of them when the folder holds
    no report.json of dp-audit's: a user's own report.md is not one of ours)."""
    entries = sorted(os.listdir(out))
    if not entries:
        return []
    try:
        data = json.loads((out / "report.json").read_text(encoding="utf-8"))
        ours = isinstance(data, dict) and str(data.get("schema", "")).startswith("dp-audit/")
    except (OSError, ValueError):
        ours = False
    if not ours:
        return entries
    return [e for e in entries if not any(fnmatch.fnmatchcase(e, p) for p in WRITTEN)]


def remove_if_unused(out: Path) -> None:
    """Remove folder ``out`` if the run created it and wrote nothing there (it failed, or was
    interrupted, before its report): no empty folder is left to look like a result."""
    with contextlib.suppress(OSError):
        out.rmdir()  # only an empty folder can be removed so


def check_out(out: Path) -> bool:
    """Create ``out`` and write a file in it now: a folder that cannot hold the report, or
    that holds files dp-audit did not write, must stop the run before any sampling, not throw
    a finished audit (or the user's files) away.

    Returns whether the folder was created here (see :func:`remove_if_unused`).

    Raises:
        InvalidArgument: ``out`` is empty, not a folder, holds other files, or is unwritable.
    """
    if str(out) in ("", "."):
        raise InvalidArgument(
            "--out must name a folder for the report, not the current folder ('' or '.'): its "
            "files would be replaced by the report set"
        )
    if out.exists() and not out.is_dir():
        raise InvalidArgument(f"--out {str(out)!r} exists and is not a folder")
    if out.is_dir():
        try:
            foreign = _foreign(out)
        except OSError as exc:
            raise InvalidArgument(
                f"--out {str(out)!r} cannot be read: {exc.strerror or exc}"
            ) from None
        if foreign:
            shown = ", ".join(printable(e) for e in foreign[:3])
            more = f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
            raise InvalidArgument(
                f"--out {str(out)!r} holds files dp-audit did not write ({shown}{more}); the "
                "report set replaces the whole folder, so choose a new or empty one"
            )
    created = not out.exists()
    probe = out / f".dp-audit-write-test-{os.getpid()}"
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise InvalidArgument(
            f"--out {str(out)!r} cannot be written: {exc.strerror or exc}"
        ) from None
    return created
