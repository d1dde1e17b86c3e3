"""Claims to and from the dicts report.json holds, every kind through its registry entry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from auditor.core.claim_kinds.base import Claim
from auditor.core.claim_kinds.registry import REGISTRY
from auditor.core.claims import PrivacyClaim
from auditor.core.errors import InvalidArgument


def claim_to_dict(claim: Claim) -> dict[str, Any]:
    """A JSON-able dict with a "kind" for every claim (PrivacyClaim: kind, epsilon, delta)."""
    if isinstance(claim, PrivacyClaim):
        return {"kind": claim.kind, **claim.to_dict()}
    return claim.to_dict()


def claim_from_dict(d: Mapping[str, Any]) -> Claim:
    """The claim :func:`claim_to_dict` wrote; also the old ``{"epsilon", "delta"}`` shape.

    Raises:
        InvalidArgument: not a mapping, unknown kind, missing or unknown keys, bad values.
    """
    if not isinstance(d, Mapping):
        raise InvalidArgument(f"claim={d!r} must be a dict")
    kind = d.get("kind")
    if kind is None:
        if "epsilon" in d and set(d) <= {"epsilon", "delta"}:
            return PrivacyClaim(d["epsilon"], d.get("delta", 0.0))
        raise InvalidArgument(f"claim={dict(d)!r} has no 'kind' and is not {{epsilon, delta}}")
    if kind not in REGISTRY:
        raise InvalidArgument(f"claim kind={kind!r} must be one of {sorted(REGISTRY)}")
    entry = REGISTRY[kind]
    unknown = set(d) - entry.keys
    if unknown:
        raise InvalidArgument(f"claim of kind {kind!r}: unknown keys {sorted(unknown)}")

    def need(key: str) -> Any:
        if key not in d:
            raise InvalidArgument(f"claim of kind {kind!r}: missing key {key!r}")
        return d[key]

    return entry.from_dict(d, need)
