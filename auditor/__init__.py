"""dp-audit: attack and audit differential-privacy implementations.

The public API, in the order a user meets it: describe a claim and an adapter, run an audit,
read the result.  Importing this package never imports an optional DP library, and imports
nothing heavy at all: every public name is imported on first use (PEP 562).  This matters
because the pytest plugin (``dp_audit.pytest_plugin``) is loaded by every pytest run in an
environment where dp-audit is installed.  Nothing here names the shell above it (``dp_audit``:
the command line, the plugin and its ``assert_private``), so the two packages import one way.
"""

from __future__ import annotations

import importlib
import importlib.abc
import sys
from typing import TYPE_CHECKING, Any

#: public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "Family": "auditor.core.claims",
    "PrivacyClaim": "auditor.core.claims",
    "AdapterContractError": "auditor.core.errors",
    "AdapterCrashed": "auditor.core.errors",
    "AdapterLoadError": "auditor.core.errors",
    "AdapterOutputError": "auditor.core.errors",
    "AdapterRaised": "auditor.core.errors",
    "AdapterTimeout": "auditor.core.errors",
    "DPAuditError": "auditor.core.errors",
    "EngineConfig": "auditor.core.configs",
    "InvalidArgument": "auditor.core.errors",
    "load_target": "auditor.core.targets",
    "AdapterResult": "auditor.core.results",
    "AuditReport": "auditor.core.results",
    "EpsilonEstimate": "auditor.core.results",
    "Finding": "auditor.core.results",
    "Verdict": "auditor.core.results",
    "AuditConfig": "auditor.core.configs",
    "run_audit": "auditor.engine.runner",
    "CertificationPlan": "auditor.core.trials",
    "Event": "auditor.core.trials",
    "Trial": "auditor.core.trials",
    "AdapterSpec": "auditor.core.spec",
    "check_adapter": "auditor.core.spec",
    "check_adapter_conformance": "auditor.testing",
}

__all__ = [
    "AdapterContractError",
    "AdapterCrashed",
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
    "EngineConfig",
    "EpsilonEstimate",
    "Event",
    "Family",
    "Finding",
    "InvalidArgument",
    "PrivacyClaim",
    "Trial",
    "Verdict",
    "check_adapter",
    "check_adapter_conformance",
    "load_target",
    "run_audit",
]

if TYPE_CHECKING:
    from auditor.core.claims import Family, PrivacyClaim
    from auditor.core.configs import AuditConfig, EngineConfig
    from auditor.core.errors import (
        AdapterContractError,
        AdapterCrashed,
        AdapterLoadError,
        AdapterOutputError,
        AdapterRaised,
        AdapterTimeout,
        DPAuditError,
        InvalidArgument,
    )
    from auditor.core.results import AdapterResult, AuditReport, EpsilonEstimate, Finding, Verdict
    from auditor.core.spec import AdapterSpec, check_adapter
    from auditor.core.targets import load_target
    from auditor.core.trials import CertificationPlan, Event, Trial
    from auditor.engine.runner import run_audit
    from auditor.testing import check_adapter_conformance


#: modules of dp-audit 0.1 that moved in 0.2, and the shell, which moved to ``dp_audit`` after
#: 0.2 (see CHANGELOG.md); importing a submodule of an old package fails at the package, so
#: only these names need an entry
MOVED: dict[str, str] = {
    **{
        f"auditor.{m}": f"auditor.core.{m}"
        for m in ("errors", "claims", "trials", "interfaces", "results", "seeding", "provenance")
    },
    "auditor.validation": "auditor.core.spec",
    "auditor.estimators": "auditor.statistics (estimators) and auditor.statistics.events "
    "(event proposers)",
    **{
        f"auditor.{m}": f"auditor.engine.{m}"
        for m in ("runner", "certify", "sampling", "timed_sampling", "probes", "backends")
    },
    **{
        f"auditor.{m}": f"dp_audit.{m}"
        for m in ("cli", "arguments", "loading", "progress", "pytest_plugin")
    },
    "auditor.shell": "dp_audit",
}
#: public names that moved out of ``auditor`` -> their new home
MOVED_NAMES: dict[str, str] = {"assert_private": "dp_audit.assert_private"}


class _MovedModules(importlib.abc.MetaPathFinder):
    """Asked last, for modules nothing else found: an old path gets a message naming the new
    one, instead of a bare ``No module named ...``."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        new = MOVED.get(fullname)
        if new is not None:
            raise ModuleNotFoundError(
                f"{fullname} moved to {new} (see CHANGELOG.md); the public names are "
                "importable from 'auditor' itself, assert_private from 'dp_audit'",
                name=fullname,
            )


if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.append(_MovedModules())


def __getattr__(name: str) -> Any:
    if name in MOVED_NAMES:
        raise AttributeError(
            f"auditor.{name} moved to {MOVED_NAMES[name]} (see CHANGELOG.md)", name=name
        )
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'auditor' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # cache: later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
