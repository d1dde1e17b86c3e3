"""Where to put the base of a vector pair search: in the middle of where the outputs respond.

A sparse vector compares each query with a noisy threshold; its outputs tell neighbouring
queries apart best where the queries sit near that threshold, and hardly at all far from it
(an SVT with threshold 50 answers ⊥ to most queries at 0; with threshold 500, to all of them).
The threshold is the mechanism's business, unknown to the attack.  So before the patterns are
screened, the outputs are probed at base values over many scales, ±1, ±2, ±4, ..., and read
through the first output column that goes from one value at the far low base to another at
the far high base (a response that saturates both ways, as a threshold's does; for a sequence
the first answer, which no earlier answer can cut short), or failing that from the start's
value to another at one far end (a response alike both ways, as to the queries' range).  How much more often it shows its
high end's value than its low end's, scaled to 0 at the low end and 1 at the high end, is the
base's *level* (for an answer that is 0 or 1, the share of 1s); 1/2 is the middle of the
response, where a move of the queries changes the outputs most.  If the start's level is off
the middle (by more than ``MIDDLE``), the search bisects for the base nearest the start where
the level crosses 1/2; the patterns are screened there.  It also bisects for the levels 1/4 and
3/4 (``END_LEVELS``), where the queries all moving up or all down are then screened as well.

A base moved alike in every entry leaves the differences between the queries alone, and a
mechanism may respond to those only: a noisy max that releases its argmax only when the gap to
the runner-up is large (propose-test-release).  When no output column responds to the uniform
base, the same probes raise the first entry alone (a *spike*), and the patterns are screened
around the middle of that response.

Only for outputs that repeat at the start (at most half the probe's rows distinct: answer
patterns, indices, index sets): real-valued outputs vary everywhere and, for additive noise, the
base does not matter.  The probes choose the base as screening outputs choose the pair: nothing
drawn here certifies anything, and no alpha is spent.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from auditor.core.claim_kinds import is_point
from auditor.core.trials import Trial
from auditor.engine.search_units.prober import Prober
from auditor.statistics.events.vector_events import as_matrix

#: outputs drawn at each base probed
BASE_PROBE = 256
#: base values probed outward from the start: powers of two up to 2^(this - 1), both signs
BASE_DOUBLINGS = 48
#: bisection steps towards the middle, at most (the interval also stops at the move size)
BASE_BISECTIONS = 24

#: the start stays if its level is within this of 1/2 (sampling noise moves nothing)
MIDDLE = 0.1
#: levels halfway to each end of the response, where a uniform move of every query is
#: screened too when the base moved: there one output (AboveThreshold's "none", the first
#: answer) is rare, and a mechanism whose privacy loss adds up over the queries (one without
#: threshold noise) loses most.  Not when the start is in the middle already: screened beside
#: the patterns there, these simpler outputs look better on few outputs than they certify
#: (the testers' SVT1, a correct one, at 2e6: 0.055 -> 0.024 on the pair chosen)
END_LEVELS = (0.25, 0.75)

#: draws ``BASE_PROBE`` outputs at a base value (None: the start), or None if the adapter
#: failed there (probing in that direction stops)
Probe = Callable[[float | None], np.ndarray | None]


@dataclass(frozen=True)
class Response:
    """Where the outputs respond to the base: its middle (None: keep the start) and the bases
    at ``END_LEVELS`` found on the way (empty when the response does not saturate both ways)."""

    middle: float | None = None
    ends: tuple[float, ...] = ()
    #: whether any output column responds to the base at all (False: it may respond to a
    #: base moved another way)
    responds: bool = False


def response_bases(probe: Probe, step: float, start: float = 0.0) -> Response:
    """The base values in the middle of the outputs' response nearest ``start`` and at its
    ``END_LEVELS``.  Nothing (keep the start) for outputs that vary on their own or a response
    that does not saturate both ways; no middle for a start near it.  ``step``: the size of
    one move, below which a base need not be sharper."""
    rows0 = _rows(probe(None))
    if rows0 is None or len(rows0) < 2 or _distinct(rows0) > len(rows0) // 2:
        return Response()

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
    found = _responding_column(probed[min(probed)], probed[max(probed)])
    for far in (max(probed), min(probed)):  # a response alike both ways: from the start out
        found = found or _responding_column(rows0, probed[far])
    if found is None:
        return Response()
    column, low, high = found

    def level_of(rows: np.ndarray) -> float:
        """How far the column is from its low end's value towards its high end's (0 to 1):
        half of one plus how much more often it shows the high value than the low one.  Not
        its mean, which other values in between can carry past either end (an index output
        that is -1 far below a threshold and 0 far above it is 3 in between).  An end that
        varies (None): the share of rows away from the end that holds (0 to 1 as well)."""
        values = rows[:, column]
        if low is None:
            return float(np.mean(values == high))
        if high is None:
            return 1.0 - float(np.mean(values == low))
        return (1.0 + float(np.mean(values == high)) - float(np.mean(values == low))) / 2

    def measure(base: float) -> float | None:
        rows = rows_at(base)
        return None if rows is None else level_of(rows)

    level = {b: level_of(r) for b, r in probed.items()}
    middle = None
    if abs(level[start] - 0.5) > MIDDLE:
        middle = _toward(0.5, level, start, step, measure)
    ends = (_toward(target, level, start, step, measure) for target in END_LEVELS)
    return Response(middle, tuple(b for b in ends if b is not None and b != middle), True)


def _toward(
    target: float,
    level: dict[float, float],
    start: float,
    step: float,
    measure: Callable[[float], float | None],
) -> float | None:
    """The base nearest ``start`` whose level is ``target``, bisected between the probed
    bases around it (``level`` gains the new probes); None if no probed pair brackets it."""
    bracket = _bracket(level, start, target)
    if bracket is None:
        return None
    lo, hi = bracket
    for _ in range(BASE_BISECTIONS):
        mid = (lo + hi) / 2
        if abs(hi - lo) <= step or mid in (lo, hi):
            break
        found = measure(mid)
        if found is None:
            break
        level[mid] = found
        lo, hi = (mid, hi) if (level[mid] - target) * (level[lo] - target) > 0 else (lo, mid)
    return lo if abs(level[lo] - target) <= abs(level[hi] - target) else hi


def _rows(out: np.ndarray | None) -> np.ndarray | None:
    """Outputs as rows of floats (``as_matrix``); None for a failed probe or any NaN ("no
    answer": no level to read)."""
    if out is None:
        return None
    rows = as_matrix(out)
    return rows if np.isfinite(rows).all() else None


def _responding_column(
    low: np.ndarray, high: np.ndarray
) -> tuple[int, float | None, float | None] | None:
    """The first output column that goes from one value at the low end of the probed range to
    another at the high end (a response that saturates both ways, like a threshold's), with
    those two values; else the first that holds one value at one end which the other end
    never shows (a "none" below a threshold, a spread of indices above it), with None for the
    end that varies; else None."""
    low_single, high_single = (low == low[0]).all(axis=0), (high == high[0]).all(axis=0)
    both = np.flatnonzero(low_single & high_single & (low[0] != high[0]))
    if len(both):
        j = int(both[0])
        return j, float(low[0, j]), float(high[0, j])
    low_only = low_single & ~(high == low[0]).any(axis=0)
    high_only = high_single & ~(low == high[0]).any(axis=0)
    one = np.flatnonzero(low_only | high_only)
    if not len(one):
        return None
    j = int(one[0])
    return (j, float(low[0, j]), None) if low_only[j] else (j, None, float(high[0, j]))


def _bracket(level: dict[float, float], start: float, target: float) -> tuple[float, float] | None:
    """Two neighbouring probed bases, on one side of the start, whose levels lie on either
    side of ``target``: the pair nearest the start (the first is the nearer one)."""
    found: list[tuple[float, float]] = []
    for side in (1.0, -1.0):
        bases = sorted((b for b in level if (b - start) * side >= 0), key=lambda b: abs(b - start))
        for near, far in zip(bases, bases[1:], strict=False):
            if (level[near] - target) * (level[far] - target) <= 0:
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


class BaseSearch:
    """The trial moved to the middle of where its outputs respond to the base, if its own
    base is far off it, with the uniform moves towards the ends of that response as further
    candidates; if nothing responds to a uniform base, moved to the middle of the response to
    its first entry alone (the probes spend no alpha)."""

    def applies(self, trial: Trial) -> bool:
        return trial.rebase is not None

    def search(self, trial: Trial, prober: Prober) -> Trial:
        rebase = trial.rebase
        assert rebase is not None
        step = prober.spec.sensitivity or 1.0

        def probe(base: float | None, spike: bool = False) -> np.ndarray | None:
            moved = trial if base is None else rebase(base, spike=spike)
            if moved is None:
                return None  # no pattern fits there: probing stops in that direction
            where = (
                "base",
                "start" if base is None else repr(base),
                *(("spike",) if spike else ()),
            )
            return prober.probe(moved.x, BASE_PROBE, *where)

        response = response_bases(probe, step)
        if not response.responds and np.size(trial.x) > 1:
            spiked = response_bases(functools.partial(probe, spike=True), step)
            moved = None if spiked.middle is None else rebase(spiked.middle, spike=True)
            return trial if moved is None else keep_start(trial, moved, prober)
        middle = None if response.middle is None else rebase(response.middle)
        if middle is None:
            return trial
        # a start off the response makes the base the search's guess: the ends are as good a
        # one for a loss that adds up over the queries (see END_LEVELS; under L1 with integer
        # moves no uniform pattern fits)
        uniform = [rebase(b, uniform=True) for b in response.ends]
        moved = middle.with_candidates([p for u in uniform if u is not None for p in u.pairs])
        return keep_start(trial, moved, prober)


def keep_start(start: Trial, moved: Trial, prober: Prober) -> Trial:
    """``moved`` with the starting base's pairs (``start``'s) as further candidates under a
    point claim with delta > 0: the base search goes where outputs respond to the queries,
    and an output one neighbour never shows (a release, an index, "none") lives where they do
    not -- a gap or threshold test that passes on one side only.  Screening ranks them all by
    what they could certify."""
    claim = prober.spec.claim
    if not is_point(claim) or claim.delta <= 0:
        return moved
    return moved.with_candidates(start.pairs)
