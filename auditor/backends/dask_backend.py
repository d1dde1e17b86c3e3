"""Sampling on a Dask cluster (``--backend dask [--scheduler ADDRESS]``).

Without a scheduler address a ``distributed.LocalCluster`` of ``workers`` processes (one thread
each) is started for the run and closed after it.  With an address, the run connects to that
scheduler; its workers need dp-audit installed and the adapters' targets importable (a
``file.py:attr`` target must exist at the same absolute path on every worker).

Tasks are the same seeded chunks as the local backend's, so results are identical.  Isolation
is weaker than locally: a crashed worker is reported (the scheduler is told to give up at once,
not to retry the task elsewhere, for the LocalCluster it starts), but a hung task can only be
abandoned and its worker asked to restart.  A task is timed out only after it has been seen
running for its whole allowance (``timeout`` per chunk), so a task queued behind another
adapter's hung task is not blamed for it.
"""

from __future__ import annotations

import contextlib
import logging
import math
import pickle
import threading
import time
from collections.abc import Sequence
from concurrent.futures import CancelledError
from typing import Any

from auditor.backends.chunked import ChunkedSampler
from auditor.backends.local import MIN_LOAD_TIMEOUT
from auditor.backends.worker import Task, executing_keys, installed_version, run_tasks_remote
from auditor.errors import AdapterCrashed, AdapterTimeout, InvalidArgument

#: the most outputs one Dask task samples (32 of the largest chunks)
GROUP_OUTPUTS = 1 << 23
#: each Dask task takes this share, per worker thread, of the chunks not yet sent
GROUPS_PER_THREAD = 1


class _Group:
    """One Dask task running several consecutive chunks; ``allowance``: the seconds it may run."""

    def __init__(self, future: Any, tasks: list[Task], allowance: float) -> None:
        self.future, self.tasks, self.allowance = future, tasks, allowance
        self.deadline = time.monotonic() + allowance
        self.results: list[Any] | None = None
        self.seen_running = False
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
        try:
            if scheduler is None:
                settings = {
                    "distributed.scheduler.allowed-failures": 0,
                    # the statistical profiler samples stacks every 10 ms and competes for the GIL
                    "distributed.worker.profile.enabled": False,
                    # Dask sets it (65536) to return freed memory to the system; setting it
                    # also turns off glibc's adaptive mmap threshold, so every chunk-sized
                    # array is mapped afresh: 45 % slower numpy sampling (docs/performance.md)
                    "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                }
                with dask.config.set(settings):
                    self._cluster = LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=logging.CRITICAL,
                    )
                self._client = Client(self._cluster)
            else:
                self._client = Client(scheduler, timeout="30s")
        except OSError as exc:
            if self._cluster is not None:
                self._cluster.close()
            raise InvalidArgument(
                f"scheduler={scheduler!r}: cannot connect to the Dask scheduler: {exc}"
            ) from None
        self._check_workers()
        self._threads = max(1, sum(self._client.nthreads().values()))
        self._warm: set[str] = set()
        self._local = threading.local()
        self._restarts = 0
        self._restart_lock = threading.Lock()

    def _check_workers(self) -> None:
        """Import dp-audit on every worker now, and refuse a cluster that runs another version."""
        try:
            found = self._client.run(installed_version)
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
        limit = math.inf if self.timeout is None else self.timeout
        start = 0
        while start < len(batch):
            size = min(
                largest, math.ceil((len(batch) - start) / (GROUPS_PER_THREAD * self._threads))
            )
            handles = batch[start : start + size]
            tasks = [h.task for h in handles]
            future = self._client.submit(run_tasks_remote, tasks, pure=False)
            allowance = limit * size + (0.0 if tasks[0].key in self._warm else MIN_LOAD_TIMEOUT)
            group = _Group(future, tasks, allowance)
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
                packed = self._wait(group)
                group.results = pickle.loads(packed)  # noqa: S301 - our workers' own pickle
            except KilledWorker:
                # every task queued on a worker that died is "killed": a worker this run
                # restarted (to stop another adapter's hung task) costs nothing, and of the
                # others only a task that kills a second worker is the culprit
                if self._restarts == group.restarts:
                    if group.retried:
                        raise AdapterCrashed(
                            f"{handle.label} crashed its Dask worker process (twice)"
                        ) from None
                    group.retried = True
                group.restarts = self._restarts
                group.future = self._client.submit(run_tasks_remote, group.tasks, pure=False)
                group.deadline = time.monotonic() + group.allowance
                group.seen_running = False
                return self._result(handle)
            except CancelledError:
                raise AdapterCrashed(
                    f"{handle.label}: its task was cancelled on the Dask cluster"
                ) from None
            except TimeoutError:
                self._abandon([handle])
                raise AdapterTimeout(
                    f"{handle.label} did not return within {self.timeout:g} s on the Dask "
                    "cluster; the task was cancelled and its worker asked to restart"
                ) from None
            self._warm.add(handle.task.key)
        return group.results[handle.position]

    def _wait(self, group: _Group) -> Any:
        """The group's result; TimeoutError only once it has run for its whole allowance.

        A deadline that passes while the task still waits for a worker (behind another
        adapter's chunks, or a hung task it must not be blamed for) is moved on; a task found
        running gets its allowance once more, since when it started is not known.
        """
        while True:
            try:
                # never 0: Dask then times out even on a finished future
                return group.future.result(timeout=max(0.05, group.deadline - time.monotonic()))
            except TimeoutError:
                if group.future.done():
                    return group.future.result()  # it finished as the wait ended
                try:
                    running = {
                        key for keys in self._client.run(executing_keys).values() for key in keys
                    }
                except Exception:  # noqa: BLE001 - cannot tell: count it as running
                    running = {str(group.future.key)}
                if str(group.future.key) in running:
                    if group.seen_running:
                        raise
                    group.seen_running = True
                group.deadline = time.monotonic() + group.allowance

    def _abandon(self, handles: Sequence[Any]) -> None:
        """Cancel these chunks' tasks, and restart the workers still running one of them (a
        thread cannot be stopped, and a hung one would hold its worker for the whole run)."""
        self._local.batch = []
        futures = list(
            {id(h.group.future): h.group.future for h in handles if h.group is not None}.values()
        )
        futures = [f for f in futures if not f.done()]
        if not futures:
            return
        keys = {str(f.key) for f in futures}
        try:
            running = self._client.run(executing_keys)
            self._client.cancel(futures)
            busy = [w for w, executing in running.items() if keys & set(executing)]
            if busy:
                with self._restart_lock:
                    self._restarts += 1
                self._client.restart_workers(busy, timeout=60)
        except Exception:  # noqa: BLE001 - best effort; the verdict is already decided
            pass

    def _cancel(self, handles: Sequence[Any]) -> None:
        self._abandon(handles)

    def _discard(self, handles: Sequence[Any]) -> None:
        futures = {id(h.group.future): h.group.future for h in handles if h.group is not None}
        with contextlib.suppress(Exception):  # best effort: the results are not needed
            self._client.cancel(list(futures.values()))

    def close(self) -> None:
        try:
            self._client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()
