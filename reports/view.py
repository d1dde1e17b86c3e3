"""A typed, read-only view of report.json: with ``reports.view_fields`` (the parts of a
result), the one place that knows its field names.

``parse_report`` turns the report dictionary (``AuditReport.to_dict()``, or a saved
report.json) into frozen objects once; the renderers read those, never the dictionary.  It
checks the schema version (a dictionary without one, built in-process, is read as the current
version) and the type of every field it reads, raising ``InvalidArgument`` with the field's
path.  Result objects of ``auditor.core.results`` are reused where report.json holds them
whole (``EventCounts``, ``DeltaBound``, ``CertifiedFirst``).

Every bound a page shows is the one the engine wrote (``epsilon_lower_bound``, ``claim_bound``,
the δ bound).  What a page shows beyond them (the best event's four one-sided Clopper-Pearson
limits, the upper end of its loss interval, its trade-off box) is derived here from the stored
counts, once per result and only through the engine's own functions (``auditor.statistics``):
no renderer computes a bound.  One number has no engine function: the upper end of the loss
interval, ln((p0_high − δ) / p1_low), composed here from the engine's limits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from auditor.core.claim_kinds import Claim
from auditor.core.claims import exceeds
from auditor.core.errors import InvalidArgument
from auditor.core.results import SCHEMA, CertifiedFirst, DeltaBound, EventCounts
from auditor.statistics.clopper_pearson import cp_lower, cp_upper, epsilon_lower_bound
from auditor.statistics.conditional import CONDITIONAL_ESTIMATOR, conditional_upper_bound
from auditor.statistics.events.cell_chains import CELLS_ESTIMATOR
from auditor.statistics.exact import WHITE_BOX_ESTIMATOR
from reports.view_fields import (
    ClaimView,
    Reader,
    SampleView,
    SearchView,
    read_claim,
    read_counts,
    read_delta_bound,
    read_first_certified,
    read_pair,
    read_sample,
    read_search,
)
from reports.view_fields import claim_object as claim_object


@dataclass(frozen=True)
class EventEvidence:
    """The best event's two probabilities and the interval of its privacy loss.

    ``p0_low``/``p0_high`` are one-sided Clopper-Pearson limits at ``alpha * alpha_split`` and
    ``p1_low``/``p1_high`` at ``alpha * (1 - alpha_split)``: the split the certified bound used
    (one half each when a report has none).  ``lower`` is the certified
    ``epsilon_lower_bound`` as report.json states it: ln((p0_low − δ) / p1_high), floored at 0.
    ``upper`` is ln((p0_high − δ) / p1_low), infinite when ``k1 == 0``: the event's loss is in
    [lower, upper] with the same confidence.  ``upper`` says nothing about the mechanism's ε,
    which may exceed it through another event.

    For the conditional test (``conditional``), ``lower`` is its bound and ``upper`` the same
    test's upper limit on x's share of the pooled count; the four limits on p0 and p1 are
    then only descriptive (at the split recorded, one half each by default).
    """

    n0: int
    k0: int
    n1: int
    k1: int
    alpha: float
    delta: float
    p0: float
    p0_low: float
    p0_high: float
    p1: float
    p1_low: float
    p1_high: float
    lower: float
    upper: float
    point: float
    conditional: bool = False


def event_evidence(
    counts: EventCounts,
    alpha: float,
    split: float,
    delta: float,
    *,
    lower: float,
    point: float,
    poisson_mean: float | None = None,
) -> EventEvidence:
    """The limits and interval of one event's counts (``poisson_mean``: the conditional
    test's, whose upper limit is that test's own)."""
    n0, k0, n1, k1 = counts.n0, counts.k0, counts.n1, counts.k1
    a0, a1 = alpha * split, alpha * (1.0 - split)
    p0_low, p0_high = cp_lower(k0, n0, a0), cp_upper(k0, n0, a0)
    p1_low, p1_high = cp_lower(k1, n1, a1), cp_upper(k1, n1, a1)
    if poisson_mean is not None:
        upper = conditional_upper_bound(k0, k1, poisson_mean, poisson_mean, alpha)
    else:
        upper = _log_ratio(p0_high - delta, p1_low)
    return EventEvidence(
        n0=n0,
        k0=k0,
        n1=n1,
        k1=k1,
        alpha=alpha,
        delta=delta,
        p0=k0 / n0,
        p0_low=p0_low,
        p0_high=p0_high,
        p1=k1 / n1,
        p1_low=p1_low,
        p1_high=p1_high,
        lower=lower,
        upper=max(upper, 0.0),
        point=point,
        conditional=poisson_mean is not None,
    )


def _log_ratio(numerator: float, denominator: float) -> float:
    if numerator <= 0:
        return 0.0
    if denominator <= 0:
        return math.inf
    return math.log(numerator / denominator)


@dataclass(frozen=True)
class TradeoffEvidence:
    """The best event read as a test rejecting x′ on it, against the claimed trade-off curve.

    Type-I error ``alpha_hat`` = k1/n1, type-II error ``beta_hat`` = 1 − k0/n0.  The box is
    [p1_low, p1_high] × [1 − p0_high, 1 − p0_low]: the one-sided Clopper-Pearson limits
    the certification used (``alpha_split`` of ``alpha`` on x, the rest on x′) and the
    opposite limits at the same levels.  Its upper-right ``corner`` (p1_high, 1 − p0_low) is
    the point the claim is judged on; ``curve_at_corner`` = f(p1_high) from ``claim.tradeoff``.

    ``certified`` is the bound the verdict rests on, as report.json states it (``claim_bound``
    for a curve claim, else ``epsilon_lower_bound``), and ``violating`` whether it exceeds the
    claim's value, judged exactly as the verdict is.  ``below``: the corner lies strictly below
    the drawn curve.  The two agree except within the rounding tolerance; for zCDP / RDP, whose
    verdict rests on the Rényi divergence of the event, stronger than their curve (drawn from
    the (ε, δ) profile); and for a point claim, whose bound reads the event one way only:
    f_{ε,δ}'s other branch is the complement event read the other way round: another event,
    with a bound of its own.  For the conditional test the box is descriptive (at the split
    recorded) and ``certified`` is the conditional bound, which no corner of a box draws.
    """

    claim: Claim
    alpha_hat: float
    beta_hat: float
    p0_low: float
    p0_high: float
    p1_low: float
    p1_high: float
    curve_at_corner: float
    certified: float
    violating: bool
    below: bool

    @property
    def corner(self) -> tuple[float, float]:
        return (self.p1_high, 1.0 - self.p0_low)

    @classmethod
    def from_result(cls, r: Mapping[str, Any]) -> TradeoffEvidence | None:
        """A report.json result's box; None without counts (an error, no event, a white-box
        estimate) or a readable claim."""
        return parse_result(r).tradeoff


def tradeoff_evidence(
    counts: EventCounts, alpha: float, split: float, claim: Claim, certified: float | None
) -> TradeoffEvidence:
    """The trade-off box of one event's counts against ``claim``.  ``certified``: the bound
    report.json states for it; None (a report that lacks it) computes it with the engine's
    ``epsilon_lower_bound``."""
    n0, k0, n1, k1 = counts.n0, counts.k0, counts.n1, counts.k1
    on_x, on_x_prime = alpha * split, alpha * (1.0 - split)
    p0_low, p1_high = cp_lower(k0, n0, on_x), cp_upper(k1, n1, on_x_prime)
    if certified is None:
        certified = epsilon_lower_bound(k0, n0, k1, n1, alpha, claim.delta, split, claim)
    curve = float(claim.tradeoff(p1_high))
    return TradeoffEvidence(
        claim=claim,
        alpha_hat=k1 / n1,
        beta_hat=1.0 - k0 / n0,
        p0_low=p0_low,
        p0_high=cp_upper(k0, n0, on_x),
        p1_low=cp_lower(k1, n1, on_x_prime),
        p1_high=p1_high,
        curve_at_corner=curve,
        certified=certified,
        violating=exceeds(certified, claim.value),
        below=1.0 - p0_low < curve,
    )


@dataclass(frozen=True)
class AdapterReport:
    """One adapter's result: its verdict, the best finding's evidence as report.json states it,
    and the limits derived from its counts (``limits``, ``tradeoff``).  Numbers keep the type
    report.json gives them (an int stays an int); absent fields are None."""

    adapter: str
    #: ``violation``, ``no_violation`` or ``error`` (None: not stated, a partial result)
    verdict: str | None
    family: str | None = None
    claim: ClaimView | None = None
    epsilon_lower_bound: float | None = None
    claim_bound: float | None = None
    parameter: str | None = None
    point_estimate: float | None = None
    attack: str | None = None
    estimator: str | None = None
    queries: tuple[Any, Any] | None = None
    event: str | None = None
    white_box: bool = False
    unbounded: bool = False
    #: P[event | x], P[event | x'] of a white-box estimate
    probabilities: tuple[float | None, float | None] | None = None
    alpha: float | None = None
    alpha_split: float | None = None
    poisson_mean: float | None = None
    counts: EventCounts | None = None
    delta_bound: DeltaBound | None = None
    first_certified: CertifiedFirst | None = None
    error: str | None = None
    error_traceback: str | None = None
    library: str | None = None
    library_version: str | None = None
    samples: int | None = None
    notes: tuple[str, ...] = ()
    power_statement: str | None = None
    #: the parameters a searched adapter was audited at (None: not a searched configuration)
    configuration: Mapping[str, Any] | None = None
    seconds: float | None = None
    #: where ``dp-audit run`` wrote the violation's reproducer, relative to the report
    reproducer: str | None = None
    output_sample: SampleView | None = field(default=None, repr=False)
    #: the event's limits and interval; None without counts, or for another estimator than
    #: a sampled event's or the cells' (see ``event_evidence``)
    limits: EventEvidence | None = None

    @property
    def is_cells(self) -> bool:
        """The bound was certified on the counts of several cells (a Rényi claim's partition
        of the outputs), not on one event."""
        return self.estimator == CELLS_ESTIMATOR

    @property
    def is_sampled(self) -> bool:
        """The bound is one event's test on sampled counts (the two-limit box or the
        conditional test), not white-box evidence or cells."""
        return self.estimator in (None, "clopper-pearson", CONDITIONAL_ESTIMATOR)

    @property
    def is_conditional(self) -> bool:
        return self.estimator == CONDITIONAL_ESTIMATOR

    @property
    def is_exact_white_box(self) -> bool:
        """The bound comes from the adapter's probability oracle, not from counts."""
        return self.estimator == WHITE_BOX_ESTIMATOR

    @property
    def is_curve(self) -> bool:
        return self.claim is not None and self.claim.is_curve

    @cached_property
    def tradeoff(self) -> TradeoffEvidence | None:
        """The best event's trade-off box against the claim (None without counts of a sampled
        event or a claim that rebuilds); computed on first use: a curve claim's trade-off
        function can take a while."""
        return _tradeoff(self)

    @property
    def event_evidence(self) -> EventEvidence | None:
        """The limits of a sampled event's counts (None for cells and white-box bounds)."""
        return self.limits if self.is_sampled else None

    @property
    def claim_delta(self) -> float:
        return float((self.claim.delta if self.claim else None) or 0.0)


