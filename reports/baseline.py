"""Regressions against a baseline report: the CI gate "do not get worse".

Adapters are matched by name.  A **regression** is either

- ``new_violation``: the adapter's verdict is ``violation`` now, and it was not in the
  baseline (``no_violation``, ``error``, or absent from the baseline run); or
- ``larger_bound``: the adapter was a violation in both runs and the new certified lower bound
  exceeds the *upper* end of the baseline's confidence interval for its own best event's
  privacy loss, ln((p0_high − δ) / p1_low), by more than ``margin``.  The new run then
  certifies more loss than the old evidence allowed.  When the baseline event was never seen
  on x' (k1 = 0), that upper end is infinite and no bound increase counts as a regression.
  A baseline bound certified on cells (zCDP, RDP) is read through the cut its (ε, δ)
  statement names, with that cut's own counts.

Bounds are compared as epsilon whatever the claims' kinds (a report with curve claims, GDP or
zCDP, against one with point claims): a curve claim's ``epsilon_lower_bound`` is what its
counts certify at the claim's report delta; messages add the bound in the claim's parameter.

Violations present in both runs and not larger are *accepted*: with ``--baseline`` the exit
code is 1 only for regressions (else 2 for adapter errors, else 0), so a library can gate its
CI on not getting worse while a known issue is being fixed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from auditor.core.errors import InvalidArgument
from reports.evidence import as_float, curve_text
from reports.view import AdapterReport, parse_report

DEFAULT_MARGIN = 0.0


def _g(x: Any) -> str:
    return f"{as_float(x):.4g}"


def compare_with_baseline(
    new: Mapping[str, Any],
    old: Mapping[str, Any],
    *,
    margin: float = DEFAULT_MARGIN,
    path: str = "",
) -> dict[str, Any]:
    """The ``baseline`` section of a report: regressions, fixes and accepted violations
    (``new`` and ``old``: report.json dictionaries).

    Raises:
        InvalidArgument: ``margin`` is negative or not finite.
    """
    if not isinstance(margin, int | float) or not math.isfinite(margin) or margin < 0:
        raise InvalidArgument(f"margin={margin!r} must be a finite number >= 0")
    old_by, new_by = parse_report(old).by_adapter, parse_report(new).by_adapter
    regressions: list[dict[str, Any]] = []
    accepted: list[dict[str, Any]] = []
    fixed: list[str] = []
    for name, r in new_by.items():
        before = old_by.get(name)
        old_verdict = str(before.verdict) if before else "absent"
        if r.verdict == "violation" and old_verdict != "violation":
            regressions.append(_new_violation(r, before, old_verdict))
        elif r.verdict == "violation" and before is not None:
            entry, regressed = _against(r, before, margin)
            (regressions if regressed else accepted).append(entry)
        elif old_verdict == "violation" and r.verdict == "no_violation":
            fixed.append(name)
    return {
        "path": path,
        "margin": margin,
        "definition": "new_violation: violation now, not in the baseline; larger_bound: new "
        "epsilon_lower_bound > baseline event interval upper end + margin",
        "compared": sum(name in old_by for name in new_by),
        "regressions": regressions,
        "accepted": accepted,
        "fixed": fixed,
        "new_adapters": [name for name in new_by if name not in old_by],
        "missing": [name for name in old_by if name not in new_by],
    }


def _new_violation(r: AdapterReport, before: AdapterReport | None, old: str) -> dict[str, Any]:
    """A violation the baseline did not have (verdict ``old``, "absent" without the adapter)."""
    lb = as_float(r.epsilon_lower_bound)
    # a curve claim (GDP, zCDP, ...): its bound in its own parameter, beside the epsilon
    curve = curve_text(r, _g)
    return {
        "adapter": r.adapter,
        "kind": "new_violation",
        "old_verdict": old,
        "new_verdict": r.verdict,
        "old_epsilon_lower_bound": before.epsilon_lower_bound if before else None,
        "new_epsilon_lower_bound": lb,
        "threshold": None,
        "message": f"{r.adapter}: new violation (baseline verdict {old}), "
        + (f"certified {curve}" if curve else f"certified epsilon >= {lb:.4g}"),
    }


def _against(r: AdapterReport, before: AdapterReport, margin: float) -> tuple[dict[str, Any], bool]:
    """A violation in both runs: its entry, and whether its bound left the baseline's interval.

    A baseline bound certified on cells is read through the cut its (ε, δ) statement names."""
    lb = as_float(r.epsilon_lower_bound)
    ev = before.limits  # a sampled event's, or the cells' cut
    threshold = (ev.upper if ev else math.inf) + margin
    entry: dict[str, Any] = {
        "adapter": r.adapter,
        "old_verdict": before.verdict,
        "new_verdict": r.verdict,
        "old_epsilon_lower_bound": before.epsilon_lower_bound,
        "new_epsilon_lower_bound": lb,
        "threshold": threshold if math.isfinite(threshold) else None,
    }
    if lb <= threshold:
        return entry, False
    curve = curve_text(r, _g, implied=False)
    message = (
        f"{r.adapter}: certified epsilon >= {lb:.4g} exceeds the baseline "
        f"interval's upper end + margin ({threshold:.4g})" + (f" ({curve})" if curve else "")
    )
    return entry | {"kind": "larger_bound", "message": message}, True


def exit_code_with_baseline(report: Mapping[str, Any]) -> int:
    """1 if the report's ``baseline`` section lists regressions; else 2 on errors; else 0."""
    view = parse_report(report)
    if view.baseline is not None and view.baseline.regressions:
        return 1
    if any(r.verdict == "error" for r in view.results):
        return 2
    return 0
