"""Issue #19's probe classes, each run as a real ``dp-audit`` command, in one table.

Usage: ``python bench/reliability_probes.py [--kills 4] [--keep]``

Every probe runs the installed ``dp-audit`` (the one next to this Python) in a fresh temporary
folder, on the deliberately broken adapters of ``tests/reliability/`` (loaded as file targets)
or on a few more written into that folder: adapter code raising ``SystemExit`` in the main
process, bad entries and bad names in a target, an unwritable ``--out``, bad baselines, the
report set as one unit (kills while it is written, a full disk, two runs into one ``--out``),
hangs and crashes on every call (``--timeout 2``), duplicate names, control characters,
``--quiet``, and ``report`` / ``compare`` with an unwritable output or non-UTF-8 input.

The table shows, for each probe, the exit code, the verdicts in the report (violation /
no_violation / error), whether a report was written and whether it is the complete fresh set
(report.json, report.md, report.html and junit.xml carrying one new ``run_id``), whether a
traceback reached stderr, and stderr's first line.  The summary checks the three rules of the
issue: no exit 0 without a report, no traceback, no exit 1 unless a violation was certified;
a probe that does not finish in time breaks them too (it has no exit code at all).  The exit
status is 1 if any is broken.  Each probe's own expectation (its exit code, its message) is
listed under the table as well, for information.

The full-disk probe mounts a small tmpfs in a private user and mount namespace
(``unshare -rm``), so the disk really fills (ENOSPC); where that is not allowed it falls back
to a file-size limit (``RLIMIT_FSIZE``, EFBIG).  The kill probe SIGKILLs a real run the moment
its staging folder appears beside ``--out`` (the report set being written), a few times; the
thorough version is ``tests/reliability/test_report_set.py`` (25 kills of the writer).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HELPERS = ROOT / "tests" / "reliability"
NAMES = ("report.json", "report.md", "report.html", "junit.xml")
DEFAULT_LIMIT = 60.0  # seconds a probe may take before it counts as hung
#: raw control characters that must never reach the terminal (newline and tab are fine)
RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

#: adapters the helper modules do not have, written next to each probe that needs them
EXTRA_ADAPTERS = r'''
"""Probe adapters written by bench/reliability_probes.py."""

import math
import sys

sys.path.insert(0, {helpers!r})

from bad_adapters import Exits, GoodGeometric, Hangs, HangsSeeded, Segfaults  # noqa: E402
from exiting_adapters import ExitingName, Good, VersionOfMissingPackage  # noqa: E402


class RaisingName(Good):
    @property
    def name(self):
        raise RuntimeError("no name today")


class Named(Good):
    def __init__(self, name):
        super().__init__()
        self.name = name


class Leaky(Good):
    """Claims epsilon 0.1, samples at epsilon 3: a violation certified at any budget."""

    name = "leaky.geometric"
    epsilon = 0.1

    def sample(self, query, n):
        g = self._rng.geometric(1.0 - math.exp(-3.0), size=(2, n))
        return int(query) + g[0] - g[1]


def leaky():
    return [Leaky()]


def missing_version():
    return [Good(), VersionOfMissingPackage()]


def raising_names():
    return [Good(), RaisingName(), ExitingName()]


def surrogate_name():
    return [Good(), Named("lone\ud800surrogate")]


def hangs():
    return [Hangs("hang.every_call"), HangsSeeded("hang.seeded"), GoodGeometric()]


def hangs_inline():
    return [Hangs("hang.every_call"), GoodGeometric()]


def crashes():
    return [Exits("crash.exit"), Segfaults("crash.segfault"), GoodGeometric()]
'''


def find_dp_audit() -> str:
    beside = Path(sys.executable).parent / "dp-audit"
    if beside.exists():
        return str(beside)
    found = shutil.which("dp-audit")
    if found is None:
        sys.exit("dp-audit is not installed next to this Python nor on PATH")
    return found


DP_AUDIT = find_dp_audit()
#: the probes must not leave __pycache__ folders in tests/reliability/
ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}


# -- running and inspecting ------------------------------------------------------------------


@dataclass
class Ran:
    code: int | None  # None: did not finish within its limit (killed)
    stderr: str
    seconds: float


def dp_audit(cwd: Path, *args: str, limit: float = DEFAULT_LIMIT, **popen) -> Ran:
    return execute([DP_AUDIT, *args], cwd, limit, **popen)


def execute(argv: list[str], cwd: Path, limit: float = DEFAULT_LIMIT, **popen) -> Ran:
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        **popen,
    )
    try:
        _, err = proc.communicate(timeout=limit)
        code: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # its worker processes too
        _, err = proc.communicate()
        code = None
    return Ran(code, err.decode("utf-8", "backslashreplace"), time.monotonic() - start)


def run_id(folder: Path) -> str | None:
    try:
        return json.loads((folder / "report.json").read_text()).get("run_id")
    except (OSError, ValueError):
        return None


@dataclass
class ReportSet:
    present: list[str]
    run_id: str | None
    complete: bool  # all four files, each naming report.json's run_id
    fresh: bool  # complete, and not the set that was there before the command
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def violations(self) -> int:
        return self.counts.get("violation", 0) if self.fresh else 0

    def verdicts(self) -> str:
        if not self.counts:
            return "—"
        c = self.counts
        text = f"{c.get('violation', 0)} / {c.get('no_violation', 0)} / {c.get('error', 0)}"
        return text if self.fresh else f"({text}, previous set)"

    def describe(self) -> str:
        if not self.present:
            return "no"
        if self.complete and self.fresh:
            return f"yes: complete fresh set (run `{self.run_id}`)"
        if self.complete:
            return f"no: previous set (run `{self.run_id}`) left whole"
        return f"PARTIAL: {', '.join(self.present)} without one shared run_id"


def inspect_set(out: Path, before: str | None = None) -> ReportSet:
    present = [name for name in NAMES if (out / name).is_file()]
    rid = run_id(out)
    complete = (
        len(present) == len(NAMES)
        and rid is not None
        and all(rid in (out / name).read_text(errors="replace") for name in NAMES[1:])
    )
    counts: dict[str, int] = {}
    if rid is not None:
        for r in json.loads((out / "report.json").read_text())["results"]:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return ReportSet(present, rid, complete, complete and rid != before, counts)


#: long paths in messages, shortened for the table (the probe's folder is set per run)
SHORTER: dict[str, str] = {str(HELPERS): "tests/reliability"}


def first_line(text: str, width: int = 100) -> str:
    line = next((s for s in text.splitlines() if s.strip()), "")
    if not line:
        return "(empty)"
    for long, short in sorted(SHORTER.items(), key=lambda kv: -len(kv[0])):
        line = line.replace(long, short)
    shown = RAW_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", line)
    if len(shown) > width:
        shown = shown[: width - 1] + "…"
    return "`" + shown.replace("`", "'").replace("|", "\\|") + "`"


def has_traceback(stderr: str) -> bool:
    """A Python traceback, or a faulthandler dump of a crash, on dp-audit's own stderr."""
    return "Traceback (most recent call last)" in stderr or "Fatal Python error" in stderr


