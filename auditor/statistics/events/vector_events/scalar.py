"""Searching one number per row as a scalar output: thresholds at quantiles and at the support
edges (beyond every build value of one side), unions of outcomes ranked by likelihood ratio,
and the predicates those events test."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence

import numpy as np

from auditor.core.source import array_literal, event_code, literal
from auditor.core.trials import Event
from auditor.statistics.events.vector_events.base import MAX_DISCRETE_VALUES, CandidateSet, Context
from auditor.statistics.events.vector_events.counting import Tally, _quantiles, at_most
from auditor.statistics.events.vector_events.rows import _Rows, fmt, value_text


class Threshold:
    def __init__(self, projection: Callable[[np.ndarray], np.ndarray], t: float, above: bool):
        self.projection, self.t, self.above = projection, t, above

    def __call__(self, y: np.ndarray) -> np.ndarray:
        v = self.projection(y)
        return np.asarray(v > self.t if self.above else v < self.t)

    def code(self) -> str | None:
        """Standalone source (``Event.source``) when the projection can write its own."""
        write = getattr(self.projection, "code_prelude", None)
        if write is None or (prelude := write()) is None:
            return None
        op = ">" if self.above else "<"
        return event_code(f"projection(x) {op} {literal(self.t)}", prelude)


class KeyIn:
    def __init__(self, key: Callable[[np.ndarray], np.ndarray], keys: np.ndarray) -> None:
        self.key, self.keys = key, np.sort(keys)

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return np.asarray(np.isin(self.key(y), self.keys))

    def code(self) -> str | None:
        """Standalone source (``Event.source``) when the key can write its own."""
        write = getattr(self.key, "code_prelude", None)
        if write is None or (prelude := write()) is None:
            return None
        keys = array_literal(self.keys, "int64")
        return event_code("np.isin(key(x), KEYS)", f"KEYS = {keys}\n" + prelude)


def value_keys(v: np.ndarray) -> np.ndarray:
    """Each value's float bits as an int64 key (-0.0 as 0.0, every NaN as one)."""
    v = np.where(np.isnan(v), np.nan, v + 0.0)
    return np.ascontiguousarray(v, dtype=float).view(np.int64)


#: its source, read when this module is loaded (the file on disk may change later)
_VALUE_KEYS_SOURCE = inspect.getsource(value_keys)


class _ProjectionKey:
    """Keys of a projection's values (:func:`value_keys`), and back."""

    def __init__(self, projection: Callable[[np.ndarray], np.ndarray]) -> None:
        self.projection = projection

    of = staticmethod(value_keys)

    @staticmethod
    def values(keys: np.ndarray) -> np.ndarray:
        return np.sort(np.ascontiguousarray(keys, dtype=np.int64).view(float))

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return value_keys(np.asarray(self.projection(y), dtype=float))

    def code_prelude(self) -> str | None:
        """Standalone source defining ``key(y)``, when the projection can write its own."""
        write = getattr(self.projection, "code_prelude", None)
        if write is None or (prelude := write()) is None:
            return None
        return (
            f"{prelude}\n\n{_VALUE_KEYS_SOURCE}\n\n"
            "def key(y):\n    return value_keys(np.asarray(projection(y), dtype=float))\n"
        )


def threshold_candidates(
    projection: Callable[[np.ndarray], np.ndarray],
    text: str,
    build: tuple[Tally, Tally],
    sel: tuple[Tally, Tally],
    n_thresholds: int,
) -> list[CandidateSet]:
    """``value > t`` and ``value < t`` at quantiles of the build half and at its support edges
    (beyond every build value of one side)."""
    pooled = Tally.concat(build)
    pooled = pooled.where(np.isfinite(pooled.values))
    if pooled.values.size == 0:
        return []
    cuts = _quantiles(pooled, np.linspace(0, 1, n_thresholds + 1))
    edges = [t.values[np.isfinite(t.values)] for t in build]
    extremes = [f(v) for v in edges if v.size for f in (np.min, np.max)]
    cuts = np.unique(np.concatenate([cuts, extremes]))
    (sa, ca, na), (sb, cb, nb) = (t.sorted() for t in sel)
    out: list[CandidateSet] = []
    for above in (True, False):
        if above:
            ka = na - at_most(sa, ca, cuts, "right")
            kb = nb - at_most(sb, cb, cuts, "right")
        else:
            ka, kb = at_most(sa, ca, cuts, "left"), at_most(sb, cb, cuts, "left")
        op = ">" if above else "<"

        def make(i: int, above: bool = above, op: str = op) -> Event:
            t = float(cuts[i])
            return Event(f"{text} {op} {fmt(t)}", Threshold(projection, t, above))

        out.append(CandidateSet(ka, kb, make))
    return out


