"""Renyi differential privacy with a curve alpha -> eps(alpha) (Mironov 2017)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import gmpy2
import numpy as np
import numpy.typing as npt

from auditor.core.claim_kinds.base import (
    PROFILE_POINTS,
    REPORT_DELTA,
    TableClaim,
    epsilon_at_the_ends,
    mpfr_down,
    table_kind,
)
from auditor.core.claim_kinds.renyi import PREC, bernoulli_renyi_lower, renyi_float
from auditor.core.claims import (
    FloatArray,
    check_corner,
    check_delta_arg,
    check_epsilon_arg,
    check_levels,
    profile_tradeoff,
    smallest_valid_epsilon,
)
from auditor.core.errors import InvalidArgument


def _default_rdp_orders() -> tuple[float, ...]:
    from dp_accounting.rdp import rdp_privacy_accountant

    return tuple(float(a) for a in rdp_privacy_accountant.DEFAULT_RDP_ORDERS)


@dataclass(frozen=True)
class RenyiDP(TableClaim):
    """Renyi DP with a curve alpha -> eps(alpha) (Mironov 2017, Def. 4), scaled by ``scale``.

    ``curve``: a callable (read at dp_accounting's default RDP orders) or a table ``{alpha:
    eps}`` / pairs (alpha, eps), orders > 1, eps >= 0 (inf allowed: no bound at that order).
    The claim is ``D_alpha <= scale * eps(alpha)`` at those orders.  ``parameter`` is "scale"
    (value ``scale``): ``certified`` is the largest factor by which the curve could be scaled and
    still be refuted, max over orders of D_alpha(corner) / eps(alpha); ``order_bounds`` and
    ``most_violated_order`` say which order, for reports ("eps(alpha=2) >= 0.61, claimed 0.5").

    Raises:
        InvalidArgument: an order <= 1 or not finite, an eps < 0 or NaN, an empty table, a
            callable that fails, scale not finite > 0, name not a string.
    """

    _KIND = "rdp"

    curve: Callable[[float], float] | Mapping[float, float] | Sequence[tuple[float, float]]
    name: str = ""
    scale: float = 1.0
    report_delta: float = REPORT_DELTA
    _table: tuple[tuple[float, float], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._store_table("curve", "RDP curve", _default_rdp_orders, _check_point)

    @property
    def orders(self) -> tuple[float, ...]:
        return tuple(a for a, _ in self._table)

    @property
    def epsilons(self) -> tuple[float, ...]:
        """The claimed eps(alpha) at ``orders``, scale applied."""
        return tuple(self.scale * e for _, e in self._table)

    @property
    def unscaled_epsilons(self) -> tuple[float, ...]:
        """The curve's eps(alpha) at ``orders`` before ``scale``: a divergence D_alpha shows
        the scale is at least D_alpha / eps(alpha)."""
        return tuple(e for _, e in self._table)

    @cached_property
    def _profile(self) -> tuple[FloatArray, FloatArray]:
        top = self.epsilon_for_delta(1e-15)
        eps = np.linspace(0.0, min(top, 1000.0) if math.isfinite(top) else 100.0, PROFILE_POINTS)
        return eps, np.array([self.delta_for_epsilon(float(e)) for e in eps])

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """sup over an epsilon grid of f_{eps, delta(eps)} (DRS19 Prop. 2.12): below the truth."""
        arr = check_levels(a)
        return profile_tradeoff(arr, *self._profile)

    def delta_for_epsilon(self, epsilon: float) -> float:
        """dp_accounting's RDP -> (eps, delta) conversion (CKS20 Prop. 12 / ALCKS20; KL bound),
        raised by a relative 1e-9 (its float exponent (alpha-1)(r - eps) may be large)."""
        from dp_accounting.rdp import rdp_privacy_accountant

        e = check_epsilon_arg(epsilon)
        d, _ = rdp_privacy_accountant.compute_delta(self.orders, self.epsilons, e)
        return min(1.0, float(d) * (1.0 + 1e-9))

    def epsilon_for_delta(self, delta: float) -> float:
        """dp_accounting's ``compute_epsilon``, raised until ``delta_for_epsilon`` agrees."""
        from dp_accounting.rdp import rdp_privacy_accountant

        d = check_delta_arg(delta)
        edge = epsilon_at_the_ends(self.delta_for_epsilon, d)
        if edge is not None:
            return edge
        e, _ = rdp_privacy_accountant.compute_epsilon(self.orders, self.epsilons, d)
        e = float(e)
        if not math.isfinite(e):
            return math.inf
        return smallest_valid_epsilon(self.delta_for_epsilon, e, d)

    def order_bounds(self, p0_lo: float, p1_hi: float) -> list[tuple[float, float, float]]:
        """(alpha, lower bound of D_alpha from the corner, claimed scale * eps(alpha)) per order."""
        p0, p1 = check_corner(p0_lo, p1_hi)
        return [
            (alpha, bernoulli_renyi_lower(p0, p1, alpha), self.scale * eps)
            for alpha, eps in self._table
        ]

    def _ratios(self, p0: float, p1: float) -> list[tuple[float, float]]:
        """(order, D_alpha lower bound / unscaled eps(alpha)) for the best orders (float search
        then MPFR at the three best; the MPFR value is the one used)."""
        if p0 <= p1:
            return [(self._table[0][0], 0.0)]
        if p1 == 0.0 or p0 == 1.0:
            return [(self._table[0][0], math.inf)]
        alphas = np.array(self.orders)
        eps = np.array([e for _, e in self._table])
        with np.errstate(all="ignore"):
            am1 = alphas - 1.0
            d = np.maximum(renyi_float(p0, p1, am1), renyi_float(p1, p0, am1))
            r = np.where(eps > 0, d / eps, np.where(d > 0, np.inf, 0.0))
        r = np.where(np.isnan(r), 0.0, r)
        out = []
        for i in np.argsort(-r, kind="stable")[:3].tolist():
            alpha, e = self._table[i]
            dl = bernoulli_renyi_lower(p0, p1, alpha)
            if e == 0.0:
                ratio = math.inf if dl > 0 else 0.0
            elif math.isinf(e):
                ratio = 0.0
            else:
                with gmpy2.context(precision=PREC, round=gmpy2.RoundDown):
                    ratio = mpfr_down(gmpy2.mpfr(dl) / gmpy2.mpfr(e))
            out.append((alpha, ratio))
        return out

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        """max over orders of D_alpha(corner) / eps(alpha) (both divergence orders), from below:
        the curve scaled by any smaller factor is refuted at some order (Mironov 2017)."""
        p0, p1 = check_corner(p0_lo, p1_hi)
        return max(r for _, r in self._ratios(p0, p1))

    def most_violated_order(self, p0_lo: float, p1_hi: float) -> tuple[float, float, float]:
        """(alpha, D_alpha lower bound, claimed scale * eps(alpha)) at the order with the largest
        ratio D_alpha / eps(alpha)."""
        p0, p1 = check_corner(p0_lo, p1_hi)
        alpha, _ = max(self._ratios(p0, p1), key=lambda t: t[1])
        eps = dict(self._table)[alpha]
        return alpha, bernoulli_renyi_lower(p0, p1, alpha), self.scale * eps

    def describe(self) -> str:
        if callable(self.curve):
            text = f"RDP eps(alpha) = {self.name or 'curve'}"
        else:
            pairs = ", ".join(f"{a:g}: {e:g}" for a, e in self._table)
            text = f"RDP eps(alpha) = {{{pairs}}}" + (f" ({self.name})" if self.name else "")
        return self._scaled(text, " x ")

    def to_dict(self) -> dict[str, Any]:
        """Orders with eps = inf are left out: they bound nothing (and JSON has no inf)."""
        return self._table_dict([[a, e] for a, e in self._table if math.isfinite(e)])


