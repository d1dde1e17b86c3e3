"""Sampling on a Dask cluster (``--backend dask [--scheduler ADDRESS]``).

Without a scheduler address a ``distributed.LocalCluster`` of ``workers`` processes (one thread
each) is started for the run and closed after it.  With an address, the run connects to that
scheduler; its workers need dp-audit installed, in this process's version (checked at start,
and by every task, for workers that join later), and the libraries the adapters import.  They
need not share a file system with this process: a ``file.py:attr`` target travels with the
tasks, together with the modules and packages it imported from its own folder (see
:func:`shipment`); a worker loads them from the same path instead if it has identical files
there.  Built-in targets and ``module:attr`` targets are imported on the workers as installed.
Such workers outlive runs: each run loads its adapters on them afresh (:func:`run_on_cluster`).

Every call to an external cluster is bounded (``CONNECT_TIMEOUT``, ``CALL_TIMEOUT``,
``RESTART_TIMEOUT``): an unreachable scheduler is a usage error, a scheduler lost or silent
during the run ends the waiting adapters as ``error``, never a hang.

Tasks are the same seeded chunks as the local backend's, so results are identical.  Isolation
is weaker than locally: a crashed worker is reported (the scheduler is told to give up at once,
not to retry the task elsewhere, for the LocalCluster it starts), but a hung task can only be
abandoned and its worker asked to restart.  While it waits, the main process asks the workers
every second how long the awaited task's current chunk has run (``running_chunks``): a chunk
is timed out after ``timeout`` seconds as locally, and a task queued behind another adapter's
hung task is never blamed for it.  A call that holds the GIL silences its worker, which the
scheduler then restarts (the LocalCluster's worker-ttl); its workers hold only the task they
run, so a crash or restart takes no other adapter's task with it.  A cluster left without
workers ends the wait with an error.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import math
import os
import pickle
import site
import socket
import sys
import sysconfig
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from auditor.core.errors import (
    AdapterCrashed,
    AdapterTimeout,
    BackendUnavailable,
    DPAuditError,
    InvalidArgument,
    describe,
)
from auditor.engine.backends import worker
from auditor.engine.backends.chunked import ChunkedSampler
from auditor.engine.backends.local import load_timeout
from auditor.engine.backends.worker import Task, installed_version, run_tasks_remote, running_chunks

#: the most outputs one Dask task samples (32 of the largest chunks)
GROUP_OUTPUTS = 1 << 23
#: each Dask task takes this share, per worker thread, of the chunks not yet sent
GROUPS_PER_THREAD = 1
#: the most seconds a wait goes without asking the workers how long the task's chunk has run
PROBE_INTERVAL = 1.0
#: seconds to reach a scheduler given by address and to wait for its first worker
CONNECT_TIMEOUT = 30.0
#: the most seconds any other call to the cluster may take (asking the workers, cancelling,
#: closing); a scheduler that answers nothing for this long is given up
CALL_TIMEOUT = 30.0
#: seconds restarting the workers of a hung task may take
RESTART_TIMEOUT = 60.0
#: the most bytes of a file target's folder sent to the workers with its tasks
SHIP_LIMIT = 32 << 20

T = TypeVar("T")


class _Client(Protocol):
    """The methods of ``distributed.Client`` used here (Dask leaves most of them unannotated)."""

    def run(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...

    def submit(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any: ...

    def nthreads(self) -> dict[str, int]: ...

    def cancel(self, futures: list[Any]) -> Any: ...

    def restart_workers(self, workers: list[str], timeout: float) -> Any: ...

    def wait_for_workers(self, n_workers: int, timeout: float | None = None) -> None: ...

    def close(self) -> Any: ...


class _NoAnswer(Exception):
    """A call to the cluster did not return in time (not a ``TimeoutError``: that is a chunk's)."""


def _bounded(seconds: float, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``call(*args, **kwargs)``, given up after ``seconds``.

    The call runs in a daemon thread, so that a Dask call that never returns (a scheduler
    that stopped answering, a reconnecting client) cannot hold this one; it is left behind.

    Raises:
        _NoAnswer: the call had not returned after ``seconds``.
    """
    box: dict[str, Any] = {}
    done = threading.Event()

    def run() -> None:
        try:
            box["value"] = call(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="dp-audit-dask-call", daemon=True).start()
    if not done.wait(seconds):
        raise _NoAnswer(f"no answer within {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return cast(T, box["value"])


# --- shipping a file target to workers that do not share the file system --------------------


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


# --- connecting ---------------------------------------------------------------------------


def _connect(address: str) -> _Client:
    """A client of the scheduler at ``address``.

    Raises:
        InvalidArgument: it cannot be reached within ``CONNECT_TIMEOUT`` (refused at once).
    """
    from distributed import Client
    from distributed.comm.addressing import parse_address, parse_host_port

    where = f"cannot connect to the Dask scheduler {address!r}"
    try:
        scheme, location = parse_address(address)
        if scheme in ("tcp", "tls"):
            # Dask retries a refused connection until its timeout: ask the port once first
            host, port = parse_host_port(location, default_port=8786)
            socket.create_connection((host, port), timeout=CONNECT_TIMEOUT).close()
        # Dask's own timeout does not cover a scheduler that accepts and never answers
        client = _bounded(CONNECT_TIMEOUT, Client, address, timeout=f"{CONNECT_TIMEOUT:g}s")
    except _NoAnswer:
        raise InvalidArgument(f"{where}: no answer within {CONNECT_TIMEOUT:g} s") from None
    except (OSError, ValueError, TypeError) as exc:
        reason = (
            f"no answer within {CONNECT_TIMEOUT:g} s"
            if isinstance(exc, TimeoutError)
            else describe(exc)
        )
        raise InvalidArgument(f"{where}: {reason}") from None
    return cast(_Client, client)


class _Group:
    """One Dask task running several consecutive chunks."""

    def __init__(self, future: Any, tasks: list[Task]) -> None:
        self.future, self.tasks = future, tasks
        self.results: list[Any] | None = None
        self.retried = False
        #: the sampler's count of worker restarts when the task was (re)submitted
        self.restarts = 0


class _Handle:
    """One chunk of a request: its task, and the group it was sent in."""

    def __init__(self, task: Task, label: str) -> None:
        self.task, self.label = task, label
        self.group: _Group | None = None
        self.position = 0


class DaskSampler(ChunkedSampler):
    """Runs chunk tasks on a Dask cluster (a LocalCluster when ``scheduler`` is None)."""

    def __init__(
        self,
        workers: int,
        timeout: float | None,
        lock: threading.Lock | None = None,
        scheduler: str | None = None,
    ) -> None:
        import dask
        from distributed import Client, LocalCluster

        super().__init__(timeout, lock)
        self._cluster = None
        self._scheduler = scheduler
        #: names this run on the workers of a cluster of one's own (they outlive runs)
        self._run = uuid.uuid4().hex[:12]
        self._shipments: dict[str, Shipment] = {}
        self._shipped: dict[str, Shipment | None] = {}
        self._logs: list[tuple[logging.Logger, int]] = []
        try:
            if scheduler is None:
                settings = {
                    "distributed.scheduler.allowed-failures": 0,
                    # the statistical profiler samples stacks every 10 ms and competes for the GIL
                    "distributed.worker.profile.enabled": False,
                    # a worker holds only the task it runs (the others wait at the scheduler):
                    # when an adapter crashes or hangs a worker, no other adapter's task dies
                    # with it and is blamed (~4 % throughput at 1 worker, docs/performance.md)
                    "distributed.scheduler.worker-saturation": 1.0,
                    # event-loop ticks (20 ms), memory checks (100 ms) and dashboard metrics
                    # (500 ms) cost an idle 2-worker cluster 86 ms of CPU per second in all,
                    # 10 ms with these: CPU the chunks can use (docs/performance.md)
                    "distributed.admin.tick.interval": "1s",
                    "distributed.worker.memory.monitor-interval": "1s",
                    "distributed.admin.system-monitor.interval": "5s",
                    # Dask sets it (65536) to return freed memory to the system; setting it
                    # also turns off glibc's adaptive mmap threshold, so every chunk-sized
                    # array is mapped afresh: 45 % slower numpy sampling (docs/performance.md)
                    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                }
                if timeout is not None:
                    # a call that never releases the GIL (a C extension's loop) silences its
                    # worker, which cannot report its age: the scheduler restarts a worker
                    # silent this long (Dask's default is 5 minutes, checked as often)
                    settings["distributed.scheduler.worker-ttl"] = f"{load_timeout(timeout):g}s"
                with dask.config.set(settings):
                    self._cluster = LocalCluster(  # type: ignore[no-untyped-call,unused-ignore]  # Dask: unannotated
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=logging.CRITICAL,
                    )
                self._client: _Client = cast(_Client, Client(self._cluster))  # type: ignore[no-untyped-call,unused-ignore]  # Dask: unannotated
            else:
                # a lost scheduler is reported once per adapter, as its error: not as Dask's
                # tracebacks on the terminal (the LocalCluster's are silenced the same way)
                for name in ("distributed.client", "distributed.comm", "distributed.core"):
                    log = logging.getLogger(name)
                    self._logs.append((log, log.level))
                    log.setLevel(logging.CRITICAL)
                self._client = _connect(scheduler)
        except OSError as exc:
            if self._cluster is not None:
                self._cluster.close()
            self._restore_logs()
            raise InvalidArgument(
                f"scheduler={scheduler!r}: cannot connect to the Dask scheduler: {exc}"
            ) from None
        except BaseException:
            self._restore_logs()
            raise
        if scheduler is not None:
            self._wait_for_a_worker()
        self._check_workers()
        try:
            nthreads = _bounded(CALL_TIMEOUT, self._client.nthreads)
        except Exception as exc:  # noqa: BLE001 - _NoAnswer, or the connection lost
            self.close()
            raise InvalidArgument(
                f"the Dask scheduler {self._where()} did not say how many workers it has: "
                f"{describe(exc)}"
            ) from None
        self._threads = max(1, sum(nthreads.values()))
        self._local = threading.local()
        self._restarts = 0
        self._restart_lock = threading.Lock()

    def _wait_for_a_worker(self) -> None:
        """Give a scheduler without workers ``CONNECT_TIMEOUT`` seconds to get one."""
        try:
            _bounded(CONNECT_TIMEOUT + 5, self._client.wait_for_workers, 1, timeout=CONNECT_TIMEOUT)
        except Exception:  # noqa: BLE001 - Dask's TimeoutError, or _NoAnswer
            self.close()
            raise InvalidArgument(
                f"the Dask scheduler {self._scheduler!r} has no workers (waited "
                f"{CONNECT_TIMEOUT:g} s); start some with: dask worker {self._scheduler}"
            ) from None

    def _check_workers(self) -> None:
        """Import dp-audit on every worker now, and refuse a cluster that runs another version."""
        try:
            found = _bounded(CALL_TIMEOUT, self._client.run, installed_version)
        except _NoAnswer:
            self.close()
            raise InvalidArgument(
                f"the Dask workers did not answer within {CALL_TIMEOUT:g} s which dp-audit they run"
            ) from None
        except Exception as exc:  # noqa: BLE001 - e.g. ModuleNotFoundError on a worker
            self.close()
            raise InvalidArgument(
                f"the Dask workers cannot run dp-audit: {type(exc).__name__}: {exc}"
            ) from None
        mine = installed_version()
        other = sorted({v for v in found.values() if v != mine})
        if other:
            self.close()
            raise InvalidArgument(
                f"the Dask workers run dp-audit {', '.join(other)}, this process {mine}; "
                "install the same version on every worker"
            )

    def _submit(self, task: Task, label: str, pin: str | None) -> Any:
        # collected per thread and sent in groups at the first wait (see _flush)
        batch = getattr(self._local, "batch", None)
        if batch is None:
            batch = self._local.batch = []
        handle = _Handle(task, label)
        batch.append(handle)
        return handle

    def prepare(self, spec: Any, target: str | None = None) -> None:
        if not spec.seedable:
            # copies of an unseedable adapter on several workers could replay one random
            # stream and fake independent samples; Dask may move tasks between workers
            self._in_process(
                spec, "it has no seed(), and Dask may run its chunks on several copies"
            )
            return
        super().prepare(spec, target)
        source = self._sources.get(spec.name)
        if self._scheduler is None or source is None or source.kind != "target":
            return
        where = str(source.payload)
        if where not in self._shipped:
            try:
                self._shipped[where] = shipment(where)
            except (OSError, ValueError) as exc:
                self._shipped[where] = None
                self._note(
                    spec.name,
                    f"its target was not sent to the Dask workers ({describe(exc)}): they "
                    "load it from their own file system",
                )
        found = self._shipped[where]
        if found is not None:
            self._shipments[spec.name] = found

    def _connected(self, label: str) -> None:
        """Raise if the client has lost its scheduler (Dask then cancels every task)."""
        status = getattr(self._client, "status", "running")
        if status != "running":
            raise BackendUnavailable(
                f"{label}: lost the connection to the Dask scheduler {self._where()} "
                f"(client {status})"
            )

    def _where(self) -> str:
        scheduler = getattr(self, "_scheduler", None)
        return "of the LocalCluster" if scheduler is None else repr(scheduler)

    def _send(self, tasks: list[Task], label: str) -> Any:
        """Submit one group of chunks: as they are to the LocalCluster; to an external cluster
        with the version they need and the files of their file targets."""
        self._connected(label)
        try:
            if self._scheduler is None:
                return self._client.submit(run_tasks_remote, tasks, pure=False)
            shipments = {t.key: self._shipments[t.key] for t in tasks if t.key in self._shipments}
            import cloudpickle  # as Dask would: a query may need it

            packed = cloudpickle.dumps(tasks, protocol=pickle.HIGHEST_PROTOCOL)
            return self._client.submit(
                run_on_cluster, _version(), self._run, shipments, packed, pure=False
            )
        except DPAuditError:
            raise
        except Exception as exc:  # noqa: BLE001 - a closed client, say
            raise BackendUnavailable(
                f"{label}: cannot send its task to the Dask scheduler {self._where()}: "
                f"{describe(exc)}"
            ) from None

    def _flush(self) -> None:
        """Send this thread's pending chunks as Dask tasks of several chunks each.

        Guided sizes: each group takes ``1 / (GROUPS_PER_THREAD * threads)`` of the chunks still
        unsent (at most ``GROUP_OUTPUTS`` outputs), so the first tasks are large (few round
        trips, Dask costs a few ms per task) and the last ones small (the workers finish
        together, instead of one idling while another runs a large last group).
        """
        batch: list[_Handle] = getattr(self._local, "batch", None) or []
        self._local.batch = []
        if not batch:
            return
        largest = max(1, GROUP_OUTPUTS // max(h.task.n for h in batch))
        start = 0
        while start < len(batch):
            size = min(
                largest, math.ceil((len(batch) - start) / (GROUPS_PER_THREAD * self._threads))
            )
            handles = batch[start : start + size]
            tasks = [h.task for h in handles]
            group = _Group(self._send(tasks, handles[0].label), tasks)
            group.restarts = self._restarts
            for position, handle in enumerate(handles):
                handle.group, handle.position = group, position
            start += size

    def _result(self, handle: Any) -> Any:
        from distributed import KilledWorker

        if handle.group is None:
            self._flush()
        group = handle.group
        if group.results is None:
            try:
                packed = self._wait(group, handle.label)
                group.results = pickle.loads(packed)  # noqa: S301 - our workers' own pickle
            except KilledWorker:
                # every task queued on a worker that died is "killed": a worker this run
                # restarted (to stop another adapter's hung task) costs nothing, and of the
                # others only a task that kills a second worker is the culprit
                if self._restarts == group.restarts:
                    if group.retried:
                        raise AdapterCrashed(
                            f"{handle.label} crashed its Dask worker process, or held it "
                            "silent past the cluster's worker-ttl (twice)"
                        ) from None
                    group.retried = True
                group.restarts = self._restarts
                group.future = self._send(group.tasks, handle.label)
                return self._result(handle)
            except CancelledError as exc:
                if getattr(exc, "reason", None) == "scheduler-connection-lost":
                    raise BackendUnavailable(
                        f"{handle.label}: lost the connection to the Dask scheduler {self._where()}"
                    ) from None
                self._connected(handle.label)
                raise AdapterCrashed(
                    f"{handle.label}: its task was cancelled on the Dask cluster"
                ) from None
            except TimeoutError:
                self._abandon([handle])
                raise AdapterTimeout(
                    f"{handle.label} did not return within {self.timeout:g} s on the Dask "
                    "cluster; the task was cancelled and its worker asked to restart"
                ) from None
            except DPAuditError:
                raise
            except Exception as exc:  # noqa: BLE001 - Dask's own failures: the adapter's error
                raise BackendUnavailable(
                    f"{handle.label}: the Dask cluster failed its task: {describe(exc)}"
                ) from None
        return group.results[handle.position]

    def _wait(self, group: _Group, label: str) -> Any:
        """The group's result, asking the workers every ``PROBE_INTERVAL`` how long its current
        chunk has run (only if a timeout is set; else only whether the scheduler answers, every
        ``CALL_TIMEOUT`` seconds).

        Raises:
            TimeoutError: a chunk of the group has sampled for longer than ``timeout``, or
                loaded its adapter for longer than ``load_timeout(timeout)``, as in the local
                pool.  A task still waiting for a worker is never timed out: what
                holds it up is another task.
            BackendUnavailable: the cluster has had no worker for ``load_timeout(timeout)``
                seconds, the client lost its scheduler, or the scheduler has not answered for
                ``CALL_TIMEOUT`` seconds.
        """
        probe = PROBE_INTERVAL if self.timeout is None else min(PROBE_INTERVAL, self.timeout / 4)
        key = str(group.future.key)
        workerless_since = None
        asked = time.monotonic()
        while True:
            try:
                # never 0: Dask then times out even on a finished future
                return group.future.result(timeout=max(0.05, probe))
            except TimeoutError:
                if group.future.done():
                    return group.future.result()  # it finished as the wait ended
            self._connected(label)
            if self.timeout is None:
                # no chunk is timed out, but a scheduler that stopped answering is
                if time.monotonic() - asked >= CALL_TIMEOUT:
                    self._scheduler_answers(label)
                    asked = time.monotonic()
                continue
            try:
                found = _bounded(CALL_TIMEOUT, self._client.run, running_chunks)
            except _NoAnswer:
                # a worker held silent (a call that keeps the GIL: its worker-ttl ends it), or
                # the scheduler itself: only the latter is given up here
                self._scheduler_answers(label)
                continue
            except Exception:  # noqa: BLE001 - a worker restarting, say: ask again later
                continue
            now = time.monotonic()
            if not found:
                if workerless_since is None:
                    workerless_since = now
                waited = load_timeout(self.timeout)
                if now - workerless_since >= waited:
                    raise BackendUnavailable(
                        f"{label}: the Dask cluster has had no workers for {waited:g} s"
                    )
                continue
            workerless_since = None
            for chunks in found.values():
                if key in chunks:
                    age, loading = chunks[key]
                    if age > (load_timeout(self.timeout) if loading else self.timeout):
                        raise TimeoutError

    def _scheduler_answers(self, label: str) -> None:
        """Raise unless the scheduler answers a question of its own within ``CALL_TIMEOUT``."""
        try:
            _bounded(CALL_TIMEOUT, self._client.nthreads)
        except _NoAnswer:
            raise BackendUnavailable(
                f"{label}: the Dask scheduler {self._where()} did not answer within "
                f"{CALL_TIMEOUT:g} s"
            ) from None
        except Exception:  # noqa: BLE001 - it answered, with an error: not silent
            self._connected(label)

    def _abandon(self, handles: Sequence[Any]) -> None:
        """Cancel these chunks' tasks, and restart the workers still running one of them (a
        thread cannot be stopped, and a hung one would hold its worker for the whole run)."""
        self._local.batch = []
        futures = list(
            {id(h.group.future): h.group.future for h in handles if h.group is not None}.values()
        )
        futures = [f for f in futures if not f.done()]
        if not futures or getattr(self._client, "status", "running") != "running":
            return
        keys = {str(f.key) for f in futures}
        try:
            running = _bounded(CALL_TIMEOUT, self._client.run, running_chunks)
            _bounded(CALL_TIMEOUT, self._client.cancel, futures)
            busy = [w for w, executing in running.items() if keys & executing.keys()]
            if busy:
                with self._restart_lock:
                    self._restarts += 1
                _bounded(
                    RESTART_TIMEOUT + 5,
                    self._client.restart_workers,
                    busy,
                    timeout=RESTART_TIMEOUT,
                )
        except Exception:  # noqa: BLE001 - best effort; the verdict is already decided
            pass

    def _cancel(self, handles: Sequence[Any]) -> None:
        self._abandon(handles)

    def _discard(self, handles: Sequence[Any]) -> None:
        futures = {id(h.group.future): h.group.future for h in handles if h.group is not None}
        if futures and getattr(self._client, "status", "running") == "running":
            with contextlib.suppress(Exception):  # best effort: the results are not needed
                _bounded(CALL_TIMEOUT, self._client.cancel, list(futures.values()))

    def _restore_logs(self) -> None:
        for log, level in getattr(self, "_logs", ()):
            log.setLevel(level)

    def close(self) -> None:
        """Close the client (and the LocalCluster); never raises, never waits for ever."""
        try:
            with contextlib.suppress(Exception):
                _bounded(CALL_TIMEOUT, self._client.close)
            if self._cluster is not None:
                with contextlib.suppress(Exception):
                    _bounded(RESTART_TIMEOUT, self._cluster.close)
        finally:
            self._restore_logs()
