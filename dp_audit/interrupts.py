"""Ctrl-C for the ``dp-audit`` command: the first stops the run within a few seconds, a second
ends the process at once; neither prints a traceback, and the previous report is left whole
(a report set is swapped in whole or not at all: ``reports.writing``).

The first Ctrl-C raises ``KeyboardInterrupt`` as usual: sampling stops, worker processes are
closed on the way out, and the command exits 130.  Python would then join every thread still
running adapter code in this process (an adapter that cannot be sampled in a worker) before
it exits, for minutes, and a second Ctrl-C during that wait prints "Exception ignored ...
threading._shutdown", or dies of the signal while Python finalizes; so once the first Ctrl-C
has been reported the command ends with ``os._exit(130)`` (its workers are closed by then),
and any Ctrl-C after the first ends the process at once with status 130.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from typing import Any

EXIT_INTERRUPTED = 130

_state = {"interrupted": False}


def interrupted() -> bool:
    """Whether Ctrl-C was pressed (output after it is noise: the run is being stopped)."""
    return _state["interrupted"]


def _again(signum: int, frame: Any) -> None:
    os.write(2, b"dp-audit: interrupted again: stopped\n")
    os._exit(EXIT_INTERRUPTED)


def _first(signum: int, frame: Any) -> None:
    _state["interrupted"] = True
    signal.signal(signal.SIGINT, _again)
    raise KeyboardInterrupt


def install() -> None:
    """Handle Ctrl-C as the module notes say (only from the main thread; elsewhere, as is)."""
    _state["interrupted"] = False
    with contextlib.suppress(ValueError):  # not the main thread: leave Python's handler
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _first)


def finish() -> None:
    """After the first Ctrl-C has been reported: leave now, with status 130."""
    _state["interrupted"] = True
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, _again)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)
