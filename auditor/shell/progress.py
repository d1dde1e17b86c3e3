"""A progress bar for ``dp-audit run`` on a terminal, fed by the runner's progress callback.

The runner calls ``progress(adapter_name, outputs_drawn_so_far, planned_total)``.  The total is
the planned maximum: early stopping on a certified violation means a run usually finishes
before the bar is full.  The bar is drawn only on an interactive stderr and never with
``--quiet``, so CI logs stay clean.
"""

from __future__ import annotations

import shutil
import sys
import threading
from typing import Any, TextIO


class TerminalProgress:
    """A ``tqdm`` bar behind the runner's ``(name, done, total)`` callback; a no-op when disabled.

    Use as a context manager so the bar is closed (and the line cleared) when the run ends.
    Calls may come from worker threads: updates are serialised by a lock.
    """

    def __init__(self, stream: TextIO | None = None, *, enabled: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self._bar: Any = None
        self._lock = threading.Lock()

    def __call__(self, name: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        with self._lock:
            if self._bar is None:
                from tqdm import tqdm

                self._bar = tqdm(
                    total=total,
                    unit=" outputs",
                    unit_scale=True,
                    file=self.stream,
                    leave=False,
                    # a pty may report 0 columns (tqdm would then draw nothing); shutil falls back
                    ncols=min(120, shutil.get_terminal_size().columns),
                )
            if total != self._bar.total:
                self._bar.total = total
            self._bar.set_description_str(name[:40], refresh=False)
            self._bar.update(max(0, done - self._bar.n))

    def close(self) -> None:
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
