"""Sampling on a Dask cluster (``--backend dask [--scheduler ADDRESS]``).

Without a scheduler address a ``distributed.LocalCluster`` of ``workers`` processes (one thread
each) is started for the run and closed after it.  With an address, the run connects to that
scheduler; its workers need dp-audit installed and the adapters' targets importable (a
``file.py:attr`` target must exist at the same absolute path on every worker).

Tasks are the same seeded chunks as the local backend's, so results are identical.  Isolation
is weaker than locally: a crashed worker is reported (the scheduler is told to give up at once,
not to retry the task elsewhere, for the LocalCluster it starts), but a hung task can only be
abandoned and its worker asked to restart; the deadline of a task counts from its submission,
allowing for the tasks queued ahead of it.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Sequence
from typing import Any

from auditor.backends.chunked import ChunkedSampler
from auditor.backends.local import MIN_LOAD_TIMEOUT
from auditor.backends.worker import Task, run_task_remote
from auditor.errors import AdapterCrashed, AdapterTimeout, InvalidArgument


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
                with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
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
        self._threads = max(1, sum(self._client.nthreads().values()))
        self._warm: set[str] = set()
        self._pending = 0
        self._count_lock = threading.Lock()

    def _submit(self, task: Task, label: str, pin: str | None) -> Any:
        future = self._client.submit(run_task_remote, task, pure=False)
        return self._handle(future, task, label)

    def prepare(self, spec: Any, target: str | None = None) -> None:
        if not spec.seedable:
            # copies of an unseedable adapter on several workers could replay one random
            # stream and fake independent samples; Dask may move tasks between workers
            self._in_process(spec, "it has no seed(), and Dask may run its chunks on several copies")
            return
        super().prepare(spec, target)

    def _handle(self, future: Any, task: Task, label: str, retried: bool = False) -> Any:
        with self._count_lock:
            self._pending += 1
            ahead = self._pending
        future.add_done_callback(lambda _: self._done())
        limit = math.inf if self.timeout is None else self.timeout
        allowance = limit * math.ceil(ahead / self._threads)
        if task.key not in self._warm:
            allowance += MIN_LOAD_TIMEOUT
        return future, label, task, time.monotonic() + allowance, retried

    def _done(self) -> None:
        with self._count_lock:
            self._pending -= 1

    def _result(self, handle: Any) -> Any:
        from distributed import KilledWorker

        future, label, task, deadline, retried = handle
        try:
            result = future.result(timeout=max(0.0, deadline - time.monotonic()))
        except KilledWorker:
            # every task queued on a worker that died is "killed"; only a task that kills a
            # second worker is the culprit
            if retried:
                raise AdapterCrashed(f"{label} crashed its Dask worker process (twice)") from None
            again = self._client.submit(run_task_remote, task, pure=False)
            return self._result(self._handle(again, task, label, retried=True))
        except TimeoutError:
            self._abandon([handle])
            raise AdapterTimeout(
                f"{label} did not return within {self.timeout:g} s on the Dask cluster; "
                "the task was cancelled and its worker asked to restart"
            ) from None
        self._warm.add(task.key)
        return result

    def _abandon(self, handles: Sequence[Any]) -> None:
        futures = [h[0] for h in handles if not h[0].done()]
        if not futures:
            return
        keys = {f.key for f in futures}
        try:
            busy = [w for w, tasks in self._client.processing().items() if keys & set(tasks)]
            self._client.cancel(futures)
            if busy:
                self._client.restart_workers(busy, timeout=60)
        except Exception:  # noqa: BLE001 - best effort; the verdict is already decided
            pass

    def _cancel(self, handles: Sequence[Any]) -> None:
        self._abandon(handles)

    def close(self) -> None:
        try:
            self._client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()
