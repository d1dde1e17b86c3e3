"""Searching a mechanism's parameter space: screen many configurations, certify a few.

1. **Design.**  Every adapter that declares a ``space`` (``auditor.core.space``) is rebuilt at
   ``configurations`` points of a scrambled Sobol design (``scipy.stats.qmc``).
2. **Screening.**  All of them are audited at a small budget with seeds of their own.  This
   only ranks them -- by the bound each reached relative to its claim, then by the point
   estimate -- and certifies nothing, whatever its bounds say.
3. **Certification.**  The ``finalists`` most suspicious configurations of each adapter, and
   every adapter without a space, are audited in one ordinary run on fresh outputs (the run's
   own seed, never the screening's): the run's family-wise alpha is split over their tests
   alone, so the verdicts hold at 1 - alpha however many configurations were screened.

A configuration the adapter rejects (``with_parameters`` raises ``ValueError``) is skipped and
counted; one whose audit ends in ``error`` is reported in the search section, not as a verdict
(the configuration may simply be outside what the library accepts).  But an adapter none of
whose configurations could be screened -- every one rejected or in error -- was never audited:
it gets an ``error`` verdict of its own, as does one that declares a ``space`` and no
``with_parameters`` (it cannot be searched), so a run never passes without auditing it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from auditor.core.configs import AuditConfig, EngineConfig
from auditor.core.errors import DPAuditError, InvalidArgument, describe
from auditor.core.interfaces import Attack
from auditor.core.results import AdapterResult, AuditReport, Verdict
from auditor.core.seeding import entropy
from auditor.core.space import Configured, check_space, describe_space, design, label
from auditor.core.spec import adapter_label, check_adapter
from auditor.engine.runner import ProgressCallback, run_audit

#: the design's size and the finalists per adapter, unless the caller says otherwise
DEFAULT_CONFIGURATIONS = 32
DEFAULT_FINALISTS = 3
#: the most configurations per adapter: each is a screening audit of thousands of outputs, and
#: the design alone takes 8 bytes per point and dimension
MAX_CONFIGURATIONS = 100_000
#: screening outputs per side of each configuration, as a share of the run's budget
SCREEN_SHARE = 0.125
#: smallest screening budget (float attacks need a few thousand outputs to see a grid)
MIN_SCREEN_BUDGET = 5_000


@dataclass(frozen=True)
class SearchConfig:
    configurations: int = DEFAULT_CONFIGURATIONS
    finalists: int = DEFAULT_FINALISTS
    screen_budget: int | None = None  # None: SCREEN_SHARE of the run's budget

    def __post_init__(self) -> None:
        if not 1 <= self.configurations <= MAX_CONFIGURATIONS:
            raise InvalidArgument(
                f"configurations={self.configurations!r} must be in [1, {MAX_CONFIGURATIONS:,}]"
            )
        if self.finalists < 1:
            raise InvalidArgument(f"finalists={self.finalists!r} must be >= 1")

    def budget(self, config: AuditConfig) -> int:
        if self.screen_budget is not None:
            return self.screen_budget
        return max(MIN_SCREEN_BUDGET, int(config.budget * SCREEN_SHARE))


def declares_space(adapter: Any) -> bool:
    """Whether the adapter declares a parameter space (searchable or not)."""
    return getattr(adapter, "space", None) is not None


def searchable(adapter: Any) -> bool:
    """Whether the adapter declares a parameter space and can be rebuilt in it."""
    return declares_space(adapter) and callable(getattr(adapter, "with_parameters", None))


def search_error(adapter: Any, message: str, name: str | None = None) -> AdapterResult:
    """The ``error`` verdict of an adapter the search could not audit at any configuration."""
    try:
        spec = check_adapter(adapter)
        family, claim = spec.kind_label, spec.claim
    except DPAuditError:
        family, claim = "", None
    return AdapterResult(
        adapter=name or adapter_label(adapter),
        family=family,
        claim=claim,
        verdict=Verdict.ERROR,
        error=message,
        library=str(getattr(adapter, "library", "") or ""),
    )


@dataclass
class Screened:
    """One screened configuration: its values, its screening result, and its rank score."""

    adapter: Configured
    result: AdapterResult | None = None
    rejected: str | None = None

    @property
    def score(self) -> tuple[float, float]:
        """(bound / claimed value, point estimate / claimed epsilon): larger is more suspect."""
        r = self.result
        if r is None or r.verdict is Verdict.ERROR or r.best is None or r.claim is None:
            return (-math.inf, -math.inf)
        est = r.best.estimate
        return (_ratio(est.bound, r.claim.value), _ratio(est.point_estimate, r.claim.epsilon))

    def to_dict(self) -> dict[str, Any]:
        r = self.result
        return {
            "name": self.adapter.name,
            "parameters": self.adapter.configuration["parameters"],
            "rejected": self.rejected,
            "verdict_at_screening": r.verdict.value if r else None,
            "bound_at_screening": r.best.estimate.bound if r and r.best else None,
            "error": r.error if r and r.verdict is Verdict.ERROR else None,
            "score": [s if math.isfinite(s) else None for s in self.score],
        }


def _ratio(value: float, claimed: float) -> float:
    if claimed > 0:
        return value / claimed
    return math.inf if value > 0 else 0.0


@dataclass
class SearchPlan:
    """The configurations of one searched adapter."""

    base: str
    space: dict[str, Any]
    screened: list[Screened] = field(default_factory=list)

    def failure(self) -> str | None:
        """Why no configuration can be certified (None: some screening audit succeeded)."""
        if any(
            s.result is not None and s.result.verdict is not Verdict.ERROR for s in self.screened
        ):
            return None
        rejected = [s for s in self.screened if s.rejected is not None]
        failed = [s for s in self.screened if s.result is not None]
        total = len(self.screened)
        if not failed:
            values = label(rejected[0].adapter.configuration["parameters"])
            return (
                f"--search: every one of its {total} configuration(s) was rejected, so it was "
                f"never audited; with_parameters({values}) raised {rejected[0].rejected}"
            )
        first = failed[0]
        return (
            f"--search: the screening audit of every configuration ended in error "
            f"({len(failed)} in error, {len(rejected)} rejected), so it was never audited; "
            f"{first.adapter.name}: {first.result.error if first.result else ''}"
        )

    def finalists(self, k: int) -> list[Screened]:
        ranked = [s for s in self.screened if s.result is not None]
        ranked.sort(key=lambda s: s.score, reverse=True)
        return [
            s for s in ranked[:k] if s.result is not None and s.result.verdict is not Verdict.ERROR
        ]


def configurations(adapter: Any, n: int, seed: int) -> SearchPlan:
    """The adapter rebuilt at ``n`` design points (rejected ones kept, with the reason)."""
    base = adapter_label(adapter)
    space = check_space(adapter.space, f"adapter {base!r}")
    plan = SearchPlan(base, space)
    seen: set[str] = set()
    for values in design(space, n, entropy(seed, "search-design", base)):
        try:
            rebuilt = adapter.with_parameters(**values)
            rejected = None
        except Exception as exc:  # noqa: BLE001 - adapter code: that configuration is skipped
            rebuilt, rejected = None, describe(exc)
        configured = Configured(base, rebuilt, values)
        if configured.name in seen:
            continue
        seen.add(configured.name)
        plan.screened.append(Screened(configured, rejected=rejected))
    return plan


def search_audit(
    adapters: Sequence[Any],
    attacks: Sequence[Attack],
    config: AuditConfig,
    search: SearchConfig,
    *,
    skipped: Sequence[str] = (),
    engine: EngineConfig | None = None,
    targets: Mapping[str, str] | None = None,
    progress: ProgressCallback | None = None,
    on_screened: Callable[[int, int, Screened], None] | None = None,
    on_result: Callable[[AdapterResult], None] | None = None,
) -> AuditReport:
    """Screen every searchable adapter's configurations, then certify the finalists together
    with the other adapters in one run (see the module notes).  ``on_screened(done, total,
    worst)`` reports the screening's progress and the most suspicious configuration so far."""
    targets = dict(targets or {})
    plans = [
        configurations(a, search.configurations, config.seed) for a in adapters if searchable(a)
    ]
    plain = [a for a in adapters if not declares_space(a)]
    candidates = [s for p in plans for s in p.screened if s.rejected is None]
    by_name = {s.adapter.name: s for s in candidates}
    screen_config = replace(
        config, budget=search.budget(config), seed=entropy(config.seed, "search-screening")
    )
    done = 0
    worst: Screened | None = None

    def screened(result: AdapterResult) -> None:
        nonlocal done, worst
        s = by_name[result.adapter]
        s.result = result
        done += 1
        if worst is None or s.score > worst.score:
            worst = s
        if on_screened is not None:
            on_screened(done, len(candidates), worst)

    # workers load a configuration as they load its base adapter, by the base's target, and
    # rebuild it there (``with_parameters``): a user's file is importable in no other way
    origins = {
        s.adapter.name: targets[s.adapter.configuration["adapter"]]
        for s in candidates
        if s.adapter.configuration["adapter"] in targets
    }
    if candidates:
        run_audit(
            [s.adapter for s in candidates],
            attacks,
            screen_config,
            engine=engine,
            targets=origins,
            progress=progress,
            on_result=screened,
        )
    finalists = [s for p in plans for s in p.finalists(search.finalists)]
    failed = _unaudited(adapters, plans)
    for result in failed:
        if on_result is not None:
            on_result(result)
    final = run_audit(
        [*plain, *(s.adapter for s in finalists)],
        attacks,
        config,
        skipped=skipped,
        engine=engine,
        targets={
            **{k: v for k, v in targets.items() if k in {adapter_label(a) for a in plain}},
            **{k: v for k, v in origins.items() if k in {s.adapter.name for s in finalists}},
        },
        progress=progress,
        on_result=on_result,
    )
    results = tuple(_with_origin(r, by_name, targets) for r in final.results) + tuple(
        replace(r, target=targets.get(r.adapter)) for r in failed
    )
    summary = _summary(plans, search, config, screen_config, len(finalists), len(plain))
    return replace(final, results=results, search=summary)


