"""The ``dp-audit`` command line.

Exit codes (what CI scripts rely on): 1 if any violation was certified; else 2 if any adapter
ended in ``error`` or the usage was wrong; else 0.  User mistakes get one line on stderr, never a
traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

from auditor.core.errors import DPAuditError, InvalidArgument, describe
from auditor.core.text import printable
from auditor.shell.arguments import MIN_BUDGET, budget, probability, whole_number
from auditor.shell.arguments import claim as _claim
from auditor.shell.arguments import configurations as _configurations
from auditor.shell.arguments import folder as _folder
from auditor.shell.arguments import futility as _futility
from auditor.shell.arguments import non_negative_float as _non_negative_float
from auditor.shell.arguments import positive as _positive
from auditor.shell.arguments import seconds as _seconds
from auditor.shell.arguments import workers as _workers
from auditor.shell.run_command import cmd_run as _cmd_run
from auditor.shell.run_command import collect_adapters as _collect_adapters
from auditor.shell.run_command import engine_config as _engine
from auditor.shell.run_command import read_report as _read_report
from auditor.shell.run_command import remove_unused_out as _remove_unused_out
from auditor.shell.run_command import verdict_line as _verdict_line  # noqa: F401 - as before

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
        "pyproject.toml (targets, attacks, budget, loop-budget, futility, conditional-test, tighten, alpha, "
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
        "--tighten",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="after a violation is certified, go on to the trial's later looks on fresh "
        "outputs (vectorised adapters) so the report gives the tightest bound, and where it "
        "was first certified; --no-tighten stops at the first look that certifies (faster, "
        "a smaller bound; the verdict is the same) (default: on)",
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


if __name__ == "__main__":
    sys.exit(main())
