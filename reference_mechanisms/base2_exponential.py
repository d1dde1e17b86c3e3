"""The base-2 exponential mechanism (Ilvento 2020): exact selection with no floating-point leak.

Pipeline for one release, given utilities ``u`` (floats), integer bounds ``[u_min, u_max]`` and a
base-2 parameter ``Eta`` (base ``b = (x/2^y)^z = 2^-eta``):

1. *Randomized rounding*: each utility is rounded up with probability ``frac(u)`` (exactly: a
   uniform dyadic is compared with the exact binary fraction of the float), down otherwise.
2. *Clamping* to ``[u_min, u_max]`` (integer bounds, so results stay integers).
3. *Weights*, exactly (gmpy2 MPFR with inexact traps, see :mod:`base2_arithmetic`):
   - ``convention="utility"`` (higher is better, the default): ``w(o) = b^(u_top - u(o))``, i.e.
     ``w(o) ∝ 2^(eta u(o))``;
   - ``convention="loss"`` (lower is better, Ilvento's): ``w(o) = b^(u(o) - u_bottom)``, i.e.
     ``w(o) ∝ 2^(-eta u(o))``;
   where ``u_top``/``u_bottom`` is the best rounded utility present (a common factor, so the
   distribution is unchanged and every weight lies in (0, 1]).
4. *Division-free normalised sampling* (:mod:`normalized_sampling`).

Privacy accounting (Ilvento 2020; b2dp ``exponential.rs`` docs): if utilities have sensitivity
``Delta`` (each moves by at most ``Delta`` between neighbours), the mechanism is
``2 * ceil(Delta) * eta``-DP in base 2, i.e. **epsilon = 2 ceil(Delta) eta ln 2**.  Rounding and
clamping do not cost privacy: coupling the two neighbours' roundings of each coordinate through a
common uniform U (``R(u) = floor(u + U)``) moves rounded utilities by at most ``ceil(Delta)``, and
clamping is 1-Lipschitz; the exponential-mechanism bound then holds for every coupled pair.  For
integer ``Delta`` this is exactly Ilvento's ``2 Delta eta``.  ``eta_from_epsilon`` picks the
parameter so that the guarantee is ``<= epsilon`` (under-approximation).

References:
    Ilvento, "Implementing the Exponential Mechanism with Base-2 Differential Privacy", CCS 2020.
    McSherry, Talwar, "Mechanism Design via Differential Privacy", FOCS 2007.

Assumptions:
    ``rng.integers`` is exactly uniform; rounding/rejection loops take data-dependent time.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from reference_mechanisms.base2_arithmetic import (
    Eta,
    PrecisionError,
    analytic_precision,
    empirical_precision,
    eta_from_epsilon,
    exact_weights,
)
from reference_mechanisms.bernoulli import sample_bernoulli
from reference_mechanisms.normalized_sampling import LevelSampler, normalized_sample
from reference_mechanisms.params import check_count
from reference_mechanisms.randomness import IntegerSource

__all__ = [
    "Base2ExponentialMechanism",
    "Eta",
    "PrecisionError",
    "PreparedUtilities",
    "analytic_precision",
    "check_utilities",
    "empirical_precision",
    "eta_from_epsilon",
    "exact_weights",
    "normalized_sample",
    "randomized_round_up",
]

CONVENTIONS = ("utility", "loss")
#: exact mixture probabilities over roundings are computed for at most this many fractional entries
MAX_FRACTIONAL_FOR_PROBABILITIES = 12
_BOUND_MAX = 2.0**52


def randomized_round_up(frac: np.ndarray, rng: IntegerSource) -> np.ndarray:
    """Exact Bernoulli(frac[i]) draws for floats ``frac`` in [0, 1) (True = round up).

    A float is a dyadic rational: compare 62 random bits with its first 62 binary digits and, on
    the (probability 2^-62) tie, recurse on the remaining digits; so P[True] = frac exactly.
    """
    frac = np.asarray(frac, dtype=np.float64)
    if frac.size == 0:
        return np.zeros(0, dtype=bool)
    scaled = np.ldexp(frac, 62)  # exact: scaling by a power of two
    whole = np.floor(scaled)
    rest = scaled - whole  # exact
    c = np.asarray(rng.integers(0, 1 << 62, size=frac.size), dtype=np.int64)
    a = whole.astype(np.int64)
    out: np.ndarray = c < a
    tie = np.flatnonzero((c == a) & (rest > 0))
    if tie.size:
        out[tie] = randomized_round_up(rest[tie], rng)
    return out


class PreparedUtilities:
    """One utility vector, rounded-and-clamped candidates and exact weight tables precomputed.

    Reuse it for many independent releases on the same utilities (each release re-draws its own
    rounding, as the mechanism requires).  Built by :meth:`Base2ExponentialMechanism.prepare`.
    """

    def __init__(
        self,
        fav_levels: np.ndarray,
        frac: np.ndarray,
        is_frac: np.ndarray,
        eta: Eta,
        convention: str,
        weight_precision: str = "analytic",
    ) -> None:
        self.eta = eta
        self.convention = convention
        self.k = int(fav_levels.size)
        self.fav_levels = fav_levels
        self.frac = frac
        self.is_frac = is_frac
        self.any_frac = bool(is_frac.any())
        #: proposal table: every outcome at its favourable rounding
        self.table = LevelSampler(fav_levels, eta, weight_precision=weight_precision)

    def sample(self, n: int, rng: IntegerSource) -> np.ndarray:
        """``n`` independent releases (int64 indices)."""
        if not self.any_frac:
            return self.table.sample(n, rng)
        # Rejection on top of the favourable table: propose o ∝ w_fav(o); reveal this release's
        # rounding of o (kept for the rest of the release); accept with w(R_o)/w_fav(o), which is
        # 1 or exactly b.  Lazy revelation of independent roundings = drawing them up front.
        out = np.empty(n, dtype=np.int64)
        active = np.arange(n, dtype=np.int64)
        revealed = np.empty(0, dtype=np.int64)  # sorted keys release*k + o, unfavourable rounding
        while active.size:
            prop = self.table.sample(active.size, rng)
            accept = ~self.is_frac[prop]
            fr = np.flatnonzero(~accept)
            if fr.size:
                keys = active[fr] * self.k + prop[fr]
                pos = np.searchsorted(revealed, keys)
                known = (
                    revealed[np.minimum(pos, revealed.size - 1)] == keys
                    if revealed.size
                    else (np.zeros(keys.size, dtype=bool))
                )
                fresh = fr[~known]
                up = randomized_round_up(self.frac[prop[fresh]], rng)
                fav = up if self.convention == "utility" else ~up
                accept[fresh[fav]] = True
                newly = fresh[~fav]
                revealed = np.sort(np.concatenate([revealed, active[newly] * self.k + prop[newly]]))
                unfav = np.concatenate([fr[known], newly])
                ok = sample_bernoulli(self.eta.base, int(unfav.size), rng)
                accept[unfav[ok]] = True
            out[active[accept]] = prop[accept]
            active = active[~accept]
        return out

    def numeric_probabilities(self) -> np.ndarray:
        """Selection probabilities in float64 by numerical integration (any number of fractions).

        ``P[o] = E[W_o / (W_o + S_-o)] = ∫_0^∞ -phi_o'(t) prod_{j != o} phi_j(t) dt`` with
        ``phi_j(t) = E[exp(-t W_j)]`` the Laplace transform of outcome j's random weight
        (``1/a = ∫ exp(-ta) dt``).  Integrated adaptively (``scipy.integrate.quad_vec``,
        relative tolerance 1e-12).  For tests and white-box audits only: it decides nothing.
        """
        from scipy.integrate import quad_vec

        b = float(self.eta.base)
        w1 = b ** self.fav_levels.astype(np.float64)  # favourable weight (<= 1)
        w2 = np.where(self.is_frac, w1 * b, w1)
        up = self.frac.astype(np.float64)
        p = np.where(self.is_frac, up if self.convention == "utility" else 1.0 - up, 1.0)
        scale = float(np.sum(w2))  # t in units of 1/(smallest total weight)

        def f(s: float) -> np.ndarray:
            t = s / scale
            # phi_j = p e^{-t w1} + (1-p) e^{-t w2} = e^{-t w2} (p e^{-t (w1 - w2)} + 1 - p)
            log_phi = -t * w2 + np.log(p * np.exp(-t * (w1 - w2)) + (1.0 - p))
            g = p * w1 * np.exp(-t * w1) + (1.0 - p) * w2 * np.exp(-t * w2)
            derivative: np.ndarray = g * np.exp(log_phi.sum() - log_phi) / scale
            return derivative

        # the integrand decays at least like exp(-s): [0, 60] holds all but e^-60 of it
        val, _ = quad_vec(f, 0.0, 60.0, epsrel=1e-12, epsabs=0.0, points=(1.0, 4.0, 15.0))
        return np.asarray(val, dtype=np.float64)

    def probabilities(self) -> list[Fraction]:
        """Exact selection probabilities (mixture over this vector's random roundings)."""
        b = self.eta.base
        levels = [int(v) for v in self.fav_levels]
        fr = [i for i in range(self.k) if self.is_frac[i]]
        if len(fr) > MAX_FRACTIONAL_FOR_PROBABILITIES:
            raise ValueError(
                f"exact probabilities need <= {MAX_FRACTIONAL_FOR_PROBABILITIES} non-integer "
                f"utilities strictly inside the bounds, got {len(fr)}"
            )
        cache: dict[int, Fraction] = {}

        def w(d: int) -> Fraction:
            if d not in cache:
                cache[d] = b**d
            return cache[d]

        # P[rounding is favourable] for each fractional outcome
        p_fav = {}
        for i in fr:
            up = Fraction(float(self.frac[i]))
            p_fav[i] = up if self.convention == "utility" else 1 - up
        fixed_total = sum((w(levels[i]) for i in range(self.k) if not self.is_frac[i]), Fraction(0))

        def others_distribution(excl: int | None) -> dict[Fraction, Fraction]:
            dist = {
                fixed_total
                - (w(levels[excl]) if excl is not None and not self.is_frac[excl] else 0): Fraction(
                    1
                )
            }
            for j in fr:
                if j == excl:
                    continue
                new: dict[Fraction, Fraction] = {}
                for s, p in dist.items():
                    for val, q in ((w(levels[j]), p_fav[j]), (w(levels[j] + 1), 1 - p_fav[j])):
                        if q:
                            new[s + val] = new.get(s + val, Fraction(0)) + p * q
                dist = new
            return dist

        if not fr:
            t = fixed_total
            return [w(d) / t for d in levels]
        out = []
        for i in range(self.k):
            rest = others_distribution(i)
            opts = (
                ((w(levels[i]), p_fav[i]), (w(levels[i] + 1), 1 - p_fav[i]))
                if self.is_frac[i]
                else ((w(levels[i]), Fraction(1)),)
            )
            out.append(
                sum(
                    (q * p * wi / (wi + s) for wi, q in opts if q for s, p in rest.items()),
                    Fraction(0),
                )
            )
        return out


class Base2ExponentialMechanism:
    """Exact base-2 exponential mechanism over a finite outcome set (indices ``0..k-1``).

    Args:
        epsilon: target base-e privacy parameter; the mechanism uses ``eta_from_epsilon`` and
            guarantees ``self.epsilon <= epsilon`` (give ``eta`` instead to fix it exactly).
        sensitivity: utility sensitivity ``Delta > 0`` (the accounting uses ``ceil(Delta)``).
        utility_bounds: integer ``(u_min, u_max)``; utilities are clamped to it after rounding.
        eta: explicit base-2 parameter (then ``epsilon`` must be None).
        convention: ``"utility"`` (higher is better, default) or ``"loss"`` (lower is better).
        weight_precision: ``"analytic"`` (default) or ``"empirical"``: how the MPFR precision
            of the exact weights is chosen (see :class:`LevelSampler`).

    Raises:
        ValueError: epsilon not finite and > 0 (or both/neither of epsilon and eta), sensitivity
            not finite and > 0, bounds not integers with ``u_min <= u_max`` and ``|u| <= 2^52``,
            unknown convention.
    """

    def __init__(
        self,
        epsilon: float | None,
        sensitivity: float = 1.0,
        utility_bounds: tuple[float, float] = (-(2**20), 2**20),
        *,
        eta: Eta | None = None,
        convention: str = "utility",
        weight_precision: str = "analytic",
    ) -> None:
        try:
            sens = float(sensitivity)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"sensitivity={sensitivity!r} must be a real number") from exc
        if not np.isfinite(sens) or sens <= 0:
            raise ValueError(f"sensitivity={sensitivity!r} must be finite and > 0")
        if (epsilon is None) == (eta is None):
            raise ValueError("give exactly one of epsilon and eta")
        if eta is None:
            if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating)):
                raise ValueError(f"epsilon={epsilon!r} must be a real number")
            eta = eta_from_epsilon(float(epsilon), sens)
        if not isinstance(eta, Eta):
            raise ValueError(f"eta={eta!r} must be an Eta")
        if convention not in CONVENTIONS:
            raise ValueError(f"convention={convention!r} must be one of {CONVENTIONS}")
        if weight_precision not in ("analytic", "empirical"):
            raise ValueError(
                f"weight_precision={weight_precision!r} must be 'analytic' or 'empirical'"
            )
        lo, hi = _check_bounds(utility_bounds)
        self.weight_precision = weight_precision
        self.eta = eta
        self.sensitivity = sens
        self.utility_bounds = (lo, hi)
        self.convention = convention
        self.requested_epsilon = None if epsilon is None else float(epsilon)
        #: the guaranteed base-e epsilon, 2 ceil(Delta) eta ln 2, rounded up to a float
        self.epsilon = eta.epsilon(Fraction(sens))

    def __repr__(self) -> str:
        return (
            f"Base2ExponentialMechanism(epsilon={self.epsilon!r}, eta={self.eta}, "
            f"sensitivity={self.sensitivity}, utility_bounds={self.utility_bounds}, "
            f"convention={self.convention!r})"
        )

    def prepare(self, utilities: Any) -> PreparedUtilities:
        """Validate, clamp and tabulate ``utilities`` for repeated releases.

        Raises:
            ValueError: not a non-empty 1-D array of finite numbers.
        """
        u = check_utilities(utilities)
        lo, hi = self.utility_bounds
        fl = np.floor(u)
        frac = u - fl  # exact for doubles
        down = np.clip(fl, lo, hi)
        up = np.clip(fl + 1.0, lo, hi)
        is_frac = (frac > 0) & (down != up)
        # value at the favourable rounding (non-fractional entries: their only value)
        if self.convention == "utility":
            fav = np.where(is_frac, up, np.where(frac > 0, down, np.clip(u, lo, hi)))
            good = fav
        else:
            fav = np.where(is_frac, down, np.where(frac > 0, down, np.clip(u, lo, hi)))
            good = -fav
        levels = (good.max() - good).astype(np.int64)
        return PreparedUtilities(
            levels, frac, is_frac, self.eta, self.convention, self.weight_precision
        )

    def sample(self, utilities: Any, n: int, rng: IntegerSource) -> np.ndarray:
        """``n`` independent releases on ``utilities``: int64 indices in ``[0, k)``."""
        n = check_count(n)
        return self.prepare(utilities).sample(n, rng)

    def probabilities(self, utilities: Any) -> list[Fraction]:
        """Exact selection probabilities as Fractions (for tests and white-box audits)."""
        return self.prepare(utilities).probabilities()


