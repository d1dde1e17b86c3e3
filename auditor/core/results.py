"""Result objects: built once, frozen, carrying the raw evidence behind every number.

Every bound in a report can be re-derived from the counts stored next to it with
``auditor.statistics.clopper_pearson.epsilon_lower_bound(k0, n0, k1, n1, alpha, delta,
alpha_split)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from auditor.core.claim_kinds import Claim, claim_to_dict
from auditor.core.claims import PrivacyClaim, exceeds
from auditor.core.source import query_literal

SCHEMA = "dp-audit/1"

#: at most this many outputs per input are kept in a result for plots (never used for a bound)
OUTPUT_SAMPLE_SIZE = 2000


class Verdict(StrEnum):
    VIOLATION = "violation"
    NO_VIOLATION = "no_violation"
    ERROR = "error"

    def __str__(self) -> str:
        return self.value


def jsonable(value: Any) -> Any:
    """Queries, counts and settings as plain JSON values (arrays become lists, numpy scalars Python ones)."""
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()]
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, np.integer | bool):
        return int(value) if not isinstance(value, bool) else value
    if isinstance(value, np.floating | float):
        v = float(value)
        return v if math.isfinite(v) else str(v)
    return value


@dataclass(frozen=True)
class EventCounts:
    """How often the event occurred: ``k0`` of ``n0`` outputs on x, ``k1`` of ``n1`` on x'."""

    n0: int
    k0: int
    n1: int
    k1: int

    def to_dict(self) -> dict[str, int]:
        return {"n0": self.n0, "k0": self.k0, "n1": self.n1, "k1": self.k1}


@dataclass(frozen=True)
class EpsilonEstimate:
    """A certified lower bound on epsilon for one event, at significance ``alpha``.

    ``epsilon_lower_bound`` holds with probability >= 1 - ``alpha`` (this event's share of the
    run's family-wise budget) and is re-derivable as ``epsilon_lower_bound(k0, n0, k1, n1,
    alpha, delta, alpha_split)``, or for ``estimator == "poisson-conditional"`` as
    ``conditional_lower_bound(k0, k1, poisson_mean, poisson_mean, alpha)``.  ``point_estimate`` is the plug-in value on the same held-out
    certification counts, for reading only.

    White-box estimates (``estimator == WHITE_BOX_ESTIMATOR``) come from the adapter's own
    probability oracle, not from samples: ``probabilities = (P[S | x], P[S | x'])`` are exact
    (no sampling error, all counts 0) under the assumption that the oracle describes the
    sampler; the bound holds at every significance, and ``alpha`` records the run's per-test
    alpha only so that every estimate carries one in (0, 1).  ``unbounded`` means P[S | x'] is
    exactly 0 while P[S | x] > delta, i.e. epsilon is infinite; ``epsilon_lower_bound`` then holds a finite stand-in (see
    ``auditor.statistics.exact``) so that report.json stays valid JSON.
    """

    epsilon_lower_bound: float
    point_estimate: float
    alpha: float
    delta: float
    event: str
    counts: EventCounts
    estimator: str = "clopper-pearson"
    white_box: bool = False
    #: share of ``alpha`` spent on the lower limit on x (the rest on the upper limit on x'),
    #: fixed from training data before certification
    alpha_split: float = 0.5
    unbounded: bool = False
    probabilities: tuple[float, float] | None = None
    #: for a claim that is not one (epsilon, delta) point (a curve: zCDP, GDP, RDP, ...): the
    #: value of the claim's parameter the event certifies (``claim.certified``) and its name;
    #: ``epsilon_lower_bound`` is then the (epsilon, ``delta``) statement the same counts make
    claim_bound: float | None = None
    parameter: str | None = None
    #: the Poisson mean each side's outputs were drawn with (estimator ``poisson-conditional``
    #: and the box beside it on the same draws); ``counts`` then hold the sizes drawn
    poisson_mean: int | None = None

    @property
    def bound(self) -> float:
        """The certified bound in the claim's own parameter (epsilon for a point claim)."""
        return self.epsilon_lower_bound if self.claim_bound is None else self.claim_bound

    def violates(self, claim: Any) -> bool:
        """Whether this estimate certifies a violation of ``claim`` (of any kind)."""
        return exceeds(self.bound, claim.value)

    def to_dict(self) -> dict[str, Any]:
        return {
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "point_estimate": self.point_estimate,
            "alpha": self.alpha,
            "delta": self.delta,
            "event": self.event,
            "counts": self.counts.to_dict(),
            "estimator": self.estimator,
            "white_box": self.white_box,
            "alpha_split": self.alpha_split,
            "unbounded": self.unbounded,
            "probabilities": _probabilities_dict(self.probabilities),
            **(
                {}
                if self.claim_bound is None
                # an infinite stretch (a profile's eps = 0 point refuted) as "inf"
                else {"claim_bound": jsonable(self.claim_bound), "parameter": self.parameter}
            ),
            **({} if self.poisson_mean is None else {"poisson_mean": self.poisson_mean}),
        }


