"""A pool of worker processes that can stop one hung or dead worker without losing the others.

``concurrent.futures.ProcessPoolExecutor`` breaks as a whole when one worker dies and cannot
stop one running task, so this small pool manages its processes itself: one dispatcher thread
hands tasks to workers (each holds the task it runs and the next, so it never waits for the
dispatcher), watches each worker's pipe and process sentinel (one sender thread per worker
writes to its pipe, so the dispatcher never blocks on a send and always reads results), kills a worker whose task passes
its deadline, and starts a fresh worker when one is gone; tasks waiting in a stopped worker's
pipe go back to the queue.

Deadlines: a task gets ``timeout`` seconds for its ``sample`` call; while the worker is still
starting or loading the adapter (the first task of an adapter on that worker) it gets
``load_timeout`` seconds, and the ``timeout`` clock starts when the worker reports the adapter
loaded.

Output: workers never write to the user's terminal.  Their stdout and stderr go to a log file
per worker (in a temporary folder removed at ``close``); when a worker crashes, or hangs and is
stopped (after being asked for its Python stacks), the end of what it wrote during the failed
task goes with the error (``adapter_traceback``) into the report.  Python warnings come back
over the pipe, for the caller's ``on_warning``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import shutil
import tempfile
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import replace
from multiprocessing.connection import wait
from typing import Any

import numpy as np

from auditor.core.errors import AdapterCrashed, AdapterTimeout
from auditor.engine.backends.pool_workers import Job, Slot, context, describe_exit
from auditor.engine.backends.worker import Task, error_from

#: tasks a worker holds at once: the one it runs and the next, already in its pipe, so that it
#: never waits for the dispatcher between two chunks
DEPTH = 2


def dispatch_order(queue: deque[Job]) -> list[Job]:
    """The order in which queued jobs are offered to workers: by priority, and within one
    priority round-robin over adapters (each adapter's first queued job, then each one's
    second, ...; submission order within an adapter), so that a cheap adapter's few chunks
    never wait behind the whole of another's long request.  Scheduling only: a job's seed is
    its own."""
    seen: dict[str, int] = {}
    ranked = []
    for i, job in enumerate(queue):
        turn = seen.get(job.task.key, 0)
        seen[job.task.key] = turn + 1
        ranked.append((job.priority, turn, i))
    order = sorted(range(len(ranked)), key=lambda i: ranked[i])
    return [queue[i] for i in order]


class ProcessPool:
    """``workers`` processes (started on demand) running :class:`Task` s with per-task deadlines."""

    def __init__(
        self,
        workers: int,
        timeout: float,
        load_timeout: float,
        start_method: str | None = None,
        on_warning: Callable[[str, str], None] | None = None,
    ) -> None:
        """``on_warning(task key, text)`` is called (on the dispatcher thread) for each Python
        warning a worker reports while it runs that task, before the task's result is set."""
        self.workers, self.timeout, self.load_timeout = workers, timeout, load_timeout
        self._on_warning = on_warning
        self._log_dir = tempfile.mkdtemp(prefix="dp-audit-workers-")
        #: removes the log folder at close, or when the pool is collected without a close
        self._remove_logs = weakref.finalize(self, shutil.rmtree, self._log_dir, True)
        self._ctx = context(start_method)
        self._lock = threading.Lock()
        self._queue: deque[Job] = deque()
        self._cancels: list[Future[np.ndarray]] = []
        self._slots: list[Slot] = []
        self._owner: dict[str, Slot] = {}
        self._lost: set[str] = set()
        self._started = 0
        self._closing = False
        self._wake_r, self._wake_w = multiprocessing.Pipe(duplex=False)
        self._thread = threading.Thread(target=self._loop, name="dp-audit-pool", daemon=True)
        self._thread.start()

    # --- called from any thread -------------------------------------------------------------

    def submit(
        self, task: Task, label: str, pin: str | None = None, priority: int = 0
    ) -> Future[np.ndarray]:
        """Queue ``task``; tasks of a smaller ``priority`` are handed to workers first (in the
        order they were submitted within one priority).  Priorities decide only when a task
        runs: its seed, and so its outputs, are fixed by the task itself."""
        future: Future[np.ndarray] = Future()
        with self._lock:
            if self._closing:
                raise RuntimeError("pool is closed")
            self._queue.append(Job(task, future, label, pin, priority))
        self._wake()
        return future

    def cancel(self, future: Future[np.ndarray]) -> None:
        """Drop a queued task, or stop the worker running it."""
        if future.done():
            return
        with self._lock:
            self._cancels.append(future)
        self._wake()

    def discard(self, futures: list[Future[np.ndarray]]) -> None:
        """Drop tasks that have not started; running ones finish and their results are ignored
        (stopping them would cost their workers, and an unseedable adapter its only copy)."""
        drop = {id(f) for f in futures}
        with self._lock:
            keep = deque(job for job in self._queue if id(job.future) not in drop)
            dropped = [job for job in self._queue if id(job.future) in drop]
            self._queue = keep
        for job in dropped:
            job.drop(AdapterCrashed(f"{job.label}: discarded"))

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
        jobs += [job for s in self._slots for job in s.jobs]
        for job in jobs:
            if not job.future.done():
                job.future.set_exception(
                    AdapterCrashed(
                        f"{job.label}: the worker pool failed: {type(exc).__name__}: {exc}"
                    )
                )

    def _apply_cancels(self, cancels: list[Future[np.ndarray]]) -> None:
        for future in cancels:
            with self._lock:
                for job in list(self._queue):
                    if job.future is future:
                        self._queue.remove(job)
                        job.drop(AdapterCrashed(f"{job.label}: cancelled"))
            for slot in list(self._slots):
                if slot.job is not None and slot.job.future is future:
                    self._fail(slot, AdapterCrashed(f"{slot.job.label}: cancelled"))
                elif any(job.future is future for job in slot.jobs) and not future.done():
                    # still in the worker's pipe: it will run, and its result is ignored
                    future.set_exception(AdapterCrashed("cancelled"))

    def _assign(self) -> None:
        with self._lock:
            jobs = dispatch_order(self._queue)
        reserved = self._reserve(jobs)
        for job in jobs:
            try:
                slot = self._slot_for(job, reserved)
            except Exception as exc:  # noqa: BLE001 - e.g. spawn refused; fail the job, not the pool
                with self._lock:
                    self._queue.remove(job)
                if job.start() and not job.future.done():
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
            if not job.start() or job.future.done():
                continue
            task = job.task
            if task.key in slot.loaded:
                task = replace(task, source=None)
            try:
                slot.send(task)  # queued for the slot's sender: a dead worker shows by its sentinel
            except Exception as exc:  # noqa: BLE001 - a task that cannot be pickled fails alone
                job.future.set_exception(
                    AdapterCrashed(f"{job.label}: could not be sent to a worker process: {exc}")
                )
                continue
            slot.jobs.append(job)
            if len(slot.jobs) == 1:
                slot.start_clock(self.timeout, self.load_timeout)
            if job.pin is not None:
                self._owner[job.pin] = slot

    def _reserve(self, jobs: list[Job]) -> Slot | None:
        """The worker an unseedable adapter's first job should get, while one waits.

        Such a job picks its worker for the whole run and needs an idle one: the worker with
        the least work for unseedable adapters already (its own jobs, and those queued for the
        adapters it holds), so that two long single-worker chains do not share one worker.  It
        takes no other new job until it is idle (at most ``DEPTH`` chunks); without that, a
        steady stream of other chunks could keep every worker busy and the adapter waiting
        until they run out.  None when no such job waits or a worker can still be started."""
        if len(self._slots) < self.workers or not any(
            job.pin is not None and job.pin not in self._owner and job.pin not in self._lost
            for job in jobs
        ):
            return None
        backlog = {id(slot): len(slot.jobs) for slot in self._slots}
        for job in jobs:
            owner = self._owner.get(job.pin) if job.pin is not None else None
            if owner is not None and id(owner) in backlog:
                backlog[id(owner)] += 1
        return min(self._slots, key=lambda slot: backlog[id(slot)])

    def _slot_for(self, job: Job, reserved: Slot | None = None) -> Slot | None:
        """The worker to send ``job`` to now, or None to keep it queued (``reserved``: see
        :meth:`_reserve`)."""
        if job.pin is not None and job.pin in self._lost:
            raise RuntimeError(
                "the worker process holding this adapter was stopped (another adapter hung or "
                "crashed it); the adapter has no seed(), so a fresh copy could replay its random "
                "stream and is not used"
            )
        if job.pin is not None and job.pin in self._owner:
            owner = self._owner[job.pin]
            usable = owner in self._slots and owner is not reserved
            return owner if usable and len(owner.jobs) < DEPTH else None
        if job.pin is not None and reserved is not None:
            return reserved if not reserved.jobs else None
        for slot in self._slots:
            if not slot.jobs and slot is not reserved:
                return slot
        if len(self._slots) < self.workers:
            slot = self._start_slot()
            self._slots.append(slot)
            return slot
        if job.pin is not None:
            # an unseedable adapter's first job picks its worker for the whole run: never one
            # whose running job might still hang or crash it
            return None
        for slot in self._slots:
            if len(slot.jobs) < DEPTH and slot is not reserved:
                return slot
        return None

    def _start_slot(self) -> Slot:
        """Start a worker; a fork server that fails to fork is retried, then replaced by spawn."""
        for attempt in range(3):
            self._started += 1
            try:
                return Slot(self._ctx, self._started, self._log_dir)
            except (OSError, EOFError):
                if attempt == 1 and self._ctx.get_start_method() != "spawn":
                    self._ctx = multiprocessing.get_context("spawn")
                time.sleep(0.1)
        self._started += 1
        return Slot(self._ctx, self._started, self._log_dir)

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
                slot.dump_stacks()
                stacks = slot.output()
                self._fail(
                    slot,
                    AdapterTimeout(
                        f"{what}; its worker process was stopped",
                        adapter_traceback=(
                            "Where the worker process was when it was stopped (its output "
                            f"during this call, stacks last):\n{stacks}"
                            if stacks
                            else None
                        ),
                    ),
                )

    def _handle(self, slot: Slot) -> None:
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
            if kind == "warn":
                if self._on_warning is not None:
                    with contextlib.suppress(Exception):
                        self._on_warning(job.task.key, message[1])
                continue
            if kind == "loaded":
                slot.loaded.add(job.task.key)
                slot.loading, slot.deadline = False, time.monotonic() + self.timeout
            elif kind in ("ok", "err"):
                # ("ok", result, log end) or ("err", class name, message, traceback, log end)
                slot.jobs.popleft()
                if kind == "ok":
                    slot.loaded.add(job.task.key)
                slot.finished(message[-1])
                slot.start_clock(self.timeout, self.load_timeout)  # the next one has started
                if job.future.done():  # cancelled while it waited in the pipe
                    continue
                if kind == "ok":
                    job.future.set_result(message[1])
                else:
                    job.future.set_exception(error_from(*message[1:4]))
        if slot in self._slots and not slot.process.is_alive():
            slot.process.join(1)
            code = slot.process.exitcode
            if slot.job is not None:
                during = " while loading the adapter" if slot.loading else ""
                output = slot.output()
                self._fail(
                    slot,
                    AdapterCrashed(
                        f"{slot.job.label} crashed its worker process{during} ({describe_exit(code)})",
                        adapter_traceback=(
                            f"What the worker process wrote during this call:\n{output}"
                            if output
                            else None
                        ),
                    ),
                )
            else:
                self._drop(slot)

    def _fail(self, slot: Slot, error: Exception) -> None:
        """Stop ``slot``'s worker; its running job gets ``error``, the jobs still waiting in
        its pipe go back to the front of the queue (they never started)."""
        job = slot.job
        waiting = [j for j in list(slot.jobs)[1:] if not j.future.done()]
        slot.jobs.clear()
        self._drop(slot)
        if job is not None and not job.future.done():
            job.future.set_exception(error)
        with self._lock:
            self._queue.extendleft(reversed(waiting))

    def _drop(self, slot: Slot) -> None:
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
            job.drop(AdapterCrashed(f"{job.label}: the audit stopped before it ran"))
        for slot in self._slots:
            if slot.job is None:
                with contextlib.suppress(OSError, ValueError):
                    slot.send(None)
        deadline = time.monotonic() + 2.0
        for slot in list(self._slots):
            if slot.job is None:
                slot.process.join(max(0.0, deadline - time.monotonic()))
            for job in slot.jobs:
                if not job.future.done():
                    # a running future cannot be cancelled; its waiter must still wake up
                    job.future.set_exception(
                        AdapterCrashed(f"{job.label}: the audit stopped before it returned")
                    )
            slot.kill()
        self._slots = []
        self._remove_logs()
