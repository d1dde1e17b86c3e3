"""The ``dp-audit`` command line.

Exit codes (what CI scripts rely on): 1 if any violation was certified; else 2 if any adapter
ended in ``error`` or the usage was wrong; else 0.  User mistakes get one line on stderr, never a
traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import traceback
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from auditor.core.errors import DPAuditError, InvalidArgument, describe
from auditor.core.text import printable
from auditor.shell.arguments import MIN_BUDGET, budget, probability, whole_number

EXIT_OK, EXIT_VIOLATION, EXIT_ERROR = 0, 1, 2

EPILOG = """\
examples:
  dp-audit run                                   audit every built-in adapter
  dp-audit check --adapter my_adapters.py:laplace  check your adapter's contract first
  dp-audit run --adapter my_adapters.py:laplace  audit your own adapter from a file
  dp-audit run --adapter mylib.dp:ADAPTERS --budget 1000000 --seed 7
  dp-audit report dp-audit-report/report.json --format html
  dp-audit run --baseline old/report.json        fail only on regressions against a baseline
  dp-audit compare textbook/report.json exact/report.json --out cmp

exit codes: 1 violation certified (with --baseline: a regression); 2 adapter error or bad
usage; 0 otherwise.
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise InvalidArgument(f"{message} (see '{self.prog} --help')")


def _workers(text: str) -> int:
    from auditor.core.configs import MAX_WORKERS

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of workers, got {text!r}"
        ) from None
    if not 1 <= value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"expected 1 to {MAX_WORKERS} workers, got {text!r}")
    return value


def _seconds(text: str) -> float:
    from auditor.core.configs import MAX_TIMEOUT

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not math.isfinite(value) or not 0 < value <= MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds in (0, {MAX_TIMEOUT:g}], got {text!r}"
        )
    return value


def _futility(text: str) -> float:
    from auditor.core.configs import MAX_FUTILITY

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value < MAX_FUTILITY:
        raise argparse.ArgumentTypeError(
            f"expected a number in [0, {MAX_FUTILITY:g}) (0 turns the check off), got {text!r}"
        )
    return value


def _claim(text: str) -> Any:
    from auditor.core.claim_kinds import parse_claim
    from auditor.core.errors import InvalidArgument

    try:
        return parse_claim(text)
    except InvalidArgument as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: converters of the run options a project may set in [tool.dp-audit] (by destination)
CONFIGURABLE: dict[str, Callable[[str], Any]] = {
    "budget": whole_number,
    "loop_budget": whole_number,
    "futility": _futility,
    "alpha": probability,
    "seed": whole_number,
    "timeout": _seconds,
    "workers": _workers,
}


