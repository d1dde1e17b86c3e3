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
import logging
import math
import pickle
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError
from typing import Any, Protocol, TypeVar, cast

from auditor.core.errors import (
    AdapterCrashed,
    AdapterTimeout,
    BackendUnavailable,
    DPAuditError,
    InvalidArgument,
    describe,
)
from auditor.engine.backends.chunked import ChunkedSampler
from auditor.engine.backends.dask_shipping import Shipment, _version, run_on_cluster, shipment
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


class Group:
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
        self.group: Group | None = None
        self.position = 0


def _cluster_settings(timeout: float | None) -> dict[str, Any]:
    """Dask's settings for the LocalCluster a run starts: no retries, no profiler, one task
    per worker, slower housekeeping ticks (each setting says why)."""
    settings: dict[str, Any] = {
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
    return settings


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
                settings = _cluster_settings(timeout)
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
        if not spec.many_copies:
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
            group = Group(self._send(tasks, handles[0].label), tasks)
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

    def _wait(self, group: Group, label: str) -> Any:
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
