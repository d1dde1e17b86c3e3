"""Pure and approximate DP: one (epsilon, delta) point, the claim of
:class:`auditor.core.claims.PrivacyClaim` (one class for both kinds: its ``kind`` follows from
whether delta is 0)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from auditor.core.claim_kinds.base import Claim, ClaimKind, KeyedForm
from auditor.core.claims import PrivacyClaim
from auditor.core.errors import InvalidArgument


def _from_dict(kind: str) -> Callable[[Mapping[str, Any], Callable[[str], Any]], Claim]:
    """A point's dict, whose delta must agree with the kind it names."""

    def from_dict(d: Mapping[str, Any], need: Callable[[str], Any]) -> Claim:
        claim = PrivacyClaim(need("epsilon"), d.get("delta", 0.0))
        if claim.kind != kind:
            raise InvalidArgument(f"claim of kind {kind!r} has delta={claim.delta!r}")
        return claim

    return from_dict


#: a sensitivity ratio r scales a Laplace-type mechanism's epsilon by r
_LAPLACE = (1, "Laplace-type, scale sensitivity/epsilon")


def _point_kind(name: str, form: KeyedForm, syntax: str, **extra: Any) -> ClaimKind:
    """The registry entry of a point kind: a :class:`PrivacyClaim` whose delta fits ``name``."""
    return ClaimKind(
        name=name,
        cls=PrivacyClaim,
        parameter="epsilon",
        keys=frozenset({"kind", "epsilon", "delta"}),
        from_dict=_from_dict(name),
        form=form,
        syntax=syntax,
        point=True,
        scaling=_LAPLACE,
        **extra,
    )


PURE = _point_kind(
    "pure",
    KeyedForm(("epsilon",), lambda v: PrivacyClaim(v["epsilon"])),
    """\
  pure:eps=1                 epsilon-DP (alias: dp:eps=1)""",
    aliases=("dp",),
)

APPROX = _point_kind(
    "approx",
    KeyedForm(("epsilon", "delta"), lambda v: PrivacyClaim(v["epsilon"], v["delta"])),
    """\
  approx:eps=1,delta=1e-5    (epsilon, delta)-DP, delta in [0, 1)""",
)
