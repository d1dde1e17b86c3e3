"""Drawing outputs from an adapter and holding them to the family's output contract.

This is the only place that calls ``adapter.sample`` (worker processes call it through here
too).  Whatever the adapter does wrong — raises, returns the wrong shape, NaN where none is
allowed, an index out of range — becomes one exception with a precise message, which the runner
records as an ``error`` verdict.

Chunks: a request for ``n`` outputs seeded with ``entropy`` is always cut into the same chunks
(:func:`chunk_sizes`, a function of ``n``, the adapter and its output width alone), and chunk ``i`` is drawn by one
``sample`` call after ``seed(chunk_entropy(entropy, i))``.  Every backend — in-process, local
worker processes, Dask — draws exactly these chunks, so a seedable adapter gives the same
outputs whatever the number of workers or the order in which chunks run.
"""

from __future__ import annotations

import copy
import math
import os
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeAlias, cast

import numpy as np

from auditor.core.errors import (
    AdapterContractError,
    AdapterOutputError,
    AdapterTimeout,
    EventError,
    adapter_code,
)
from auditor.core.kinds import InputKind, OutputProblem
from auditor.core.seeding import entropy as derive_entropy
from auditor.core.spec import AdapterSpec
from auditor.core.text import printable
from auditor.core.trials import Event

#: a request is cut into about this many chunks, so that workers can share it
TARGET_CHUNKS = 16
#: chunk size bounds for vectorised adapters (per-call overhead vs parallelism and memory)
MIN_CHUNK, MAX_CHUNK = 1 << 12, 1 << 18
#: chunk size bounds for adapters declaring ``vectorised = False`` (a Python loop per output)
MIN_CHUNK_LOOP, MAX_CHUNK_LOOP = 1 << 8, 1 << 10
#: most values (outputs x width) in one chunk: bounds memory for wide outputs (128 MB of floats)
CHUNK_VALUES = 1 << 24


class Sampler(Protocol):
    """How the engine obtains outputs; backends differ only in where the chunks run.

    The runner calls ``prepare`` once per adapter before any sampling, ``notes`` for each
    adapter's result, and ``close`` once at the end.  ``draw``, ``count`` and ``start_counts``
    raise a ``DPAuditError`` (``AdapterRaised``, ``AdapterOutputError``, ``AdapterTimeout``,
    ``AdapterCrashed``, ``EventError``) naming the adapter and the call.  ``timeout`` is the
    limit of one ``sample`` call in seconds (None: none), which white-box calls share.
    """

    timeout: float | None

    def prepare(self, spec: AdapterSpec, target: str | None = None) -> None:
        """Get ready to sample ``spec``'s adapter (``target``: where a worker can load it)."""
        ...

    def draw(self, spec: AdapterSpec, query: Any, n: int, entropy: int) -> np.ndarray:
        """``n`` checked outputs on ``query``."""
        ...

    def count(
        self, spec: AdapterSpec, query: Any, n: int, entropy: int, events: Sequence[Event]
    ) -> np.ndarray:
        """For each event, how many of ``n`` fresh outputs fall in it (int64 array)."""
        ...

    def start_counts(
        self,
        spec: AdapterSpec,
        requests: Sequence[tuple[Any, int, int]],
        events: Sequence[Event],
    ) -> Counts:
        """Start counting ``events`` on each ``(query, n, entropy)`` request; wait on it later.

        A backend with workers sends every chunk at once, so that the workers run this work
        while the caller decides about earlier counts; the counts are what :meth:`count` gives
        for each request (same chunks, same seeds), whichever way they are computed.
        """
        ...

    def notes(self, name: str) -> tuple[str, ...]:
        """Notes for the report about how adapter ``name`` was sampled."""
        ...

    def close(self) -> None:
        """Release workers and threads; the sampler is not used afterwards."""
        ...


