"""Shipping a ``file.py:attr`` target to Dask workers that do not share the file system, and
the task that runs on such a worker (:func:`run_on_cluster`): it unpacks the shipped files,
loads the run's adapters afresh and samples.

The client side, the cluster's lifecycle and task submission, is
:mod:`auditor.engine.backends.dask_backend`: it builds the shipments and submits
:func:`run_on_cluster` to Dask.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import pickle
import site
import sys
import sysconfig
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from auditor.core.errors import BackendUnavailable, DPAuditError
from auditor.engine.backends import worker
from auditor.engine.backends.worker import Task, installed_version, run_tasks_remote

#: the most bytes of a file target's folder sent to the workers with its tasks
SHIP_LIMIT = 32 << 20


@dataclasses.dataclass(frozen=True)
class Shipment:
    """A ``file.py:attr`` target's source and that of the modules it imported from its folder,
    sent with every task of its adapters (see :func:`shipment`)."""

    #: the target as this process loaded it (absolute path)
    target: str
    #: the target file's folder in this process, the root of ``files``' paths
    folder: str
    #: the name this process imported the target file under (pickles refer to it), and
    #: any other names it has there
    module: str
    aliases: tuple[str, ...]
    #: (path relative to ``folder``, contents), the target file first
    files: tuple[tuple[str, bytes], ...]
    digest: str


def _system_folders() -> set[str]:
    """Folders that hold installed code: a target there ships no neighbours."""
    found = {
        p
        for key in ("stdlib", "platstdlib", "purelib", "platlib")
        if (p := sysconfig.get_path(key))
    }
    with contextlib.suppress(Exception):
        found.update(site.getsitepackages())
    with contextlib.suppress(Exception):
        found.add(site.getusersitepackages())
    return {os.path.realpath(p) for p in found}


def shipment(target: str) -> Shipment | None:
    """What workers without this file system need to load ``target``; None for a target that
    is not a file (``module:attr``, an entry point: installed on the workers).

    Shipped: the target file, and every module this process has imported from the target's
    folder as a top-level module or package (``import helper`` for ``helper.py`` beside it,
    ``from helpers.noise import x`` for ``helpers/``), as found in ``sys.modules`` now (the
    target is loaded; nothing is sampled yet).  Not shipped: modules from other folders, ones
    first imported later (inside ``sample``), compiled extensions, data files.

    Raises:
        OSError: a file cannot be read.
        ValueError: the files exceed ``SHIP_LIMIT`` bytes.
    """
    where, sep, attr = target.rpartition(":")
    if not sep or not (where.endswith(".py") or "/" in where):
        return None
    path = Path(where)
    real_target = os.path.realpath(path)
    real_folder = os.path.realpath(path.parent)
    files = {path.name: path.read_bytes()}
    names: list[str] = []  # the target file's modules here
    roots: dict[str, bool] = {}
    neighbours = real_folder not in _system_folders()
    for name, mod in list(sys.modules.items()):
        file = getattr(mod, "__file__", None)
        if not isinstance(file, str) or not file.endswith(".py") or name in _MAIN:
            continue
        parts = name.split(".")
        if os.path.basename(file) == "__init__.py":
            relative = os.path.join(*parts, "__init__.py")
        else:
            relative = os.path.join(*parts[:-1], parts[-1] + ".py")
        if os.path.basename(file) == path.name and os.path.realpath(file) == real_target:
            # loaded by path (its name is not its file's), or imported by name as well
            names.insert(len(names) if relative == path.name else 0, name)
            continue
        if not neighbours or not file.endswith(os.sep + relative):
            continue
        root = file[: -len(relative) - 1]
        if root not in roots:
            roots[root] = os.path.realpath(root) == real_folder
        if roots[root] and relative not in files:
            files[relative] = Path(file).read_bytes()
    size = sum(len(data) for data in files.values())
    if size > SHIP_LIMIT:
        raise ValueError(
            f"the target and the modules it imports from its folder hold {size:,} bytes "
            f"(more than {SHIP_LIMIT:,}); install them on the workers as a package"
        )
    ordered = ((path.name, files.pop(path.name)), *sorted(files.items()))
    digest = hashlib.sha256(repr((target, names)).encode())
    for relative, data in ordered:
        digest.update(f"\0{relative}\0{len(data)}\0".encode())
        digest.update(data)
    tag = digest.hexdigest()[:16]
    module = names[0] if names else f"dp_audit_shipped_{path.stem}_{tag}"
    return Shipment(target, str(path.parent), module, tuple(names[1:]), ordered, tag)


#: names a target's module cannot be shipped under (the worker has its own)
_MAIN = ("__main__", "__mp_main__")


class _ShippedModules(importlib.abc.MetaPathFinder):
    """Imports a shipped target file under the module names the client has for it, so that a
    pickle referring to one finds it (the adapters load from the copy as a file target)."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        file = self.files.get(fullname)
        return None if file is None else importlib.util.spec_from_file_location(fullname, file)


_FINDER = _ShippedModules()

#: in a worker process: shipment digest -> (the file target that loads it here, the folder of
#: the shipped copy or None when the client's own files are here)
_UNPACKED: dict[str, tuple[str, str | None]] = {}
#: module names that shipments have brought into this worker process
_SHIPPED_NAMES: set[str] = set()
#: the runs (clients) this worker process has served, oldest first
_RUNS: list[str] = []
#: adapters loaded for this many runs stay in a worker process
KEEP_RUNS = 8
_UNPACK_LOCK = threading.Lock()
_VERSION: list[str] = []


