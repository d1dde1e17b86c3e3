"""What every out-of-process backend shares: adapter sources, fallbacks, chunk tasks, errors.

A backend only has to run :class:`~auditor.engine.backends.worker.Task` s somewhere and hand back
futures.  This base class decides how each adapter reaches the workers (its target string,
else a cloudpickle of the object, else sampling stays in this process), cuts requests into the
chunks of :func:`auditor.engine.sampling.chunk_sizes`, and collects results in chunk order, so the
error reported for a request is the one of its first failing chunk whatever finished first.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from auditor.core.errors import AdapterLoadError, describe
from auditor.core.space import Configured
from auditor.core.spec import AdapterSpec
from auditor.core.trials import Event
from auditor.engine.backends.worker import AdapterSource, Task, fingerprint
from auditor.engine.sampling import (
    Counts,
    InProcessSampler,
    LazyCounts,
    OutputBuffer,
    chunk_entropy,
    count_events,
    request_chunks,
)

IN_PROCESS_NOTE = (
    "sampled in this process, not in a worker process ({why}): a hung call is abandoned after "
    "the timeout, and a crash would stop the whole audit"
)


def absolute_target(target: str) -> str:
    """``file.py:attr`` with the file made absolute, so that any worker finds it."""
    where, sep, attr = target.rpartition(":")
    if sep and (where.endswith(".py") or "/" in where):
        return f"{Path(where).resolve()}:{attr}"
    return target


@contextlib.contextmanager
def released(lock: Any) -> Iterator[None]:
    """Let other adapter threads run while this one waits for its workers."""
    if lock is None:
        yield
        return
    lock.release()
    try:
        yield
    finally:
        lock.acquire()


class _SentCounts:
    """Counts of requests whose chunks are on their way (:meth:`ChunkedSampler.start_counts`)."""

    def __init__(
        self,
        sampler: ChunkedSampler,
        spec: AdapterSpec,
        requests: Sequence[tuple[Any, int, int]],
        events: Sequence[Event],
        started: list[list[Any]],
    ) -> None:
        self.sampler, self.spec, self.requests, self.events = sampler, spec, requests, events
        self.started = started

    def wait(self, on_done: Callable[[int], None]) -> list[np.ndarray]:
        sampler, spec, started = self.sampler, self.spec, self.started
        totals = [np.zeros(len(self.events), dtype=np.int64) for _ in self.requests]
        for i, futures in enumerate(started):

            def add(part: np.ndarray, total: np.ndarray = totals[i]) -> None:
                total[:] += part

            try:
                finished = sampler._finish(spec, futures, consume=add)
            except BaseException:
                for later in started[i + 1 :]:
                    sampler._cancel(later)
                raise
            if not finished:  # the adapter fell back to this process: do the rest here
                for later in started[i + 1 :]:
                    sampler._cancel(later)
                rest = LazyCounts(sampler, spec, self.requests[i:], self.events)
                return totals[:i] + rest.wait(on_done)
            on_done(self.requests[i][1])
        return totals

    def discard(self) -> None:
        for futures in self.started:
            self.sampler._discard([f for f in futures if f is not None])


class ChunkedSampler:
    """Base of the process and Dask samplers; subclasses implement ``_submit`` and ``_cancel``."""

    def __init__(self, timeout: float | None, lock: threading.Lock | None = None) -> None:
        self.timeout = timeout
        self.lock = lock
        self._sources: dict[str, AdapterSource | None] = {}
        self._notes: dict[str, list[str]] = {}
        self._inline = InProcessSampler(timeout)

    # --- set-up -----------------------------------------------------------------------------

    def prepare(self, spec: AdapterSpec, target: str | None = None) -> None:
        """Decide how ``spec``'s adapter reaches the workers (call once per adapter)."""
        fp = fingerprint(spec)
        if target is not None:
            # a searched configuration: the target gives its base adapter, rebuilt in the worker
            configuration = (
                spec.adapter.configuration if isinstance(spec.adapter, Configured) else None
            )
            self._sources[spec.name] = AdapterSource(
                "target", absolute_target(target), spec.name, fp, tuple(sys.path), configuration
            )
            return
        try:
            import cloudpickle

            blob = cloudpickle.dumps(spec.adapter)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - anything that stops pickling
            self._in_process(spec, f"it cannot be pickled: {describe(exc)}")
            return
        self._sources[spec.name] = AdapterSource("pickle", blob, spec.name, fp, tuple(sys.path))

    def notes(self, name: str) -> tuple[str, ...]:
        """Notes for the report about how this adapter was sampled."""
        return tuple(self._notes.get(name, ()))

    def _note(self, name: str, text: str) -> None:
        if text not in self._notes.setdefault(name, []):
            self._notes[name].append(text)

    def _in_process(self, spec: AdapterSpec, why: str) -> None:
        self._sources[spec.name] = None
        self._note(spec.name, IN_PROCESS_NOTE.format(why=why))

    def close(self) -> None:
        """Stop the workers."""

    # --- backend hooks ----------------------------------------------------------------------

    def _submit(self, task: Task, label: str, pin: str | None) -> Any:
        raise NotImplementedError

    def _result(self, future: Any) -> Any:
        raise NotImplementedError

    def _cancel(self, futures: Sequence[Any]) -> None:
        """Stop these chunks, even running ones: their request has failed."""
        raise NotImplementedError

    def _discard(self, futures: Sequence[Any]) -> None:
        """Drop these chunks if not started; running ones finish and are ignored."""
        raise NotImplementedError

    def _flush(self) -> None:
        """Send chunks a backend holds back to group them (Dask); the rest send at once."""

    # --- the Sampler protocol ---------------------------------------------------------------

    def draw(self, spec: AdapterSpec, query: Any, n: int, entropy: int) -> np.ndarray:
        if spec.name not in self._sources:
            self.prepare(spec)
        if self._sources[spec.name] is None:
            return self._inline.draw(spec, query, n, entropy)
        buffer = OutputBuffer(n)
        if not self._finish(spec, self._start(spec, "draw", query, n, entropy), consume=buffer.add):
            return self._inline.draw(spec, query, n, entropy)
        return buffer.result(spec, query)

    def count(
        self, spec: AdapterSpec, query: Any, n: int, entropy: int, events: Sequence[Event]
    ) -> np.ndarray:
        if spec.name not in self._sources:
            self.prepare(spec)
        if self._sources[spec.name] is None:
            return self._inline.count(spec, query, n, entropy, events)
        try:
            import cloudpickle

            blob = cloudpickle.dumps(list(events))
        except Exception as exc:  # noqa: BLE001
            self._note(
                spec.name,
                f"events were counted in this process (they cannot be pickled: {type(exc).__name__})",
            )
            return count_events(events, self.draw(spec, query, n, entropy))
        key = hashlib.sha1(blob).hexdigest()
        total = np.zeros(len(events), dtype=np.int64)

        def add(part: np.ndarray) -> None:
            total[:] += part

        futures = self._start(spec, "count", query, n, entropy, key, blob)
        if not self._finish(spec, futures, consume=add):
            return self._inline.count(spec, query, n, entropy, events)
        return total

    def start_counts(
        self,
        spec: AdapterSpec,
        requests: Sequence[tuple[Any, int, int]],
        events: Sequence[Event],
    ) -> Counts:
        """Send the chunks of several ``(query, n, entropy)`` requests now; wait on them later.

        The same chunks and seeds as :meth:`count` for each request, so the same numbers;
        sending them ahead lets the workers run them while the caller is still busy (waiting
        for earlier requests, or deciding about their counts) instead of idling.
        """
        if spec.name not in self._sources:
            self.prepare(spec)
        try:
            import cloudpickle

            blob = cloudpickle.dumps(list(events))
        except Exception:  # noqa: BLE001 - count() notes and handles it, request by request
            blob = None
        if self._sources[spec.name] is None or blob is None:
            return LazyCounts(self, spec, requests, events)
        key = hashlib.sha1(blob).hexdigest()
        started = [self._start(spec, "count", q, n, e, key, blob) for q, n, e in requests]
        self._flush()
        return _SentCounts(self, spec, requests, events, started)

    def _start(
        self,
        spec: AdapterSpec,
        kind: str,
        query: Any,
        n: int,
        entropy: int,
        events_key: str | None = None,
        events_blob: bytes | None = None,
    ) -> list[Any]:
        """Submit the request's chunks (the same cut and seeds for every backend)."""
        source = self._sources[spec.name]
        pin = None if spec.many_copies else spec.name
        futures = []
        for i, size in enumerate(request_chunks(spec, query, n)):
            task = Task(
                kind,
                spec.name,
                source,
                query,
                size,
                chunk_entropy(entropy, i),
                events_key,
                events_blob,
            )
            futures.append(
                self._submit(task, f"adapter {spec.name!r}: sample(query, n={size})", pin)
            )
        return futures

    def _finish(
        self, spec: AdapterSpec, futures: list[Any], *, consume: Callable[[Any], None]
    ) -> bool:
        """Wait for submitted chunks in order; False when the adapter fell back in-process."""
        source = self._sources[spec.name]
        i = 0
        try:
            with released(self.lock):
                for i, future in enumerate(futures):
                    consume(self._result(future))
                    futures[i] = None  # let the chunk's outputs go
        except AdapterLoadError as exc:
            self._cancel([f for f in futures if f is not None])
            if source is not None and source.kind == "pickle" and i == 0:
                self._in_process(spec, f"a worker could not load its pickle: {exc}")
                return False
            raise
        except BaseException:
            self._cancel([f for f in futures if f is not None])
            raise
        return True