def build_parser(run_defaults: dict[str, Any] | None = None) -> argparse.ArgumentParser:
    """The command line; ``run_defaults`` (from ``[tool.dp-audit]``) replace the defaults of
    ``run``'s options, so flags given on the command line still win."""
    from auditor.core.configs import DEFAULT_BUDGET, DEFAULT_FUTILITY, DEFAULT_LOOP_BUDGET
    from auditor.core.provenance import versions

    parser = _Parser(
        prog="dp-audit",
        description="Attack and audit differential-privacy implementations; certify violations.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"dp-audit {versions()['dp-audit']}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.add_parser("list", help="list the adapters found and the attacks available")
    run = sub.add_parser(
        "run",
        help="audit adapters and write a report",
        description="Audit adapters (all built-ins by default) and write report.json, report.md, "
        "report.html and junit.xml. Settings may also come from [tool.dp-audit] in the nearest "
        "pyproject.toml (targets, attacks, budget, loop-budget, futility, conditional-test, alpha, "
        "seed, timeout, workers, baseline, out); flags on the command line win.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "--adapter",
        action="append",
        metavar="TARGET",
        help="module:attr, path/to/file.py:attr, an entry-point name, or built-in adapters by "
        "the names `dp-audit list` shows ('*' matches any text: 'opendp.*') (repeatable); "
        "default: every built-in",
    )
    run.add_argument(
        "--attack",
        action="append",
        metavar="NAME",
        help="run only these attacks (repeatable); default: every attack except the opt-in ones (timing)",
    )
    run.add_argument(
        "--budget",
        type=budget,
        default=DEFAULT_BUDGET,
        help=f"outputs drawn per neighbouring input per trial, at least {MIN_BUDGET} "
        f"(default {DEFAULT_BUDGET:,})",
    )
    run.add_argument(
        "--loop-budget",
        type=budget,
        default=DEFAULT_LOOP_BUDGET,
        help="budget for adapters that call their library once per output "
        f"(vectorised = False; default {DEFAULT_LOOP_BUDGET:,})",
    )
    run.add_argument(
        "--futility",
        type=_futility,
        default=DEFAULT_FUTILITY,
        metavar="P",
        help="a trial whose training split shows, at confidence 1 - P, no chance of certifying "
        "a violation draws no further certification outputs (decided before any is drawn); "
        f"0 turns this off (default {DEFAULT_FUTILITY:g}; see docs/estimators.md)",
    )
    run.add_argument(
        "--conditional-test",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="certify pure epsilon claims by the conditional test on Poisson-sized samples: "
        "exact at the stated alpha, so tighter bounds, but a correct mechanism whose claim is "
        "tight is then flagged in up to alpha of runs (the default test rarely does); the "
        "certification sizes become Poisson draws around the budget (docs/estimators.md)",
    )
    run.add_argument(
        "--alpha",
        type=probability,
        default=0.05,
        help="family-wise significance of the whole run (default 0.05)",
    )
    run.add_argument(
        "--seed",
        type=whole_number,
        default=0,
        help="seed for every draw the harness makes (default 0)",
    )
    run.add_argument(
        "--out",
        type=_folder,
        default=Path("dp-audit-report"),
        help="output folder (default dp-audit-report/)",
    )
    run.add_argument(
        "--claim",
        type=_claim,
        default=None,
        metavar="KIND:PARAMS",
        help="audit this claim instead of each adapter's own, e.g. 'gdp:mu=1', 'zcdp:rho=0.5', "
        "'approx:eps=1,delta=1e-5', 'pure:eps=1', 'rdp:2=0.5,4=1.2', a delta(eps) curve "
        "'profile:0.5=1e-3,1=1e-5', f-DP points 'fdp:0.01=0.9,0.1=0.6'; a GDP or zCDP "
        "claim's report also states the (epsilon, delta) it implies at its delta "
        "(',delta=1e-6'; see docs/claims.md)",
    )
    run.add_argument(
        "--no-early-stop",
        action="store_true",
        help="certify once on the whole budget instead of in looks that stop at the first "
        "certified violation: slower, but reports the strongest bound the budget allows",
    )
    search = run.add_argument_group(
        "parameter search",
        "adapters that declare a parameter space (`space` and `with_parameters`; see "
        "docs/search.md) are audited at many configurations: a cheap screening pass over a "
        "space-filling design ranks them and certifies nothing; the most suspicious few are "
        "then audited in full on fresh outputs within the run's family-wise alpha",
    )
    search.add_argument(
        "--search",
        action="store_true",
        help="search the parameter space of every adapter that declares one",
    )
    search.add_argument(
        "--configurations",
        type=_configurations,
        default=32,
        metavar="N",
        help="configurations screened per searched adapter (default 32, at most 100,000)",
    )
    search.add_argument(
        "--finalists",
        type=_positive,
        default=3,
        metavar="K",
        help="configurations per searched adapter audited in full (default 3)",
    )
    chatter = run.add_mutually_exclusive_group()
    chatter.add_argument("--quiet", action="store_true", help="no progress output")
    chatter.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="after each adapter that ended in error, the traceback behind it (what its code "
        "raised, or what its worker process wrote before it crashed or was stopped); the "
        "report holds it either way",
    )
    _add_engine_options(run)
    run.add_argument(
        "--baseline",
        type=Path,
        default=None,
        metavar="REPORT_JSON",
        help="compare with an earlier report.json: exit 1 only on regressions (new violations, "
        "or a bound beyond the baseline's interval); see docs/ci.md",
    )
    run.add_argument(
        "--baseline-margin",
        type=_non_negative_float,
        default=0.0,
        metavar="EPS",
        help="tolerance in epsilon before a larger bound counts as a regression (default 0)",
    )
    check = sub.add_parser(
        "check",
        help="check adapters against the contract without auditing them",
        description="Load each adapter, check its declaration, and draw a few outputs at a "
        "typical query in an isolated worker process, as `dp-audit run` would: says what is "
        "wrong (a missing attribute, a wrong shape, dtype or field name, a seed that does not "
        "replay, an exception, a hang) in seconds, before an audit. Exit 2 if any adapter fails.",
    )
    check.add_argument(
        "--adapter",
        action="append",
        metavar="TARGET",
        help="module:attr, path/to/file.py:attr, an entry-point name or built-in names "
        "(repeatable); default: every built-in",
    )
    check.add_argument(
        "--outputs", type=_positive, default=1000, help="outputs to draw per adapter (default 1000)"
    )
    _add_engine_options(check)
    report = sub.add_parser("report", help="render a report.json in another format")
    report.add_argument("path", type=Path, help="a report.json written by dp-audit run")
    report.add_argument(
        "--format", default="md", help="output format: json, md, html or junit (default md)"
    )
    report.add_argument(
        "--output", type=Path, default=None, help="file to write (default: next to the report)"
    )
    reproduce = sub.add_parser(
        "reproduce",
        help="write a standalone script that reproduces one violation",
        description="Write a Python script that reproduces a violation of report.json without "
        "dp-audit: it needs only numpy, scipy and the library under test, redraws the counted "
        "outputs with the recorded seeds, prints the counts and the bound, and exits 1 when the "
        "violation reproduces. `dp-audit run` writes one per violation to OUT/reproduce/.",
    )
    reproduce.add_argument("path", type=Path, help="a report.json written by dp-audit run")
    reproduce.add_argument("adapter", help="the adapter's name, as in the report")
    reproduce.add_argument(
        "--output",
        type=Path,
        default=None,
        help="file to write (default: reproduce/<adapter>.py next to the report)",
    )
    compare = sub.add_parser(
        "compare",
        help="compare two report.json files side by side",
        description="Write compare.md (table), compare.png (figure) and compare.csv for two reports.",
    )
    compare.add_argument("a", type=Path, help="report.json A")
    compare.add_argument("b", type=Path, help="report.json B")
    compare.add_argument(
        "--out",
        type=Path,
        default=Path("dp-audit-compare"),
        help="output folder (default dp-audit-compare/)",
    )
    if run_defaults:
        # repeatable options keep None as default (append would add to a list); _cmd_run
        # falls back to the project's lists when the command line gives none
        run.set_defaults(
            **{k: v for k, v in run_defaults.items() if k not in ("adapter", "attack")}
        )
    return parser


