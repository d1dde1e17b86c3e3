"""Progress for ``dp-audit run``, fed by the runner's progress callback.

The runner calls ``progress(adapter_name, outputs_drawn_so_far, planned_total)``.  The total is
what training and certification plan to draw: early stopping on a certified violation means a
run often finishes before it is reached, and screening candidate pairs and probing sizes or
values draw more besides (a run with many candidates passes it).  On an interactive stderr a bar is drawn (:class:`TerminalProgress`);
in a log (CI), where a bar would be noise, a plain line is written only when the run has been
silent for a while (:class:`LogProgress`), so a slow first adapter does not look like a hang.
Neither writes anything with ``--quiet``.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import Any, TextIO

#: seconds of silence in a log after which :class:`LogProgress` writes a line
LOG_INTERVAL = 30.0


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
            total = max(total, done)  # screening may draw past the plan
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


class LogProgress:
    """Signs of life in a log: when nothing was written for ``interval`` seconds, one line with
    the elapsed time, the outputs drawn so far and the adapter last sampled.

    ``printed()`` tells it that another line (a verdict) was just written.  A background thread
    does the writing, so a single slow library call cannot hold it back.  A no-op when disabled.
    """

    def __init__(
        self, stream: TextIO | None = None, *, enabled: bool = True, interval: float | None = None
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.interval = LOG_INTERVAL if interval is None else interval
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = self._last = time.monotonic()
        self._state: tuple[str, int, int] | None = None

    def __call__(self, name: str, done: int, total: int) -> None:
        with self._lock:
            self._state = (name, done, total)

    def printed(self) -> None:
        with self._lock:
            self._last = time.monotonic()

    def _watch(self) -> None:
        while not self._stop.wait(min(1.0, self.interval / 4)):
            with self._lock:
                now = time.monotonic()
                if now - self._last < self.interval:
                    continue
                self._last = now
                elapsed = now - self._started
                if self._state is None:
                    line = f"  ... {elapsed:.0f} s: preparing the first samples"
                else:
                    name, done, total = self._state
                    line = (
                        f"  ... {elapsed:.0f} s: {done:,} outputs drawn ({total:,} planned, "
                        f"besides screening); last sampled: {name}"
                    )
            print(line, file=self.stream, flush=True)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> LogProgress:
        if self.enabled:
            self._started = self._last = time.monotonic()
            self._thread = threading.Thread(target=self._watch, name="dp-audit-log", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