def _check_point(alpha: float, eps: float) -> None:
    if not (alpha > 1.0 and math.isfinite(alpha)):
        raise InvalidArgument(f"RDP order alpha={alpha!r} must be a finite number > 1")
    if not eps >= 0.0:
        raise InvalidArgument(f"RDP eps(alpha={alpha!r})={eps!r} must be >= 0")


def _gaussian_mu(claim: Any) -> float:
    """The largest mu whose D_alpha = alpha mu^2 / 2 stays within the curve at every order."""
    return min(math.sqrt(2.0 * e / a) for a, e in zip(claim.orders, claim.epsilons, strict=True))


KIND = table_kind(
    RenyiDP,
    ("order", lambda a: a > 1, "a finite number > 1"),
    ("eps", lambda e: e >= 0, "a finite number >= 0"),
    """\
  rdp:2=0.5,4=1.2,8=2.0      Renyi DP: order=eps pairs, orders > 1, eps >= 0""",
    # every order's D_alpha = alpha sensitivity^2 / (2 sigma^2) grows by ratio^2: the curve's scale
    scaling=(2, "Gaussian, D_alpha = alpha sensitivity^2/(2 sigma^2) at every order"),
    gaussian_mu=_gaussian_mu,
    # scale >= D_a / eps(a) unscaled, at the curve's own orders
    renyi_orders=lambda claim, grid: (
        np.array(claim.orders, dtype=float),
        np.array(claim.unscaled_epsilons, dtype=float),
    ),
)