def _positive(text: str) -> int:
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _folder(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder, got an empty path")
    return Path(text)


def _configurations(text: str) -> int:
    from auditor.engine.search import MAX_CONFIGURATIONS

    value = _positive(text)
    if value > MAX_CONFIGURATIONS:
        raise argparse.ArgumentTypeError(
            f"expected at most {MAX_CONFIGURATIONS:,} configurations (each is an audit of its "
            f"own), got {text!r}"
        )
    return value


def _non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}") from None
    if not (value >= 0.0) or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return value


def _read_report(path: Path) -> dict[str, Any]:
    from reports.json_report import load_report

    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise InvalidArgument(f"cannot read {str(path)!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InvalidArgument(
            f"{str(path)!r} is not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset "
            f"{exc.start}): not a report.json"
        ) from None
    return load_report(text, str(path))


def _write(action: Callable[[], Any], where: Path) -> Any:
    """Run a writing step; an unwritable place is the user's to fix: one line, exit 2."""
    try:
        return action()
    except OSError as exc:
        raise InvalidArgument(f"cannot write {str(where)!r}: {exc.strerror or exc}") from None


def _add_engine_options(run: argparse.ArgumentParser) -> None:
    """Where sampling runs; none of these options changes a number in the report."""
    from auditor.core.configs import DEFAULT_TIMEOUT, default_workers
    from auditor.engine.backends import BACKENDS

    group = run.add_argument_group("execution (never changes the results)")
    group.add_argument(
        "--workers",
        type=_workers,
        default=None,
        help=f"worker processes sampling in parallel (default: CPUs available, at most 8; here {default_workers()})",
    )
    group.add_argument(
        "--backend",
        choices=list(BACKENDS),
        default="local",
        help="local: isolated worker processes (default); inline: this process, no crash "
        "isolation; dask: a Dask cluster (--scheduler, or a LocalCluster of --workers processes)",
    )
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (needs --backend dask)",
    )
    group.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"longest a single sample() call may take before the adapter is an error (default {DEFAULT_TIMEOUT:g})",
    )


