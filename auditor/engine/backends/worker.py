"""What runs inside a worker process (local or Dask): load adapters by source, run chunk tasks.

A worker receives an adapter's *source* — the target string it was loaded from, or a pickle of
the object — never the main process's object itself, loads it once and keeps it.  The loaded
adapter must match the main process's (name, family, claim, neighbourhood): a target that builds
something else in a fresh process is an error, not a silent substitution.
"""

from __future__ import annotations

import contextlib
import faulthandler
import multiprocessing
import os
import pickle
import signal
import sys
import threading
import time
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, TypeAlias, cast

import numpy as np

from auditor.core import errors
from auditor.core.errors import (
    AdapterContractError,
    AdapterLoadError,
    DPAuditError,
    adapter_code,
    describe,
    format_traceback,
)
from auditor.core.spec import AdapterSpec, adapter_label, check_adapter
from auditor.core.text import printable
from auditor.core.trials import Event
from auditor.engine.sampling import count_events, same_outputs, sample_once

#: how many distinct event lists a worker keeps unpickled
EVENT_CACHE = 8

#: (name, family, epsilon, delta, sensitivity, domain, neighbours, integer_queries, seedable,
#: os_entropy)
Fingerprint: TypeAlias = tuple[
    str, str, str, str, float | None, tuple[float, float] | None, str | None, bool, bool, bool
]


def fingerprint(spec: AdapterSpec) -> Fingerprint:
    """What must agree between the main process's adapter and a worker's copy."""
    return (
        spec.name,
        spec.kind_label,
        # as declared (a run's --claim replaces the main process's claim only)
        repr(getattr(spec.adapter, "epsilon", None)),
        repr((getattr(spec.adapter, "delta", None), getattr(spec.adapter, "claim", None))),
        spec.sensitivity,
        spec.domain,
        spec.neighbours,
        spec.integer_queries,
        spec.seedable,
        spec.os_entropy,
    )


@dataclass(frozen=True)
class AdapterSource:
    """How a worker obtains an adapter: ``kind`` is ``"target"`` (payload: the target string)
    or ``"pickle"`` (payload: a cloudpickle of the object)."""

    kind: str
    payload: str | bytes
    name: str
    fingerprint: Fingerprint
    #: the main process's ``sys.path`` when the adapter was prepared (a long-lived fork
    #: server may have started before the user's folders were added)
    sys_path: tuple[str, ...] = ()
    #: a searched configuration (``{"adapter": base name, "parameters": {...}}``): the target
    #: gives its base adapter, which the worker rebuilds there with ``with_parameters``
    configuration: dict[str, Any] | None = None


@dataclass(frozen=True)
class Task:
    """One ``sample`` call of ``n`` outputs; ``kind`` is ``"draw"`` (return the outputs) or
    ``"count"`` (return event counts).  ``source`` may be None once the worker has the adapter."""

    kind: str
    key: str
    source: AdapterSource | None
    query: Any
    n: int
    entropy: int
    events_key: str | None = None
    events_blob: bytes | None = None


_SPECS: dict[str, AdapterSpec] = {}
#: adapters refused after loading (their seed does not replay, or the check's draw failed),
#: with the error to raise again for every later task of theirs
_REFUSED: dict[str, DPAuditError] = {}
_EVENTS: OrderedDict[str, list[Event]] = OrderedDict()
#: the adapters each target gave, per (target, run tag): a target naming several adapters (the
#: built-in groups, a user's list) is loaded once per worker and run, not once per adapter
_TARGETS: dict[tuple[str, str], list[Any]] = {}


def load(key: str, source: AdapterSource | None) -> tuple[AdapterSpec, bool]:
    """The adapter for ``key`` and whether it was loaded just now (then the caller checks it
    and keeps it in ``_SPECS``).

    Raises:
        AdapterLoadError: the source does not give back the same adapter.
    """
    if key in _SPECS:
        return _SPECS[key], False
    if source is None:
        raise AdapterLoadError(f"worker has no adapter {key!r} and was not told how to load it")
    where = f"adapter {source.name!r}: loading it in a worker process"
    for entry in source.sys_path:
        if entry not in sys.path:
            sys.path.append(entry)
    if source.kind == "target":
        from auditor.core.targets import load_target

        # a Dask key ends in its run's tag (" [run]"); a local worker serves one run
        loaded = (str(source.payload), key[len(source.name) :])
        if loaded not in _TARGETS:
            _TARGETS[loaded] = load_target(loaded[0])
        configuration = source.configuration
        name = str(configuration["adapter"]) if configuration else source.name
        found = [a for a in _TARGETS[loaded] if adapter_label(a) == name]
        if len(found) != 1:
            raise AdapterLoadError(
                f"{where} from {source.payload!r} found {len(found)} adapters named {name!r}"
            )
        obj = found[0]
        if configuration:
            from auditor.core.space import Configured

            values = dict(configuration["parameters"])
            with adapter_code(f"{where}: with_parameters", AdapterLoadError):
                obj = Configured(name, obj.with_parameters(**values), values)
    else:
        with adapter_code(f"{where}: unpickling it", AdapterLoadError):
            # kind "pickle": the payload is the cloudpickle bytes
            payload = cast(bytes, source.payload)
            obj = pickle.loads(payload)  # noqa: S301 - our own pickle of the user's object
    spec = check_adapter(obj)
    if fingerprint(spec) != source.fingerprint:
        raise AdapterLoadError(
            f"{where} gave a different adapter {fingerprint(spec)} than the main process "
            f"{source.fingerprint}"
        )
    return spec, True


