"""The audit: adapters x attacks x events, under one family-wise error budget.

How soundness is kept, in one place:

1. every attack's trials are planned before anything is sampled, and each trial reserves
   ``2 * distinguisher.max_events`` tests (every event in both directions);
2. the run's ``alpha`` is split evenly over all reserved tests (Bonferroni); a trial spreads
   its tests' share over the events it proposes, weighted from its training split alone (half
   to the predicted winner), and each test's share is split again over the planned looks of
   the sequential certification;
3. events are chosen on a training split and certified only on samples drawn afterwards;
4. every draw is seeded from the run's seed, the adapter, attack, trial, side and batch, so a
   result never depends on which other adapters ran or how work was scheduled.

Execution (``EngineConfig``, see ``auditor.engine.backends``) never changes a number: adapters are
audited concurrently by threads that take turns in this process (one lock) and wait for their
chunks in worker processes, and every backend draws the same seeded chunks.

A violation is reported when some certified bound exceeds the claimed epsilon; the union bound
makes all reported bounds hold simultaneously with probability at least 1 - alpha.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from auditor.core.configs import AuditConfig, EngineConfig
from auditor.core.errors import (
    AdapterCrashed,
    AdapterTimeout,
    DPAuditError,
    InvalidArgument,
    adapter_code,
    describe,
    format_traceback,
)
from auditor.core.interfaces import Attack
from auditor.core.provenance import platform_info, versions
from auditor.core.results import (
    AdapterResult,
    AuditReport,
    Finding,
    Verdict,
    jsonable,
)
from auditor.core.seeding import entropy
from auditor.core.spec import AdapterSpec, adapter_label, check_adapter
from auditor.core.trials import Trial
from auditor.engine.backends import open_sampler
from auditor.engine.certify import Certifier
from auditor.engine.proposals import Proposer
from auditor.engine.sampling import Sampler, check_memory
from auditor.engine.schedule import MIN_PILOT_TRAIN
from auditor.engine.search_units import THIN_SCREEN
from auditor.engine.trial_stages import run_trial
from auditor.statistics.events.cell_chains import claim_orders

ProgressCallback = Callable[[str, int, int], None]


@dataclass
class _PlannedAdapter:
    spec: AdapterSpec | None
    name: str
    trials: list[tuple[Attack, Trial]]
    error: str | None = None
    notes: tuple[str, ...] = ()
    #: the traceback behind ``error`` (``DPAuditError.adapter_traceback``), if any
    traceback: str | None = None


def _plan(
    adapter: Any,
    attacks: Sequence[Attack],
    seed: int,
    claim: Any = None,
    config: AuditConfig | None = None,
) -> _PlannedAdapter:
    """The adapter's trials (or the error that stops it), before anything is sampled;
    ``config`` sizes the memory check (None: the default budget)."""
    try:
        spec = check_adapter(adapter)
        if claim is not None:  # the run's --claim replaces the declared one
            spec = dataclasses.replace(spec, claim=claim)
    except DPAuditError as exc:
        return _PlannedAdapter(
            None, adapter_label(adapter), [], str(exc), traceback=exc.adapter_traceback
        )
    trials: list[tuple[Attack, Trial]] = []
    notes: list[str] = []
    for attack in attacks:
        if not attack.applies_to(spec):
            continue
        rng = np.random.default_rng(entropy(seed, spec.name, attack.name, "inputs"))
        try:  # attacks may read the adapter's own extras: its faults are reported, the run goes on
            with adapter_code(f"attack {attack.name!r}: planning trials"):
                units = [t.for_privacy_units(spec) for t in attack.trials(spec, rng)]
                planned = [None if t is None else t.accepted_by(spec) for t in units]
                trials += [(attack, t) for t in planned if t is not None]
        except DPAuditError as exc:
            return _PlannedAdapter(spec, spec.name, [], str(exc), traceback=exc.adapter_traceback)
    if not trials:
        notes.append("no attack applies to this adapter; nothing was tested")
    # a trial holds at least a pilot's training split of outputs per side in memory
    rows = 2 * min((config or AuditConfig()).budget_for(spec), MIN_PILOT_TRAIN)
    try:
        for _, trial in trials:
            check_memory(spec, trial.x, rows, "each trial of its audit holds at least")
    except DPAuditError as exc:
        return _PlannedAdapter(spec, spec.name, [], str(exc))
    return _PlannedAdapter(spec, spec.name, trials, notes=tuple(notes))


def run_audit(
    adapters: Sequence[Any],
    attacks: Sequence[Attack],
    config: AuditConfig,
    *,
    skipped: Sequence[str] = (),
    progress: ProgressCallback | None = None,
    engine: EngineConfig | None = None,
    targets: Mapping[str, str] | None = None,
    on_result: Callable[[AdapterResult], None] | None = None,
) -> AuditReport:
    """Audit every adapter with every applicable attack; never raises for an adapter's fault.

    ``engine`` says where sampling runs; the default samples in this process without isolation
    (``EngineConfig.in_process()``); ``EngineConfig()`` uses isolated worker processes, which
    ``dp-audit run`` does.  ``targets`` maps adapter names to the target each was loaded from,
    so that workers can load their own copy; adapters without one are pickled, or sampled in
    this process when they cannot be (a note in the result says so).  ``on_result`` is called
    with each adapter's result as soon as it is known (for live output on long runs).

    Raises:
        InvalidArgument: two adapters share a name (reports are keyed on names), or the engine
            cannot start (a missing Dask, an unreachable scheduler).
    """
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    t0 = time.perf_counter()
    engine = engine if engine is not None else EngineConfig.in_process()
    targets = dict(targets or {})
    planned = _plan_all(adapters, attacks, config)
    tests = sum(2 * t.distinguisher.max_events for p in planned for _, t in p.trials)
    alpha_test = config.alpha / tests if tests else config.alpha
    total = sum(
        2 * config.budget_for(p.spec, t.needs) for p in planned if p.spec for _, t in p.trials
    )
    done = 0

    def on_samples(n: int, name: str = "") -> None:
        nonlocal done
        done += n
        if progress:
            progress(name, done, total)

    lock = threading.Lock()
    sampler = open_sampler(engine, lock)
    # screening's proposals use the local workers' cores while they would idle: when one
    # adapter is audited (with several, the others' chunks keep the workers busy and more
    # processes would only compete for the cores); never a cluster's
    alone = sum(1 for p in planned if p.spec is not None and not p.error) == 1
    proposer = Proposer(engine.n_workers if engine.backend == "local" and alone else 1)
    try:
        for p in planned:
            if p.spec is not None and not p.error:
                sampler.prepare(p.spec, targets.get(p.name))

        def audit(p: _PlannedAdapter) -> AdapterResult:
            with lock:
                result = _audit_adapter(p, config, alpha_test, sampler, proposer, on_samples)
                result = dataclasses.replace(result, target=targets.get(p.name))
                if on_result is not None:
                    on_result(result)
                return result

        results = _audit_all(planned, audit, engine, config)
    finally:
        sampler.close()
    return AuditReport(
        alpha=config.alpha,
        seed=config.seed,
        budget=config.budget,
        tests=tests,
        results=tuple(results),
        versions=versions(),
        platform=platform_info(),
        skipped=tuple(skipped),
        wall_seconds=time.perf_counter() - t0,
        started=started,
        settings=jsonable(dataclasses.asdict(config)),
    )


def _plan_all(
    adapters: Sequence[Any], attacks: Sequence[Attack], config: AuditConfig
) -> list[_PlannedAdapter]:
    """Every adapter's plan, in the given order (the report's).

    Raises:
        InvalidArgument: two adapters share a name (reports are keyed on names).
    """
    planned = [_plan(a, attacks, config.seed, config.claim, config) for a in adapters]
    names = [p.name for p in planned]
    for name in names:
        if names.count(name) > 1:
            raise InvalidArgument(
                f"adapter name {name!r} appears more than once; names must be unique"
            )
    return planned


def _audit_all(
    planned: list[_PlannedAdapter],
    audit: Callable[[_PlannedAdapter], AdapterResult],
    engine: EngineConfig,
    config: AuditConfig,
) -> list[AdapterResult]:
    """``audit`` of every plan, in the planned order whichever order they ran in."""
    # four adapters per worker: while the costliest ones (first to start, first in the
    # workers' queues) wait for this process or for their own worker, others fill the gaps
    threads = 1 if engine.backend == "inline" else min(len(planned), 4 * engine.n_workers)
    if threads <= 1:
        return [audit(p) for p in planned]
    # the costliest adapters start first, so that the longest one does not start last
    # (the report keeps the planned order; no number depends on when an adapter ran)
    order = start_order(planned, config)
    pool = ThreadPoolExecutor(threads, thread_name_prefix="dp-audit-adapter")
    try:
        done_in_order = list(pool.map(audit, [planned[i] for i in order]))
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    by_plan = sorted(zip(order, done_in_order, strict=True), key=lambda pair: pair[0])
    return [result for _, result in by_plan]


def planned_outputs(p: _PlannedAdapter, config: AuditConfig) -> int:
    """Most outputs per side the adapter's trials may draw (screening included), from the plan."""
    if p.spec is None or p.error:
        return 0
    spec = p.spec
    return sum(
        config.budget_for(spec, trial.needs) * (2 if trial.candidates else 1)
        for _, trial in p.trials
    )


