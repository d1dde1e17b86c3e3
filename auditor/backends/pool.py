"""A pool of worker processes that can stop one hung or dead worker without losing the others.

``concurrent.futures.ProcessPoolExecutor`` breaks as a whole when one worker dies and cannot
stop one running task, so this small pool manages its processes itself: one dispatcher thread
hands tasks to idle workers, watches each worker's pipe and process sentinel, kills a worker
whose task passes its deadline, and starts a fresh worker when one is gone.

Deadlines: a task gets ``timeout`` seconds for its ``sample`` call; while the worker is still
starting or loading the adapter (the first task of an adapter on that worker) it gets
``load_timeout`` seconds, and the ``timeout`` clock starts when the worker reports the adapter
loaded.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection, wait
from typing import Any

from auditor.backends.worker import Task, error_from, worker_main
from auditor.errors import AdapterCrashed, AdapterTimeout


def _context(start_method: str | None) -> Any:
    """``forkserver`` where available, else ``spawn``: never plain ``fork`` (threads are running).

    The fork server imports the worker module once; each worker is then forked from it in
    milliseconds instead of re-importing numpy and scipy, and the user's ``__main__`` is never
    re-imported.
    """
    if start_method is None:
        start_method = (
            "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        )
    ctx = multiprocessing.get_context(start_method)
    if start_method == "forkserver":
        ctx.set_forkserver_preload(["auditor.backends.worker"])
    return ctx


def describe_exit(code: int | None) -> str:
    if code is None:
        return "it stopped responding"
    if code < 0:
        try:
            return f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


@dataclass
class _Job:
    task: Task
    future: Future
    label: str  # "adapter 'x': sample(query, n=...)" for messages
    pin: str | None  # run only on the worker that owns this key (unseedable adapters)


class _Slot:
    def __init__(self, ctx: Any, index: int) -> None:
        parent, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(
            target=worker_main, args=(child,), name=f"dp-audit-worker-{index}", daemon=True
        )
        self.process.start()
        child.close()
        self.conn: Connection = parent
        self.loaded: set[str] = set()
        self.job: _Job | None = None
        self.deadline = float("inf")
        self.loading = False

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()


class ProcessPool:
    """``workers`` processes (started on demand) running :class:`Task` s with per-task deadlines."""

    def __init__(
        self,
        workers: int,
        timeout: float,
        load_timeout: float,
        start_method: str | None = None,
    ) -> None:
        self.workers, self.timeout, self.load_timeout = workers, timeout, load_timeout
        self._ctx = _context(start_method)
        self._lock = threading.Lock()
        self._queue: deque[_Job] = deque()
        self._cancels: list[Future] = []
        self._slots: list[_Slot] = []
        self._owner: dict[str, _Slot] = {}
        self._lost: set[str] = set()
        self._started = 0
        self._closing = False
        self._wake_r, self._wake_w = multiprocessing.Pipe(duplex=False)
        self._thread = threading.Thread(target=self._loop, name="dp-audit-pool", daemon=True)
        self._thread.start()

    # --- called from any thread -------------------------------------------------------------

    def submit(self, task: Task, label: str, pin: str | None = None) -> Future:
        future: Future = Future()
        with self._lock:
            if self._closing:
                raise RuntimeError("pool is closed")
            self._queue.append(_Job(task, future, label, pin))
        self._wake()
        return future

    def cancel(self, future: Future) -> None:
        """Drop a queued task, or stop the worker running it."""
        if future.done():
            return
        with self._lock:
            self._cancels.append(future)
        self._wake()

    def discard(self, futures: list[Future]) -> None:
        """Drop tasks that have not started; running ones finish and their results are ignored
        (stopping them would cost their workers, and an unseedable adapter its only copy)."""
        drop = {id(f) for f in futures}
        with self._lock:
            keep = deque(job for job in self._queue if id(job.future) not in drop)
            dropped = [job for job in self._queue if id(job.future) in drop]
            self._queue = keep
        for job in dropped:
            job.future.cancel()

    def close(self) -> None:
        with self._lock:
            self._closing = True
        self._wake()
        self._thread.join(30)
        self._wake_r.close()
        self._wake_w.close()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send_bytes(b"!")

    # --- the dispatcher thread -------------------------------------------------------------

    def _loop(self) -> None:
        try:
            while True:
                with self._lock:
                    closing = self._closing
                    cancels, self._cancels = self._cancels, []
                if closing:
                    break
                self._apply_cancels(cancels)
                self._assign()
                self._wait_and_handle()
        except BaseException as exc:  # noqa: BLE001 - never leave a caller waiting forever
            self._fail_everything(exc)
        finally:
            self._shutdown()

    def _fail_everything(self, exc: BaseException) -> None:
        with self._lock:
            self._closing = True
            jobs, self._queue = list(self._queue), deque()
        jobs += [s.job for s in self._slots if s.job is not None]
        for job in jobs:
            if not job.future.done():
                job.future.set_exception(
                    AdapterCrashed(
                        f"{job.label}: the worker pool failed: {type(exc).__name__}: {exc}"
                    )
                )

    def _apply_cancels(self, cancels: list[Future]) -> None:
        for future in cancels:
            with self._lock:
                for job in list(self._queue):
                    if job.future is future:
                        self._queue.remove(job)
                        future.cancel()
            for slot in list(self._slots):
                if slot.job is not None and slot.job.future is future:
                    label = slot.job.label
                    slot.job = None
                    self._drop(slot)
                    if not future.done():
                        future.set_exception(AdapterCrashed(f"{label}: cancelled"))

    def _assign(self) -> None:
        with self._lock:
            jobs = list(self._queue)
        for job in jobs:
            try:
                slot = self._slot_for(job)
            except Exception as exc:  # noqa: BLE001 - e.g. spawn refused; fail the job, not the pool
                with self._lock:
                    self._queue.remove(job)
                if job.future.set_running_or_notify_cancel():
                    why = " ".join(str(exc).split())[:300]
                    job.future.set_exception(
                        AdapterCrashed(f"{job.label}: {why}")
                        if job.pin is not None and job.pin in self._lost
                        else AdapterCrashed(
                            f"{job.label}: could not start a worker process: "
                            f"{type(exc).__name__}: {why}"
                        )
                    )
                continue
            if slot is None:
                continue
            with self._lock:
                self._queue.remove(job)
            if not job.future.set_running_or_notify_cancel():
                continue
            task = job.task
            if task.key in slot.loaded:
                task = replace(task, source=None)
                slot.loading, slot.deadline = False, time.monotonic() + self.timeout
            else:
                slot.loading, slot.deadline = True, time.monotonic() + self.load_timeout
            slot.job = job
            if job.pin is not None:
                self._owner[job.pin] = slot
            try:
                slot.conn.send(task)
            except (OSError, ValueError) as exc:
                self._fail(
                    slot, AdapterCrashed(f"{job.label}: could not reach its worker process: {exc}")
                )

    def _slot_for(self, job: _Job) -> _Slot | None:
        if job.pin is not None and job.pin in self._lost:
            raise RuntimeError(
                "the worker process holding this adapter was stopped (another adapter hung or "
                "crashed it); the adapter has no seed(), so a fresh copy could replay its random "
                "stream and is not used"
            )
        if job.pin is not None and job.pin in self._owner:
            owner = self._owner[job.pin]
            return owner if owner in self._slots and owner.job is None else None
        for slot in self._slots:
            if slot.job is None:
                return slot
        if len(self._slots) < self.workers:
            slot = self._start_slot()
            self._slots.append(slot)
            return slot
        return None

    def _start_slot(self) -> _Slot:
        """Start a worker; a fork server that fails to fork is retried, then replaced by spawn."""
        for attempt in range(3):
            self._started += 1
            try:
                return _Slot(self._ctx, self._started)
            except (OSError, EOFError):
                if attempt == 1 and self._ctx.get_start_method() != "spawn":
                    self._ctx = multiprocessing.get_context("spawn")
                time.sleep(0.1)
        self._started += 1
        return _Slot(self._ctx, self._started)

    def _wait_and_handle(self) -> None:
        busy = [s for s in self._slots if s.job is not None]
        objects: list[Any] = [self._wake_r]
        for slot in self._slots:
            objects += [slot.conn, slot.process.sentinel]
        now = time.monotonic()
        timeout = min([s.deadline for s in busy] + [now + 1.0]) - now
        ready = wait(objects, max(0.0, timeout))
        if self._wake_r in ready:
            while self._wake_r.poll():
                self._wake_r.recv_bytes()
        for slot in list(self._slots):
            if slot.conn in ready or slot.process.sentinel in ready:
                self._handle(slot)
        now = time.monotonic()
        for slot in list(self._slots):
            if slot.job is not None and now >= slot.deadline:
                job = slot.job
                if slot.loading:
                    what = f"{job.label}: starting a worker process and loading the adapter did not finish within {self.load_timeout:g} s"
                else:
                    what = f"{job.label} did not return within {self.timeout:g} s"
                self._fail(slot, AdapterTimeout(f"{what}; its worker process was stopped"))

    def _handle(self, slot: _Slot) -> None:
        while slot in self._slots:
            try:
                if not slot.conn.poll():
                    break
                message = slot.conn.recv()
            except (EOFError, OSError):
                break
            kind = message[0]
            if kind == "ready":
                continue
            job = slot.job
            if job is None:
                continue
            if kind == "loaded":
                slot.loaded.add(job.task.key)
                slot.loading, slot.deadline = False, time.monotonic() + self.timeout
            elif kind == "ok":
                slot.loaded.add(job.task.key)
                slot.job, slot.deadline = None, float("inf")
                job.future.set_result(message[1])
            elif kind == "err":
                slot.job, slot.deadline = None, float("inf")
                job.future.set_exception(error_from(message[1], message[2]))
        if slot in self._slots and not slot.process.is_alive():
            slot.process.join(1)
            code = slot.process.exitcode
            if slot.job is not None:
                during = " while loading the adapter" if slot.loading else ""
                self._fail(
                    slot,
                    AdapterCrashed(
                        f"{slot.job.label} crashed its worker process{during} ({describe_exit(code)})"
                    ),
                )
            else:
                self._drop(slot)

    def _fail(self, slot: _Slot, error: Exception) -> None:
        job = slot.job
        slot.job = None
        self._drop(slot)
        if job is not None and not job.future.done():
            job.future.set_exception(error)

    def _drop(self, slot: _Slot) -> None:
        if slot in self._slots:
            self._slots.remove(slot)
        for key in [k for k, s in self._owner.items() if s is slot]:
            del self._owner[key]
            self._lost.add(key)
        slot.kill()

    def _shutdown(self) -> None:
        with self._lock:
            jobs, self._queue = list(self._queue), deque()
        for job in jobs:
            job.future.cancel()
        for slot in self._slots:
            if slot.job is None:
                with contextlib.suppress(OSError, ValueError):
                    slot.conn.send(None)
        deadline = time.monotonic() + 2.0
        for slot in list(self._slots):
            if slot.job is None:
                slot.process.join(max(0.0, deadline - time.monotonic()))
            if slot.job is not None and not slot.job.future.done():
                # a running future cannot be cancelled; its waiter must still wake up
                slot.job.future.set_exception(
                    AdapterCrashed(f"{slot.job.label}: the audit stopped before it returned")
                )
            slot.kill()
        self._slots = []