def _check_replay(spec: AdapterSpec) -> None:
    """Copies of one adapter run in several workers; that is sound only if ``seed`` fixes
    every output.  A ``seed`` that does not replay could let two copies repeat one random
    stream and fake independent samples, so it is refused, as the conformance check does.

    Raises:
        AdapterContractError: two draws after the same ``seed`` differ.
    """
    from auditor.core.spec import typical_query

    query = typical_query(spec)
    first = sample_once(spec, query, 16, 20240917)
    again = sample_once(spec, query, 16, 20240917)
    if not same_outputs(first, again):
        raise AdapterContractError(
            f"adapter {spec.name!r}: seed(entropy) does not replay (two draws after the same "
            "seed differ), so its copies in worker processes could repeat one random stream; "
            "fix seed() or remove it"
        )


def _events(key: str, blob: bytes | None) -> list[Event]:
    if key in _EVENTS:
        _EVENTS.move_to_end(key)
        return _EVENTS[key]
    if blob is None:
        raise DPAuditError(f"worker has no events {key!r}")
    events: list[Event] = pickle.loads(blob)  # noqa: S301 - pickled by this run's main process
    _EVENTS[key] = events
    while len(_EVENTS) > EVENT_CACHE:
        _EVENTS.popitem(last=False)
    return events


def run_task(task: Task, on_loaded: Any = None) -> np.ndarray:
    """Execute one task; raises the ``DPAuditError`` the in-process path would raise."""
    if task.key in _REFUSED:  # reported loaded, then refused: say why again, never sample
        refused = _REFUSED[task.key]
        raise type(refused)(str(refused), adapter_traceback=refused.adapter_traceback)
    spec, fresh = load(task.key, task.source)
    if fresh:
        if on_loaded is not None:
            on_loaded()  # from here on the call clock is --timeout, not the load allowance
        if spec.seedable:
            try:
                _check_replay(spec)  # calls sample: a hang here is the sample's, and says so
            except DPAuditError as exc:  # a seed that does not replay, a malformed output, ...
                _REFUSED[task.key] = exc
                raise
        _SPECS[task.key] = spec
    out = sample_once(spec, task.query, task.n, task.entropy)
    if task.kind == "draw":
        return out
    assert task.events_key is not None
    return count_events(_events(task.events_key, task.events_blob), out)


def error_from(name: str, message: str, adapter_traceback: str | None = None) -> DPAuditError:
    """Rebuild in the main process an error a worker reported as (class name, message,
    the adapter's traceback or None)."""
    cls = getattr(errors, name, None)
    if isinstance(cls, type) and issubclass(cls, DPAuditError):
        return cls(message, adapter_traceback=adapter_traceback)
    return DPAuditError(message, adapter_traceback=adapter_traceback)


#: a warning reported from a worker is cut to this many characters
WARNING_CHARS = 500
#: a worker reports each distinct warning once per adapter, and at most this many in all
#: (a library that warns on every call must not flood the pipe the results travel on)
MAX_WARNINGS = 100


def warning_text(
    message: Warning | str, category: type[Warning], filename: str, lineno: int
) -> str:
    """One printable line for a warning: ``UserWarning: message (file.py:12)``."""
    text = f"{category.__name__}: {' '.join(str(message).split())} ({filename}:{lineno})"
    text = printable(text)
    return text if len(text) <= WARNING_CHARS else text[: WARNING_CHARS - 3] + "..."


