"""Where sampling runs: in this process, in local worker processes, or on a Dask cluster.

Backends differ only in *where* the chunks of a request run (see ``auditor.sampling``); every
backend draws the same chunks with the same seeds, so a report does not depend on the backend
or the number of workers.  Backends are registered as ``module:attr`` strings, so that naming
one never imports Dask.
"""

from __future__ import annotations

import importlib
import math
import os
import threading
from dataclasses import dataclass
from typing import Any

from auditor.errors import InvalidArgument

#: seconds one ``sample`` call may take before the adapter is reported as hung
DEFAULT_TIMEOUT = 120.0
#: upper limit of ``--workers`` (a guard against typos, not a performance limit)
MAX_WORKERS = 1024
#: upper limit of ``--timeout`` (one week)
MAX_TIMEOUT = 7 * 24 * 3600.0

#: name -> "module:attr" of a sampler factory ``(engine, lock) -> sampler``
BACKENDS: dict[str, str] = {
    "local": "auditor.backends.local:LocalProcessSampler",
    "inline": "auditor.sampling:InProcessSampler",
    "dask": "auditor.backends.dask_backend:DaskSampler",
}


def default_workers() -> int:
    """The number of CPUs this process may use, at most 8 (each worker holds its adapters)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(8, cpus))


@dataclass(frozen=True)
class EngineConfig:
    """How the audit executes — never what it computes (reports do not depend on it).

    ``backend``: ``"local"`` (worker processes, isolated: a hang or crash costs one worker),
    ``"inline"`` (this process; no crash isolation) or ``"dask"``.  ``workers``: processes
    (local) or, for Dask, worker processes of the ``LocalCluster`` started when no
    ``scheduler`` is given; None means :func:`default_workers`.  ``timeout``: seconds per
    ``sample`` call, None for no limit.  ``scheduler``: a Dask scheduler address.
    """

    backend: str = "local"
    workers: int | None = None
    timeout: float | None = DEFAULT_TIMEOUT
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise InvalidArgument(f"backend={self.backend!r} is not one of: {', '.join(BACKENDS)}")
        w = self.workers
        if w is not None and (
            isinstance(w, bool) or not isinstance(w, int) or not 1 <= w <= MAX_WORKERS
        ):
            raise InvalidArgument(f"workers={w!r} must be an integer in [1, {MAX_WORKERS}]")
        t = self.timeout
        if t is not None and (
            isinstance(t, bool)
            or not isinstance(t, int | float)
            or not math.isfinite(t)
            or not 0 < t <= MAX_TIMEOUT
        ):
            raise InvalidArgument(
                f"timeout={t!r} must be a number of seconds in (0, {MAX_TIMEOUT:g}]"
            )
        if self.scheduler is not None:
            if self.backend != "dask":
                raise InvalidArgument(
                    f"scheduler={self.scheduler!r} needs backend='dask' (backend is {self.backend!r})"
                )
            if not isinstance(self.scheduler, str) or not self.scheduler.strip():
                raise InvalidArgument(
                    f"scheduler={self.scheduler!r} must be an address such as tcp://host:8786"
                )

    @property
    def n_workers(self) -> int:
        return self.workers if self.workers is not None else default_workers()

    @classmethod
    def in_process(cls, timeout: float | None = None) -> EngineConfig:
        """The Python API's default: this process, no isolation (the spine's behaviour)."""
        return cls(backend="inline", workers=1, timeout=timeout)


def open_sampler(engine: EngineConfig, lock: threading.Lock | None = None) -> Any:
    """A sampler for ``engine``; close it with ``.close()`` when it has one.

    Raises:
        InvalidArgument: the backend's library is missing or the scheduler is unreachable.
    """
    module_name, _, attr = BACKENDS[engine.backend].partition(":")
    if engine.backend == "inline":
        return getattr(importlib.import_module(module_name), attr)(engine.timeout)
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except ImportError as exc:
        raise InvalidArgument(
            f"backend {engine.backend!r} needs {exc.name or 'an optional library'}; install it with: "
            f"pip install 'dp-audit[{engine.backend}]'"
        ) from None
    if engine.backend == "dask":
        return factory(engine.n_workers, engine.timeout, lock, scheduler=engine.scheduler)
    return factory(engine.n_workers, engine.timeout, lock)