def _as_float(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _limits(r: AdapterReport) -> EventEvidence | None:
    c = r.counts
    if c is None or not r.alpha or not c.n0 or not c.n1 or not (r.is_sampled or r.is_cells):
        return None
    return event_evidence(
        c,
        float(r.alpha),
        float(r.alpha_split or 0.5),
        r.claim_delta,
        lower=_as_float(r.epsilon_lower_bound),
        point=_as_float(r.point_estimate),
        poisson_mean=float(r.poisson_mean or 1) if r.is_conditional else None,
    )


def _tradeoff(r: AdapterReport) -> TradeoffEvidence | None:
    c = r.counts
    if c is None or not r.alpha or not c.n0 or not c.n1 or not r.is_sampled:
        return None
    if r.claim is None or r.claim.claim is None:
        return None
    stored = r.epsilon_lower_bound if not r.is_curve or r.is_conditional else r.claim_bound
    certified = None if stored is None else float(stored)
    return tradeoff_evidence(
        c, float(r.alpha), float(r.alpha_split or 0.5), r.claim.claim, certified
    )


def _searched_at(read: Reader) -> Mapping[str, Any] | None:
    sub = read.filled("configuration")
    if sub is None:
        return None
    parameters = sub.mapping("parameters")
    if parameters is None:
        raise sub.fail("parameters", "an object")
    return parameters


def parse_result(
    data: Mapping[str, Any], where: str = "results/0", source: str = "report"
) -> AdapterReport:
    """One result of report.json as an :class:`AdapterReport`.

    Raises:
        InvalidArgument: a field it reads has the wrong type, or ``adapter`` is missing.
    """
    if not isinstance(data, Mapping):
        raise InvalidArgument(f"{source} is not a valid {SCHEMA} report: {where} is not an object")
    read = Reader(data, where, source)
    claim = read.mapping("claim")
    lib = read.sub("library")
    power = read.sub("power")
    timing = read.sub("timing")
    p = read.sub("probabilities")
    r = AdapterReport(
        adapter=str(read.text("adapter", required=True)),
        verdict=read.text("verdict"),
        family=read.text("family"),
        claim=read_claim(claim, f"{where}/claim", source) if claim else None,
        epsilon_lower_bound=read.number("epsilon_lower_bound"),
        claim_bound=read.number("claim_bound"),
        parameter=read.text("parameter"),
        point_estimate=read.number("point_estimate"),
        attack=read.text("attack"),
        estimator=read.text("estimator"),
        queries=read_pair(read, "queries"),
        event=read.text("event"),
        white_box=bool(data.get("white_box")),
        unbounded=bool(data.get("unbounded")),
        probabilities=(p.number("p0"), p.number("p1")) if p is not None else None,
        alpha=read.number("alpha"),
        alpha_split=read.number("alpha_split"),
        poisson_mean=read.number("poisson_mean"),
        counts=read_counts(read, "counts"),
        delta_bound=read_delta_bound(read),
        first_certified=read_first_certified(read),
        error=read.text("error"),
        error_traceback=read.text("error_traceback"),
        library=lib.text("name") if lib else None,
        library_version=lib.text("version") if lib else None,
        samples=read.integer("samples"),
        notes=tuple(str(n) for n in read.items("notes")),
        power_statement=power.text("statement") if power else None,
        configuration=_searched_at(read),
        seconds=timing.number("seconds") if timing else None,
        reproducer=read.text("reproducer"),
        output_sample=read_sample(read),
    )
    return replace(r, limits=_limits(r))


@dataclass(frozen=True)
class Regression:
    """One regression against a baseline (``kind``: ``new_violation`` or ``larger_bound``)."""

    adapter: str
    kind: str
    message: str


@dataclass(frozen=True)
class BaselineView:
    """The ``baseline`` section ``dp-audit run --baseline`` adds (``reports.baseline``)."""

    path: str | None
    margin: float | None
    regressions: tuple[Regression, ...]
    accepted: tuple[str, ...]
    fixed: tuple[str, ...]
    missing: tuple[str, ...]


def _baseline(read: Reader) -> BaselineView | None:
    sub = read.filled("baseline")
    if sub is None:
        return None
    regressions = []
    for i, g in enumerate(sub.items("regressions")):
        one = Reader(g, f"{sub.where}/regressions/{i}", sub.source)
        regressions.append(
            Regression(
                adapter=str(one.text("adapter", required=True)),
                kind=one.text("kind") or "",
                message=str(one.text("message", required=True)),
            )
        )
    return BaselineView(
        path=sub.text("path"),
        margin=sub.number("margin"),
        regressions=tuple(regressions),
        accepted=tuple(str(a.get("adapter")) for a in sub.items("accepted")),
        fixed=tuple(str(name) for name in sub.items("fixed")),
        missing=tuple(str(name) for name in sub.items("missing")),
    )


@dataclass(frozen=True)
class Report:
    """A whole report: the run's settings and provenance and one result per adapter.

    Fields a dictionary built in-process may lack (``alpha``, ``seed``, ``budget``, timing)
    are None; each renderer says how it shows an absent one."""

    results: tuple[AdapterReport, ...]
    alpha: float | None = None
    seed: int | None = None
    budget: int | None = None
    #: multiple comparisons: method, tests, the per-test alpha
    method: str | None = None
    tests: int | None = None
    per_test_alpha: float | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    versions: Mapping[str, Any] = field(default_factory=dict)
    platform: Mapping[str, Any] = field(default_factory=dict)
    skipped: tuple[str, ...] = ()
    wall_seconds: float | None = None
    started: str | None = None
    run_id: str | None = None
    baseline: BaselineView | None = None
    #: what a parameter search screened (None: no search)
    search: SearchView | None = None

    @property
    def by_adapter(self) -> dict[str, AdapterReport]:
        return {r.adapter: r for r in self.results}


def parse_report(data: Mapping[str, Any], source: str = "report") -> Report:
    """The report dictionary as a :class:`Report`, read once.

    Raises:
        InvalidArgument: another schema version than ``dp-audit/1``, or a field read has the
            wrong type (the message names the field's path).
    """
    if not isinstance(data, Mapping):
        raise InvalidArgument(f"{source} is not a {SCHEMA} report: {type(data).__name__}")
    if "schema" in data and data["schema"] != SCHEMA:
        raise InvalidArgument(f"{source} has schema {data['schema']!r}, expected {SCHEMA!r}")
    read = Reader(data, "", source)
    mc = read.sub("multiple_comparisons")
    timing = read.sub("timing")
    results = tuple(
        parse_result(r, f"results/{i}", source) for i, r in enumerate(read.items("results"))
    )
    return Report(
        results=results,
        alpha=read.number("alpha"),
        seed=read.integer("seed"),
        budget=read.integer("budget"),
        method=mc.text("method") if mc else None,
        tests=mc.integer("tests") if mc else None,
        per_test_alpha=mc.number("per_test_alpha") if mc else None,
        settings=read.mapping("settings") or {},
        versions=read.mapping("versions") or {},
        platform=read.mapping("platform") or {},
        skipped=tuple(str(s) for s in read.items("skipped")),
        wall_seconds=timing.number("wall_seconds") if timing else None,
        started=timing.text("started") if timing else None,
        run_id=read.text("run_id"),
        baseline=_baseline(read),
        search=read_search(read),
    )