class Counts(Protocol):
    """Event counts of several requests, possibly still being sampled (see :func:`start_counts`)."""

    def wait(self, on_done: Callable[[int], None]) -> list[np.ndarray]:
        """The counts of each request; ``on_done(n)`` as each request completes (progress)."""
        ...

    def discard(self) -> None:
        """Not needed after all: drop the chunks not yet started (none of them is counted)."""
        ...


class LazyCounts:
    """Counts sampled only when waited on: what a sampler that cannot work ahead gives."""

    def __init__(
        self,
        sampler: Sampler,
        spec: AdapterSpec,
        requests: Sequence[tuple[Any, int, int]],
        events: Sequence[Event],
    ) -> None:
        self.sampler, self.spec, self.requests, self.events = sampler, spec, requests, events

    def wait(self, on_done: Callable[[int], None]) -> list[np.ndarray]:
        out = []
        for query, n, entropy in self.requests:
            out.append(self.sampler.count(self.spec, query, n, entropy, self.events))
            on_done(n)
        return out

    def discard(self) -> None:
        pass


def chunk_sizes(n: int, vectorised: bool = True, width: int = 1) -> list[int]:
    """The sizes of the ``sample`` calls that make up a request for ``n`` outputs of
    ``width`` values each (a chunk holds at most ``CHUNK_VALUES`` values)."""
    lo, hi = (MIN_CHUNK, MAX_CHUNK) if vectorised else (MIN_CHUNK_LOOP, MAX_CHUNK_LOOP)
    hi = min(hi, max(1, CHUNK_VALUES // max(1, width)))
    lo = min(lo, hi)
    size = min(hi, max(lo, math.ceil(n / TARGET_CHUNKS)))
    full, rest = divmod(n, size)
    return [size] * full + ([rest] if rest else [])


def request_chunks(spec: AdapterSpec, query: Any, n: int) -> list[int]:
    """The chunk sizes of a request for ``n`` outputs of ``spec``'s adapter on ``query``."""
    return chunk_sizes(n, spec.vectorised, spec.output.width(spec.query_length(query)))


def chunk_entropy(entropy: int, index: int) -> int:
    """Seed of chunk ``index``; chunk 0 uses the request's own entropy."""
    return int(entropy) if index == 0 else derive_entropy(int(entropy), "chunk", index)


def check_outputs(spec: AdapterSpec, query: Any, n: int, raw: Any) -> np.ndarray:
    """Return ``raw`` as the canonical array of ``n`` outputs if it meets the adapter's
    output kind (``auditor.core.kinds``): one-dimensional for d = 1, else (n, d) or structured.

    Raises:
        AdapterOutputError: naming the adapter, the call and what was wrong.
    """
    try:
        return spec.output.conform(raw, n, spec.query_length(query))
    except OutputProblem as exc:
        where = f"adapter {spec.name!r}: sample(query, n={n})"
        raise AdapterOutputError(f"{where} {printable(str(exc))}") from None


#: the share of the memory available that the outputs an audit holds at once may take
MEMORY_SHARE = 0.25


def available_memory() -> int | None:
    """Bytes of memory available to this process now (Linux ``MemAvailable``), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(spec: AdapterSpec, query: Any, rows: int, holder: str) -> None:
    """Refuse, before any sampling, ``rows`` outputs on ``query`` held at once that would take
    more than ``MEMORY_SHARE`` of the memory available: such a run would swap for hours
    rather than fail (a million values per output at a budget of 2,000).

    Raises:
        AdapterOutputError: naming the adapter, the output size and the memory.
    """
    empty = spec.output.empty(spec.query_length(query))
    row = max(1, empty.dtype.itemsize * math.prod(empty.shape[1:]))
    free = available_memory()
    if free is None or rows * row <= free * MEMORY_SHARE:
        return
    raise AdapterOutputError(
        f"adapter {spec.name!r}: {holder} {rows:,} outputs of {row / 2**20:.3g} MiB each "
        f"({spec.output.label}: {rows * row / 2**30:.3g} GiB) at once, more than a quarter of "
        f"the {free / 2**30:.3g} GiB of memory available; nothing was sampled. Declare shorter "
        "outputs, or audit it where there is more memory"
    )


def sample_once(spec: AdapterSpec, query: Any, n: int, entropy: int) -> np.ndarray:
    """One ``sample`` call: seed (when seedable) with ``entropy``, draw ``n``, check.

    Raises:
        AdapterContractError: the call changed its query (a vector, a dataset) in place.
    """
    adapter = spec.adapter
    if spec.seedable:
        with adapter_code(f"adapter {spec.name!r}: seed"):
            adapter.seed(int(entropy))
    before = _snapshot(query)
    with adapter_code(f"adapter {spec.name!r}: sample"):
        raw = adapter.sample(query, n)
    if before is not None and not _same_input(before, query):
        what = "dataset" if spec.input.kind is InputKind.DATASET else "query"
        raise AdapterContractError(
            f"adapter {spec.name!r}: sample(query, n={n}) changed its {what} in place; every "
            f"input is sampled many times, so later outputs would come from another {what} "
            f"than the one audited: copy it first (np.array({what}), copy.deepcopy)"
        )
    return check_outputs(spec, query, n, raw)


def _snapshot(query: Any) -> Any:
    """A copy of a mutable query to compare after the call (None: immutable, nothing to do)."""
    if isinstance(query, np.ndarray):
        return query.copy()
    if isinstance(query, list | dict | tuple):
        return copy.deepcopy(query)
    return None


def _same_input(before: Any, after: Any) -> bool:
    """Whether the query is as it was (NaN equal to NaN, arrays element by element)."""
    if isinstance(before, np.ndarray):
        if not isinstance(after, np.ndarray) or before.shape != after.shape:
            return False
        if before.dtype == object:
            return all(
                _same_input(a, b) for a, b in zip(before.ravel(), after.ravel(), strict=True)
            )
        return before.dtype == after.dtype and same_outputs(before, after)
    if isinstance(before, list | tuple):
        return (
            type(before) is type(after)
            and len(before) == len(after)
            and all(_same_input(a, b) for a, b in zip(before, after, strict=True))
        )
    if isinstance(before, dict):
        return (
            isinstance(after, dict)
            and before.keys() == after.keys()
            and all(_same_input(before[k], after[k]) for k in before)
        )
    try:
        return bool(before == after) or (before != before and after != after)
    except (TypeError, ValueError):  # a value without a plain comparison: trust it
        return True


def same_outputs(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal outputs, NaN ("no answer") equal to NaN, field by field for records."""
    if a.dtype.names is not None:
        names = a.dtype.names
        return a.dtype == b.dtype and all(same_outputs(a[name], b[name]) for name in names)
    return bool(np.array_equal(a, b, equal_nan=np.issubdtype(a.dtype, np.floating)))


def distinct_outputs(outputs: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(values, multiplicities)`` of integer (or boolean) outputs, one value or a row each,
    that can take no more distinct values than there are outputs (indices, bits, small counts,
    answer patterns: the product of the columns' ranges is at most ``len(outputs)``); values
    ascending (rows in lexicographic order), in ``outputs``' dtype.  None for any other
    outputs.  Costs a pass per column and a ``bincount`` of one mixed-radix key per output."""
    outputs = np.asarray(outputs)
    if outputs.ndim not in (1, 2) or outputs.dtype.kind not in "biu" or outputs.size == 0:
        return None
    n = len(outputs)
    # in 64 bits, where ``value - lo`` cannot wrap (it is below ``len(outputs)``)
    wide = np.int64 if outputs.dtype.kind == "i" else np.uint64
    ints = outputs.view(np.uint8) if outputs.dtype.kind == "b" else outputs
    columns = ints.reshape(n, -1)  # as drawn: widened a column at a time (memory)
    lows = columns.min(axis=0).astype(wide)
    highs = columns.max(axis=0).astype(wide)
    spans = [int(hi) - int(lo) + 1 for lo, hi in zip(lows, highs, strict=True)]
    size = 1
    for span in spans:
        size *= span
        if size > n:
            return None
    keys = np.zeros(n, dtype=np.intp)
    for j, span in enumerate(spans):  # the first column most significant: keys sort rows
        keys = keys * span + (columns[:, j].astype(wide) - lows[j]).astype(np.intp)
    tally = np.bincount(keys, minlength=size)
    present = np.flatnonzero(tally)
    digits, rest = [], present
    for span in reversed(spans):
        digits.append(rest % span)
        rest = rest // span
    decoded = np.stack(digits[::-1], axis=1).astype(wide) + lows
    values = decoded.astype(outputs.dtype).reshape(len(present), *outputs.shape[1:])
    multiplicities: np.ndarray = tally[present].astype(np.int64)
    return values, multiplicities


def _row_chunks(outputs: np.ndarray) -> list[np.ndarray]:
    """``outputs`` in slices of at most ``CHUNK_VALUES`` values (one slice when they fit)."""
    rows = max(1, CHUNK_VALUES // max(1, math.prod(np.shape(outputs)[1:])))
    if len(outputs) <= rows:
        return [outputs]
    return [outputs[i : i + rows] for i in range(0, len(outputs), rows)]


def count_events(events: Sequence[Event], outputs: np.ndarray) -> np.ndarray:
    """How many ``outputs`` fall in each event.

    An event is a set of outputs (its predicate decides each output on its own), so on outputs
    with few distinct values (:func:`distinct_outputs`) each event is decided once per value and
    its count is the sum of the values' multiplicities: the same counts as deciding every
    output, without one pass over the outputs per event.

    Raises:
        EventError: an event's predicate failed (a fault of the attack, not of the adapter).
    """
    counts = np.zeros(len(events), dtype=np.int64)
    grouped = distinct_outputs(outputs)
    for j, event in enumerate(events):
        try:
            if grouped is None:  # a chunk at a time: an event may make floats of its rows
                counts[j] = sum(np.count_nonzero(event(part)) for part in _row_chunks(outputs))
            else:
                values, multiplicities = grouped
                counts[j] = int(multiplicities[event(values)].sum())
        except Exception as exc:  # noqa: BLE001 - reported as an error verdict
            raise EventError(
                f"event {event.description!r} raised {type(exc).__name__}: {exc}"
            ) from exc
    return counts


class OutputBuffer:
    """Chunks copied into one preallocated array as they arrive (no list plus concatenate,
    which would hold the outputs twice)."""

    def __init__(self, n: int) -> None:
        self.n, self.offset = n, 0
        self.out: np.ndarray | None = None

    def add(self, part: np.ndarray) -> None:
        if self.out is None:
            self.out = np.empty((self.n, *part.shape[1:]), dtype=part.dtype)
        elif part.dtype != self.out.dtype:
            self.out = self.out.astype(np.promote_types(self.out.dtype, part.dtype))
        self.out[self.offset : self.offset + len(part)] = part
        self.offset += len(part)

    def result(self, spec: AdapterSpec, query: Any) -> np.ndarray:
        return self.out if self.out is not None else spec.output.empty(spec.query_length(query))


def draw(spec: AdapterSpec, query: Any, n: int, entropy: int) -> np.ndarray:
    """Draw ``n`` checked outputs in this process, chunk by chunk (see the module docstring)."""
    buffer = OutputBuffer(n)
    for i, size in enumerate(request_chunks(spec, query, n)):
        buffer.add(sample_once(spec, query, size, chunk_entropy(entropy, i)))
    return buffer.result(spec, query)


#: what :class:`_CallThread` runs: the call, the box its outcome goes in, and the event set then
_CallJob: TypeAlias = tuple[Callable[[], Any], list[tuple[bool, Any]], threading.Event]


class _CallThread:
    """A daemon thread that runs one call at a time; abandoned (never joined) if a call hangs."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[_CallJob] = queue.SimpleQueue()
        thread = threading.Thread(target=self._loop, name="dp-audit-sample", daemon=True)
        thread.start()

    def _loop(self) -> None:
        while True:
            fn, box, done = self._jobs.get()
            try:
                box.append((True, fn()))
            except BaseException as exc:  # noqa: BLE001 - handed back to the caller
                box.append((False, exc))
            done.set()

    def call(self, fn: Callable[[], Any], timeout: float) -> tuple[bool, Any]:
        """``(finished, result)``; re-raises what ``fn`` raised."""
        box: list[tuple[bool, Any]] = []
        done = threading.Event()
        self._jobs.put((fn, box, done))
        if not done.wait(timeout):
            return False, None
        ok, value = box[0]
        if not ok:
            raise value
        return True, value


def call_with_timeout(fn: Callable[[], Any], timeout: float | None, where: str) -> Any:
    """``fn()`` given ``timeout`` seconds, for adapter code that must run in this process.

    Raises:
        AdapterTimeout: ``fn`` did not return in time; it is abandoned (a thread cannot be
            stopped) and keeps running in the background.
    """
    if timeout is None:
        return fn()
    finished, value = _CallThread().call(fn, timeout)
    if not finished:
        raise AdapterTimeout(
            f"{where} did not return within {timeout:g} s (it ran in this process: the call "
            "was abandoned, not stopped)"
        )
    return value


class InProcessSampler:
    """Samples in this process, chunk by chunk; the fallback and the Python API's default.

    With a ``timeout``, each ``sample`` call runs in a helper thread and a call that does not
    return in time is reported as ``AdapterTimeout``; the hung call cannot be stopped — it is
    abandoned and keeps a thread busy.  A crash of the adapter (``os._exit``, a segfault) stops
    the whole process: use worker processes (``auditor.engine.backends``) for isolation.
    """

    def __init__(self, timeout: float | None = None) -> None:
        self.timeout = timeout
        self._thread: _CallThread | None = None

    def _sample(self, spec: AdapterSpec, query: Any, n: int, entropy: int) -> np.ndarray:
        if self.timeout is None:
            return sample_once(spec, query, n, entropy)
        if self._thread is None:
            self._thread = _CallThread()
        finished, out = self._thread.call(
            lambda: sample_once(spec, query, n, entropy), self.timeout
        )
        if not finished:
            self._thread = None
            raise AdapterTimeout(
                f"adapter {spec.name!r}: sample(query, n={n}) did not return within "
                f"{self.timeout:g} s (sampled in-process: the call was abandoned, not stopped)"
            )
        return cast(np.ndarray, out)

    def draw(self, spec: AdapterSpec, query: Any, n: int, entropy: int) -> np.ndarray:
        buffer = OutputBuffer(n)
        for i, size in enumerate(request_chunks(spec, query, n)):
            buffer.add(self._sample(spec, query, size, chunk_entropy(entropy, i)))
        return buffer.result(spec, query)

    def count(
        self, spec: AdapterSpec, query: Any, n: int, entropy: int, events: Sequence[Event]
    ) -> np.ndarray:
        total = np.zeros(len(events), dtype=np.int64)
        for i, size in enumerate(request_chunks(spec, query, n)):
            total += count_events(
                events, self._sample(spec, query, size, chunk_entropy(entropy, i))
            )
        return total

    def start_counts(
        self,
        spec: AdapterSpec,
        requests: Sequence[tuple[Any, int, int]],
        events: Sequence[Event],
    ) -> Counts:
        return LazyCounts(self, spec, requests, events)  # one process: nothing runs ahead

    def prepare(self, spec: AdapterSpec, target: str | None = None) -> None:
        pass

    def notes(self, name: str) -> tuple[str, ...]:
        return ()

    def close(self) -> None:
        pass
