from __future__ import annotations

import io
import time

from dp_audit.progress import LogProgress, TerminalProgress


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_draws_on_a_terminal() -> None:
    stream = _Tty()
    with TerminalProgress(stream) as progress:
        progress("adapter-a", 500, 1000)
        progress("adapter-b", 1000, 1000)
    text = stream.getvalue()
    assert "outputs" in text and "1.00k" in text  # tqdm throttles redraws: not every call shows


def test_quiet_when_not_a_terminal_or_disabled() -> None:
    plain = io.StringIO()
    with TerminalProgress(plain) as progress:
        progress("a", 1, 2)
    tty = _Tty()
    with TerminalProgress(tty, enabled=False) as progress:
        progress("a", 1, 2)
    assert plain.getvalue() == "" and tty.getvalue() == ""


def test_a_silent_log_gets_a_line_of_progress() -> None:
    stream = io.StringIO()
    with LogProgress(stream, interval=0.05) as progress:
        progress("slow.adapter", 1200, 400000)
        time.sleep(0.5)
    line = stream.getvalue().splitlines()[0]
    assert (
        "1,200 outputs drawn (400,000 planned, besides screening)" in line
        and "slow.adapter" in line
    )


def test_no_progress_line_while_other_lines_are_written_or_when_disabled() -> None:
    busy = io.StringIO()
    with LogProgress(busy, interval=0.3) as progress:
        for _ in range(12):  # a verdict line every 0.05 s: the log is never silent for 0.3 s
            progress("a", 1, 2)
            progress.printed()
            time.sleep(0.05)
    off = io.StringIO()
    with LogProgress(off, interval=0.01, enabled=False) as progress:
        progress("a", 1, 2)
        time.sleep(0.1)
    assert busy.getvalue() == "" and off.getvalue() == ""