@dataclass(frozen=True)
class DeltaBound:
    """A certified lower bound on delta at the claimed epsilon, for one event.

    Re-derivable as ``delta_lower_bound(k0, n0, k1, n1, alpha, epsilon, alpha_split)``
    (``auditor.statistics.clopper_pearson``): the same counts and Clopper-Pearson limits as an
    epsilon bound of that test, read as P[x] - e^epsilon P[x'], so it spends no alpha of its
    own.  It may come from another event than the epsilon bound beside it: every test's
    limits hold together under the run's family-wise alpha.
    """

    delta_lower_bound: float
    epsilon: float
    alpha: float
    event: str
    counts: EventCounts
    alpha_split: float = 0.5
    #: the pair, in bound order (the event is likelier on ``x``), and the trial it came from
    x: Any = None
    x_prime: Any = None
    trial: str = ""

    def violates(self, claimed_delta: float) -> bool:
        return self.delta_lower_bound > claimed_delta

    def to_dict(self) -> dict[str, Any]:
        return {
            "delta_lower_bound": self.delta_lower_bound,
            "epsilon": self.epsilon,
            "alpha": self.alpha,
            "alpha_split": self.alpha_split,
            "event": self.event,
            "counts": self.counts.to_dict(),
            "trial": self.trial,
            "queries": [jsonable(self.x), jsonable(self.x_prime)],
        }


def _probabilities_dict(p: tuple[float, float] | None) -> dict[str, float] | None:
    return None if p is None else {"p0": float(p[0]), "p1": float(p[1])}


@dataclass(frozen=True)
class ExactEvidence:
    """What a white-box check (``Trial.exact``) returns: the neighbours it used and the estimate
    (``event_code``: the event's standalone source, ``Event.source``, when it has one;
    ``probe``: for a check of ``release_without_noise``, the declared sensitivity and the
    difference found, exact, as strings a reproducer reads back with ``Fraction``)."""

    x: Any
    x_prime: Any
    estimate: EpsilonEstimate
    event_code: str | None = None
    probe: dict[str, str] | None = None


@dataclass(frozen=True)
class Replay:
    """What a reproducer needs to redraw the outputs behind a finding's counts: the event's
    standalone source (``Event.source``; None: it has none) and, for x and for x' (bound
    order), the ``(outputs, entropy)`` of every seeded ``sample`` call that was counted.
    A white-box finding has no calls: its reproducer asks the oracle instead (``probe``: the
    ``release_without_noise`` check, see :class:`ExactEvidence`)."""

    event_code: str | None
    calls: tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]] = ((), ())
    probe: dict[str, str] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "event_code": self.event_code,
            "calls": [[[n, e] for n, e in side] for side in self.calls],
        }
        if self.probe is not None:
            out["probe"] = dict(self.probe)
        return out


@dataclass(frozen=True, eq=False)
class OutputSample:
    """A few outputs on each neighbouring input, kept only so reports can plot them.

    ``x`` and ``x_prime`` follow the finding's bound order; ``in_event_x`` and
    ``in_event_x_prime`` say which of them lie in the finding's event.  ``source`` is
    ``"training"`` (the outputs the event was chosen on) or ``"plot"`` (fresh outputs drawn for
    the plot alone, for distinguishers without a training split).  No bound is computed
    from these outputs.
    """

    x: np.ndarray
    x_prime: np.ndarray
    in_event_x: np.ndarray
    in_event_x_prime: np.ndarray
    source: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "x": jsonable(self.x),
            "x_prime": jsonable(self.x_prime),
            "in_event_x": [int(b) for b in np.asarray(self.in_event_x, dtype=bool)],
            "in_event_x_prime": [int(b) for b in np.asarray(self.in_event_x_prime, dtype=bool)],
        }