def start_order(planned: Sequence[_PlannedAdapter], config: AuditConfig) -> list[int]:
    """Indices of ``planned`` in the order their audits start: adapters that call their library
    once per output (``vectorised = False``) first, and among them those without ``seed()``
    (sampled on one worker only, so the longest chains of the run); then by planned outputs,
    largest first; ties keep the planned order.  Scheduling only: results never depend on it."""

    def cost(i: int) -> tuple[bool, bool, int, int]:
        p = planned[i]
        if p.spec is None:
            return (True, True, 0, i)
        return (p.spec.vectorised, p.spec.seedable, -planned_outputs(p, config), i)

    return sorted(range(len(planned)), key=cost)


def _audit_adapter(
    p: _PlannedAdapter,
    config: AuditConfig,
    alpha_test: float,
    sampler: Sampler,
    proposer: Proposer,
    on_samples: Callable[[int, str], None],
) -> AdapterResult:
    t_start = time.perf_counter()
    if p.spec is None or p.error:
        return _error_result(p, p.error or "invalid adapter", 0, 0.0)
    name = p.name

    def counted(n: int) -> None:
        on_samples(n, name)

    certifier = Certifier(p.spec, config, alpha_test, counted, sampler, proposer)
    findings: list[Finding] = []
    errors: list[str] = []
    for index, (attack, trial) in enumerate(p.trials):
        try:
            finding = run_trial(certifier, attack, index, trial)
        except DPAuditError as exc:
            # one trial's failure (an input the adapter rejects, a malformed batch) does not
            # erase what other trials certified; a hang or a crash ends the adapter's audit
            if not errors:  # the error reported is the first: its traceback goes with it
                p.traceback = exc.adapter_traceback
            errors.append(str(exc) if not errors else f"{attack.name}: {exc}")
            if isinstance(exc, AdapterTimeout | AdapterCrashed):
                break
            continue
        except Exception as exc:  # noqa: BLE001 - a bug of dp-audit's own, not the adapter's
            # it ends this trial alone, as an error (never a pass), with the traceback for
            # the bug report; the other trials and adapters are still audited
            if not errors:
                p.traceback = format_traceback(exc)
            errors.append(
                f"internal error in dp-audit (a bug: please report it with this traceback) "
                f"in attack {attack.name!r}: {describe(exc)}"
            )
            continue
        if finding is not None:
            findings.append(finding)
            if finding.estimate.violates(p.spec.claim):
                break
    best = max(findings, key=lambda f: f.estimate.bound, default=None)
    violated = best is not None and best.estimate.violates(p.spec.claim)
    notes = p.notes + sampler.notes(p.name) + futility_notes(certifier, config)
    if not violated:
        notes += _thin_screening_notes(certifier)
    if errors and not violated:
        p.notes = notes + tuple(f"also failed: {e}" for e in errors[1:])
        return replace(
            _error_result(p, errors[0], certifier.samples, time.perf_counter() - t_start),
            best=best,
            findings=tuple(findings),
        )
    if errors:
        notes += tuple(f"a trial failed (the violation stands): {e}" for e in errors)
    return AdapterResult(
        adapter=p.name,
        family=p.spec.kind_label,
        claim=p.spec.claim,
        verdict=Verdict.VIOLATION if violated else Verdict.NO_VIOLATION,
        best=best,
        findings=tuple(findings),
        library=p.spec.library,
        library_version=p.spec.library_version,
        samples=certifier.samples,
        seconds=time.perf_counter() - t_start,
        notes=notes,
        power=best.power if best is not None and not violated else None,
    )