def _engine(args: argparse.Namespace) -> Any:
    from auditor.core.configs import EngineConfig

    if args.scheduler is not None and args.backend != "dask":
        raise InvalidArgument(f"--scheduler {args.scheduler!r} needs --backend dask")
    return EngineConfig(
        backend=args.backend, workers=args.workers, timeout=args.timeout, scheduler=args.scheduler
    )


def _collect_adapters(
    targets: list[str] | None,
) -> tuple[list[Any], list[str], dict[str, str]]:
    """Adapters, skip notes, and the target each adapter came from (workers load their own)."""
    from auditor.core.spec import adapter_label
    from auditor.shell.loading import load_builtins, load_named

    origins: dict[str, str] = {}
    if targets:
        adapters: list[Any] = []
        for target in targets:
            names: set[str] = set()
            for adapter, origin in load_named(target):
                name = adapter_label(adapter)
                if name in names:
                    raise InvalidArgument(
                        f"target {target!r} holds two adapters named {printable(name)!r}; "
                        "reports are keyed on names, so each must be unique"
                    )
                names.add(name)
                if origins.get(name) == origin:
                    continue  # named twice, e.g. by 'textbook.*' and by its own name
                adapters.append(adapter)
                origins[name] = origin
        return adapters, [], origins
    adapters, skipped = [], []
    for group in load_builtins():
        adapters += group.adapters
        origins.update({adapter_label(a): group.target for a in group.adapters})
        if group.skipped:
            skipped.append(group.skipped)
    return adapters, skipped, origins