def outcome_candidates(
    key: Callable[[np.ndarray], np.ndarray],
    describe: Callable[[np.ndarray], str],
    build: tuple[Tally, Tally],
    sel: tuple[Tally, Tally],
) -> list[CandidateSet]:
    """Unions of the outcomes with the largest (smallest) empirical likelihood ratio on the
    build half, every size: counted by cumulative sums of per-outcome selection counts."""
    values = np.unique(np.concatenate([t.values for t in build]))
    if len(values) < 2:
        return []

    def per_value(keys: Tally) -> np.ndarray:
        pos = np.searchsorted(values, keys.values)
        found = (pos < len(values)) & (values[np.minimum(pos, len(values) - 1)] == keys.values)
        return keys.bincount(pos, found, len(values))

    ca, cb = per_value(build[0]), per_value(build[1])
    ratio = np.log((ca + 0.5) / (ca.sum() + 1.0)) - np.log((cb + 0.5) / (cb.sum() + 1.0))
    order = np.argsort(-ratio, kind="stable")
    sa, sb = per_value(sel[0]), per_value(sel[1])
    out: list[CandidateSet] = []
    for ranked in (order, order[::-1]):
        ka, kb = np.cumsum(sa[ranked])[:-1], np.cumsum(sb[ranked])[:-1]

        def make(i: int, ranked: np.ndarray = ranked) -> Event:
            chosen = values[ranked[: i + 1]]
            return Event(describe(chosen), KeyIn(key, chosen))

        out.append(CandidateSet(ka, kb, make))
    if len(values) <= MAX_DISCRETE_VALUES:

        def single(i: int) -> Event:
            return Event(describe(values[i : i + 1]), KeyIn(key, values[i : i + 1]))

        out.append(CandidateSet(sa, sb, single))
    return out


def search_projection(
    projection: Callable[[np.ndarray], np.ndarray],
    build: tuple[_Rows, _Rows],
    sel: tuple[_Rows, _Rows],
    n_thresholds: int,
) -> list[CandidateSet]:
    """A projection searched like a scalar output: thresholds, and outcomes if discrete."""
    text = getattr(projection, "text", "projection")
    vb = (build[0].tally(projection), build[1].tally(projection))
    vs = (sel[0].tally(projection), sel[1].tally(projection))
    out: list[CandidateSet] = []
    if not getattr(projection, "outcomes_only", False):
        out += threshold_candidates(projection, text, vb, vs, n_thresholds)
    pooled = np.concatenate([t.values for t in vb])
    if not getattr(projection, "thresholds_only", False) and (
        len(np.unique(pooled)) <= MAX_DISCRETE_VALUES
    ):
        keyed = _ProjectionKey(projection)
        one = getattr(projection, "describe_value", value_text)

        def describe(chosen: np.ndarray) -> str:
            vals = keyed.values(chosen)
            shown = ", ".join(one(v) for v in vals[:8])
            more = ", …" if len(vals) > 8 else ""
            return f"{text} is in {{{shown}{more}}}" if len(vals) > 1 else f"{text} = {shown}"

        keys_a, keys_b = vb[0].apply(keyed.of), vb[1].apply(keyed.of)
        if getattr(projection, "one_sided", False):
            both = np.intersect1d(keys_a.values, keys_b.values)
            keys_a = keys_a.where(~np.isin(keys_a.values, both))
            keys_b = keys_b.where(~np.isin(keys_b.values, both))
        build_keys = (keys_a, keys_b)
        out += outcome_candidates(
            keyed, describe, build_keys, (vs[0].apply(keyed.of), vs[1].apply(keyed.of))
        )
    return out


def search_projections(
    projections: Sequence[Callable[[np.ndarray], np.ndarray]], ctx: Context
) -> list[CandidateSet]:
    """Each projection searched in turn (:func:`search_projection`), in the order given."""
    out: list[CandidateSet] = []
    for projection in projections:
        out += search_projection(projection, ctx.build, ctx.sel, ctx.n_thresholds)
    return out
