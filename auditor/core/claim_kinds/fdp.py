"""f-DP with a user-given trade-off function f (Dong, Roth & Su 2019, DRS19)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from auditor.core.claim_kinds.base import (
    REPORT_DELTA,
    TableClaim,
    _pairs,
    call,
    table_kind,
)
from auditor.core.claims import (
    FloatArray,
    check_corner,
    check_delta_arg,
    check_epsilon_arg,
    check_levels,
    lower_curve,
    round_up,
)
from auditor.core.errors import InvalidArgument
from dp_params.epsilon_search import smallest_epsilon


def _level_grid(n_lin: int, n_log: int) -> FloatArray:
    """0, 1 and points dense near both ends, where trade-off curves are steep."""
    tail = np.geomspace(1e-15, 1e-3, n_log)
    mid = np.linspace(1e-3, 1.0 - 1e-3, n_lin)
    return np.unique(np.concatenate([[0.0, 1.0], tail, mid, 1.0 - tail]))


#: where delta(eps) = sup_a (1 - e^eps a - f(a)) is bounded, and a callable f is checked
_FDP_GRID = _level_grid(2000, 600)
#: where a callable f is sampled for ``to_dict``
_FDP_SAVE_GRID = _level_grid(300, 150)
#: evaluations of a callable f one delta bound may spend refining the grid (vectorised f;
#: a function called point by point gets a tenth)
_FDP_REFINE_BUDGET = 20_000
#: where ``epsilon_for_delta``'s bisection stops (relative): finer than the zCDP conversion's
_EPSILON_WIDTH = 1e-13
#: slack of the checks that f is a trade-off function (values from numerical code)
_FDP_SLACK = 1e-9


def _vectorised(fn: Callable[[Any], Any]) -> bool:
    """Whether ``fn`` maps an array of levels to an array of the same shape."""
    try:
        with np.errstate(all="ignore"):
            out = np.asarray(fn(_FDP_GRID[:5]), dtype=np.float64)
    except Exception:  # the user's function: anything may be raised on an array
        return False
    return out.shape == (5,)


def _times_exp(a: FloatArray, eps: float) -> FloatArray:
    """e^eps * a, with 0 where a == 0 even when e^eps overflows."""
    growth = math.exp(eps) if eps < 700.0 else math.inf
    with np.errstate(invalid="ignore"):
        return np.asarray(np.where(a > 0.0, growth * a, 0.0), dtype=np.float64)


@dataclass(frozen=True)
class TradeOffDP(TableClaim):
    """f-DP with a user-given trade-off function f (DRS19 Def. 2.3).

    ``f``: a callable on [0, 1] (vectorised or not) or a table of (a, f(a)) points; between
    table points f is read as the value at the next larger a (f is non-increasing, so this is
    below it), and 0 beyond the last point.  f must be non-increasing, in [0, 1] and <= 1 - a
    (checked on a grid for a callable, with slack 1e-9).

    There is no natural parameter, so ``parameter`` is "scale" s, on a family of trade-off
    functions that moves f towards perfect privacy (s < 1) or towards none (s > 1)::

        f_s(a) = (1 - s)(1 - a) + s f(a)    for 0 < s <= 1  (mixed with the curve 1 - a)
        f_s(a) = (2 - s) f(a)               for 1 <= s < 2  (shrunk towards 0)
        f_s(a) = 0                          for s >= 2      (no claim)

    Every f_s is convex, non-increasing and <= 1 - a when f is, and f_s decreases as s grows, so
    the corner remains the worst point of the confidence box at every scale (a plain
    extrapolation of the mix beyond s = 1 would not be non-increasing).  ``certified`` is the
    largest s the corner refutes, in [0, 2]: above 1 the claim is refuted.  f need not be
    symmetric, so the reflected corner (1 - p0_lo, p1_hi) is tested too (the claim binds
    T(M(x'), M(x)) as well, for symmetric neighbours).

    Raises:
        InvalidArgument: f fails, returns a non-number, or is not a trade-off function on the
            grid; a bad table; scale not finite > 0; name not a string.
    """

    _KIND = "fdp"

    f: Callable[[Any], Any] | Mapping[float, float] | Sequence[tuple[float, float]]
    name: str = ""
    scale: float = 1.0
    report_delta: float = REPORT_DELTA
    _points: tuple[tuple[float, float], ...] = field(init=False, repr=False, compare=False)
    _grid: FloatArray = field(init=False, repr=False, compare=False)
    _grid_f: FloatArray = field(init=False, repr=False, compare=False)
    #: a callable that is not vectorised is called point by point, each point once
    _vectorised: bool = field(init=False, repr=False, compare=False)
    _cache: dict[float, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._check_name_and_scale()
        object.__setattr__(self, "_cache", {})
        object.__setattr__(self, "_vectorised", callable(self.f) and _vectorised(self.f))
        table: tuple[tuple[float, float], ...] = ()
        if not callable(self.f):
            table = _pairs(self.f, "trade-off table")
            object.__setattr__(self, "f", table)
        object.__setattr__(self, "_points", table)
        if table:
            xs = np.array([x for x, _ in table])
            ys = np.array([y for _, y in table])
            self._check(xs, ys)
        else:
            self._check(_FDP_GRID, self._raw(_FDP_GRID, clip=False))
        # where delta(eps) is bounded: a table's own points (exact for its step function) or
        # the fixed grid for a callable (refined around the maximiser, see _delta_bound)
        grid = (
            np.unique(np.concatenate([[0.0, 1.0], [x for x, _ in table]])) if table else _FDP_GRID
        )
        object.__setattr__(self, "_grid", grid)
        object.__setattr__(self, "_grid_f", self._raw(grid))

    @staticmethod
    def _check(xs: FloatArray, ys: FloatArray) -> None:
        if not np.all((xs >= 0.0) & (xs <= 1.0)):
            bad = xs[~((xs >= 0.0) & (xs <= 1.0))][0]
            raise InvalidArgument(f"trade-off function: a={float(bad)!r} is outside [0, 1]")
        bad_y = ~((ys >= 0.0) & (ys <= 1.0 + _FDP_SLACK))
        if np.any(bad_y):
            i = int(np.argmax(bad_y))
            raise InvalidArgument(
                f"trade-off function: f({float(xs[i])!r})={float(ys[i])!r} is not in [0, 1]"
            )
        above = ys > 1.0 - xs + _FDP_SLACK
        if np.any(above):
            i = int(np.argmax(above))
            raise InvalidArgument(
                f"trade-off function: f({float(xs[i])!r})={float(ys[i])!r} > 1 - a: not a trade-off function"
            )
        rising = np.diff(ys) > _FDP_SLACK
        if np.any(rising):
            i = int(np.argmax(rising))
            raise InvalidArgument(
                f"trade-off function: f rises from f({float(xs[i])!r})={float(ys[i])!r} to "
                f"f({float(xs[i + 1])!r})={float(ys[i + 1])!r}; it must be non-increasing"
            )

    def _raw(self, a: FloatArray, *, clip: bool = True) -> FloatArray:
        """f(a) as given (table: the step from below), clipped to [0, 1] unless ``clip`` is False."""
        fn = self.f
        if not callable(fn):
            xs = np.array([x for x, _ in self._points])
            ys = np.append(np.array([y for _, y in self._points]), 0.0)
            return np.asarray(ys[np.searchsorted(xs, a, side="left")], dtype=np.float64)
        out: Any = None
        if self._vectorised:
            with np.errstate(all="ignore"):
                out = np.asarray(fn(a), dtype=np.float64)
        else:
            cache = self._cache
            values = []
            for x in a.ravel().tolist():
                y = cache.get(x)
                if y is None:
                    y = cache[x] = call(fn, x, "trade-off function")
                values.append(y)
            out = np.array(values, dtype=np.float64).reshape(a.shape)
        if np.any(np.isnan(out)):
            i = int(np.argmax(np.isnan(out).ravel()))
            raise InvalidArgument(
                f"trade-off function: f({float(a.ravel()[i])!r}) is NaN, not a number"
            )
        return np.asarray(np.clip(out, 0.0, 1.0) if clip else out, dtype=np.float64)

    def _f_low(self, a: FloatArray) -> FloatArray:
        return lower_curve(self._raw(a))

    def _family(self, a: FloatArray, f_low: FloatArray) -> FloatArray:
        """f_s at levels a, from values of f already lowered by the tolerance."""
        s = self.scale
        if s <= 1.0:
            out = (1.0 - s) * (1.0 - a) + s * f_low
        elif s < 2.0:
            out = (2.0 - s) * f_low
        else:
            out = np.zeros_like(a)
        return lower_curve(np.asarray(out, dtype=np.float64))

    def tradeoff(self, a: npt.ArrayLike) -> FloatArray:
        """f_s(a) (see the class), f lowered by the tolerance."""
        arr = check_levels(a)
        return self._family(arr, self._f_low(arr))

    def _delta_bound(self, eps: float) -> float:
        """An upper bound of sup_a (1 - e^eps a - f_s(a)) (DRS19 Prop. 2.12, convex conjugate).

        A sup over grid points would be *below* the true sup; instead, on [a_i, a_{i+1}]
        1 - e^eps a <= 1 - e^eps a_i and f_s(a) >= f_s(a_{i+1}) (f_s is non-increasing): the
        max over intervals of the resulting bound is >= the sup.
        For a table this is exact for its step function.  For a callable, intervals whose bound
        exceeds the best value at a grid point (a value the sup reaches, so the others cannot
        matter) are split 16 ways, up to three rounds within a budget of evaluations of f.
        """
        left, right = self._grid[:-1], self._grid[1:]
        f_right = self._grid_f[1:]
        b = self._interval_bounds(left, right, f_right, eps)
        if not callable(self.f):
            return float(np.max(b))
        reached = float(np.max(self._point_values(self._grid, self._grid_f, eps)))
        for _ in range(3):
            keep = b > reached
            budget = _FDP_REFINE_BUDGET if self._vectorised else _FDP_REFINE_BUDGET // 10
            if not np.any(keep) or 15 * int(np.count_nonzero(keep)) > budget:
                break
            steps = np.linspace(0.0, 1.0, 17)
            lo, hi = left[keep], right[keep]
            pts = lo[:, None] + (hi - lo)[:, None] * steps[None, :]
            pts[:, -1] = hi  # the right ends exactly
            inner = pts[:, 1:-1]
            f_inner = self._raw(inner.ravel()).reshape(inner.shape)
            f_pts = np.concatenate([f_inner, f_right[keep][:, None]], axis=1)
            reached = max(reached, float(np.max(self._point_values(inner, f_inner, eps))))
            left, right = pts[:, :-1].ravel(), pts[:, 1:].ravel()
            f_right = f_pts.ravel()
            b = self._interval_bounds(left, right, f_right, eps)
        return max(reached, float(np.max(b)))

    def _interval_bounds(
        self, left: FloatArray, right: FloatArray, f_right: FloatArray, eps: float
    ) -> FloatArray:
        """Per interval [left, right], an upper bound of 1 - e^eps a - f_s(a) on it."""
        g_low = self._family(right, lower_curve(f_right))
        return np.asarray(1.0 - _times_exp(left, eps) - g_low, dtype=np.float64)

    def _point_values(self, a: FloatArray, fa: FloatArray, eps: float) -> FloatArray:
        """1 - e^eps a - f_s(a) at points (f lowered: values the sup reaches or exceeds)."""
        g = self._family(a, lower_curve(fa))
        return np.asarray(1.0 - _times_exp(a, eps) - g, dtype=np.float64)

    def delta_for_epsilon(self, epsilon: float) -> float:
        """An upper value of delta(eps) = 1 + f_s*(-e^eps) (DRS19 Prop. 2.12), see _delta_bound."""
        e = check_epsilon_arg(epsilon)
        return min(1.0, max(0.0, round_up(self._delta_bound(e))))

    def epsilon_for_delta(self, delta: float) -> float:
        """Bisection on the (non-increasing) bound; inf when it never reaches ``delta``."""
        d = check_delta_arg(delta)
        try:
            return smallest_epsilon(self.delta_for_epsilon, d, width=_EPSILON_WIDTH)
        except RuntimeError:  # no epsilon below 2^40 reaches delta
            return math.inf

    def certified(self, p0_lo: float, p1_hi: float) -> float:
        """The largest s with the corner (p1, 1 - p0) or the reflected one (1 - p0, p1) below f_s.

        For a point (x, y) (type-I, type-II error): if y < f(x) it is below f_s for
        s < 2 - y / f(x) (the shrunk part); otherwise, on the mixed part,
        y < (1 - x) - s((1 - x) - f(x)) gives s < ((1 - x) - y) / ((1 - x) - f(x)) (<= 1).
        f is lowered by the tolerance first, which lowers both, so rounding lowers the bound.
        0.0 when p0_lo <= p1_hi.
        """
        p0, p1 = check_corner(p0_lo, p1_hi)
        if p0 <= p1:
            return 0.0
        f_at = self._f_low(np.array([p1, 1.0 - p0])).tolist()
        best = 0.0
        for (x, y), fx in zip(((p1, 1.0 - p0), (1.0 - p0, p1)), f_at, strict=True):
            if y < fx:
                best = max(best, 2.0 - y / fx)
            elif (1.0 - x) - y > 0.0 and (1.0 - x) - fx > 0.0:
                best = max(best, min(1.0, ((1.0 - x) - y) / ((1.0 - x) - fx)))
        return best

    def describe(self) -> str:
        return self._scaled(f"f-DP ({self._what(self.f)})", " at scale ")

    def to_dict(self) -> dict[str, Any]:
        """A callable is sampled on a grid (read back as a table, which is below it)."""
        if callable(self.f):
            a = _FDP_SAVE_GRID
            table = [[x, y] for x, y in zip(a.tolist(), self._raw(a).tolist(), strict=True)]
        else:
            table = [[x, y] for x, y in self._points]
        return self._table_dict(table)


KIND = table_kind(
    TradeOffDP,
    ("alpha", lambda a: 0 <= a <= 1, "in [0, 1]"),
    ("beta", lambda b: 0 <= b <= 1, "in [0, 1]"),
    """\
  fdp:0.01=0.9,0.1=0.6       f-DP: alpha=beta points of a trade-off function f(alpha),
                             non-increasing, beta <= 1 - alpha""",
)