def futility_notes(certifier: Certifier, config: AuditConfig) -> tuple[str, ...]:
    """One note naming the trials the futility check cut short, each with the most its events
    could have certified (so a reader sees how far below the claim the trial was)."""
    if not certifier.short:
        return ()
    claim = certifier.spec.claim
    trials = "; ".join(
        f"{cut.trial!r} (reachable at best: {claim.parameter} >= {cut.hope:.3g})"
        for cut in certifier.short
    )
    sizes = sorted({(cut.drawn, cut.planned) for cut in certifier.short})
    shown = ", ".join(
        f"{drawn:,} instead of {planned:,}"
        if drawn
        else f"none instead of {planned:,} (the pilot's bound stands)"
        for drawn, planned in sizes
    )
    cells = ", nor cells at their training proportions" if claim_orders(claim) else ""
    return (
        f"futility: {len(certifier.short)} trial(s) cut short (main certification outputs per "
        f"side: {shown}), because on their training split no proposed event could certify a "
        f"violation even at the favourable edge of its {1 - config.futility:.4g} confidence "
        f"interval{cells} (decided before any certification output was drawn; claimed "
        f"{claim.parameter} {claim.value:.4g}): {trials}",
    )


def _thin_screening_notes(certifier: Certifier) -> tuple[str, ...]:
    """One note when a screening was too thin to show outputs of probability near delta, and
    what the widest screening of the adapter gave instead."""
    delta = certifier.spec.claim.delta
    thin = [s for s in certifier.screens if s[2] * delta < THIN_SCREEN]
    if not thin:
        return ()
    _, pairs, scored = min(thin, key=lambda t: t[2])
    attack, wide_pairs, widest = max(certifier.screens, key=lambda t: t[2])
    wider = (
        f"; the {attack} attack's {wide_pairs} pairs were first scored on {widest:,} outputs "
        f"each (such an output shows about {widest * delta:.2g} times)"
        if widest * delta >= THIN_SCREEN
        else ""
    )
    return (
        f"screening: each of {pairs} candidate pairs was first scored on {scored:,} outputs "
        f"per side, where an output of probability delta = {delta:g} shows about "
        f"{scored * delta:.2g} times: a leak in delta alone (an output one neighbour never "
        "produces and the other does with probability a few times delta) can go unseen there; "
        f"showing such an output 3 times takes about {3 / delta:.2g} outputs per pair{wider}",
    )


def _error_result(p: _PlannedAdapter, message: str, samples: int, seconds: float) -> AdapterResult:
    """The ``error`` verdict: ``message`` and the traceback behind it (``p.traceback``)."""
    spec = p.spec
    return AdapterResult(
        adapter=p.name,
        family=spec.kind_label if spec else str(getattr(p, "family", "")),
        claim=spec.claim if spec else None,
        verdict=Verdict.ERROR,
        error=message,
        library=spec.library if spec else "",
        library_version=spec.library_version if spec else "",
        samples=samples,
        seconds=seconds,
        notes=p.notes,
        error_traceback=p.traceback,
    )