@dataclass(frozen=True)
class CertifiedFirst:
    """Where a violation was first certified (``bound`` in the claim's parameter, at look
    ``looks``, 0 the pilot, on ``n_certify`` outputs per side), when the trial's later looks
    went on to a tighter bound: what an early stop would have reported."""

    bound: float
    looks: int
    n_certify: int

    def to_dict(self) -> dict[str, Any]:
        return {"bound": self.bound, "looks": self.looks, "n_certify": self.n_certify}


@dataclass(frozen=True)
class Finding:
    """The best certified event of one trial, with the neighbouring inputs in bound order.

    ``x`` is the input on which the event is more likely (the numerator of the ratio).
    """

    attack: str
    trial: str
    x: Any
    x_prime: Any
    estimate: EpsilonEstimate
    n_train: int
    n_certify: int
    looks: int
    #: power statement of this finding's event (see ``auditor.statistics.power``); None when
    #: the finding is a violation
    power: dict[str, Any] | None = None
    output_sample: OutputSample | None = field(default=None, compare=False, repr=False)
    #: how to redraw the counted outputs without dp-audit (None: the draws cannot be replayed)
    replay: Replay | None = field(default=None, compare=False, repr=False)
    #: the largest certified lower bound on delta at the claimed epsilon among the trial's
    #: tests (point claims; None when no test showed any)
    delta_bound: DeltaBound | None = None
    #: where the violation was first certified, when later looks tightened it (None: this
    #: finding's look is the first that certified, or it certified none)
    first_certified: CertifiedFirst | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "attack": self.attack,
            "trial": self.trial,
            "queries": [jsonable(self.x), jsonable(self.x_prime)],
            "n_train": self.n_train,
            "n_certify": self.n_certify,
            "looks": self.looks,
            **self.estimate.to_dict(),
            **({} if self.delta_bound is None else {"delta_bound": self.delta_bound.to_dict()}),
            **(
                {}
                if self.first_certified is None
                else {"first_certified": self.first_certified.to_dict()}
            ),
        }


def claim_dict(claim: Claim) -> dict[str, Any]:
    """A claim in report.json: ``{"epsilon", "delta"}`` for a point claim (as ever); a curve
    claim adds its kind and parameters to the (epsilon, delta) point it implies at its
    ``report_delta``, with ``description`` in words."""
    if isinstance(claim, PrivacyClaim):
        return claim.to_dict()
    as_json: dict[str, Any] = jsonable(  # an implied epsilon may be inf: "inf"
        {
            **claim_to_dict(claim),
            "epsilon": claim.epsilon,
            "delta": claim.delta,
            "description": claim.describe(),
        }
    )
    return as_json


