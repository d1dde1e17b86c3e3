"""One exception hierarchy for dp-audit.

A *violation* is never an exception: it is a result.  Exceptions are for misuse (bad arguments,
a target that does not load) and for adapters that break their contract; the runner turns the
latter into ``error`` verdicts and the CLI turns the former into a one-line message and exit 2.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

from auditor.core.text import printable

#: an adapter's traceback is kept to its last this many lines ...
TRACEBACK_LINES = 50
#: ... and this many characters (the innermost calls and the exception are at the end)
TRACEBACK_CHARS = 20_000


class DPAuditError(Exception):
    """Root of every exception dp-audit raises on purpose.

    ``adapter_traceback``: the traceback behind the error, as text made safe and short by
    :func:`cap_text` — for an exception raised by code the user wrote (see
    :func:`adapter_code`), that exception's traceback; for a worker process that crashed or
    hung, what it wrote during the call and its Python stacks (``auditor.engine.backends.pool``);
    None when there is none (misuse, a malformed output).  It travels with the error from
    worker processes and ends in the report (``error_traceback``) next to the one-line
    message, which stays the error's ``str``.
    """

    adapter_traceback: str | None = None

    def __init__(self, *args: object, adapter_traceback: str | None = None) -> None:
        super().__init__(*args)
        if adapter_traceback is not None:
            self.adapter_traceback = adapter_traceback


class InvalidArgument(DPAuditError, ValueError):
    """A user-supplied argument is out of its range; the message names it and shows its value."""


class AdapterContractError(DPAuditError, TypeError):
    """An adapter lacks a required attribute or declares an impossible claim."""


class AdapterLoadError(DPAuditError, ImportError):
    """An adapter target (``module:attr``, ``file.py:attr`` or entry point) could not be loaded."""


class AdapterOutputError(DPAuditError, ValueError):
    """``sample`` returned something other than the family's output contract allows."""


class AdapterTimeout(DPAuditError, TimeoutError):
    """``sample`` did not return within the configured time limit."""


class AdapterRaised(DPAuditError, RuntimeError):
    """``sample`` (or ``seed``) raised; the message carries the adapter's own exception."""


class AdapterCrashed(DPAuditError, RuntimeError):
    """The process running ``sample`` died (``os._exit``, a segfault, the OOM killer)."""


class EventError(DPAuditError, RuntimeError):
    """An attack's event predicate failed on the outputs; the adapter is not to blame."""


class BackendUnavailable(DPAuditError, RuntimeError):
    """The sampling backend cannot run any task (a Dask cluster that lost every worker); the
    adapter is not to blame."""


def describe(exc: BaseException) -> str:
    """``"ValueError: bad query"``, or just the type when the exception has no message."""
    return f"{type(exc).__name__}: {exc}".rstrip(": ")


def cap_text(text: str, lines: int = TRACEBACK_LINES, chars: int = TRACEBACK_CHARS) -> str:
    """``text`` with control characters escaped line by line (line breaks kept), cut to its last
    ``lines`` lines and about ``chars`` characters; a first line says how much was left out."""
    rows = [printable(row) for row in text.rstrip("\n").split("\n")]
    kept: list[str] = []
    size = 0
    for row in reversed(rows):
        if len(kept) >= lines or size + len(row) + 1 > chars:
            break
        kept.append(row)
        size += len(row) + 1
    kept.reverse()
    if not kept and rows:  # one enormous last line: keep its beginning
        last = rows[-1]
        kept = [f"{last[: chars - 60]} ... ({len(last) - (chars - 60):,} characters omitted)"]
    omitted = len(rows) - len(kept)
    if omitted > 0:
        kept.insert(0, f"... ({omitted:,} earlier line(s) omitted)")
    return "\n".join(kept)


def format_traceback(exc: BaseException) -> str:
    """``exc`` with its traceback and the exceptions chained to it, as Python prints them,
    made safe for terminals and reports (:func:`cap_text`)."""
    return _format(exc, exc.__traceback__)


def _format(exc: BaseException, tb: TracebackType | None) -> str:
    try:
        text = "".join(traceback.format_exception(type(exc), exc, tb))
    except Exception as problem:  # noqa: BLE001 - a __str__ that raises, say: never lose the error
        text = f"{type(exc).__name__} (its traceback could not be formatted: {describe(problem)})"
    return cap_text(text)


def _user_traceback(exc: BaseException) -> str:
    """The traceback of user code's ``exc`` caught by :func:`adapter_code`, without dp-audit's
    own frames: the context manager's and the one of the ``with`` statement that called the
    user's code.  An error of dp-audit's own (a nested ``adapter_code``) keeps its traceback."""
    if isinstance(exc, DPAuditError) and exc.adapter_traceback is not None:
        return exc.adapter_traceback
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code is _ADAPTER_CODE:
        tb = tb.tb_next
    if tb is not None:  # the frame holding the with statement: dp-audit's call site
        tb = tb.tb_next
    return _format(exc, tb)


@contextmanager
def adapter_code(where: str, error: type[DPAuditError] = AdapterRaised) -> Iterator[None]:
    """Run code the user wrote: whatever it raises becomes ``error("{where} raised ...")``.

    *Everything* is caught, ``BaseException`` included: an adapter that calls ``sys.exit(0)``
    (or raises pytest's ``Skipped``, gevent's ``Timeout``, …) must end as that adapter's
    ``error``, never as a run that exits 0 with no report.  Only ``KeyboardInterrupt`` passes:
    it is the user's Ctrl-C, and the run stops.  The error keeps the user code's traceback
    (``adapter_traceback``), from the first frame below the ``with`` statement.
    """
    try:
        yield
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - see the docstring
        # the message reaches terminals and every report format: control characters escaped;
        # the traceback goes with it (the report keeps it, `dp-audit run --verbose` shows it)
        raise error(
            f"{where} raised {printable(describe(exc))}",
            adapter_traceback=_user_traceback(exc),
        ) from exc


#: the code object of ``adapter_code``'s generator: its frame starts every traceback it catches
_ADAPTER_CODE = getattr(adapter_code, "__wrapped__").__code__  # noqa: B009