# -- the table -------------------------------------------------------------------------------


@dataclass
class Row:
    probe: str
    command: str
    code: str  # as shown
    verdicts: str
    report: str
    traceback: bool
    stderr: str  # first line, shown
    #: the three rules (and "finished"), judged by the probe
    exit_0_without_report: bool = False
    exit_1_without_violation: bool = False
    hung: bool = False
    #: the probe's own expectations that were not met
    misses: list[str] = field(default_factory=list)


def row_for(
    probe: str,
    command: str,
    ran: Ran,
    out: Path | None,
    before: str | None = None,
    *,
    code: int,
    says: tuple[str, ...] = (),
    report: bool | None = None,
    output: Path | None = None,
) -> Row:
    """A row for one command; ``out`` is its report folder, ``output`` the file or folder a
    ``report`` / ``compare`` command writes instead.  ``code``, ``says`` (pieces of stderr) and
    ``report`` (a fresh complete set expected or not) are the probe's own expectations."""
    state = inspect_set(out, before) if out is not None else None
    wrote = state.fresh if state is not None else bool(output and output.exists())
    if state is not None:
        shown_report = state.describe()
        verdicts = state.verdicts()
    else:
        name = output.name if output else "—"
        shown_report = f"{'yes' if wrote else 'no'}: {name} {'' if wrote else 'not '}written"
        verdicts = "n/a (no run)"
    row = Row(
        probe,
        command,
        "hung (killed)" if ran.code is None else str(ran.code),
        verdicts,
        shown_report,
        has_traceback(ran.stderr),
        first_line(ran.stderr),
        exit_0_without_report=ran.code == 0 and not wrote,
        exit_1_without_violation=ran.code == 1 and (state is None or state.violations == 0),
        hung=ran.code is None,
    )
    if ran.code != code:
        row.misses.append(f"exit {ran.code}, expected {code}")
    for piece in says:
        if piece not in ran.stderr:
            row.misses.append(f"stderr lacks {piece!r}")
    if report is not None and wrote != report:
        row.misses.append("a fresh complete report set " + ("missing" if report else "written"))
    if state is not None and state.present and not state.complete:
        row.misses.append("the report folder holds a partial set")
    if RAW_CONTROL.search(ran.stderr):
        row.misses.append("raw control characters on stderr")
    return row


