"""Writing report files atomically: a reader never sees a half-written report, and the files of
one run are never mixed with another's."""

from __future__ import annotations

import ctypes
import ctypes.util
import fcntl
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import IO


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path, text: str | bytes) -> Path:
    """Write ``text`` (UTF-8) or bytes to ``path`` through a temporary file and a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a report is meant to be read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


_RENAME_EXCHANGE = 2  # linux/fs.h


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False where the
    system cannot."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    done = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    if done != 0:
        errno = ctypes.get_errno()
        if errno in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: not here
            return False
        raise OSError(errno, os.strerror(errno), str(b))
    return True


def write_report_set(out: Path, files: Mapping[str, str]) -> Path:
    """Put ``files`` (name -> text) in folder ``out`` as one unit.

    They are written into a new folder beside ``out`` and swapped with it in one rename
    (``renameat2``), so ``out`` holds either the whole previous set or the whole new one at
    every moment, whatever kills the process or fills the disk; files of the previous set that
    the new one does not write go with it.  Where the swap is not available, two renames are
    used and ``out`` is briefly absent, but never mixed.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        os.chmod(staged, 0o777 & ~_umask())
        for name, text in files.items():
            write_atomic(staged / name, text)
        if not out.exists():
            os.replace(staged, out)
            return out
        try:
            if not _exchange(staged, out):
                old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
                os.replace(out, old / out.name)
                os.replace(staged, out)
                staged = old
        except OSError:
            # ``out`` cannot be renamed (the working directory, a mount point): each file is
            # still replaced whole, but not the set as one
            for name in files:
                os.replace(staged / name, out / name)
    finally:
        shutil.rmtree(staged, ignore_errors=True)  # the previous set, or a set never placed
    return out


class FolderBusy(Exception):
    """Another process holds the folder's lock; ``pid`` is its process id when known."""

    def __init__(self, pid: str) -> None:
        super().__init__(pid)
        self.pid = pid


def hold(out: Path) -> IO[bytes]:
    """Lock report folder ``out`` for this process until it exits or closes the handle.

    The lock file sits beside the folder (``.NAME.lock``), so that swapping the folder does
    not drop it; the operating system releases it when the process dies.

    Raises:
        FolderBusy: another process holds it.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    handle = open(out.parent / f".{out.name or 'report'}.lock", "a+b")  # noqa: SIM115 - held
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        pid = handle.read().decode("ascii", "replace").strip() or "?"
        handle.close()
        raise FolderBusy(pid) from None
    handle.truncate(0)
    handle.write(str(os.getpid()).encode())
    handle.flush()
    return handle
