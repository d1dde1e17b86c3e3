"""pytest plugin: audit a DP implementation from a test, ``assert_private(adapter)``.

Registered under the ``pytest11`` entry point ``dp_audit``, so installing dp-audit makes the
options below available in every pytest run.  Importing this module imports nothing but the
standard library: the auditor, numpy and the attacks are imported when an audit actually runs.

Options (group "dp-audit"): ``--dp-audit-seed``, ``--dp-audit-budget``, ``--dp-audit-alpha``.
They set the defaults of :func:`assert_private` inside that pytest run; explicit arguments
win.  The seed is printed in the report header, so a failing run can be replayed::

    from dp_audit.pytest_plugin import assert_private

    def test_my_laplace_is_private():
        assert_private(MyLaplaceAdapter(epsilon=1.0))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dp_audit.arguments import budget, probability, whole_number

SEED_OPTION, BUDGET_OPTION, ALPHA_OPTION = (
    "--dp-audit-seed",
    "--dp-audit-budget",
    "--dp-audit-alpha",
)
#: defaults outside pytest (and of the options); the budget is small enough for a unit test
DEFAULT_SEED, DEFAULT_BUDGET, DEFAULT_ALPHA = 0, 50_000, 0.05

_configs: list[Any] = []  # the pytest configs in force, innermost last (pytester nests runs)


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("dp-audit", "dp-audit: differential-privacy audits")
    group.addoption(
        SEED_OPTION,
        type=whole_number,
        default=DEFAULT_SEED,
        help=f"seed of every draw assert_private makes (default {DEFAULT_SEED})",
    )
    group.addoption(
        BUDGET_OPTION,
        type=budget,
        default=DEFAULT_BUDGET,
        help=f"outputs per neighbouring input per trial in assert_private (default {DEFAULT_BUDGET:,})",
    )
    group.addoption(
        ALPHA_OPTION,
        type=probability,
        default=DEFAULT_ALPHA,
        help=f"family-wise significance of each assert_private audit (default {DEFAULT_ALPHA})",
    )


def pytest_configure(config: Any) -> None:
    _configs.append(config)


def pytest_unconfigure(config: Any) -> None:
    if config in _configs:
        _configs.remove(config)


def pytest_report_header(config: Any) -> str:
    return (
        f"dp-audit: {SEED_OPTION}={config.getoption('dp_audit_seed')} "
        f"{BUDGET_OPTION}={config.getoption('dp_audit_budget')} "
        f"{ALPHA_OPTION}={config.getoption('dp_audit_alpha')}"
    )


def _default(name: str, fallback: Any) -> Any:
    if _configs:
        value = _configs[-1].getoption(name, default=None)
        if value is not None:
            return value
    return fallback


def failure_message(result: dict[str, Any], alpha: float, seed: int, budget: int) -> str:
    """A readable account of a violation or an error, from one report.json result."""
    name = result["adapter"]
    replay = f"replay: seed={seed} budget={budget} alpha={alpha} ({SEED_OPTION}={seed})"
    if result["verdict"] == "error":
        return f"dp-audit: {name} ended in error: {result.get('error')}\n  {replay}"
    from reports.evidence import curve_bound_text

    claim = result["claim"]
    counts = result.get("counts") or {}
    q0, q1 = result.get("queries") or (None, None)
    curve = curve_bound_text(result, lambda x: f"{float(x):.4g}")
    bound = (
        [f"dp-audit: {name} VIOLATES its claim ({claim['description']})", f"  certified {curve}"]
        if curve
        else [
            f"dp-audit: {name} VIOLATES its claim (epsilon={claim['epsilon']:g}, delta={claim['delta']:g})",
            f"  certified epsilon >= {float(result['epsilon_lower_bound']):.4g} > claimed "
            f"{claim['epsilon']:g}",
        ]
    )
    return "\n".join(
        [
            *bound[:-1],
            f"{bound[-1]}, at family-wise confidence {1 - alpha:g}",
            f"  attack: {result.get('attack')}; inputs x={q0!r}, x'={q1!r}",
            f"  event: {result.get('event')}",
            f"  counts: {counts.get('k0')} of {counts.get('n0')} outputs on x, "
            f"{counts.get('k1')} of {counts.get('n1')} on x'",
            f"  {replay}",
        ]
    )


def assert_private(
    adapter: Any,
    *,
    budget: int | None = None,
    alpha: float | None = None,
    seed: int | None = None,
    attacks: Sequence[str] | None = None,
    claim: Any = None,
) -> Any:
    """Audit one adapter; raise ``AssertionError`` if a violation is certified or it errors.

    ``budget``, ``alpha`` and ``seed`` default to the ``--dp-audit-*`` options inside pytest
    (else 50,000, 0.05 and 0); ``attacks`` are attack names (default: every applicable one).
    ``claim`` audits another claim than the adapter's own: any claim kind of
    ``auditor.core.claim_kinds`` or its text (``"gdp:mu=1"``, ``"zcdp:rho=0.5"``).
    Passing means "no violation found at this budget", never "private".

    Returns:
        The ``AdapterResult`` (verdict ``no_violation``), for further checks.

    Raises:
        AssertionError: a certified violation (verdict, ε_lb against the claim, attack,
            inputs, event and counts in the message) or an adapter error.
        InvalidArgument: bad ``budget``/``alpha``/``seed`` or an unknown attack name.
    """
    __tracebackhide__ = True  # pytest shows the message, not this function's frame
    from attacks import load_attacks
    from auditor.core.claim_kinds import as_claim
    from auditor.core.configs import AuditConfig
    from auditor.core.results import Verdict
    from auditor.engine.runner import run_audit

    config = AuditConfig(
        claim=None if claim is None else as_claim(claim),
        budget=budget if budget is not None else _default("dp_audit_budget", DEFAULT_BUDGET),
        alpha=alpha if alpha is not None else _default("dp_audit_alpha", DEFAULT_ALPHA),
        seed=seed if seed is not None else _default("dp_audit_seed", DEFAULT_SEED),
        attacks=tuple(attacks) if attacks is not None else None,
    )
    report = run_audit([adapter], load_attacks(config.attacks), config)
    (result,) = report.results
    if result.verdict is not Verdict.NO_VIOLATION:
        raise AssertionError(
            failure_message(result.to_dict(), config.alpha, config.seed, config.budget)
        )
    return result
