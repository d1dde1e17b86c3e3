"""The default backend: chunks run in local worker processes (``--backend local``).

Each worker is a fresh process (forked from a clean fork server, or spawned) that loads adapters by their target and keeps
them, so an adapter that hangs or kills its process costs one worker — stopped and replaced —
and an ``error`` verdict, never the audit.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from auditor.engine.backends.chunked import ChunkedSampler
from auditor.engine.backends.pool import ProcessPool
from auditor.engine.backends.worker import Task

#: a worker gets at least this long to start, import the adapter's library and load it
MIN_LOAD_TIMEOUT = 60.0


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
        self._pool = ProcessPool(workers, limit, load_timeout(limit), start_method=start_method)

    def _submit(self, task: Task, label: str, pin: str | None) -> Any:
        return self._pool.submit(task, label, pin)

    def _result(self, future: Any) -> Any:
        return future.result()

    def _cancel(self, futures: Sequence[Any]) -> None:
        for future in futures:
            self._pool.cancel(future)

    def _discard(self, futures: Sequence[Any]) -> None:
        self._pool.discard(list(futures))

    def close(self) -> None:
        self._pool.close()
