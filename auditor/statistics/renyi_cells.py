"""Renyi divergence from counts in k cells, from below, with confidence.

Why: one event reduces M(x) and M(x') to two Bernoulli laws, and for a zCDP or RDP claim that
loses much of the divergence.  Two Gaussians a small distance apart keep only 2/pi of their
KL divergence (and of their small-order Renyi divergences) in the best threshold event; more
divergence sits in far tails that finite samples do not reach.  A partition of the output
into k cells (intervals of a score chosen on training outputs) keeps most of it: by data
processing D_a(P_cells || Q_cells) <= D_a(M(x) || M(x')) for every order a (van Erven &
Harremoes 2014, Thm. 9).

Confidence.  Every cell's probability gets a lower and an upper Clopper-Pearson limit on each
side, each at ``alpha / (4k)``: with probability at least 1 - alpha both laws lie in the box
those limits span (union bound).  The bound reported is the smallest divergence of any two
laws in the box: it holds for every order at once, so a sup over orders (zCDP) or a ratio at
each order (RDP) costs no further alpha.

The minimum.  For a > 1, F_a(P, Q) = sum_i p_i^a q_i^(1-a) is jointly convex (the perspective
of t^a) and D_a = ln(F_a) / (a - 1).  Its block minima do not depend on a: over P with Q fixed
the optimum is p_i = clip(c q_i) to the box, c making the p_i sum to 1, and over Q it is
q_i = clip(c' p_i).  Alternating them gives a pair (P*, Q*) close to the minimiser of every
order; convexity then bounds the minimum from below by the Frank-Wolfe gap,
F_a >= F_a(P*, Q*) + min over the box-and-simplex of grad F_a(P*, Q*) . (z - (P*, Q*)), whose
linear minimum is greedy.  That bound holds whatever the iterate, so the alternation's
accuracy changes only how tight it is.  Orders whose terms overflow are skipped (a bound at
fewer orders is still a bound), and a margin covers the float rounding of the sums.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from auditor.statistics.clopper_pearson import cp_lower_array, cp_upper_array

FloatArray = npt.NDArray[np.float64]

#: alternations of the two block minima (each one is cheap: k cells)
_ALTERNATIONS = 200
#: bisection steps for the scale c of a block minimum
_BISECTIONS = 100
#: relative margin on F_a for the float rounding of its sums (k terms, each a few operations)
_MARGIN = 1e-12
#: orders of the zCDP sup: alpha - 1 on a log grid (D_a / a at large a needs far tails that a
#: few cells do not resolve; small orders are where cells gain on one event)
ZCDP_ORDERS = 1.0 + np.geomspace(1e-3, 1e3, 241)


def cell_box(counts: npt.ArrayLike, n: int, alpha: float) -> tuple[FloatArray, FloatArray]:
    """Lower and upper Clopper-Pearson limits of every cell's probability, each at ``alpha``.

    ``counts`` sum to ``n``."""
    k = np.asarray(counts, dtype=np.int64)
    if k.ndim != 1 or k.size < 2 or (k < 0).any() or int(k.sum()) != n:
        raise ValueError(f"cell counts {k.tolist()} must be >= 0, at least 2, summing to {n}")
    return cp_lower_array(k, n, alpha), cp_upper_array(k, n, alpha)


def _scaled_into_box(base: FloatArray, lo: FloatArray, hi: FloatArray) -> FloatArray:
    """clip(c * base, lo, hi) summing to 1 (c found by bisection; the sum rises with c).

    Needs sum(lo) <= 1 <= sum(hi), which Clopper-Pearson limits around proportions summing to
    1 satisfy.  The result is clipped to the box and renormalised inside it when the bisection
    leaves a rounding residue, so it is always a point of the box (the Frank-Wolfe bound needs
    feasibility, not optimality)."""
    positive = base > 0
    if not positive.any():
        return np.asarray(_greedy_rows(np.zeros((1, len(base))), lo, hi)[0], dtype=np.float64)
    small, big = -800.0, 800.0
    for _ in range(_BISECTIONS):
        mid = 0.5 * (small + big)
        with np.errstate(over="ignore"):
            total = np.clip(math.exp(mid) * base, lo, hi).sum() if mid < 700 else math.inf
        if total > 1.0:
            big = mid
        else:
            small = mid
    z = np.clip(math.exp(small) * base, lo, hi)
    return _feasible(z, lo, hi)


def _feasible(z: FloatArray, lo: FloatArray, hi: FloatArray) -> FloatArray:
    """``z`` (inside the box) moved to sum 1 by filling towards ``hi`` or draining towards
    ``lo`` in proportion to the room left."""
    gap = 1.0 - z.sum()
    room = (hi - z) if gap > 0 else (z - lo)
    total = room.sum()
    if total > 0:
        z = z + gap * room / total
    return np.asarray(np.clip(z, lo, hi), dtype=np.float64)


def closest_pair(
    box0: tuple[FloatArray, FloatArray], box1: tuple[FloatArray, FloatArray]
) -> tuple[FloatArray, FloatArray]:
    """Two laws in the boxes, near the minimiser of D_a for every order a > 1 (and of its
    reverse order): alternating block minima ``p = clip(c q)``, ``q = clip(c' p)``."""
    (lo0, hi0), (lo1, hi1) = box0, box1
    q = _feasible(np.clip(0.5 * (lo1 + hi1), lo1, hi1), lo1, hi1)
    p = _scaled_into_box(q, lo0, hi0)
    for _ in range(_ALTERNATIONS):
        q_next = _scaled_into_box(p, lo1, hi1)
        p_next = _scaled_into_box(q_next, lo0, hi0)
        moved = max(float(np.abs(p_next - p).max()), float(np.abs(q_next - q).max()))
        p, q = p_next, q_next
        if moved < 1e-15:
            break
    return p, q


def _greedy_rows(g: FloatArray, lo: FloatArray, hi: FloatArray) -> FloatArray:
    """argmin of g_r . z over lo <= z <= hi, sum(z) = 1, for every row g_r of ``g``: start at
    lo and pour the rest of the mass into the cells of smallest g first."""
    order = np.argsort(g, axis=1, kind="stable")
    room = (hi - lo)[order]
    before = np.cumsum(room, axis=1) - room
    add = np.clip((1.0 - float(lo.sum())) - before, 0.0, room)
    z = np.broadcast_to(lo, g.shape).copy()
    np.put_along_axis(z, order, np.take_along_axis(z, order, axis=1) + add, axis=1)
    return z


def _divergence_lower(
    p: FloatArray,
    q: FloatArray,
    box0: tuple[FloatArray, FloatArray],
    box1: tuple[FloatArray, FloatArray],
    orders: FloatArray,
) -> FloatArray:
    """min over the boxes of D_a(P || Q), from below, at every order (0 where nothing is
    shown or where an order's terms overflow)."""
    both = (p > 0) & (q > 0)
    if ((p > 0) & (q == 0)).any():  # cannot happen for Clopper-Pearson boxes: q's upper > 0
        return np.zeros(len(orders))
    log_r = np.zeros_like(p)
    log_r[both] = np.log(p[both]) - np.log(q[both])
    a = orders[:, None]
    with np.errstate(over="ignore", invalid="ignore"):
        r_a1 = np.where(both, np.exp((a - 1.0) * log_r), 0.0)  # (p/q)^(a-1)
        terms = p * r_a1  # p^a q^(1-a)
        grad_p = a * r_a1
        grad_q = (1.0 - a) * np.where(both, r_a1 * np.exp(log_r), 0.0)  # (1-a) (p/q)^a
        finite: npt.NDArray[np.bool_] = np.asarray(
            np.isfinite(terms).all(axis=1)
            & np.isfinite(grad_p).all(axis=1)
            & np.isfinite(grad_q).all(axis=1)
        )
        keep = finite[:, None]
        terms, grad_p, grad_q = (np.where(keep, v, 0.0) for v in (terms, grad_p, grad_q))
        value = terms.sum(axis=1)
        step_p = _greedy_rows(grad_p, *box0) - p
        step_q = _greedy_rows(grad_q, *box1) - q
        gap = (grad_p * step_p).sum(axis=1) + (grad_q * step_q).sum(axis=1)  # <= 0
        scale = value + np.abs(grad_p * step_p).sum(axis=1) + np.abs(grad_q * step_q).sum(axis=1)
        lower = value + gap - _MARGIN * scale
        out = np.where(finite & (lower > 1.0), np.log(np.maximum(lower, 1.0)) / (orders - 1.0), 0.0)
    return np.asarray(out, dtype=np.float64)


def renyi_lower_bounds(
    counts0: npt.ArrayLike,
    counts1: npt.ArrayLike,
    n0: int,
    n1: int,
    alpha: float,
    orders: npt.ArrayLike,
) -> FloatArray:
    """Lower confidence bounds, jointly at confidence 1 - ``alpha``, of
    max(D_a(M(x) || M(x')), D_a(M(x') || M(x))) at each order a > 1, from the counts of the
    same k cells on ``n0`` outputs on x and ``n1`` on x' (0 where the counts show nothing)."""
    a = np.asarray(orders, dtype=np.float64)
    if a.ndim != 1 or not (a > 1.0).all() or not np.isfinite(a).all():
        raise ValueError("orders must be finite numbers > 1")
    k = len(np.asarray(counts0))
    if len(np.asarray(counts1)) != k:
        raise ValueError("the two sides must count the same cells")
    each = alpha / (4 * k)
    box0, box1 = cell_box(counts0, n0, each), cell_box(counts1, n1, each)
    p, q = closest_pair(box0, box1)
    forward = _divergence_lower(p, q, box0, box1, a)
    backward = _divergence_lower(q, p, box1, box0, a)
    return np.asarray(np.maximum(np.maximum(forward, backward), 0.0), dtype=np.float64)


def zcdp_lower_bound(
    counts0: npt.ArrayLike, counts1: npt.ArrayLike, n0: int, n1: int, alpha: float
) -> float:
    """A lower confidence bound (confidence 1 - ``alpha``) of rho for a rho-zCDP mechanism:
    sup over ``ZCDP_ORDERS`` of the cells' divergence bound / a."""
    bounds = renyi_lower_bounds(counts0, counts1, n0, n1, alpha, ZCDP_ORDERS)
    return float(max(0.0, (bounds / ZCDP_ORDERS).max()))


def renyi_plug_in(
    counts0: npt.ArrayLike, counts1: npt.ArrayLike, n0: int, n1: int, orders: npt.ArrayLike
) -> FloatArray:
    """max(D_a(P || Q), D_a(Q || P)) of the cells' proportions (each count shrunk by a half
    off 0), at each order: an estimate without confidence, never a bound."""
    a = np.asarray(orders, dtype=np.float64)[:, None]
    p = (np.asarray(counts0, dtype=float) + 0.5) / (n0 + 0.5 * len(np.asarray(counts0)))
    q = (np.asarray(counts1, dtype=float) + 0.5) / (n1 + 0.5 * len(np.asarray(counts1)))
    lp, lq = np.log(p), np.log(q)

    def divergence(la: FloatArray, lb: FloatArray) -> FloatArray:
        e = a * la + (1.0 - a) * lb
        top = e.max(axis=1, keepdims=True)
        return np.asarray(
            (top[:, 0] + np.log(np.exp(e - top).sum(axis=1))) / (a[:, 0] - 1.0), dtype=np.float64
        )

    return np.asarray(np.maximum(divergence(lp, lq), divergence(lq, lp)), dtype=np.float64)
