"""``dp-audit run``: its settings, the audit (plain, or a parameter search), the verdict lines
and the report set.

Exit codes (what CI scripts rely on): 1 if any violation was certified (with ``--baseline``: a
regression); else 2 if any adapter ended in ``error``; else 0.  Everything the user can get
wrong is checked before sampling and raised as ``InvalidArgument`` (one line, exit 2).
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from auditor.core.errors import InvalidArgument
from auditor.core.text import printable


def read_report(path: Path) -> dict[str, Any]:
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


def engine_config(args: argparse.Namespace) -> Any:
    from auditor.core.configs import EngineConfig

    if args.scheduler is not None and args.backend != "dask":
        raise InvalidArgument(f"--scheduler {args.scheduler!r} needs --backend dask")
    return EngineConfig(
        backend=args.backend, workers=args.workers, timeout=args.timeout, scheduler=args.scheduler
    )


def collect_adapters(
    targets: list[str] | None,
) -> tuple[list[Any], list[str], dict[str, str]]:
    """Adapters, skip notes, and the target each adapter came from (workers load their own)."""
    from auditor.core.spec import adapter_label
    from dp_audit.loading import load_builtins, load_named

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


def cmd_run(args: argparse.Namespace) -> int:
    """``dp-audit run``: audit, print the verdicts, write the report set; the exit code."""
    from attacks import load_attacks
    from auditor.engine.runner import run_audit

    no_project: tuple[Path | None, dict[str, Any]] = (None, {})
    found, project = getattr(args, "project_config", no_project)
    config = _audit_config(args, project)
    baseline = read_report(args.baseline) if args.baseline is not None else None
    engine = engine_config(args)
    if args.quiet:  # nothing on the terminal but errors: library warnings included, in workers too
        warnings.simplefilter("ignore")
        os.environ["PYTHONWARNINGS"] = "ignore"
    _claim_out(args)
    attacks = load_attacks(config.attacks)
    adapters, skipped, origins = collect_adapters(args.adapter or project.get("adapter"))
    if not adapters:
        raise InvalidArgument("no adapters to audit")
    terminal = _Terminal(args)
    say = terminal.say
    say(
        f"dp-audit: auditing {len(adapters)} adapter(s), budget {config.budget:,}, "
        f"alpha {config.alpha:g}, seed {config.seed}"
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
    on_result = terminal.verdicts if terminal.live else None
    with terminal.progress:
        if args.search:
            report = search(
                args, adapters, attacks, config, skipped, engine, origins, terminal, on_result
            )
        else:
            report = run_audit(
                adapters,
                attacks,
                config,
                skipped=skipped,
                progress=terminal.progress,
                engine=engine,
                targets=origins,
                on_result=on_result,
            )
    return _report(args, report, adapters, baseline, terminal)


def _audit_config(args: argparse.Namespace, project: dict[str, Any]) -> Any:
    from auditor.core.configs import AuditConfig

    attack = args.attack or project.get("attack")
    fixed_n: dict[str, Any] = {"looks": ((1.0, 1.0),)} if args.no_early_stop else {}
    return AuditConfig(
        budget=args.budget,
        loop_budget=args.loop_budget,
        futility=args.futility,
        conditional_test=args.conditional_test,
        tighten=args.tighten,
        alpha=args.alpha,
        seed=args.seed,
        attacks=tuple(attack) if attack else None,
        claim=args.claim,
        **fixed_n,
    )


def _claim_out(args: argparse.Namespace) -> None:
    """Check ``--out`` and lock it for this process, before anything is sampled."""
    from dp_audit.out_folder import check_out
    from reports.writing import FolderBusy, hold

    if check_out(args.out):
        args.out_created = args.out  # removed again if the run writes no report there
    try:  # held until this process ends: a second run into the same folder is refused
        args.out_lock = hold(args.out)
    except FolderBusy:
        raise InvalidArgument(
            f"--out {str(args.out)!r} is being written by another dp-audit run; "
            "wait for it to finish or choose another --out"
        ) from None


class _Terminal:
    """What a run prints: on a terminal, a progress bar, then the summary; in a log (CI), one
    line per adapter as it finishes, and a line of progress when the run has been silent for a
    while.  Nothing after Ctrl-C but "interrupted"; nothing at all with ``--quiet``."""

    def __init__(self, args: argparse.Namespace) -> None:
        from dp_audit.progress import LogProgress, TerminalProgress

        self.quiet = bool(args.quiet)
        self.verbose = bool(getattr(args, "verbose", False))
        self.live = not self.quiet and not sys.stderr.isatty()
        self.progress: Any = (
            LogProgress()
            if self.live
            else TerminalProgress(enabled=not self.quiet and sys.stderr.isatty())
        )

    def say(self, text: str) -> None:
        from dp_audit.interrupts import interrupted
        from dp_audit.progress import LogProgress

        if not self.quiet and not interrupted():
            print(printable(text), file=sys.stderr, flush=True)
            if isinstance(self.progress, LogProgress):
                self.progress.printed()

    def verdicts(self, result: Any) -> None:
        """The verdict lines of one result (an ``AdapterResult`` or its report dict)."""
        r = result if isinstance(result, dict) else result.to_dict()
        for line in verdict_lines(r, self.verbose):
            self.say(line)


def _report(
    args: argparse.Namespace,
    report: Any,
    adapters: list[Any],
    baseline: dict[str, Any] | None,
    terminal: _Terminal,
) -> int:
    """Judge against the baseline, print what was not printed live, write the report set."""
    from dp_audit.reproduce import reproducers
    from reports import RENDERERS
    from reports.baseline import compare_with_baseline, exit_code_with_baseline
    from reports.epsilon_by_delta_plot import figure_files
    from reports.writing import write_report_set

    say = terminal.say
    data = {**report.to_dict(), "run_id": uuid.uuid4().hex[:16]}  # in every file of the set
    exit_code: int = report.exit_code
    if baseline is not None:
        data["baseline"] = compare_with_baseline(
            data, baseline, margin=args.baseline_margin, path=str(args.baseline)
        )
        exit_code = exit_code_with_baseline(data)
    if not terminal.live:
        for r in data["results"]:
            terminal.verdicts(r)
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
    # extra files: tradeoff-<adapter>.png per result with a curve claim (issue #17), and
    # epsilon-by-delta-<adapter>.png beside it (issue #50)
    files.update(figure_files(data))
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


def search(
    args: argparse.Namespace,
    adapters: list[Any],
    attacks: list[Any],
    config: Any,
    skipped: list[str],
    engine: Any,
    origins: dict[str, str],
    terminal: _Terminal,
    on_result: Callable[[Any], None] | None,
) -> Any:
    """``run --search``: screen the declared parameter spaces, then certify the finalists."""
    from auditor.engine.parameter_search import SearchConfig, declares_space, search_audit

    say = terminal.say
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
        progress=terminal.progress,
        on_screened=screened,
        on_result=on_result,
    )


def remove_unused_out(args: argparse.Namespace) -> None:
    """A run that created its --out folder and wrote no report there leaves no folder."""
    from dp_audit.out_folder import remove_if_unused

    created = getattr(args, "out_created", None)
    if created is not None:
        remove_if_unused(created)


def verdict_line(r: dict[str, Any]) -> str:
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


def verdict_lines(r: dict[str, Any], verbose: bool = False) -> list[str]:
    """The adapter's verdict line; with ``verbose``, then the traceback behind an error,
    indented, one terminal line per line (each made printable by the caller)."""
    lines = [verdict_line(r)]
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
