from __future__ import annotations

import io

from auditor.shell.progress import TerminalProgress


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
