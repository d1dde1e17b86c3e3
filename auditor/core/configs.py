"""The settings of a run: what it computes (``AuditConfig``) and where it executes
(``EngineConfig``).  Both are frozen and check themselves, so a bad value is a one-line
``InvalidArgument`` before anything is sampled, whichever front end built them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import partial
from typing import Any

from auditor.core.errors import InvalidArgument
from auditor.core.spec import AdapterSpec
from dp_params.checks import check_integer, check_real

_integer = partial(check_integer, error=InvalidArgument)
_real = partial(check_real, error=InvalidArgument)

#: (fraction of the certification samples seen, share of the test's alpha) at each look
#: (after the certifier's pilot stage; see auditor/engine/certify.py and docs/estimators.md)
DEFAULT_LOOKS: tuple[tuple[float, float], ...] = ((1 / 16, 0.05), (1 / 4, 0.1), (1.0, 0.85))
DEFAULT_BUDGET = 200_000
#: budget for adapters that declare ``vectorised = False`` (one library call per output): the
#: same as everyone's (until 0.2 it was 20,000); ``--loop-budget`` can still lower it
DEFAULT_LOOP_BUDGET = DEFAULT_BUDGET
MIN_BUDGET = 100
#: a trial that needs more outputs than the budget (``Trial.needs``) gets at most this many
#: budgets per side
NEEDS_CAP = 10
#: one-sided confidence of the futility check on a trial's training split (see
#: ``AuditConfig.futility`` and ``auditor.engine.certify``)
DEFAULT_FUTILITY = 0.2
#: largest accepted ``futility``: beyond it the check is no longer an optimistic one
MAX_FUTILITY = 0.5

#: seconds one ``sample`` call may take before the adapter is reported as hung
DEFAULT_TIMEOUT = 120.0
#: upper limit of ``--workers`` (a guard against typos, not a performance limit)
MAX_WORKERS = 1024
#: upper limit of ``--timeout`` (one week)
MAX_TIMEOUT = 7 * 24 * 3600.0
#: where sampling can run (``auditor.engine.backends`` maps each to its sampler)
BACKEND_NAMES = ("local", "inline", "dask")


@dataclass(frozen=True)
class AuditConfig:
    """Settings of one run.

    ``budget`` is the largest number of outputs drawn on each neighbouring input of one trial
    (training plus certification); adapters that declare ``vectorised = False`` get
    ``min(budget, loop_budget)`` instead (by default the same 200,000; a lower
    ``loop_budget`` keeps a slow library from stalling a run).  The sizes are fixed before
    anything is sampled, so they never depend on what the samples show.
    ``alpha`` is the family-wise significance of the whole run.

    ``futility``: a trial whose training split shows, even when every training estimate is
    moved to the edge of its one-sided ``1 - futility`` confidence interval in the event's
    favour, that no proposed event could certify a violation at the planned size draws no main
    certification output (its pilot's bound stands; without a pilot it is certified at its
    first look alone, with the whole of its alpha).  The choice uses training outputs only and
    is made before any certification output is drawn, so every bound keeps its significance;
    the cost is power in a narrow band just above the claim (docs/estimators.md §4).  0 turns
    it off; so does a single configured look (fixed-n).
    """

    budget: int = DEFAULT_BUDGET
    loop_budget: int = DEFAULT_LOOP_BUDGET
    alpha: float = 0.05
    seed: int = 0
    attacks: tuple[str, ...] | None = None
    looks: tuple[tuple[float, float], ...] = DEFAULT_LOOKS
    batch_size: int = 1 << 22
    #: most outputs per side a distinguisher trains on; the rest of the budget certifies.
    #: Bounds the run's memory (training outputs are held in memory, certification only
    #: counts) and changes nothing for budgets up to about 10^7.
    max_train: int = 1 << 21
    futility: float = DEFAULT_FUTILITY
    #: certify pure epsilon claims by the conditional test on Poisson-sized samples
    #: (docs/estimators.md §1.1): exact level, so tighter than the two-limit box, which spends
    #: alpha/2 on each side and in practice holds far below alpha; with it a correct mechanism
    #: whose claim is tight is flagged in up to alpha of runs (4 of 200 calibration audits at
    #: alpha 0.05, none with the box)
    conditional_test: bool = False
    #: after a violation is certified at a look, go on to the trial's later looks on fresh
    #: outputs (vectorised adapters), so the report states the tightest bound the budget
    #: certifies rather than the first that crossed the claim; False: stop at the first
    tighten: bool = True
    #: a claim (any kind of ``auditor.core.claim_kinds``) audited instead of every adapter's
    #: own (``--claim``); None: each adapter's declared claim
    claim: Any = None

    def budget_for(self, spec: AdapterSpec, needs: int = 0) -> int:
        """Outputs per neighbouring input per trial for this adapter; a trial that ``needs``
        more (``Trial.needs``) gets what it needs up to ``NEEDS_CAP`` budgets, if the adapter
        is vectorised (a per-call library keeps its loop budget)."""
        if not spec.vectorised:
            return min(self.budget, self.loop_budget)
        return max(self.budget, min(needs, NEEDS_CAP * self.budget))

    def __post_init__(self) -> None:
        for field in ("budget", "loop_budget", "max_train"):
            _integer(getattr(self, field), field, minimum=MIN_BUDGET)
        _integer(self.batch_size, "batch_size", minimum=1)
        _real(self.alpha, "alpha", "(0, 1)")
        _real(self.futility, "futility", f"[0, {MAX_FUTILITY:g})")
        _integer(self.seed, "seed", minimum=0)
        for flag in ("conditional_test", "tighten"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidArgument(f"{flag}={getattr(self, flag)!r} must be True or False")
        fractions = [f for f, _ in self.looks]
        shares = sum(s for _, s in self.looks)
        if (
            not self.looks
            or fractions != sorted(fractions)
            or fractions[-1] != 1.0
            or shares > 1 + 1e-12
        ):
            raise InvalidArgument(
                f"looks={self.looks!r} must have increasing fractions ending at 1.0 and shares "
                "summing to <= 1"
            )


def default_workers() -> int:
    """The number of CPUs this process may use, at most 8 (each worker holds its adapters)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(8, cpus))