def check_utilities(utilities: Any) -> np.ndarray:
    """``utilities`` as a float64 array; ValueError unless a non-empty 1-D array of finite numbers."""
    if isinstance(utilities, (str, bytes, dict)) or utilities is None:
        raise ValueError(f"utilities={utilities!r} must be a non-empty 1-D array of numbers")
    try:
        u = np.asarray(utilities, dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"utilities must be a non-empty 1-D array of numbers ({exc})") from exc
    if u.ndim != 1 or u.size == 0:
        raise ValueError(f"utilities must be a non-empty 1-D array, got shape {u.shape}")
    if not np.all(np.isfinite(u)):
        bad = int(np.flatnonzero(~np.isfinite(u))[0])
        raise ValueError(f"utilities must be finite (no NaN/inf); entry {bad} is {u[bad]}")
    return u


def _check_bounds(bounds: Any) -> tuple[int, int]:
    try:
        lo, hi = (float(b) for b in bounds)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"utility_bounds={bounds!r} must be a pair of integers") from exc
    for v in (lo, hi):
        if not np.isfinite(v) or v != np.floor(v) or abs(v) > _BOUND_MAX:
            raise ValueError(f"utility_bounds={bounds!r} must be integers with |u| <= 2^52")
    if lo > hi:
        raise ValueError(f"utility_bounds={bounds!r} must have u_min <= u_max")
    return int(lo), int(hi)
