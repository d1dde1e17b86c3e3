"""Where sampling runs: in this process, in local worker processes, or on a Dask cluster.

Backends differ only in *where* the chunks of a request run (see ``auditor.engine.sampling``); every
backend draws the same chunks with the same seeds, so a report does not depend on the backend
or the number of workers.  Backends are registered as ``module:attr`` strings, so that naming
one never imports Dask.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import cast

from auditor.core.configs import BACKEND_NAMES, EngineConfig
from auditor.core.errors import InvalidArgument
from auditor.engine.sampling import Sampler

#: backend name -> "module:attr" of a sampler factory ``(engine, lock) -> sampler``
BACKENDS: dict[str, str] = {
    "local": "auditor.engine.backends.local:LocalProcessSampler",
    "inline": "auditor.engine.sampling:InProcessSampler",
    "dask": "auditor.engine.backends.dask_backend:DaskSampler",
}
assert tuple(BACKENDS) == BACKEND_NAMES


def open_sampler(engine: EngineConfig, lock: threading.Lock | None = None) -> Sampler:
    """A sampler for ``engine``; close it with ``.close()``.

    Raises:
        InvalidArgument: the backend's library is missing or the scheduler is unreachable.
    """
    module_name, _, attr = BACKENDS[engine.backend].partition(":")
    if engine.backend == "inline":
        inline = cast(
            Callable[[float | None], Sampler], getattr(importlib.import_module(module_name), attr)
        )
        return inline(engine.timeout)
    try:
        factory = cast(Callable[..., Sampler], getattr(importlib.import_module(module_name), attr))
    except ImportError as exc:
        raise InvalidArgument(
            f"backend {engine.backend!r} needs {exc.name or 'an optional library'}; install it with: "
            f"pip install 'dp-audit[{engine.backend}]'"
        ) from None
    if engine.backend == "dask":
        return factory(engine.n_workers, engine.timeout, lock, scheduler=engine.scheduler)
    return factory(engine.n_workers, engine.timeout, lock)
