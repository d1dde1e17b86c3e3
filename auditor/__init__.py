"""dp-audit: attack and audit differential-privacy implementations.

The public API, in the order a user meets it: describe a claim and an adapter, run an audit,
read the result.  Importing this package never imports an optional DP library, and imports
nothing heavy at all: every public name is imported on first use (PEP 562).  This matters
because the pytest plugin (``auditor.pytest_plugin``) is loaded by every pytest run in an
environment where dp-audit is installed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "Family": "auditor.claims",
    "PrivacyClaim": "auditor.claims",
    "AdapterContractError": "auditor.errors",
    "AdapterLoadError": "auditor.errors",
    "AdapterOutputError": "auditor.errors",
    "AdapterRaised": "auditor.errors",
    "AdapterTimeout": "auditor.errors",
    "DPAuditError": "auditor.errors",
    "InvalidArgument": "auditor.errors",
    "load_target": "auditor.loading",
    "AdapterResult": "auditor.results",
    "AuditReport": "auditor.results",
    "EpsilonEstimate": "auditor.results",
    "Finding": "auditor.results",
    "Verdict": "auditor.results",
    "AuditConfig": "auditor.runner",
    "run_audit": "auditor.runner",
    "CertificationPlan": "auditor.trials",
    "Event": "auditor.trials",
    "Trial": "auditor.trials",
    "AdapterSpec": "auditor.validation",
    "check_adapter": "auditor.validation",
    "assert_private": "auditor.pytest_plugin",
}

__all__ = [
    "AdapterContractError",
    "AdapterLoadError",
    "AdapterOutputError",
    "AdapterRaised",
    "AdapterResult",
    "AdapterSpec",
    "AdapterTimeout",
    "AuditConfig",
    "AuditReport",
    "CertificationPlan",
    "DPAuditError",
    "EpsilonEstimate",
    "Event",
    "Family",
    "Finding",
    "InvalidArgument",
    "PrivacyClaim",
    "Trial",
    "Verdict",
    "assert_private",
    "check_adapter",
    "load_target",
    "run_audit",
]

if TYPE_CHECKING:
    from auditor.claims import Family, PrivacyClaim
    from auditor.errors import (
        AdapterContractError,
        AdapterLoadError,
        AdapterOutputError,
        AdapterRaised,
        AdapterTimeout,
        DPAuditError,
        InvalidArgument,
    )
    from auditor.loading import load_target
    from auditor.pytest_plugin import assert_private
    from auditor.results import AdapterResult, AuditReport, EpsilonEstimate, Finding, Verdict
    from auditor.runner import AuditConfig, run_audit
    from auditor.trials import CertificationPlan, Event, Trial
    from auditor.validation import AdapterSpec, check_adapter


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'auditor' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # cache: later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
