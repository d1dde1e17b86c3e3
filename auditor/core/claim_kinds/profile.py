"""Privacy profiles: a delta(eps) curve, (eps, delta(eps))-DP for every eps."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from auditor.core.claim_kinds.base import REPORT_DELTA, TableClaim, call, table_kind
from auditor.core.claims import (
    FloatArray,
    check_corner,
    check_delta_arg,
    check_epsilon_arg,
    check_levels,
    event_epsilon,
    exceeds,
    profile_tradeoff,
    smallest_valid_epsilon,
)
from auditor.core.errors import InvalidArgument

#: where a callable profile delta(eps) is read: 0 and a geometric grid up to 64
_PROFILE_EPS = np.concatenate([[0.0], np.geomspace(1e-3, 64.0, 300)])


@dataclass(frozen=True)
class PrivacyProfile(TableClaim):
    """A delta(eps) curve: (eps, delta(eps))-DP for every eps (a privacy profile).

    ``delta_of_eps``: a callable eps -> delta (read on a grid of eps in [0, 64]) or a table of
    (eps, delta) points (a mapping or pairs).  Between table points the claim is the delta at
    the next smaller eps of the table: a mechanism's true delta(eps) is non-increasing, so the
    claimed delta at eps_k also holds at every eps >= eps_k; below the first point nothing is
    claimed.  ``scale`` s stretches the epsilons: the claim at scale s is delta(eps / s), so a
    larger s is a weaker claim.  ``certified`` is the largest s the corner refutes.

    Raises:
        InvalidArgument: an eps < 0 or not finite, a delta outside [0, 1], an empty table, a
            callable that fails, scale not finite > 0, name not a string.
    """

    _KIND = "profile"

    delta_of_eps: Callable[[float], float] | Mapping[float, float] | Sequence[tuple[float, float]]
    name: str = ""
    scale: float = 1.0
    report_delta: float = REPORT_DELTA
    _table: tuple[tuple[float, float], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._store_table("delta_of_eps", "privacy profile", _PROFILE_EPS.tolist, _check_point)

    def _arrays(self) -> tuple[FloatArray, FloatArray]:
        eps = np.array([e for e, _ in self._table], dtype=np.float64)
        dlt = np.array([d for _, d in self._table], dtype=np.float64)
        return eps, dlt

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """sup over the points of f_{s eps_k, delta_k} (DRS19 Prop. 2.12).

        Exact for a table (between points the delta is constant and f_{eps,delta} is highest at
        the smallest eps); below the truth for a callable (a sup over its grid).
        """
        arr = check_levels(a)
        eps, dlt = self._arrays()
        return profile_tradeoff(arr, self.scale * eps, dlt)

    def _delta_base(self, eps: float) -> float:
        """delta at eps of the unscaled claim."""
        if callable(self.delta_of_eps):
            d = call(self.delta_of_eps, eps, "privacy profile")
            if not 0.0 <= d <= 1.0:
                raise InvalidArgument(f"privacy profile: delta({eps!r})={d!r} must be in [0, 1]")
            return d
        below = [d for e, d in self._table if e <= eps]
        return below[-1] if below else 1.0

    def delta_for_epsilon(self, epsilon: float) -> float:
        """delta(eps / scale): the callable's value, or the table's step value (1.0 below it)."""
        e = check_epsilon_arg(epsilon)
        return self._delta_base(e / self.scale)

    def epsilon_for_delta(self, delta: float) -> float:
        """For a table, the smallest scaled table eps whose delta is <= ``delta``; for a
        callable, bisection between the grid points around the first one that is (inf when no
        grid point reaches ``delta``)."""
        d = check_delta_arg(delta)
        if not callable(self.delta_of_eps):
            hits = [self.scale * e for e, dk in self._table if dk <= d]
            return min(hits) if hits else math.inf
        prev = 0.0
        for e, dk in self._table:
            if dk <= d:
                if e == 0.0:
                    return 0.0
                lo, hi = prev, e
                while hi - lo > hi * 1e-13:
                    mid = (lo + hi) / 2.0
                    if self._delta_base(mid) <= d:
                        hi = mid
                    else:
                        lo = mid
                return smallest_valid_epsilon(self.delta_for_epsilon, self.scale * hi, d)
            prev = e
        return math.inf

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        """The largest scale s whose claim the corner refutes.

        At scale s the point (s e_k, delta_k) is refuted iff p0 - e^(s e_k) p1 > delta_k or
        (1 - p1) - e^(s e_k)(1 - p0) > delta_k (the two branches of f_{eps,delta}, DRS19
        Prop. 2.12), i.e. s < r_k / e_k with r_k = max(ln((p0 - delta_k)/p1),
        ln((1 - delta_k - p1)/(1 - p0))); a point at e_k = 0 with r_k > 0 is refuted at every
        scale (inf).  The sup over the points is the answer (monotone in p0_lo and p1_hi).
        """
        p0, p1 = check_corner(p0_lo, p1_hi)
        best = 0.0
        for e, dk in self._table:
            r = event_epsilon(p0, p1, dk)
            if e == 0.0:
                if exceeds(r, 0.0):  # refuted at eps = 0 (beyond rounding): at every scale
                    return math.inf
            elif r > 0.0:
                best = max(best, r / e)
        return best

    def describe(self) -> str:
        what = self._what(self.delta_of_eps)
        return self._scaled(f"delta(eps) profile {what} ({len(self._table)} points)", ", eps x ")

    def to_dict(self) -> dict[str, Any]:
        return self._table_dict([[e, d] for e, d in self._table])


def _check_point(eps: float, delta: float) -> None:
    if not (eps >= 0.0 and math.isfinite(eps)):
        raise InvalidArgument(f"privacy profile: eps={eps!r} must be a finite number >= 0")
    if not 0.0 <= delta <= 1.0:
        raise InvalidArgument(f"privacy profile: delta({eps!r})={delta!r} must be in [0, 1]")


KIND = table_kind(
    PrivacyProfile,
    ("eps", lambda e: e >= 0, "a finite number >= 0"),
    ("delta", lambda d: 0 <= d <= 1, "in [0, 1]"),
    """\
  profile:0.5=1e-3,1=1e-5    a delta(eps) curve: eps=delta pairs, eps >= 0, delta in [0, 1]
                             (the delta at each eps also holds at every larger eps)""",
)