# -- the probes ------------------------------------------------------------------------------


class Probes:
    def __init__(self, root: Path, kills: int) -> None:
        self.root = root
        self.kills = kills
        self.rows: list[Row] = []
        self.good_set: Path | None = None  # a complete set of a clean run (baselines, compare)

    def fresh(self, label: str) -> Path:
        path = Path(tempfile.mkdtemp(prefix=f"{label}-", dir=self.root))
        SHORTER[str(path)] = "$TMP"
        return path

    def extra(self, cwd: Path) -> Path:
        path = cwd / "probe_adapters.py"
        path.write_text(EXTRA_ADAPTERS.format(helpers=str(HELPERS)))
        return path

    def simple(
        self,
        probe: str,
        command: str,
        args: list[str] | Callable[[Path], list[str]],
        *,
        code: int = 2,
        says: tuple[str, ...] = (),
        report: bool | None = None,
        limit: float = DEFAULT_LIMIT,
    ) -> Path:
        cwd = self.fresh(probe.split()[0])
        argv = args(cwd) if callable(args) else args
        ran = dp_audit(cwd, *argv, "--out", str(cwd / "out"), limit=limit)
        self.rows.append(
            row_for(probe, command, ran, cwd / "out", code=code, says=says, report=report)
        )
        return cwd

    # 0 --------------------------------------------------------------------------------------

    def control(self) -> None:
        cwd = self.simple(
            "0 control: a clean run",
            "run --adapter reference.geometric --budget 2000",
            ["run", "--adapter", "reference.geometric", "--budget", "2000", "--quiet"],
            code=0,
            report=True,
        )
        self.good_set = cwd / "out"
        self.simple(
            "0 control: a certified violation",
            "run --adapter probe_adapters.py:leaky (claims 0.1, is 3)",
            lambda cwd: ["run", "--adapter", f"{self.extra(cwd)}:leaky", "--workers", "1",
                         "--attack", "black-box", "--budget", "2000"],
            code=1,
            report=True,
        )  # fmt: skip

    # 1: SystemExit in the main process --------------------------------------------------------

    def system_exit(self) -> None:
        self.simple(
            "1a SystemExit at import",
            "run --adapter exits_at_import.py:adapter",
            ["run", "--adapter", f"{HELPERS / 'exits_at_import.py'}:adapter"],
            says=("raised SystemExit: 0",),
            report=False,
        )
        for backend in ("local", "inline"):
            self.simple(
                f"1{'b' if backend == 'local' else 'c'} SystemExit in sample/seed/"
                f"probabilities()/name, --backend {backend}",
                f"run --adapter exiting_adapters.py:adapters --backend {backend} "
                "--attack black-box --attack truncated-addition",
                ["run", "--adapter", f"{HELPERS / 'exiting_adapters.py'}:adapters",
                 "--backend", backend, "--workers", "1", "--attack", "black-box",
                 "--attack", "truncated-addition", "--budget", "2000", "--seed", "3"],
                says=("probabilities(query) raised SystemExit: 0", "sample raised SystemExit: 0",
                      "seed raised SystemExit: 0", "reading 'name' raised SystemExit: 0"),
                report=True,
            )  # fmt: skip

    # 2: bad entries and names in a target ---------------------------------------------------

    def bad_entries(self) -> None:
        self.simple(
            "2a a non-adapter in a list target",
            "run --adapter mixed_targets.py:with_a_non_adapter --backend inline",
            ["run", "--adapter", f"{HELPERS / 'mixed_targets.py'}:with_a_non_adapter",
             "--backend", "inline", "--attack", "black-box", "--budget", "2000"],
            says=("'not an adapter', is not an adapter",),
            report=True,
        )  # fmt: skip
        extra = [
            ("2b library_version imports a missing package", "missing_version",
             ("reading 'library_version' raised PackageNotFoundError",)),
            ("2c a name that raises (RuntimeError; SystemExit)", "raising_names",
             ("reading 'name' raised RuntimeError: no name today",
              "reading 'name' raised SystemExit: 0")),
            ("2d a name holding a lone surrogate", "surrogate_name",
             ("lone\\ud800surrogate", "must be printable text")),
        ]  # fmt: skip
        for probe, target, says in extra:
            self.simple(
                probe,
                f"run --adapter probe_adapters.py:{target}",
                lambda cwd, target=target: [
                    "run", "--adapter", f"{self.extra(cwd)}:{target}", "--workers", "1",
                    "--attack", "black-box", "--budget", "2000",
                ],
                says=says,
                report=True,
            )  # fmt: skip

    # 3: an unwritable --out, bad baselines ----------------------------------------------------

    def unwritable_out(self) -> None:
        cwd = self.fresh("3a")
        (cwd / "a-file").write_text("")
        out = cwd / "a-file" / "report"
        ran = dp_audit(
            cwd, "run", "--adapter", "reference.geometric", "--budget", "2000", "--out", str(out)
        )
        self.rows.append(
            row_for(
                "3a --out under a regular file",
                "run … --out a-file/report",
                ran,
                out,
                code=2,
                says=("cannot be written",),
                report=False,
            )
        )

    def baselines(self) -> None:
        assert self.good_set is not None
        good = json.loads((self.good_set / "report.json").read_text())

        def structure(d: dict) -> None:
            d["results"] = "x"

        def counts(d: dict) -> None:
            d["results"][0]["counts"]["k0"] = 1.5

        cases: list[tuple[str, str, Callable[[dict], None] | bytes, str]] = [
            ("3b baseline: malformed structure", "results: \"x\"", structure,
             "at results, 'x' is not of type 'array'"),
            ("3c baseline: non-integer counts", "counts.k0: 1.5", counts,
             "1.5 is not of type 'integer'"),
            ("3d baseline: non-UTF-8 bytes", "a 0xff byte",
             b'{"schema": "dp-audit/1", "x": "\\xff\xff"}', "is not UTF-8 text (byte 0xff"),
        ]  # fmt: skip
        for probe, what, change, message in cases:
            cwd = self.fresh(probe.split()[0])
            baseline = cwd / "baseline.json"
            if isinstance(change, bytes):
                baseline.write_bytes(change)
            else:
                data = json.loads(json.dumps(good))
                change(data)
                baseline.write_text(json.dumps(data))
            ran = dp_audit(
                cwd, "run", "--adapter", "reference.geometric", "--budget", "2000",
                "--baseline", str(baseline), "--out", str(cwd / "out"),
            )  # fmt: skip
            self.rows.append(
                row_for(
                    probe,
                    f"run --baseline baseline.json ({what})",
                    ran,
                    cwd / "out",
                    code=2,
                    says=(message,),
                    report=False,
                )
            )

    # 4: the report set as one unit ----------------------------------------------------------

    def kills_while_writing(self) -> None:
        """SIGKILL a real run the moment its staging folder appears beside --out, or up to a
        few milliseconds later (writing the set takes about one): some kills land before the
        swap, some after it."""
        assert self.good_set is not None
        cwd = self.fresh("4a")
        out = cwd / "out"
        shutil.copytree(self.good_set, out)
        known = {run_id(out)}
        codes, stderrs, outcomes, problems = [], [], {"previous": 0, "new": 0}, []
        caught = 0
        delays = [i * 0.0006 for i in range(self.kills)]  # seconds after the folder appears
        for trial, delay in enumerate(delays):
            staging_before = {p for p in os.listdir(cwd) if p.startswith(".out.")}
            proc = subprocess.Popen(
                [DP_AUDIT, "run", "--adapter", "reference.geometric", "--backend", "inline",
                 "--budget", "2000", "--seed", str(trial), "--out", str(out)],
                cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            )  # fmt: skip
            assert proc.stderr is not None
            head = b""
            for line in proc.stderr:
                head += line
                if b"reference.geometric:" in line:  # sampled; rendering and writing follow
                    break
            deadline = time.monotonic() + 30
            while proc.poll() is None and time.monotonic() < deadline:
                staged = {p for p in os.listdir(cwd) if p.startswith(".out.new-")}
                if staged - staging_before:
                    until = time.perf_counter() + delay
                    while time.perf_counter() < until:
                        pass
                    proc.kill()
                    break
            else:
                proc.kill()  # finished (or stuck) before the staging folder was seen
            rest = proc.stderr.read()
            codes.append(proc.wait())
            left = {p for p in os.listdir(cwd) if p.startswith(".out.")} - staging_before
            caught += bool(left)  # its staging folder outlived it: killed mid-write
            stderrs.append((head + rest).decode("utf-8", "backslashreplace"))
            state = inspect_set(out)
            if not state.complete or sorted(os.listdir(out)) != sorted(NAMES):
                problems.append(f"kill {trial + 1}: {sorted(os.listdir(out))}, {state.describe()}")
            elif state.run_id in known:
                outcomes["previous"] += 1
            else:
                outcomes["new"] += 1
                known.add(state.run_id)
        leftovers = [p for p in os.listdir(cwd) if p not in ("out",)]
        stray = [p for p in leftovers if not p.startswith(".out.")]
        final = inspect_set(out)
        whole = self.kills - len(problems)
        spread = ", ".join(f"{d * 1000:g}" for d in delays)
        row = Row(
            "4a SIGKILL while the report set is written",
            f"run … --out out, SIGKILL {spread} ms after .out.new-* appears",
            ", ".join(f"{c} ×{codes.count(c)}" for c in sorted(set(codes))),
            f"{final.verdicts().replace(', previous set', '')} (the set left)",
            f"{whole}/{self.kills} runs left one whole set in out ({outcomes['previous']} the "
            f"previous, {outcomes['new']} the new one); {caught} killed mid-write (their hidden "
            f"staging folder stays: {len(leftovers)} left beside out)"
            + (
                f"; {codes.count(0)} finished before the kill (staging folder not seen in time)"
                if 0 in codes
                else ""
            )
            + "; 25 more kills: tests/reliability/test_report_set.py",
            any(has_traceback(s) for s in stderrs),
            first_line(stderrs[-1]) if stderrs else "(empty)",
            exit_0_without_report=any(c == 0 for c in codes) and not final.complete,
            exit_1_without_violation=any(c == 1 for c in codes),
        )
        row.misses += problems
        if stray:
            row.misses.append(f"files left beside --out: {stray}")
        if caught == 0:
            row.misses.append("no kill landed while the staging folder existed")
        self.rows.append(row)

    def full_disk(self) -> None:
        assert self.good_set is not None
        cwd = self.fresh("4b")
        previous = run_id(self.good_set)
        pages = sum(-(-(self.good_set / n).stat().st_size // 4096) for n in NAMES)
        size_kb = 4 * pages + 32  # the previous set fits, a second one does not
        mnt, after = cwd / "mnt", cwd / "after"
        mnt.mkdir()
        args = [
            "run", "--adapter", "reference.geometric", "--backend", "inline", "--budget", "2000",
        ]  # fmt: skip
        namespace = shutil.which("unshare") is not None and (
            subprocess.run(
                ["unshare", "-rm", "true"], capture_output=True, env=ENV, check=False
            ).returncode
            == 0
        )
        if namespace:
            # in the namespace: mount, put the previous set there, run, copy the result out
            script = (
                "m=$1 s=$2 p=$3 d=$4 a=$5; shift 5; "
                'mount -t tmpfs -o size="$s"k tmpfs "$m" || exit 97; '
                'cp -a "$p" "$m/out" || exit 98; '
                '"$d" "$@" --out "$m/out" >/dev/null; rc=$?; cp -a "$m/." "$a"; exit $rc'
            )
            how = f"tmpfs of {size_kb} KiB (ENOSPC)"
            ran = execute(
                ["unshare", "-rm", "sh", "-c", script, "sh", str(mnt), str(size_kb),
                 str(self.good_set), DP_AUDIT, str(after), *args],
                cwd,
            )  # fmt: skip
            shown_out = after / "out"
        else:
            shutil.copytree(self.good_set, mnt / "out")
            limit = max(
                (self.good_set / n).stat().st_size for n in ("report.json", "junit.xml")
            ) + (16 << 10)
            how = f"RLIMIT_FSIZE {limit} bytes (EFBIG; no unshare here)"
            ran = dp_audit(
                cwd,
                *args,
                "--out",
                str(mnt / "out"),
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)),
            )
            shown_out = mnt / "out"
        row = row_for(
            "4b a full disk while the set is written",
            f"run … --out out, out on a {how}",
            ran,
            shown_out,
            previous,
            code=2,
            says=("cannot write the report", "the previous report there, if any, is left"),
            report=False,
        )
        state = inspect_set(shown_out)
        if state.run_id != previous or not state.complete:
            row.misses.append("the previous set is not left whole")
        extras = [p.name for p in shown_out.parent.iterdir() if p.name != "out"]
        if extras:
            row.misses.append(f"left beside --out: {extras}")
        self.rows.append(row)

    def two_runs(self) -> None:
        cwd = self.fresh("4c")
        out = cwd / "out"
        first = subprocess.Popen(
            [DP_AUDIT, "run", "--adapter", "reference.geometric", "--backend", "inline",
             "--budget", "600000", "--out", str(out)],
            cwd=cwd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert first.stderr is not None
        head = b""
        for line in first.stderr:
            head += line
            if b"dp-audit: auditing" in line:  # it holds the folder's lock by now
                break
        second = dp_audit(
            cwd, "run", "--adapter", "reference.geometric", "--budget", "2000", "--out", str(out)
        )
        overlapped = first.poll() is None
        rest = first.stderr.read()
        try:
            first_code: int | None = first.wait(timeout=DEFAULT_LIMIT)
        except subprocess.TimeoutExpired:
            first.kill()
            first.wait()
            first_code = None
        first_ran = Ran(first_code, (head + rest).decode("utf-8", "backslashreplace"), 0.0)
        row1 = row_for(
            "4c two runs into one --out: the first",
            "run --adapter reference.geometric --budget 600000 --out out",
            first_ran,
            out,
            code=0,
            report=True,
        )
        row2 = row_for(
            "4c two runs into one --out: the second, started while the first runs",
            "run --adapter reference.geometric --budget 2000 --out out",
            second,
            None,
            code=2,
            says=("is being written by another dp-audit run",),
        )
        row2.verdicts = "—"
        row2.report = "no (refused); the first run's set: " + inspect_set(out).describe()
        if not overlapped:
            row2.misses.append("the first run had already finished: no overlap shown")
        self.rows += [row1, row2]

    # 5: hangs, crashes, names, --quiet, report / compare ----------------------------------------

    def hangs_and_crashes(self) -> None:
        cases = [
            ("5a a sample that hangs on every call, --backend local", "hangs",
             ["--timeout", "2", "--workers", "2"], ("did not return within 2 s",)),
            ("5b a sample that hangs on every call, --backend inline", "hangs_inline",
             ["--timeout", "2", "--backend", "inline"], ("did not return within",)),
            ("5c a sample that crashes on every call (exit 3, SIGSEGV)", "crashes",
             ["--timeout", "2", "--workers", "2"],
             ("crashed its worker process (exit code 3)", "killed by signal SIGSEGV")),
        ]  # fmt: skip
        for probe, target, options, says in cases:
            self.simple(
                probe,
                f"run --adapter probe_adapters.py:{target} {' '.join(options)}",
                lambda cwd, target=target, options=options: [
                    "run", "--adapter", f"{self.extra(cwd)}:{target}", "--attack", "black-box",
                    "--budget", "2000", *options,
                ],
                says=says,
                report=True,
                limit=90,
            )  # fmt: skip

    def names(self) -> None:
        self.simple(
            "5d two adapters with one name in one target",
            "run --adapter mixed_targets.py:same_name_twice",
            ["run", "--adapter", f"{HELPERS / 'mixed_targets.py'}:same_name_twice",
             "--attack", "black-box", "--budget", "2000"],
            says=("holds two adapters named 'twin'",),
            report=False,
        )  # fmt: skip
        self.simple(
            "5e one name in two targets",
            "run --adapter bad_adapters.py:good --adapter exiting_adapters.py:adapters",
            ["run", "--adapter", f"{HELPERS / 'bad_adapters.py'}:good",
             "--adapter", f"{HELPERS / 'exiting_adapters.py'}:adapters",
             "--attack", "black-box", "--budget", "2000"],
            says=("'good.geometric' appears more than once",),
            report=False,
        )  # fmt: skip
        self.simple(
            "5f control characters in names and messages",
            "run --adapter traceback_adapters.py:raising --adapter mixed_targets.py:"
            "with_a_non_adapter",
            ["run", "--adapter", f"{HELPERS / 'traceback_adapters.py'}:raising",
             "--adapter", f"{HELPERS / 'mixed_targets.py'}:with_a_non_adapter",
             "--workers", "1", "--attack", "black-box", "--budget", "2000"],
            says=("bad query\\x1b[31m red\\x0asecond line", "evil\\x0dname\\x1b[2J"),
            report=True,
        )  # fmt: skip

    def quiet(self) -> None:
        for backend in ("inline", "local"):
            self.simple(
                f"5{'g' if backend == 'inline' else 'h'} --quiet with warnings, "
                f"--backend {backend}",
                f"run --adapter mixed_targets.py:with_a_non_adapter --quiet --backend {backend}",
                ["run", "--adapter", f"{HELPERS / 'mixed_targets.py'}:with_a_non_adapter",
                 "--backend", backend, "--workers", "1", "--attack", "black-box",
                 "--budget", "2000", "--quiet"],
                report=True,
            )  # fmt: skip
            row = self.rows[-1]
            if row.stderr != "(empty)":
                row.misses.append("--quiet let something through to stderr")

    def report_and_compare(self) -> None:
        assert self.good_set is not None
        good = str(self.good_set / "report.json")
        cwd = self.fresh("5i")
        (cwd / "a-file").write_text("")
        (cwd / "latin1.json").write_bytes(b'{"schema": "dp-audit/1", "x": "\\xff\xff"}')
        blocked = cwd / "a-file"
        cases: list[tuple[str, str, list[str], Path, str]] = [
            ("5i report into an unwritable place", "report good.json --output a-file/r.md",
             ["report", good, "--format", "md", "--output", str(blocked / "r.md")],
             blocked / "r.md", "cannot write"),
            ("5j compare into an unwritable place", "compare good.json good.json --out a-file/cmp",
             ["compare", good, good, "--out", str(blocked / "cmp")], blocked / "cmp",
             "cannot write"),
            ("5k report of non-UTF-8 input", "report latin1.json --output r.md",
             ["report", str(cwd / "latin1.json"), "--output", str(cwd / "r.md")], cwd / "r.md",
             "is not UTF-8 text"),
            ("5l compare of non-UTF-8 input", "compare latin1.json good.json --out cmp",
             ["compare", str(cwd / "latin1.json"), good, "--out", str(cwd / "cmp")],
             cwd / "cmp", "is not UTF-8 text"),
        ]  # fmt: skip
        for probe, command, args, output, message in cases:
            ran = dp_audit(cwd, *args)
            self.rows.append(
                row_for(
                    probe,
                    command,
                    ran,
                    None,
                    code=2,
                    says=(message,),
                    report=False,
                    output=output,
                )
            )


# -- main ------------------------------------------------------------------------------------


def table(rows: list[Row]) -> str:
    head = (
        "| probe | command (short) | exit code | verdicts (violation / no_violation / error) "
        "| report written | traceback on stderr | first line of stderr |"
    )
    lines = [head, "|" + " --- |" * 7]
    for r in rows:
        cells = [r.probe, f"`{r.command}`", r.code, r.verdicts, r.report,
                 "yes" if r.traceback else "no", r.stderr]  # fmt: skip
        lines.append("| " + " | ".join(c.replace("\n", " ") for c in cells) + " |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=4, help="SIGKILLs of the kill probe")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    args = parser.parse_args()

    start = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="dp-audit-probes-"))
    try:
        probes = Probes(root, args.kills)
        for step in (
            probes.control,
            probes.system_exit,
            probes.bad_entries,
            probes.unwritable_out,
            probes.baselines,
            probes.kills_while_writing,
            probes.full_disk,
            probes.two_runs,
            probes.hangs_and_crashes,
            probes.names,
            probes.quiet,
            probes.report_and_compare,
        ):
            step()
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    rows = probes.rows
    print(table(rows))
    print()
    misses = [(r.probe, m) for r in rows for m in r.misses]
    print(f"Probe expectations (exit code, message, report): {len(rows) - len({p for p, _ in misses})}"
          f"/{len(rows)} probes met all of theirs.")  # fmt: skip
    for probe, miss in misses:
        print(f"- {probe}: {miss}")
    broken = {
        "exit 0 without a report": [r.probe for r in rows if r.exit_0_without_report],
        "traceback on stderr": [r.probe for r in rows if r.traceback],
        "exit 1 without a certified violation": [
            r.probe for r in rows if r.exit_1_without_violation
        ],
        "did not finish": [r.probe for r in rows if r.hung],
    }
    verdict = "; ".join(
        f"{rule}: {', '.join(probes_) if probes_ else 'none'}" for rule, probes_ in broken.items()
    )
    ok = not any(broken.values())
    print()
    print(
        f"Summary: {len(rows)} rows in {time.monotonic() - start:.0f} s; "
        f"{'all three rules hold' if ok else 'RULES BROKEN'} ({verdict})."
    )
    if args.keep:
        print(f"(temporary folders kept in {root})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
