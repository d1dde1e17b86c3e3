"""Every claim kind by name: what serialisation, the command line, the reports and the attacks
read instead of listing the kinds themselves.

A new kind is its own module (the claim class and its :class:`ClaimKind` entry) and one line
here; ``tests/meta/test_claim_registry.py`` checks that every entry round-trips and answers the
:class:`Claim` protocol.  The order is the order of ``CLAIM_SYNTAX``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import auditor.core.claim_kinds.fdp as fdp
import auditor.core.claim_kinds.gdp as gdp
import auditor.core.claim_kinds.point as point
import auditor.core.claim_kinds.profile as profile
import auditor.core.claim_kinds.rdp as rdp
import auditor.core.claim_kinds.zcdp as zcdp
from auditor.core.claim_kinds.base import Claim, ClaimKind
from auditor.core.claim_kinds.fdp import TradeOffDP
from auditor.core.claim_kinds.gdp import GaussianDP
from auditor.core.claim_kinds.profile import PrivacyProfile
from auditor.core.claim_kinds.rdp import RenyiDP
from auditor.core.claim_kinds.zcdp import ZeroConcentratedDP
from auditor.core.claims import PrivacyClaim

REGISTRY: Mapping[str, ClaimKind] = MappingProxyType(
    {
        entry.name: entry
        for entry in (
            point.PURE,
            point.APPROX,
            gdp.KIND,
            zcdp.KIND,
            rdp.KIND,
            profile.KIND,
            fdp.KIND,
        )
    }
)

_BY_NAME = {name: entry for entry in REGISTRY.values() for name in (entry.name, *entry.aliases)}


def lookup(name: str) -> ClaimKind | None:
    """The kind a command line names (case-insensitive, aliases too), or None."""
    return _BY_NAME.get(name.lower())


def kind_of(claim: Any) -> ClaimKind | None:
    """The registry entry of a claim object (None: no claim or a kind nobody registered)."""
    return REGISTRY.get(getattr(claim, "kind", None))  # type: ignore[arg-type]


def _is_claim(
    claim: PrivacyClaim | GaussianDP | ZeroConcentratedDP | RenyiDP | PrivacyProfile | TradeOffDP,
) -> Claim:
    """Static check (mypy): every kind, PrivacyClaim included, satisfies Claim structurally."""
    return claim