def _version() -> str:
    """This process's dp-audit version, looked up once."""
    if not _VERSION:
        _VERSION.append(installed_version())
    return _VERSION[0]


def _module_name(relative: str) -> str:
    """``helpers.noise`` for ``helpers/noise.py``, ``helpers`` for ``helpers/__init__.py``."""
    parts = relative[: -len(".py")].split(os.sep)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _same_file(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _new_run(run: str) -> None:
    """A worker of a cluster of one's own outlives runs: a run it has not served yet loads
    its adapters, and the modules shipped beside them, afresh (as a new local worker would,
    and an edited target must), and adapters of runs older than the last ``KEEP_RUNS`` are
    forgotten."""
    with _UNPACK_LOCK:
        if run in _RUNS:
            return
        _RUNS.append(run)
        for name in _SHIPPED_NAMES:
            sys.modules.pop(name, None)
        while len(_RUNS) > KEEP_RUNS:
            tag = f" [{_RUNS.pop(0)}]"
            for loaded in (worker._SPECS, worker._REFUSED):
                for key in [k for k in loaded if k.endswith(tag)]:
                    del loaded[key]
            for target in [t for t in list(worker._TARGETS) if t[1] == tag]:
                del worker._TARGETS[target]


def _unpack(ship: Shipment, scratch: str) -> tuple[str, str | None]:
    """Make ``ship`` loadable in this worker process: the file target to load it by, and the
    folder of the shipped copy (None when the client's own files are here).  Its folder goes
    first on ``sys.path``: its neighbours are imported from there."""
    with _UNPACK_LOCK:
        if ship.digest not in _UNPACKED:
            attr = ship.target.rpartition(":")[2]
            folder = Path(ship.folder)
            found: tuple[str, str | None]
            if all(_same_file(folder / relative, data) for relative, data in ship.files):
                # the same files at the same place (a shared file system): load them there, as
                # the client did, so that the adapter finds what else lies beside them
                found = (ship.target, None)
            else:
                root = os.path.join(scratch, "dp-audit-targets", ship.digest)
                for relative, data in ship.files:
                    file = Path(root, relative)
                    file.parent.mkdir(parents=True, exist_ok=True)
                    partial = file.with_name(f".{file.name}.{os.getpid()}.part")
                    partial.write_bytes(data)
                    os.replace(partial, file)
                shipped = os.path.join(root, ship.files[0][0])
                # a pickle from the client may name the module it imported the file as
                for name in (ship.module, *ship.aliases):
                    _FINDER.files[name] = shipped
                if _FINDER not in sys.meta_path:
                    sys.meta_path.insert(0, _FINDER)
                found = (f"{shipped}:{attr}", root)
            _SHIPPED_NAMES.update(
                {ship.module, *ship.aliases, *(_module_name(r) for r, _ in ship.files[1:])}
            )
            _UNPACKED[ship.digest] = found
        found = _UNPACKED[ship.digest]
        root = found[1] or ship.folder
        if not sys.path or sys.path[0] != root:
            with contextlib.suppress(ValueError):
                sys.path.remove(root)
            sys.path.insert(0, root)
            importlib.invalidate_caches()
        return found


def run_on_cluster(version: str, run: str, shipments: dict[str, Shipment], packed: bytes) -> bytes:
    """Entry point of a task on an external cluster (``--scheduler``): check that this worker
    runs the client's dp-audit, make shipped targets loadable, then run the chunks
    (:func:`~auditor.engine.backends.worker.run_tasks_remote`) with the adapters loaded for
    this ``run``.

    The tasks come pickled (``packed``) so that they are unpickled only once the targets they
    may refer to can be imported; that time counts as loading the adapter.

    Raises:
        BackendUnavailable: this worker runs another version of dp-audit.
    """
    from distributed import get_worker

    this = get_worker()
    if _version() != version:
        raise BackendUnavailable(
            f"a Dask worker ({this.address}) runs dp-audit {_version()}, the client "
            f"{version}; install the same version on every worker"
        )
    key = str(this.get_current_task())
    worker._RUNNING[key] = (time.monotonic(), True)
    try:
        _new_run(run)
        places = {
            name: (ship, _unpack(ship, this.local_directory)) for name, ship in shipments.items()
        }
        tasks: list[Task] = pickle.loads(packed)  # noqa: S301 - pickled by this run's client
    finally:
        worker._RUNNING.pop(key, None)
    for i, task in enumerate(tasks):
        source = task.source
        if task.key in places and source is not None:
            source = dataclasses.replace(source, payload=places[task.key][1][0])
        # loaded once per run: a worker keeps adapters by this key
        tasks[i] = dataclasses.replace(task, key=f"{task.key} [{run}]", source=source)
    try:
        return run_tasks_remote(tasks)
    except DPAuditError as exc:
        # name the client's folder, not the shipped copy's, in what the report will say
        message = str(exc)
        for ship, (_, copy) in places.values():
            if copy is not None:
                message = message.replace(copy, ship.folder)
        if message == str(exc):
            raise
        raise type(exc)(message) from None
