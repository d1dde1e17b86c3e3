"""Writing report files atomically: a reader never sees a half-written report, and the files of
one run are never mixed with another's."""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import glob
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path, text: str | bytes) -> Path:
    """Write ``text`` (UTF-8) or bytes to ``path`` through a temporary file and a rename."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file where a folder of the path should be
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path)) from None
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


def write_report_set(out: Path, files: Mapping[str, str | bytes]) -> Path:
    """Put ``files`` (name -> text, or bytes for figures) in folder ``out`` as one unit.

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
            (staged / name).parent.mkdir(parents=True, exist_ok=True)  # reproduce/<adapter>.py
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
                (out / name).parent.mkdir(parents=True, exist_ok=True)
                os.replace(staged / name, out / name)
    finally:
        shutil.rmtree(staged, ignore_errors=True)  # the previous set, or a set never placed
    return out


class FolderBusy(Exception):
    """Another process holds the report folder's lock."""


class FolderLock:
    """A held folder lock; released by ``close()``, when garbage-collected, or at exit."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing the descriptor releases the flock
            self.fd = -1

    __del__ = close


def hold(out: Path) -> FolderLock:
    """Lock report folder ``out`` (created if missing) for this process, until it exits or
    closes the returned lock.

    The lock is on the folder itself (``flock`` on its descriptor): no lock file is left
    behind, and the operating system releases it when the process dies.  Once a run has
    swapped in its new set, a later run locks the new folder: the first one has finished
    writing by then.

    Raises:
        FolderBusy: another process holds it.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise FolderBusy(str(out)) from None
    # staging folders beside ``out`` belong to runs killed while writing: whoever writes ``out``
    # holds this lock until its set is in place, so none of them is in use
    for stale in (".new-*", ".old-*"):
        for leftover in out.parent.glob(f".{glob.escape(out.name)}{stale}"):
            shutil.rmtree(leftover, ignore_errors=True)
    return FolderLock(fd)
