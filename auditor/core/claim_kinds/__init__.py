"""Claims beyond one (epsilon, delta) point: Gaussian DP, zCDP, Renyi DP, privacy profiles, f-DP.

Why: many implementations state their guarantee as rho-zCDP, mu-GDP or an RDP curve, and the
(epsilon, delta) point derived from it is looser than the claim itself; auditing the claim as
stated catches violations the derived point hides.

The statistical setting.  An attack picks an output event S and counts it on two neighbouring
inputs; Clopper-Pearson gives ``p0_lo <= P[M(x) in S]`` and ``P[M(x') in S] <= p1_hi``.  Read as
a test rejecting x' on S, its type-I error is at most ``p1_hi`` and its type-II error at most
``1 - p0_lo``; a claim is refuted when this corner lies strictly below the claim's trade-off
curve f (Dong, Roth & Su 2019, "Gaussian Differential Privacy", DRS19).  f is non-increasing
and the bounds are one-sided, so the corner is the worst point of the confidence box.

Every claim kind implements :class:`Claim`; :class:`auditor.core.claims.PrivacyClaim` does too.
Every computation is *conservative*: curves are computed from below, deltas from above,
certified bounds from below, and ``violated`` needs the certified bound to exceed the claim by
the tolerance of :func:`auditor.core.claims.exceeds`, so rounding can only hide a violation.

The neighbour relation is symmetric, so a claim binds T(M(x), M(x')) and T(M(x'), M(x)) alike.
The curves of pure/approx DP, GDP, zCDP, RDP and privacy profiles are symmetric (f = f^-1: the
first three by their closed forms, the last two as sups of symmetric (eps, delta) curves), so
the corner test against f covers both readings; the Renyi tests take both divergence orders
explicitly, and f-DP (a user curve, maybe not symmetric) tests the reflected corner as well.

The package: ``base`` (the protocol and what kinds share), one module per kind (``point``,
``gdp``, ``zcdp``, ``rdp``, ``profile``, ``fdp``), ``renyi`` (the Bernoulli Renyi bounds of the
two Renyi kinds), ``registry`` (every kind by name), ``serialisation`` and ``parsing``.
"""

from __future__ import annotations

from auditor.core.claim_kinds.base import REPORT_DELTA, Claim, ClaimKind, is_point
from auditor.core.claim_kinds.fdp import TradeOffDP
from auditor.core.claim_kinds.gdp import GaussianDP
from auditor.core.claim_kinds.parsing import CLAIM_SYNTAX, as_claim, parse_claim
from auditor.core.claim_kinds.profile import PrivacyProfile
from auditor.core.claim_kinds.rdp import RenyiDP
from auditor.core.claim_kinds.registry import REGISTRY, kind_of
from auditor.core.claim_kinds.renyi import bernoulli_renyi_lower
from auditor.core.claim_kinds.serialisation import claim_from_dict, claim_to_dict
from auditor.core.claim_kinds.zcdp import ZeroConcentratedDP

__all__ = [
    "CLAIM_SYNTAX",
    "REGISTRY",
    "REPORT_DELTA",
    "Claim",
    "ClaimKind",
    "GaussianDP",
    "PrivacyProfile",
    "RenyiDP",
    "TradeOffDP",
    "ZeroConcentratedDP",
    "as_claim",
    "bernoulli_renyi_lower",
    "claim_from_dict",
    "claim_to_dict",
    "is_point",
    "kind_of",
    "parse_claim",
]
