"""One exception hierarchy for dp-audit.

A *violation* is never an exception: it is a result.  Exceptions are for misuse (bad arguments,
a target that does not load) and for adapters that break their contract; the runner turns the
latter into ``error`` verdicts and the CLI turns the former into a one-line message and exit 2.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from auditor.core.text import printable


class DPAuditError(Exception):
    """Root of every exception dp-audit raises on purpose."""


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


@contextmanager
def adapter_code(where: str, error: type[DPAuditError] = AdapterRaised) -> Iterator[None]:
    """Run code the user wrote: whatever it raises becomes ``error("{where} raised ...")``.

    *Everything* is caught, ``BaseException`` included: an adapter that calls ``sys.exit(0)``
    (or raises pytest's ``Skipped``, gevent's ``Timeout``, …) must end as that adapter's
    ``error``, never as a run that exits 0 with no report.  Only ``KeyboardInterrupt`` passes:
    it is the user's Ctrl-C, and the run stops.
    """
    try:
        yield
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - see the docstring
        # the message reaches terminals and every report format: control characters escaped
        raise error(f"{where} raised {printable(describe(exc))}") from exc