@dataclass(frozen=True)
class EngineConfig:
    """How the audit executes — never what it computes (reports do not depend on it).

    ``backend``: ``"local"`` (worker processes, isolated: a hang or crash costs one worker),
    ``"inline"`` (this process; no crash isolation) or ``"dask"``.  ``workers``: processes
    (local) or, for Dask, worker processes of the ``LocalCluster`` started when no
    ``scheduler`` is given; None means :func:`default_workers`.  ``timeout``: seconds per
    ``sample`` call, None for no limit.  ``scheduler``: a Dask scheduler address.
    """

    backend: str = "local"
    workers: int | None = None
    timeout: float | None = DEFAULT_TIMEOUT
    scheduler: str | None = None

    def __post_init__(self) -> None:
        if self.backend not in BACKEND_NAMES:
            raise InvalidArgument(
                f"backend={self.backend!r} is not one of: {', '.join(BACKEND_NAMES)}"
            )
        if self.workers is not None:
            _integer(self.workers, "workers", minimum=1, maximum=MAX_WORKERS)
        if self.timeout is not None:
            _real(self.timeout, "timeout", f"(0, {MAX_TIMEOUT:g}]", what="a number of seconds")
        if self.scheduler is not None:
            if self.backend != "dask":
                raise InvalidArgument(
                    f"scheduler={self.scheduler!r} needs backend='dask' (backend is {self.backend!r})"
                )
            if not isinstance(self.scheduler, str) or not self.scheduler.strip():
                raise InvalidArgument(
                    f"scheduler={self.scheduler!r} must be an address such as tcp://host:8786"
                )

    @property
    def n_workers(self) -> int:
        return self.workers if self.workers is not None else default_workers()

    @classmethod
    def in_process(cls, timeout: float | None = None) -> EngineConfig:
        """The Python API's default: this process, no isolation (the spine's behaviour)."""
        return cls(backend="inline", workers=1, timeout=timeout)