def _cmd_run(args: argparse.Namespace) -> int:
    from attacks import load_attacks
    from auditor.core.configs import AuditConfig
    from auditor.engine.runner import run_audit
    from auditor.shell.interrupts import interrupted
    from auditor.shell.out_folder import check_out
    from auditor.shell.progress import LogProgress, TerminalProgress
    from auditor.shell.reproduce import reproducers
    from reports import RENDERERS
    from reports.baseline import compare_with_baseline, exit_code_with_baseline
    from reports.plots import tradeoff_files
    from reports.writing import FolderBusy, hold, write_report_set

    no_project: tuple[Path | None, dict[str, Any]] = (None, {})
    found, project = getattr(args, "project_config", no_project)
    attack = args.attack or project.get("attack")
    baseline = _read_report(args.baseline) if args.baseline is not None else None

    fixed_n: dict[str, Any] = {"looks": ((1.0, 1.0),)} if args.no_early_stop else {}
    config = AuditConfig(
        budget=args.budget,
        loop_budget=args.loop_budget,
        futility=args.futility,
        conditional_test=args.conditional_test,
        alpha=args.alpha,
        seed=args.seed,
        attacks=tuple(attack) if attack else None,
        claim=args.claim,
        **fixed_n,
    )
    engine = _engine(args)
    if args.quiet:  # nothing on the terminal but errors: library warnings included, in workers too
        warnings.simplefilter("ignore")
        os.environ["PYTHONWARNINGS"] = "ignore"
    if check_out(args.out):
        args.out_created = args.out  # removed again if the run writes no report there
    try:  # held until this process ends: a second run into the same folder is refused
        args.out_lock = hold(args.out)
    except FolderBusy:
        raise InvalidArgument(
            f"--out {str(args.out)!r} is being written by another dp-audit run; "
            "wait for it to finish or choose another --out"
        ) from None
    attacks = load_attacks(config.attacks)
    adapters, skipped, origins = _collect_adapters(args.adapter or project.get("adapter"))
    if not adapters:
        raise InvalidArgument("no adapters to audit")
    # on a terminal: a progress bar, then the summary; in a log (CI): one line per adapter as it
    # finishes, and a line of progress when the run has been silent for a while
    live = not args.quiet and not sys.stderr.isatty()
    progress = (
        LogProgress() if live else TerminalProgress(enabled=not args.quiet and sys.stderr.isatty())
    )

    def say(text: str) -> None:
        if not args.quiet and not interrupted():  # after Ctrl-C: only "interrupted"
            print(printable(text), file=sys.stderr, flush=True)
            if isinstance(progress, LogProgress):
                progress.printed()

    say(
        f"dp-audit: auditing {len(adapters)} adapter(s), budget {config.budget:,}, alpha {config.alpha:g}, seed {config.seed}"
    )
    where = f"scheduler {engine.scheduler}" if engine.scheduler else f"{engine.n_workers} worker(s)"
    say(
        f"  sampling: backend {engine.backend}, {where}, "
        f"timeout {engine.timeout:g} s per sample call"
    )
    if found is not None:
        say(f"  settings: [tool.dp-audit] in {found} (command-line flags win)")
    for note in skipped:
        say(f"  skipped: {note}")
    verbose = bool(getattr(args, "verbose", False))

    def on_result(result: Any) -> None:
        for line in _verdict_lines(result.to_dict(), verbose):
            say(line)

    with progress:
        if args.search:
            report = _search(
                args,
                adapters,
                attacks,
                config,
                skipped,
                engine,
                origins,
                progress,
                say,
                on_result if live else None,
            )
        else:
            report = run_audit(
                adapters,
                attacks,
                config,
                skipped=skipped,
                progress=progress,
                engine=engine,
                targets=origins,
                on_result=on_result if live else None,
            )
    data = {**report.to_dict(), "run_id": uuid.uuid4().hex[:16]}  # in every file of the set
    exit_code: int = report.exit_code
    if baseline is not None:
        data["baseline"] = compare_with_baseline(
            data, baseline, margin=args.baseline_margin, path=str(args.baseline)
        )
        exit_code = exit_code_with_baseline(data)
    if not live:
        for r in data["results"]:
            for line in _verdict_lines(r, verbose):
                say(line)
    if baseline is not None:
        section = data["baseline"]
        for g in section["regressions"]:
            say(f"  REGRESSION  {g['message']}")
        say(
            f"  baseline {args.baseline}: {len(section['regressions'])} regression(s), "
            f"{len(section['accepted'])} known violation(s) accepted, {len(section['fixed'])} fixed"
        )
    for result, r in zip(report.results, data["results"], strict=True):
        sample = result.best.output_sample if result.best is not None else None
        if r.get("replay") and sample is not None:  # a reproducer refuses outputs of another
            r["replay"]["dtype"] = sample.x.dtype.str
    scripts, missing = reproducers(data, adapters)  # first: the reports name what is written
    for note in missing:
        say(f"  no reproducer: {note}")
    files: dict[str, str | bytes] = {
        filename: render(data) for filename, render in RENDERERS.values()
    }
    # extra files: tradeoff-<adapter>.png per result with a curve claim (issue #17)
    files.update(tradeoff_files(data))
    files.update(scripts)
    try:
        write_report_set(args.out, files)
    except OSError as exc:
        raise InvalidArgument(
            f"cannot write the report to {str(args.out)!r}: {exc.strerror or exc}; "
            "the previous report there, if any, is left as it was"
        ) from None
    say(f"dp-audit: report written to {args.out}/ (exit code {exit_code})")
    return exit_code