def _capture_output(send: Any, log: str | None, running: list[str]) -> bool:
    """Nothing a worker or the adapter's code writes reaches the user's terminal raw.

    Python warnings go to the main process as ``("warn", text)`` (the report notes them on the
    adapter whose task was running); everything written to stdout or stderr, by Python or by
    C code, goes to the file ``log``, whose end the main process reads when the worker crashes
    or hangs.  Fatal signals (a segfault) and ``SIGUSR1`` (sent before a hung worker is
    stopped) write every thread's Python stack there.  ``running[0]`` is the key of the
    adapter whose task runs (each of its distinct warnings is sent once).  True if the output
    goes to ``log``.
    """
    sent: set[tuple[str, str]] = set()

    def show(
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        with contextlib.suppress(Exception):  # a warning must never fail the sample call
            text = warning_text(message, category, filename, lineno)
            if (running[0], text) in sent or len(sent) >= MAX_WARNINGS:
                return
            sent.add((running[0], text))
            send(("warn", text))

    warnings.showwarning = show
    if log is None:
        return False
    try:
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError:  # no log file (a full disk, say): the worker still runs, unredirected
        return False
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    with contextlib.suppress(Exception):  # diagnostics only: never a reason not to run
        faulthandler.enable(file=2, all_threads=True)
        if hasattr(signal, "SIGUSR1"):
            faulthandler.register(signal.SIGUSR1, file=2, all_threads=True)
    return True


def _exit_with(parent: Any) -> None:
    parent.join()
    os._exit(1)


def worker_main(conn: Any, log: str | None = None) -> None:
    """Entry point of a local worker process: run tasks from ``conn`` until told to stop.

    Protocol: the worker sends ``("ready",)``; for each task it may send ``("loaded",)`` once
    the adapter is loaded, then ``("ok", result, end)`` or ``("err", class_name, message,
    adapter_traceback, end)``, where ``end`` is the size of ``log`` after the task (-1 if
    unknown); at any time ``("warn", text)`` for a Python warning.  Its stdout and stderr go to
    the file ``log`` (see :func:`_capture_output`).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    lock = threading.Lock()

    def send(message: tuple[Any, ...]) -> None:  # warnings may come from the adapter's threads
        with lock:
            conn.send(message)

    running = [""]
    logged = _capture_output(send, log, running)

    def end() -> int:
        """The size of the log once what the task wrote is in it (-1: no log)."""
        if not logged:
            return -1
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.flush()
        try:
            return os.lseek(2, 0, os.SEEK_END)  # appends go to the end anyway
        except OSError:
            return -1

    parent = multiprocessing.parent_process()
    if parent is not None:  # never outlive the audit, even inside a hung sample() call
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()
    send(("ready",))
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        running[0] = task.key
        try:
            result = run_task(task, on_loaded=lambda: send(("loaded",)))
        except DPAuditError as exc:
            send(("err", type(exc).__name__, str(exc), exc.adapter_traceback, end()))
        except BaseException as exc:  # noqa: BLE001 - an unexpected fault (sys.exit() in a
            # loader, say), reported with its traceback; the worker lives on
            message = f"worker failed: {printable(describe(exc))}"
            send(("err", "DPAuditError", message, format_traceback(exc), end()))
        else:
            send(("ok", result, end()))


def installed_version() -> str:
    """dp-audit's version here; run on every Dask worker at start, which also imports this
    module (numpy, the samplers) on all of them at once rather than in the first tasks."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("dp-audit")
    except PackageNotFoundError:  # run from a source tree that was not installed
        return "unknown"


#: the Dask tasks running in this worker process: task key -> (when its current chunk started,
#: or finished loading its adapter, on this process's monotonic clock; whether it is loading)
_RUNNING: dict[str, tuple[float, bool]] = {}


def running_chunks(dask_worker: Any) -> dict[str, tuple[float, bool]]:
    """For each Dask task running here: how long its current chunk has run (s; since its
    adapter was loaded, if it loaded it), and whether it is still loading its adapter.

    Run through ``Client.run``: ages are measured on the worker's own clock, so they need no
    clock agreement between machines."""
    now = time.monotonic()
    return {key: (now - start, loading) for key, (start, loading) in dict(_RUNNING).items()}


def run_tasks_remote(tasks: list[Task]) -> bytes:
    """Entry point for Dask: several consecutive chunks in one task (fewer round trips).

    Chunks run in order and the first failure is raised, so the reported error is the one of
    the first failing chunk, as with one task per chunk.  Each chunk's start (and the end of its
    adapter's load) is recorded for ``running_chunks``, so that the main process can time out a
    hung chunk after ``timeout`` seconds however many chunks the task holds.  The results
    travel as one pickle: Dask would otherwise frame every small array separately, which costs
    the main process (where a LocalCluster's scheduler runs) more than the counting itself.
    """
    from distributed import get_worker

    key = str(get_worker().get_current_task())

    def started(loading: bool) -> None:
        _RUNNING[key] = (time.monotonic(), loading)

    results: list[np.ndarray] = []
    try:
        for task in tasks:
            started(task.key not in _SPECS)
            # once loaded, the sampling gets its own clock (as in the local pool)
            results.append(run_task(task, on_loaded=lambda: started(False)))
    finally:
        _RUNNING.pop(key, None)
    return pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)