@dataclass(frozen=True)
class AdapterResult:
    """The verdict on one adapter and the evidence for it.

    ``error`` is the one-line message of an ``error`` verdict; ``error_traceback`` the
    traceback behind it when there is one: the exception the adapter's code raised (in a worker
    process or in this one), or what a worker process that crashed or hung wrote last and
    where it was stopped — control characters escaped, cut to its last 50 lines / 20,000
    characters (``auditor.core.errors.cap_text``).
    """

    adapter: str
    family: str
    claim: Claim | None
    verdict: Verdict
    best: Finding | None = None
    findings: tuple[Finding, ...] = ()
    error: str | None = None
    library: str = ""
    library_version: str = ""
    samples: int = 0
    seconds: float = 0.0
    notes: tuple[str, ...] = ()
    power: dict[str, Any] | None = None
    error_traceback: str | None = None
    #: where the adapter was loaded from (``--adapter`` target), for reproducers
    target: str | None = None
    #: the point of its parameter space a searched adapter was audited at
    #: (``{"adapter": base name, "parameters": {...}}``; see ``auditor.engine.parameter_search``)
    configuration: dict[str, Any] | None = None

    @property
    def epsilon_lower_bound(self) -> float:
        return self.best.estimate.epsilon_lower_bound if self.best else 0.0

    @property
    def delta_bound(self) -> DeltaBound | None:
        """The largest certified lower bound on delta at the claimed epsilon over the
        adapter's trials (all hold together under the run's alpha), or None."""
        bounds = [f.delta_bound for f in self.findings if f.delta_bound is not None]
        return max(bounds, key=lambda b: b.delta_lower_bound, default=None)

    def to_dict(self) -> dict[str, Any]:
        best = self.best
        return {
            "adapter": self.adapter,
            "family": self.family,
            "claim": claim_dict(self.claim) if self.claim else None,
            "verdict": self.verdict.value,
            "epsilon_lower_bound": self.epsilon_lower_bound,
            **(
                {
                    "claim_bound": jsonable(best.estimate.claim_bound),
                    "parameter": best.estimate.parameter,
                }
                if best and best.estimate.claim_bound is not None
                else {}
            ),
            "point_estimate": best.estimate.point_estimate if best else None,
            "attack": best.attack if best else None,
            "estimator": best.estimate.estimator if best else None,
            "queries": [jsonable(best.x), jsonable(best.x_prime)] if best else None,
            "event": best.estimate.event if best else None,
            "white_box": best.estimate.white_box if best else None,
            "unbounded": best.estimate.unbounded if best else None,
            "probabilities": _probabilities_dict(best.estimate.probabilities) if best else None,
            "alpha": best.estimate.alpha if best else None,
            "alpha_split": best.estimate.alpha_split if best else None,
            **(
                {"poisson_mean": best.estimate.poisson_mean}
                if best and best.estimate.poisson_mean is not None
                else {}
            ),
            "counts": best.estimate.counts.to_dict() if best else None,
            "delta_lower_bound": (None if self.delta_bound is None else self.delta_bound.to_dict()),
            "first_certified": (
                None
                if best is None or best.first_certified is None
                else best.first_certified.to_dict()
            ),
            "n_certify": best.n_certify if best else None,
            "looks": best.looks if best else None,
            "error": self.error,
            "error_traceback": self.error_traceback,
            "library": {"name": self.library, "version": self.library_version},
            "samples": self.samples,
            "notes": list(self.notes),
            "power": self.power,
            "findings": [f.to_dict() for f in self.findings],
            "output_sample": (
                best.output_sample.to_dict() if best and best.output_sample else None
            ),
            "timing": {"seconds": round(self.seconds, 3)},
            "target": self.target,
            "configuration": self.configuration,
            "replay": (
                {
                    **best.replay.to_dict(),
                    "queries": [query_literal(best.x), query_literal(best.x_prime)],
                }
                if best and best.replay
                else None
            ),
        }


@dataclass(frozen=True)
class AuditReport:
    """The whole run: settings, provenance, family-wise budget and one result per adapter."""

    alpha: float
    seed: int
    budget: int
    tests: int
    results: tuple[AdapterResult, ...]
    versions: dict[str, str] = field(default_factory=dict)
    platform: dict[str, str] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()
    wall_seconds: float = 0.0
    started: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    #: what a parameter search screened and how alpha was spent (None: no search)
    search: dict[str, Any] | None = None

    @property
    def exit_code(self) -> int:
        """1 if any violation was certified, else 2 if any adapter errored, else 0."""
        verdicts = {r.verdict for r in self.results}
        if Verdict.VIOLATION in verdicts:
            return 1
        if Verdict.ERROR in verdicts:
            return 2
        return 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "alpha": self.alpha,
            "seed": self.seed,
            "budget": self.budget,
            "settings": dict(self.settings),
            "multiple_comparisons": {
                "method": "bonferroni",
                "tests": self.tests,
                "per_test_alpha": self.alpha / self.tests if self.tests else None,
                "note": (
                    "each test is one event in one direction of one trial; a trial spreads its "
                    "tests' alpha over the events it proposes (half to the one its training "
                    "split predicts strongest); looks share a test's alpha"
                ),
            },
            "versions": dict(self.versions),
            "platform": dict(self.platform),
            "skipped": list(self.skipped),
            "results": [r.to_dict() for r in self.results],
            "timing": {"wall_seconds": round(self.wall_seconds, 3), "started": self.started},
            **({"search": jsonable(self.search)} if self.search is not None else {}),
        }
