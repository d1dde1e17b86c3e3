"""The ``dp-audit`` command line's parser: its subcommands and options, in the order ``--help``
lists them (``dp_audit.cli`` runs the commands).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, NoReturn

from auditor.core.errors import InvalidArgument
from dp_audit.arguments import MIN_BUDGET, budget, probability, whole_number
from dp_audit.arguments import claim as _claim
from dp_audit.arguments import configurations as _configurations
from dp_audit.arguments import folder as _folder
from dp_audit.arguments import futility as _futility
from dp_audit.arguments import non_negative_float as _non_negative_float
from dp_audit.arguments import positive as _positive
from dp_audit.arguments import seconds as _seconds
from dp_audit.arguments import workers as _workers

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


def build_parser(run_defaults: dict[str, Any] | None = None) -> argparse.ArgumentParser:
    """The command line; ``run_defaults`` (from ``[tool.dp-audit]``) replace the defaults of
    ``run``'s options, so flags given on the command line still win."""
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
    run = _add_run_parser(sub)
    _add_check_parser(sub)
    _add_report_parsers(sub)
    if run_defaults:
        # repeatable options keep None as default (append would add to a list); _cmd_run
        # falls back to the project's lists when the command line gives none
        run.set_defaults(
            **{k: v for k, v in run_defaults.items() if k not in ("adapter", "attack")}
        )
    return parser


def _add_run_parser(sub: Any) -> argparse.ArgumentParser:
    """``dp-audit run``, its options in the order ``--help`` lists them."""
    run: argparse.ArgumentParser = sub.add_parser(
        "run",
        help="audit adapters and write a report",
        description="Audit adapters (all built-ins by default) and write report.json, report.md, "
        "report.html and junit.xml. Settings may also come from [tool.dp-audit] in the nearest "
        "pyproject.toml (targets, attacks, budget, loop-budget, futility, conditional-test, tighten, alpha, "
        "seed, timeout, workers, baseline, out); flags on the command line win.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_run_budget_options(run)
    _add_run_statistics_options(run)
    _add_run_search_and_output_options(run)
    return run


def _add_run_budget_options(run: argparse.ArgumentParser) -> None:
    """What ``run`` audits and how many outputs it may draw."""
    from auditor.core.configs import DEFAULT_BUDGET, DEFAULT_FUTILITY, DEFAULT_LOOP_BUDGET

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


def _add_run_statistics_options(run: argparse.ArgumentParser) -> None:
    """``run``'s significance, seed, output folder, claim and stopping rule."""
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


def _add_run_search_and_output_options(run: argparse.ArgumentParser) -> None:
    """``run``'s parameter search, progress output, engine and baseline."""
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


def _add_check_parser(sub: Any) -> None:
    """``dp-audit check``: the contract, without an audit."""
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


def _add_report_parsers(sub: Any) -> None:
    """``dp-audit report``, ``reproduce`` and ``compare``: what reads a report.json."""
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
