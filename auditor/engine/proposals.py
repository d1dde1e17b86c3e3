"""Many independent proposals at once, in worker processes when there are cores to spare.

Screening a trial's candidate pairs (``auditor.engine.search_units.PairChoice``) proposes events for every
pair on that pair's own outputs and counts them on a second part: pure, independent work
(classifier fits, exact limits) that otherwise holds this process while the sampling workers
wait for it.  Each proposal is computed the same wherever it runs, so the results do not
depend on how many processes there are; only the time does.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from auditor.core.trials import CertificationPlan, Distinguisher, Event
from auditor.engine.sampling import count_events

#: below this many jobs a call runs here: a round-trip to the processes costs more
MIN_PARALLEL_JOBS = 2


@dataclass(frozen=True)
class ProposalJob:
    """Propose with ``distinguisher`` on ``build`` (x's and x''s outputs), then count the
    proposed events on each array of ``counted``."""

    distinguisher: Distinguisher
    build: tuple[np.ndarray, np.ndarray]
    counted: tuple[np.ndarray, ...]
    plan: CertificationPlan


Proposal = tuple[list[Event], list[np.ndarray]]


def run_job(job: ProposalJob) -> Proposal:
    events = list(job.distinguisher.propose(job.build[0], job.build[1], job.plan))
    return events, [count_events(events, out) for out in job.counted]


def _run_packed(blob: bytes) -> bytes:
    """:func:`run_job` on a cloudpickled job, its result cloudpickled (events may hold
    closures, which the standard pickle cannot carry)."""
    import cloudpickle

    job: ProposalJob = pickle.loads(blob)  # noqa: S301 - pickled by this run's main process
    return bytes(cloudpickle.dumps(run_job(job), protocol=pickle.HIGHEST_PROTOCOL))


class Proposer:
    """Runs lists of :class:`ProposalJob` in order: on ``processes`` worker processes, or here
    with one.  The processes are joblib's reusable loky workers: started at the first list
    long enough to share, kept (idle ones for a few minutes) for the next audits in this
    Python process, so their imports are paid once."""

    def __init__(self, processes: int = 1) -> None:
        self.processes = processes

    def map(self, jobs: Sequence[ProposalJob]) -> list[Proposal]:
        if self.processes <= 1 or len(jobs) < MIN_PARALLEL_JOBS:
            return [run_job(job) for job in jobs]
        import cloudpickle
        from joblib import Parallel, delayed

        try:
            blobs = [cloudpickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL) for job in jobs]
        except Exception:  # noqa: BLE001 - a distinguisher that cannot travel proposes here
            return [run_job(job) for job in jobs]
        try:
            # always the same size: a resized executor restarts its processes
            parallel = Parallel(n_jobs=self.processes, backend="loky")
            packed = parallel(delayed(_run_packed)(blob) for blob in blobs)
            return [pickle.loads(out) for out in packed]  # noqa: S301 - from _run_packed
        except Exception:  # noqa: BLE001 - a job failed or a process died: the same work
            # here, which gives the same results or raises the same error where it is handled
            return [run_job(job) for job in jobs]
