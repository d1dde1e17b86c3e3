"""Where to put the base of a vector pair search: in the middle of where the outputs respond.

A sparse vector compares each query with a noisy threshold; its outputs tell neighbouring
queries apart best where the queries sit near that threshold, and hardly at all far from it
(an SVT with threshold 50 answers ⊥ to most queries at 0; with threshold 500, to all of them).
The threshold is the mechanism's business, unknown to the attack.  So before the patterns are
screened, the outputs are probed at base values over many scales, ±1, ±2, ±4, ..., and read
through the first output column that goes from one value at the far low base to another at
the far high base (a response that saturates both ways, as a threshold's does; for a sequence
the first answer, which no earlier answer can cut short).  Its mean, scaled to 0 at the low end
and 1 at the high end, is the base's *level*; 1/2 is the middle of the response, where a move
of the queries changes the outputs most.  If the start's level is off the middle (by more than
``MIDDLE``), the search bisects for the base nearest the start where the level crosses 1/2.

Only for outputs that repeat at the start (at most half the probe's rows distinct: answer
patterns, indices, index sets): real-valued outputs vary everywhere and, for additive noise, the
base does not matter.  The probes choose the base as screening outputs choose the pair: nothing
drawn here certifies anything, and no alpha is spent.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from auditor.statistics.events.vector_events import as_matrix

#: outputs drawn at each base probed
BASE_PROBE = 256
#: base values probed outward from the start: powers of two up to 2^(this - 1), both signs
BASE_DOUBLINGS = 48
#: bisection steps towards the middle, at most (the interval also stops at the move size)
BASE_BISECTIONS = 24

#: the start stays if its level is within this of 1/2 (sampling noise moves nothing)
MIDDLE = 0.1

#: draws ``BASE_PROBE`` outputs at a base value (None: the start), or None if the adapter
#: failed there (probing in that direction stops)
Probe = Callable[[float | None], np.ndarray | None]


def middle_base(probe: Probe, step: float, start: float = 0.0) -> float | None:
    """The base value in the middle of the outputs' response nearest ``start``, or None to
    keep the start (outputs that vary on their own, a response that does not saturate both
    ways, a start near the middle).  ``step``: the size of one move, below which the middle
    need not be sharper."""
    rows0 = _rows(probe(None))
    if rows0 is None or len(rows0) < 2 or _distinct(rows0) > len(rows0) // 2:
        return None

    def rows_at(base: float) -> np.ndarray | None:
        """The probe's rows at ``base``; None where the adapter failed or changed shape."""
        rows = _rows(probe(base))
        return rows if rows is not None and rows.shape[1:] == rows0.shape[1:] else None

    mode0 = _mode(rows0)
    probed: dict[float, np.ndarray] = {start: rows0}
    for sign in (1.0, -1.0):
        for k in range(BASE_DOUBLINGS):
            base = start + sign * 2.0**k
            rows = rows_at(base)
            if rows is None:
                break
            probed[base] = rows
            single = _single(rows)
            if single is not None and single != mode0:
                # saturated past the response (the start's usual output is the other end's,
                # or the start is inside it): farther bases give this output too
                break
    column = _responding_column(probed[min(probed)], probed[max(probed)])
    if column is None:
        return None
    low, high = (float(probed[b][:, column].mean()) for b in (min(probed), max(probed)))

    def level_of(rows: np.ndarray) -> float:
        """How far the column's mean is from its low end towards its high end (0 to 1)."""
        return (float(rows[:, column].mean()) - low) / (high - low)

    level = {b: level_of(r) for b, r in probed.items()}
    if abs(level[start] - 0.5) <= MIDDLE:
        return None
    bracket = _bracket(level, start)
    if bracket is None:
        return None
    lo, hi = bracket
    for _ in range(BASE_BISECTIONS):
        mid = (lo + hi) / 2
        if abs(hi - lo) <= step or mid in (lo, hi):
            break
        rows = rows_at(mid)
        if rows is None:
            break
        level[mid] = level_of(rows)
        lo, hi = (mid, hi) if (level[mid] - 0.5) * (level[lo] - 0.5) > 0 else (lo, mid)
    return lo if abs(level[lo] - 0.5) <= abs(level[hi] - 0.5) else hi


def _rows(out: np.ndarray | None) -> np.ndarray | None:
    """Outputs as rows of floats (``as_matrix``); None for a failed probe or any NaN ("no
    answer": no level to read)."""
    if out is None:
        return None
    rows = as_matrix(out)
    return rows if np.isfinite(rows).all() else None


def _responding_column(low: np.ndarray, high: np.ndarray) -> int | None:
    """The first output column that goes from one value at the low end of the probed range to
    another at the high end (a response that saturates both ways, like a threshold's), or
    None."""
    saturated = (low == low[0]).all(axis=0) & (high == high[0]).all(axis=0) & (low[0] != high[0])
    responding = np.flatnonzero(saturated)
    return int(responding[0]) if len(responding) else None


def _bracket(level: dict[float, float], start: float) -> tuple[float, float] | None:
    """Two neighbouring probed bases, on one side of the start, whose mean levels lie on
    either side of 1/2: the pair nearest the start (the first is the nearer one)."""
    found: list[tuple[float, float]] = []
    for side in (1.0, -1.0):
        bases = sorted((b for b in level if (b - start) * side >= 0), key=lambda b: abs(b - start))
        for near, far in zip(bases, bases[1:], strict=False):
            if (level[near] - 0.5) * (level[far] - 0.5) <= 0:
                found.append((near, far))
                break
    return min(found, key=lambda pair: abs(pair[0] - start), default=None)


def _distinct(rows: np.ndarray) -> int:
    return len(np.unique(rows, axis=0))


def _mode(rows: np.ndarray) -> bytes:
    """The most common row (as bytes)."""
    values, counts = np.unique(rows, axis=0, return_counts=True)
    return bytes(values[int(counts.argmax())].tobytes())


def _single(rows: np.ndarray) -> bytes | None:
    """The one row every output gave (as bytes), or None if they vary."""
    return rows[0].tobytes() if (rows == rows[0]).all() else None
