"""Issue #19: what an adapter's failure shows, and where.

An adapter that raises keeps the traceback of its own code with its ``error`` verdict: in
report.json (``error_traceback``), report.md, report.html and junit.xml, and on the terminal
with ``dp-audit run --verbose``; without it the terminal gets the one-line message only.  A
hang on the very first call is stopped after ``--timeout`` (not after the allowance for
loading), and its message names the call; a crash says the worker process died and how.
Nothing a worker process writes (warnings, prints, C code on file descriptor 2, a segfault's
dump) reaches the terminal raw: the terminal holds dp-audit's own lines only.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import traceback_adapters

from attacks import load_attacks
from auditor import AuditConfig, Verdict, run_audit
from auditor.core.configs import EngineConfig
from auditor.core.errors import TRACEBACK_CHARS, TRACEBACK_LINES, cap_text

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FILE = Path(traceback_adapters.__file__).resolve()
BAD = HERE / "bad_adapters.py"

#: every line dp-audit itself prints on stderr in these runs
OWN_LINE = re.compile(r"^(dp-audit: |  sampling: |\s+(error|no_violation|violation)  \S)")


def raise_line() -> int:
    """The line of ``RaisesDeep._library_call`` that raises."""
    lines = FILE.read_text().splitlines()
    return 1 + next(i for i, line in enumerate(lines) if "the line the report names" in line)


def dp_audit(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dp_audit", "run", "--backend", "local", "--attack", "black-box",
         "--budget", "2000", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    """One run over every failure (and a talkative good adapter), with a 2 s timeout."""
    out = tmp_path_factory.mktemp("failing") / "out"
    start = time.monotonic()
    proc = dp_audit(
        "--adapter", f"{FILE}:failing", "--workers", "2", "--timeout", "2", "--out", str(out)
    )
    elapsed = time.monotonic() - start
    assert proc.returncode == 2, proc.stderr
    data = json.loads((out / "report.json").read_text())
    results = {r["adapter"]: r for r in data["results"]}
    return proc, results, elapsed, out


def test_the_terminal_holds_dp_audit_s_lines_only(failing):
    proc, results, _, _ = failing
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    strays = [line for line in lines if not OWN_LINE.match(line)]
    assert strays == [], proc.stderr
    for noise in ("Traceback", "Warning", "noise on", "Fatal Python error", "Process dp-audit"):
        assert noise not in proc.stderr
    # one summary line per adapter, and nothing under them without --verbose
    assert sum(bool(re.match(r"^\s+(error|no_violation)  tb\.", line)) for line in lines) == len(
        results
    )


def test_a_raise_in_a_worker_keeps_the_adapter_s_traceback(failing):
    _, results, _, out = failing
    r = results["tb.raises"]
    assert r["verdict"] == "error" and "\n" not in r["error"]
    assert r["error"] == (
        "adapter 'tb.raises': sample raised ValueError: bad query\\x1b[31m red\\x0asecond line"
    )
    tb = r["error_traceback"]
    assert tb.startswith("Traceback (most recent call last):")
    assert f'File "{FILE}", line {raise_line()}, in _library_call' in tb
    assert f'File "{FILE}", line' in tb.split("\n")[1] and "in sample" in tb.split("\n")[1]
    assert "auditor/" not in tb  # dp-audit's own frames are left out: the adapter's code only
    assert "\x1b" not in tb and "\\x1b[31m red" in tb
    assert tb.rstrip().endswith("second line")  # line breaks of the message are kept
    where = f"line {raise_line()}, in _library_call"
    assert where in (out / "report.md").read_text()
    assert where in (out / "report.html").read_text()
    cases = {c.get("name"): c for c in ET.parse(out / "junit.xml").iter("testcase")}
    (case,) = [c for name, c in cases.items() if name.startswith("tb.raises ")]
    error = case.find("error")
    assert error is not None and where in (error.text or "")


def test_a_hang_on_the_first_call_is_stopped_after_the_timeout_and_named(failing):
    _, results, elapsed, _ = failing
    # the load allowance is 60 s: a first call counted as loading would take that long
    assert elapsed < 50
    for name in ("tb.hangs", "tb.hangs_seeded"):  # the seeded one hangs in the replay check
        r = results[name]
        assert r["verdict"] == "error"
        assert re.fullmatch(
            rf"adapter '{re.escape(name)}': sample\(query, n=\d+\) did not return within 2 s; "
            "its worker process was stopped",
            r["error"],
        ), r["error"]


def test_a_hung_worker_s_python_stack_is_kept_with_the_error(failing):
    _, results, _, _ = failing
    for name in ("tb.hangs", "tb.hangs_seeded"):
        tb = results[name]["error_traceback"]
        assert tb.startswith("Where the worker process was when it was stopped")
        hung = f'File "{BAD}", line {sleep_line()} in sample'
        assert hung in tb, tb


def test_a_crash_says_the_worker_process_died_and_how(failing):
    _, results, _, _ = failing
    exits, segfaults = results["tb.exits"], results["tb.segfaults"]
    assert re.fullmatch(
        r"adapter 'tb\.exits': sample\(query, n=\d+\) crashed its worker process \(exit code 3\)",
        exits["error"],
    ), exits["error"]
    assert re.fullmatch(
        r"adapter 'tb\.segfaults': sample\(query, n=\d+\) crashed its worker process "
        r"\(killed by signal SIGSEGV\)",
        segfaults["error"],
    ), segfaults["error"]


def test_a_crashed_worker_s_last_words_are_kept_with_the_error(failing):
    _, results, _, _ = failing
    assert results["tb.exits"]["error_traceback"] is None  # os._exit writes nothing
    tb = results["tb.segfaults"]["error_traceback"]
    # faulthandler's dump: the Python stack of the faulting call
    assert tb.startswith("What the worker process wrote during this call:")
    assert "Fatal Python error: Segmentation fault" in tb
    assert f'File "{BAD}", line' in tb and "in sample" in tb


def test_a_crash_keeps_only_what_the_worker_wrote_during_the_crashing_call(failing):
    r = failing[1]["tb.segfaults_later"]
    assert "killed by signal SIGSEGV" in r["error"]
    assert "Fatal Python error: Segmentation fault" in r["error_traceback"]
    assert "all is well" not in r["error_traceback"]  # the first call's output


def sleep_line() -> int:
    """The line of ``bad_adapters.Hangs.sample`` that sleeps."""
    lines = BAD.read_text().splitlines()
    return 1 + next(i for i, line in enumerate(lines) if "time.sleep(3600)" in line)


def test_worker_warnings_become_notes_and_prints_stay_off_the_terminal(failing):
    proc, results, _, _ = failing
    noisy = results["tb.noisy"]
    assert noisy["verdict"] == "no_violation" and noisy["error_traceback"] is None
    warned = [n for n in noisy["notes"] if "UserWarning" in n]
    assert warned == [
        "a warning in a worker process while sampling: UserWarning: PrivacyLeakWarning-like: "
        f"bounds were not given ({FILE}:{warned_line()})"
    ]
    assert "noise on" not in proc.stderr + proc.stdout


def warned_line() -> int:
    lines = FILE.read_text().splitlines()
    return 1 + next(i for i, line in enumerate(lines) if "warnings.warn(" in line)


def test_verbose_prints_the_traceback_after_the_adapter_s_summary_line(tmp_path):
    proc = dp_audit("--adapter", f"{FILE}:raising", "--workers", "1", "-v", "--out", str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    (at,) = [i for i, line in enumerate(lines) if re.match(r"^\s+error  tb\.raises: ", line)]
    shown = lines[at + 1 :]
    assert shown[0] == "                | Traceback (most recent call last):"
    assert f'                |   File "{FILE}", line {raise_line()}, in _library_call' in shown
    assert "\x1b" not in proc.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    (r,) = report["results"]
    traceback_lines = r["error_traceback"].split("\n")
    assert shown[: len(traceback_lines)] == [f"                | {t}" for t in traceback_lines]
    assert shown[len(traceback_lines)].startswith("dp-audit: report written to")


def test_verbose_and_quiet_do_not_go_together(tmp_path):
    proc = dp_audit("--adapter", f"{FILE}:raising", "-v", "--quiet", "--out", str(tmp_path))
    assert proc.returncode == 2
    assert "not allowed with argument" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_a_raise_in_this_process_keeps_the_traceback_too():
    report = run_audit(
        traceback_adapters.raising(),
        load_attacks(["black-box"]),
        AuditConfig(budget=2000, seed=1),
        engine=EngineConfig(backend="inline", timeout=5.0),
    )
    (r,) = report.results
    assert r.verdict is Verdict.ERROR
    assert r.error_traceback is not None
    assert f'File "{FILE}", line {raise_line()}, in _library_call' in r.error_traceback
    assert "auditor/" not in r.error_traceback
    assert r.to_dict()["error_traceback"] == r.error_traceback


def test_a_traceback_is_capped_at_its_last_lines_and_characters():
    text = "\n".join(f"line {i}" for i in range(200)) + "\nValueError: boom\x1b[2J\x00"
    capped = cap_text(text)
    rows = capped.split("\n")
    assert rows[0] == "... (151 earlier line(s) omitted)"
    assert len(rows) == TRACEBACK_LINES + 1
    assert rows[-1] == "ValueError: boom\\x1b[2J\\x00"
    wide = "\n".join("x" * 1000 for _ in range(40))
    assert len(cap_text(wide)) <= TRACEBACK_CHARS + 50
    huge = cap_text("Traceback\nValueError: " + "y" * 100_000)
    assert len(huge) <= TRACEBACK_CHARS + 100
    assert huge.startswith("... (1 earlier line(s) omitted)\nValueError: yyy")
    assert "characters omitted" in huge
