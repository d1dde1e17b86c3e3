"""dp-audit: attack and audit differential-privacy implementations.

The public API, in the order a user meets it: describe a claim and an adapter, run an audit,
read the result.  Importing this package never imports an optional DP library.
"""

from __future__ import annotations

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
from auditor.results import AdapterResult, AuditReport, EpsilonEstimate, Finding, Verdict
from auditor.runner import AuditConfig, run_audit
from auditor.trials import CertificationPlan, Event, Trial
from auditor.validation import AdapterSpec, check_adapter

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
    "check_adapter",
    "load_target",
    "run_audit",
]
