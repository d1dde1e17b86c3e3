"""The default backend: chunks run in local worker processes (``--backend local``).

Each worker is a fresh process (forked from a clean fork server, or spawned) that loads adapters by their target and keeps
them, so an adapter that hangs or kills its process costs one worker — stopped and replaced —
and an ``error`` verdict, never the audit.  Workers print nothing on the terminal: the Python
warnings an adapter's code gives in them become notes on that adapter in the report.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from auditor.core.spec import AdapterSpec
from auditor.engine.backends.chunked import ChunkedSampler
from auditor.engine.backends.pool import ProcessPool
from auditor.engine.backends.worker import Task

#: a worker gets at least this long to start, import the adapter's library and load it
MIN_LOAD_TIMEOUT = 60.0

#: at most this many distinct warnings from worker processes are noted per adapter
MAX_WARNING_NOTES = 5
WARNING_NOTE = "a warning in a worker process while sampling: {text}"
MORE_WARNINGS_NOTE = (
    f"more warnings in worker processes while sampling (only the first {MAX_WARNING_NOTES} "
    "distinct ones are noted)"
)

#: the order in which queued chunks reach the workers (smaller first): an adapter without
#: ``seed()`` runs on one worker only (unless it declares ``os_entropy``), and such adapters
#: are the per-call libraries, so their chunks are the run's critical path and go first;
#: every other chunk can run on any worker and takes its turn round-robin over adapters (the
#: pool's ``_dispatch_order``).  Vectorised adapters are not put last: they need little worker
#: time but much of this process's (proposing events), which must overlap the per-call
#: adapters' sampling rather than follow it
PINNED, SHARED = 0, 1


def chunk_priority(spec: AdapterSpec) -> int:
    """Where ``spec``'s chunks stand in the local pool's queue (scheduling only)."""
    return SHARED if spec.seedable else PINNED


def load_timeout(timeout: float) -> float:
    """Seconds a worker may take to start and load an adapter: ``timeout``, at least
    ``MIN_LOAD_TIMEOUT`` (importing a library can take longer than one sample call)."""
    return max(timeout, MIN_LOAD_TIMEOUT)


class LocalProcessSampler(ChunkedSampler):
    """Samples in ``workers`` local processes; each ``sample`` call gets ``timeout`` seconds."""

    def __init__(
        self,
        workers: int,
        timeout: float | None,
        lock: threading.Lock | None = None,
        start_method: str | None = None,
    ) -> None:
        super().__init__(timeout, lock)
        limit = float("inf") if timeout is None else timeout
        self._warnings: dict[str, set[str]] = {}
        self._pool = ProcessPool(
            workers,
            limit,
            load_timeout(limit),
            start_method=start_method,
            on_warning=self._warned,
        )
        self._priority: dict[str, int] = {}

    def _warned(self, key: str, text: str) -> None:
        """A worker reported a Python warning while it ran a task of adapter ``key``."""
        seen = self._warnings.setdefault(key, set())
        if text in seen:
            return
        if len(seen) >= MAX_WARNING_NOTES:
            self._note(key, MORE_WARNINGS_NOTE)
            return
        seen.add(text)
        self._note(key, WARNING_NOTE.format(text=text))

    def prepare(self, spec: AdapterSpec, target: str | None = None) -> None:
        self._priority[spec.name] = chunk_priority(spec)
        super().prepare(spec, target)

    def _submit(self, task: Task, label: str, pin: str | None) -> Any:
        return self._pool.submit(task, label, pin, self._priority.get(task.key, SHARED))

    def _result(self, future: Any) -> Any:
        return future.result()

    def _cancel(self, futures: Sequence[Any]) -> None:
        for future in futures:
            self._pool.cancel(future)

    def _discard(self, futures: Sequence[Any]) -> None:
        self._pool.discard(list(futures))

    def close(self) -> None:
        self._pool.close()
