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
from typing import Any

from auditor.core.errors import DPAuditError, InvalidArgument, describe
from auditor.core.text import printable
from dp_audit.arguments import futility as _futility
from dp_audit.arguments import probability, whole_number
from dp_audit.arguments import seconds as _seconds
from dp_audit.arguments import workers as _workers
from dp_audit.parser import build_parser
from dp_audit.run_command import cmd_run as _cmd_run
from dp_audit.run_command import collect_adapters as _collect_adapters
from dp_audit.run_command import engine_config as _engine
from dp_audit.run_command import read_report as _read_report
from dp_audit.run_command import remove_unused_out as _remove_unused_out
from dp_audit.run_command import verdict_line as _verdict_line  # noqa: F401 - as before

EXIT_OK, EXIT_VIOLATION, EXIT_ERROR = 0, 1, 2

CONFIGURABLE: dict[str, Callable[[str], Any]] = {
    "budget": whole_number,
    "loop_budget": whole_number,
    "futility": _futility,
    "alpha": probability,
    "seed": whole_number,
    "timeout": _seconds,
    "workers": _workers,
}


def _write(action: Callable[[], Any], where: Path) -> Any:
    """Run a writing step; an unwritable place is the user's to fix: one line, exit 2."""
    try:
        return action()
    except OSError as exc:
        raise InvalidArgument(f"cannot write {str(where)!r}: {exc.strerror or exc}") from None


def _kind_and_claim(adapter: Any) -> tuple[str, str]:
    """The adapter's family, or its input and output kinds (``vector(l1) → real[query]``), and
    its claim as reports print it (``(1, 1e-05)-DP``, ``0.5-zCDP``): an adapter may declare a
    ``claim`` instead of ``epsilon`` and ``delta``."""
    from auditor.core.errors import AdapterContractError
    from auditor.core.spec import check_adapter

    try:
        spec = check_adapter(adapter)
    except AdapterContractError as exc:
        return f"[invalid: {exc}]", ""
    return spec.kind_label, spec.claim.describe()


def _cmd_list(args: argparse.Namespace) -> int:
    from attacks import OPT_IN, available, load_attacks
    from dp_audit.loading import load_builtins, load_entry_point_adapters

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
            kind, claim = _kind_and_claim(a)
            print(
                f"  {a.name:<40} {kind:<10} {claim}"
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
                kind, claim = _kind_and_claim(a)
                print(f"  {a.name:<40} {kind:<10} {claim}  (entry point {name})")
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
                f"ok     {name}  {spec.kind_label}  {spec.claim.describe()}: "
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
    from dp_audit.reproduce import FOLDER, reproducer_for, script_name
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
    from dp_audit import interrupts, project_config

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
