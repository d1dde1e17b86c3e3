"""One worker process of :class:`~auditor.engine.backends.pool.ProcessPool`: how it is started
(the fork server and what it preloads), the jobs it holds, its pipe and sender thread, its log
file and deadline, and how it is stopped.  The pool's dispatcher (``pool.py``) decides which
slot runs what; a slot only carries it out.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np

from auditor.core.errors import TRACEBACK_CHARS, cap_text
from auditor.engine.backends.worker import Task, worker_main

#: modules every worker needs: the worker itself and those events' predicates are pickled from
FORKSERVER_PRELOAD = (
    "auditor.engine.backends.worker",
    "auditor.statistics.events.bit_events",
    "auditor.statistics.events.classifier_events",
    "auditor.statistics.events.event_selection",
    "auditor.statistics.events.histogram_events",
    "auditor.statistics.events.vector_events",
)


def context(start_method: str | None) -> Any:
    """``forkserver`` where available, else ``spawn``: never plain ``fork`` (threads are running).

    The fork server imports the worker module and the event modules (every certification
    unpickles its events in the workers) once; each worker is then forked from it in
    milliseconds instead of importing them again.  Python still re-runs the top level of the
    user's main script in each worker (3.11's fork server never receives its path), so a
    script that drives audits keeps heavy imports out of its top level.
    """
    if start_method is None:
        start_method = (
            "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        )
    ctx = multiprocessing.get_context(start_method)
    if start_method == "forkserver":
        ctx.set_forkserver_preload(list(FORKSERVER_PRELOAD))
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


#: a worker's log file is emptied when a task starts once it is larger than this (bytes)
LOG_LIMIT = 1 << 20
#: longest wait for a hung worker to write its stacks before it is stopped (s)
STACK_WAIT = 0.5
#: tells a worker's sender thread to stop
_STOP = object()


@dataclass
class Job:
    task: Task
    future: Future[np.ndarray]
    label: str  # "adapter 'x': sample(query, n=...)" for messages
    pin: str | None  # run only on the worker that owns this key (unseedable adapters)
    #: smaller runs first (FIFO within a priority); see :meth:`ProcessPool.submit`
    priority: int = 0
    #: its future is marked running: it was sent to a worker, and may be back in the queue
    #: because that worker was stopped before it started
    started: bool = False

    def start(self) -> bool:
        """Mark the future running; False if it was cancelled while queued."""
        self.started = self.started or self.future.set_running_or_notify_cancel()
        return self.started

    def drop(self, error: Exception) -> None:
        """Resolve a job that will not run: cancelled, or ``error`` once it has started."""
        if not self.started:
            self.future.cancel()
        elif not self.future.done():
            self.future.set_exception(error)


class Slot:
    def __init__(self, ctx: Any, index: int, log_dir: str) -> None:
        #: the worker's stdout and stderr; ``mark``: its size when the running job started
        self.log = os.path.join(log_dir, f"worker-{index}.log")
        self.mark = 0
        with open(self.log, "wb"):
            pass
        parent, child = ctx.Pipe(duplex=True)
        self.process = ctx.Process(
            target=worker_main,
            args=(child, self.log),
            name=f"dp-audit-worker-{index}",
            daemon=True,
        )
        self.process.start()
        child.close()
        self.conn: Connection = parent
        self.loaded: set[str] = set()
        #: sent to the worker, in order; the first is running, the others wait in its pipe
        self.jobs: deque[Job] = deque()
        self.deadline = float("inf")
        self.loading = False
        #: messages for the worker, written by the sender thread: a task larger than the
        #: pipe's buffer blocks its writer until the worker reads it, and the worker reads
        #: only after sending its running task's result.  Were the dispatcher the writer, it
        #: would not read that result meanwhile (each side waits for the other, and no
        #: deadline fires); so it only queues the message here and goes on reading.
        self._outbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._sender = threading.Thread(
            target=self._send_loop, name=f"dp-audit-send-{index}", daemon=True
        )
        self._sender.start()

    def send(self, message: Any) -> None:
        """Queue ``message`` for the worker; pickled here, so one that cannot be pickled
        raises now (the worker reads it as if sent with ``Connection.send``)."""
        self._outbox.put(bytes(ForkingPickler.dumps(message)))

    def _send_loop(self) -> None:
        while (data := self._outbox.get()) is not _STOP:
            try:
                self.conn.send_bytes(data)
            except Exception:  # noqa: BLE001 - the worker is gone; its sentinel says so
                return

    @property
    def job(self) -> Job | None:
        """The job the worker is running."""
        return self.jobs[0] if self.jobs else None

    def start_clock(self, timeout: float, load_timeout: float) -> None:
        """The running job's deadline, from now: longer while its adapter is not loaded."""
        job = self.job
        if job is None:
            self.loading, self.deadline = False, float("inf")
        elif job.task.key in self.loaded:
            self.loading, self.deadline = False, time.monotonic() + timeout
        else:
            self.loading, self.deadline = True, time.monotonic() + load_timeout

    def finished(self, end: Any) -> None:
        """The running job returned; ``end`` is the size of the log then, as the worker saw it:
        what the worker writes from there on belongs to its next job."""
        if isinstance(end, int) and end >= 0:
            self.mark = end
        if self.mark > LOG_LIMIT:  # the worker appends: it goes on at the new end
            with contextlib.suppress(OSError):
                os.truncate(self.log, 0)
            self.mark = 0

    def _log_size(self) -> int:
        try:
            return os.path.getsize(self.log)
        except OSError:
            return 0

    def output(self) -> str | None:
        """What the worker wrote since its running job started (the end of it, made printable),
        or None if nothing."""
        size = self._log_size()
        start = max(self.mark, size - 4 * TRACEBACK_CHARS)
        if size <= start:
            return None
        try:
            with open(self.log, "rb") as f:
                f.seek(start)
                data = f.read(size - start)
        except OSError:
            return None
        text = data.decode("utf-8", errors="replace").strip()
        return cap_text(text) if text else None

    def dump_stacks(self) -> None:
        """Ask a hung worker for every thread's Python stack (written to its log) and wait a
        moment for it; C code that holds the GIL does not stop it (faulthandler)."""
        pid = self.process.pid
        if not hasattr(signal, "SIGUSR1") or pid is None or not self.process.is_alive():
            return
        before = self._log_size()
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGUSR1)
        end = time.monotonic() + STACK_WAIT
        size = before
        while time.monotonic() < end:
            time.sleep(0.05)
            now = self._log_size()
            if now > before and now == size:  # written, and no longer growing
                return
            size = now

    def kill(self) -> None:
        self._outbox.put(_STOP)
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self._sender.join(5)  # a send to the stopped worker fails at once; then close the pipe
        self.conn.close()
        with contextlib.suppress(OSError):
            os.unlink(self.log)