def _search(
    args: argparse.Namespace,
    adapters: list[Any],
    attacks: list[Any],
    config: Any,
    skipped: list[str],
    engine: Any,
    origins: dict[str, str],
    progress: Any,
    say: Callable[[str], None],
    on_result: Callable[[Any], None] | None,
) -> Any:
    """``run --search``: screen the declared parameter spaces, then certify the finalists."""
    from auditor.engine.search import SearchConfig, declares_space, search_audit

    searched = [a for a in adapters if declares_space(a)]
    if not searched:
        raise InvalidArgument(
            "--search: none of the adapters declares a parameter space ('space' and "
            "'with_parameters'; see docs/search.md)"
        )
    search = SearchConfig(configurations=args.configurations, finalists=args.finalists)
    say(
        f"  search: {len(searched)} adapter(s) x {args.configurations} configurations screened at "
        f"{search.budget(config):,} outputs (certifies nothing), then {args.finalists} finalist(s) "
        "each audited in full"
    )
    shown: list[str] = []

    def screened(done: int, total: int, worst: Any) -> None:
        step = max(1, total // 10)
        if done == total or done % step == 0 or (not shown or shown[-1] != worst.adapter.name):
            shown.append(worst.adapter.name)
            ratio = worst.score[0]
            say(
                f"  screened {done}/{total}; most suspicious so far: {worst.adapter.name} "
                f"(bound / claim {ratio:.3g})"
            )

    return search_audit(
        adapters,
        attacks,
        config,
        search,
        skipped=skipped,
        engine=engine,
        targets=origins,
        progress=progress,
        on_screened=screened,
        on_result=on_result,
    )


def _kind(adapter: Any) -> str:
    """The adapter's family, or its input and output kinds (``vector(l1) → real[query]``)."""
    from auditor.core.errors import AdapterContractError
    from auditor.core.spec import check_adapter

    try:
        return check_adapter(adapter).kind_label
    except AdapterContractError as exc:
        return f"[invalid: {exc}]"


def _cmd_list(args: argparse.Namespace) -> int:
    from attacks import OPT_IN, available, load_attacks
    from auditor.shell.loading import load_builtins, load_entry_point_adapters

    print(
        "Built-in adapters (those marked [opt-in] run only when named, e.g. --adapter 'benchmark.*'):"
    )
    for group in load_builtins(opt_in=True):
        if group.skipped:
            print(f"  [skipped] {group.skipped}")
        for a in group.adapters:
            mode = "vectorised" if getattr(a, "vectorised", True) else "loop"
            library = getattr(a, "library", "") or group.library
            version = getattr(a, "library_version", "")
            print(
                f"  {a.name:<40} {_kind(a):<10} eps={a.epsilon:g} delta={getattr(a, 'delta', 0.0):g}"
                f"  {library} {version} ({mode}){' [opt-in]' if group.opt_in else ''}"
            )
    plugins = load_entry_point_adapters()
    print("Plugin adapters (entry points 'dp_audit.adapters'):")
    if not plugins:
        print("  none installed")
    for name, found in plugins:
        if isinstance(found, str):
            print(f"  [failed] {found}")
        else:
            for a in found:
                print(f"  {a.name:<40} {_kind(a):<10} eps={a.epsilon:g}  (entry point {name})")
    print("Attacks:")
    for attack in load_attacks(available()):
        opt_in = (
            f" [opt-in: --attack {attack.name}; {OPT_IN[attack.name]}]"
            if attack.name in OPT_IN
            else ""
        )
        print(f"  {attack.name:<20} {attack.description}{opt_in}")
    return EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    """Each adapter's declaration and a small draw through the same isolated path as a run."""
    from auditor.core.spec import adapter_label, check_adapter, typical_query
    from auditor.engine.backends import open_sampler
    from auditor.engine.sampling import check_memory

    # each target on its own: one that holds no adapter is an error line, not the end
    unloaded, adapters, skipped = 0, [], []
    origins: dict[str, str] = {}
    for targets in [[t] for t in args.adapter] if args.adapter else [None]:
        try:
            found, notes, where = _collect_adapters(targets)
        except DPAuditError as exc:
            unloaded += 1
            print(f"error  {printable(str(targets and targets[0]))}: {printable(str(exc))}")
            continue
        adapters += [a for a in found if adapter_label(a) not in origins]
        skipped += notes
        origins = {**where, **origins}
    for note in skipped:
        print(f"skipped  {note}")
    sampler = open_sampler(_engine(args))
    failed = 0
    try:
        for adapter in adapters:
            label = adapter_label(adapter)
            name = printable(label)
            try:
                spec = check_adapter(adapter)
                sampler.prepare(spec, origins.get(label))
                query = typical_query(spec)
                check_memory(spec, query, args.outputs, "the check would hold")
                out = sampler.draw(spec, query, args.outputs, entropy=12345)
            except DPAuditError as exc:
                failed += 1
                print(f"error  {name}: {printable(str(exc))}")
                continue
            shape = "" if out.ndim == 1 else f" of {out.shape[1]}"
            what = f"fields {', '.join(out.dtype.names)}" if out.dtype.names else str(out.dtype)
            print(
                f"ok     {name}  {spec.kind_label}  eps={spec.claim.epsilon:g}: "
                f"{len(out)} outputs{shape} ({what}) at {_query_text(query, spec.input.label)}"
            )
    finally:
        sampler.close()
    print(f"{len(adapters) - failed} of {len(adapters)} adapters follow the contract")
    if unloaded:
        print(f"{unloaded} target(s) could not be loaded")
    return EXIT_ERROR if failed or unloaded else EXIT_OK


def _query_text(query: Any, kind: str) -> str:
    """``query 0.0``, or ``11 records in [0, 1]`` for a dataset (entries for a vector)."""
    import numpy as np

    a = np.asarray(query)
    if a.ndim == 0:
        return f"query {printable(repr(query))}"
    items = "records" if kind.startswith("dataset") else "entries"
    if a.size and np.issubdtype(a.dtype, np.number):
        return f"{len(a)} {items} in [{a.min():g}, {a.max():g}]"
    return f"{len(a)} {items}"


def _cmd_report(args: argparse.Namespace) -> int:
    from reports import RENDERERS
    from reports.writing import write_atomic

    if args.format not in RENDERERS:
        raise InvalidArgument(f"--format {args.format!r} is not one of: {', '.join(RENDERERS)}")
    data = _read_report(args.path)
    filename, render = RENDERERS[args.format]
    out = args.output or args.path.with_name(filename)
    _write(lambda: write_atomic(out, render(data)), out)
    print(out)
    return EXIT_OK


def _cmd_reproduce(args: argparse.Namespace) -> int:
    from auditor.shell.reproduce import FOLDER, reproducer_for, script_name
    from reports.writing import write_atomic

    script = reproducer_for(_read_report(args.path), args.adapter)
    out = args.output or args.path.parent / FOLDER / script_name(args.adapter)
    _write(lambda: (out.parent.mkdir(parents=True, exist_ok=True), write_atomic(out, script)), out)
    print(out)
    return EXIT_OK


def _cmd_compare(args: argparse.Namespace) -> int:
    from reports.compare import write_comparison

    a, b = _read_report(args.a), _read_report(args.b)
    labels = (str(args.a), str(args.b))
    for path in _write(lambda: write_comparison(a, b, labels, args.out), args.out):
        print(path)
    return EXIT_OK


@contextlib.contextmanager
def _warnings_restored() -> Iterator[None]:
    """``--quiet`` silences warnings in this process and its workers (``PYTHONWARNINGS``); both
    are put back when the command ends, for a process that goes on (a test, a notebook)."""
    before = os.environ.get("PYTHONWARNINGS")
    with warnings.catch_warnings():
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("PYTHONWARNINGS", None)
            else:
                os.environ["PYTHONWARNINGS"] = before


def main(argv: list[str] | None = None) -> int:
    from auditor.shell import interrupts, project_config

    parser = build_parser()
    try:
        args = parser.parse_args(argv)  # --help and --version exit here, with status 0
        if args.command == "run":
            found, defaults = project_config.run_defaults(Path.cwd(), CONFIGURABLE)
            if found is not None:
                args = build_parser(defaults).parse_args(argv)
                args.project_config = (found, defaults)
    except DPAuditError as exc:
        # the arguments' own errors may carry a syntax table: its line breaks stay lines
        lines = "\n".join(printable(line) for line in str(exc).split("\n"))
        print(f"dp-audit: error: {lines}", file=sys.stderr)
        return EXIT_ERROR
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    handler = {
        "run": _cmd_run,
        "list": _cmd_list,
        "check": _cmd_check,
        "report": _cmd_report,
        "compare": _cmd_compare,
        "reproduce": _cmd_reproduce,
    }[args.command]
    command_line = argv is None
    if command_line:
        interrupts.install()
    try:
        with _warnings_restored():
            code = handler(args)
        sys.stdout.flush()  # a closed pipe shows here, not as a second error at exit
        return code
    except DPAuditError as exc:
        _remove_unused_out(args)
        print(f"dp-audit: error: {printable(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        _remove_unused_out(args)
        print("dp-audit: interrupted", file=sys.stderr)
        if command_line:  # the process is ours to end (not a test calling main)
            interrupts.finish()
        return interrupts.EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (`dp-audit list | head`): no traceback, and no second error
        # when Python flushes stdout at exit; a run whose output was cut is not a clean run
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR if args.command == "run" else EXIT_OK
    except BaseException as exc:  # noqa: BLE001 - the last line of defence of the exit code
        # Reaching here is a bug (adapter code that escaped isolation, or dp-audit's own). Exit
        # 0 would pass a CI gate without an audit and Python's own exit 1 would read as a
        # certified violation: so it is an error, with the traceback for the bug report.
        _remove_unused_out(args)
        traceback.print_exc()
        print(
            f"dp-audit: error: the run failed unexpectedly: {printable(describe(exc))}",
            file=sys.stderr,
        )
        return EXIT_ERROR


def _remove_unused_out(args: argparse.Namespace) -> None:
    """A run that created its --out folder and wrote no report there leaves no folder."""
    from auditor.shell.out_folder import remove_if_unused

    created = getattr(args, "out_created", None)
    if created is not None:
        remove_if_unused(created)


if __name__ == "__main__":
    sys.exit(main())


def _verdict_line(r: dict[str, Any]) -> str:
    """One line per adapter: verdict, name, the bound against the claim (or the error); a
    curve claim's bound in its own parameter (``μ ≥ 1.087 for a claimed 1-GDP; ...``)."""
    from reports.evidence import as_float, curve_bound_text

    curve = None if r["verdict"] == "error" else curve_bound_text(r, lambda x: f"{as_float(x):.4g}")
    detail = (
        r["error"]
        if r["verdict"] == "error"
        else curve or f"epsilon {_bound_summary(r)} (claim {r['claim']['epsilon']:g})"
    )
    return f"  {r['verdict']:>12}  {r['adapter']}: {detail}"


def _verdict_lines(r: dict[str, Any], verbose: bool = False) -> list[str]:
    """The adapter's verdict line; with ``verbose``, then the traceback behind an error,
    indented, one terminal line per line (each made printable by the caller)."""
    lines = [_verdict_line(r)]
    traceback_text = r.get("error_traceback") if r.get("verdict") == "error" else None
    if verbose and traceback_text:
        lines += [f"                | {line}" for line in str(traceback_text).split("\n")]
    return lines


def _bound_summary(r: dict[str, Any]) -> str:
    """ ">= 2.3" for certified bounds; "= inf (white-box)" when a white-box event is impossible on x'."""
    if r.get("unbounded"):
        return "= inf (white-box)"
    suffix = (
        " (white-box)" if r.get("white_box") and r.get("estimator") == "white-box-exact" else ""
    )
    return f">= {r['epsilon_lower_bound']:.4g}{suffix}"