def _summary(
    plans: Sequence[SearchPlan],
    search: SearchConfig,
    config: AuditConfig,
    screen_config: AuditConfig,
    finalists: int,
    plain: int,
) -> dict[str, Any]:
    """The report's ``search`` section: the design, the screening and every configuration."""
    return {
        "design": "scrambled Sobol sequence (scipy.stats.qmc), one per searched adapter",
        "configurations": search.configurations,
        "finalists_per_adapter": search.finalists,
        "screening_budget": screen_config.budget,
        "screening_seed": screen_config.seed,
        "alpha": (
            f"the screening certifies nothing; the run's family-wise alpha {config.alpha:g} is "
            f"split over the tests of the {finalists} finalist configuration(s) and the "
            f"{plain} other adapter(s) only, on fresh outputs"
        ),
        "adapters": [
            {
                "adapter": p.base,
                "space": describe_space(p.space),
                "screened": sum(s.result is not None for s in p.screened),
                "rejected": sum(s.rejected is not None for s in p.screened),
                "finalists": [s.adapter.name for s in p.finalists(search.finalists)],
                "ranking": [
                    s.to_dict() for s in sorted(p.screened, key=lambda s: s.score, reverse=True)
                ],
            }
            for p in plans
        ],
    }


def _unaudited(adapters: Sequence[Any], plans: Sequence[SearchPlan]) -> list[AdapterResult]:
    """``error`` verdicts for the adapters the search could not audit at all: a space without
    ``with_parameters``, or no configuration screened without error."""
    failed = [
        search_error(
            a,
            "--search: it declares a 'space' but no callable 'with_parameters(**values)', so it "
            "cannot be rebuilt at a configuration and was not audited (see docs/search.md)",
        )
        for a in adapters
        if declares_space(a) and not searchable(a)
    ]
    for p in plans:
        why = p.failure()
        if why is not None:
            base = next(a for a in adapters if searchable(a) and adapter_label(a) == p.base)
            failed.append(search_error(base, why, p.base))
    return failed


def _with_origin(
    r: AdapterResult, by_name: Mapping[str, Screened], targets: Mapping[str, str]
) -> AdapterResult:
    """A finalist's result names its configuration and the target of its base adapter."""
    s = by_name.get(r.adapter)
    if s is None:
        return r
    base = s.adapter.configuration["adapter"]
    return replace(r, configuration=s.adapter.configuration, target=targets.get(base))
