"""Neighbouring pairs to search: vector queries.

**vector** queries of m entries: base 0 (or, in declared bounds, the value nearest 0 that
leaves room for a full move; without bounds the certifier may move the base to where the
outputs vary, ``Trial.rebase``) and, for a sign
pattern s in {-1, 0, 1}^m, x' = x + Δ·s/‖s‖ in the declared norm — one entry up or down (at
the start, middle and end: a sequence mechanism reads its queries in order), one up and the
rest down and the reverse, the first k up and the rest down for every k, the first k up and
the rest unchanged, every other entry up, all up, all down.  With ``integer_queries``,
moves are rounded toward 0, and a pattern some of whose entries would round to nothing is
cut to as many entries as whole steps fit (``integer_move``).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from attacks.neighbours.pair import Pair
from auditor.core.distance import float_norm, pull_within
from auditor.core.kinds import Norm, OutputKind
from auditor.core.spec import AdapterSpec

#: vector length the search uses when the adapter does not fix one (StatDP and DP-Sniper use
#: 5 and 10; 10 leaves room for half-and-half and prefix patterns)
DEFAULT_QUERIES = 10
#: sequences up to this long get every "first k" pattern; longer ones a spread of k
SPLIT_ALL = 16
#: random pairs from the inside of a vector relation (random base, direction and length)
SHORT_VECTOR_PAIRS = 12


def sign_patterns(m: int) -> list[tuple[np.ndarray, str]]:
    """Sign patterns in {-1, 0, 1}^m with a description, without duplicates."""
    out: list[tuple[np.ndarray, str]] = []

    def add(s: np.ndarray, text: str) -> None:
        if s.any() and not any(np.array_equal(s, t) for t, _ in out):
            out.append((s.astype(float), text))

    for i in sorted({0, m // 2, m - 1}):
        e = np.zeros(m)
        e[i] = 1
        add(e, f"entry {i} up")
        add(-e, f"entry {i} down")
        add(2 * e - 1, f"entry {i} up, the rest down")
        add(1 - 2 * e, f"entry {i} down, the rest up")
    # every split point of a short sequence; a few spread over a long one
    splits = (
        range(1, m) if m <= SPLIT_ALL else sorted({1, 2, m // 4, m // 2, 3 * m // 4, m - 2, m - 1})
    )
    for k in splits:
        add(np.where(np.arange(m) < k, 1, -1), f"the first {k} up, the rest down")
        add(np.where(np.arange(m) < k, -1, 1), f"the first {k} down, the rest up")
        add(np.where(np.arange(m) < k, 1, 0), f"the first {k} up")
        add(np.where(np.arange(m) < k, 0, 1), f"the last {m - k} up")
    add(np.where(np.arange(m) % 2 == 0, 1, -1), "every other entry up, the others down")
    add(np.ones(m), "all up")
    add(-np.ones(m), "all down")
    return out


def integer_move(signs: np.ndarray, delta: float, norm: Norm) -> tuple[np.ndarray, int | None]:
    """The move of sign pattern ``signs`` in whole numbers within ``delta``: the pattern scaled
    to ``delta`` and rounded toward 0, or, where that rounds moved entries to 0, the pattern
    cut to as many entries as whole steps fit, taken from its rising and falling entries in
    turn and scaled as far as whole numbers go (a move of 2 in L1 over ten entries is +1 and
    -1 on two of them, not nothing).  The second value: the entries kept by a cut (None: no
    cut)."""
    move = np.trunc(delta * signs / float_norm(signs, norm))
    if not ((signs != 0) & (move == 0)).any():
        return move, None
    rising, falling = np.flatnonzero(signs > 0), np.flatnonzero(signs < 0)
    turns = [i for pair in itertools.zip_longest(rising, falling) for i in pair if i is not None]
    for j in range(len(turns) - 1, 0, -1):
        part = np.zeros(len(signs))
        part[turns[:j]] = signs[turns[:j]]
        cut = np.trunc(delta * part / float_norm(part, norm))
        if (cut[turns[:j]] != 0).all():
            return cut, j
    return np.zeros(len(signs)), None


def vector_pairs(
    spec: AdapterSpec, base_value: float | None = None, uniform: bool = False, spike: float = 0.0
) -> list[Pair]:
    """x (base) and x + move for every sign pattern, the move scaled to the sensitivity; the
    base's entries are all ``base_value`` (default: 0, or with declared bounds the value
    nearest 0 that leaves room for a full move either way), its first raised by ``spike``.
    ``uniform``: only the patterns that move every entry alike (all up, all down)."""
    assert spec.sensitivity is not None and spec.input.norm is not None
    m = spec.input.length or DEFAULT_QUERIES
    delta, norm = spec.sensitivity, spec.input.norm
    lo, hi = spec.input_bounds or (-math.inf, math.inf)
    if base_value is None:
        # the base sits where a full move either way stays inside declared bounds, if it can
        base_value = min(max(0.0, lo + delta), hi - delta) if math.isfinite(lo + hi) else 0.0
    base_value = min(max(base_value, lo), hi)
    integer = spec.integer_queries
    if integer:
        base_value = float(math.ceil(base_value)) if base_value < hi else float(math.floor(hi))
    base = np.full(m, base_value)
    where = f"{m} queries at {base_value:g}"
    if spike and m > 1:
        top = min(max(base_value + spike, lo), hi)
        base[0] = float(math.ceil(top)) if integer and top < hi else top
        where += f", entry 0 at {base[0]:g}"
    pairs: list[Pair] = []
    seen: set[frozenset[tuple[float, ...]]] = set()  # a pair and its reverse are one

    def add(x: np.ndarray, x_prime: np.ndarray, text: str) -> None:
        key = frozenset((tuple(x), tuple(x_prime)))
        if key not in seen:
            seen.add(key)
            pairs.append((cast(x), cast(x_prime), f"{where}{text}"))

    def cast(v: np.ndarray) -> np.ndarray:
        return v.astype(np.int64) if integer else v

    for signs, text in sign_patterns(m):
        if uniform and not (signs == signs[0]).all():
            continue
        if not spec.accepts_move(np.zeros(m), signs):
            continue  # not neighbours under a monotone relation
        move, kept = delta * signs / float_norm(signs, norm), None
        if integer:
            move, kept = integer_move(signs, delta, norm)
        # rounding may carry base + move past the sensitivity: pulled back by ulps
        moved = pull_within(base, np.clip(base + move, lo, hi), norm, delta)
        step = moved - base
        if not step.any():
            continue
        if kept is not None:
            text += f", cut to {kept} of its entries for whole steps"
        label = f"{text} ({norm} move {float_norm(step, norm):g})"
        add(base, moved, f"; {label}")
        if (step > 0).any() and (step < 0).any():
            # the same move crossing over: the entries that go down start raised, the ones
            # that go up start at the base (StatDP's and DP-Sniper's "X shape": a sequence
            # mechanism compares the two halves against one noisy threshold)
            start = np.clip(base - np.minimum(step, 0), lo, hi)
            end = pull_within(start, start + step, norm, delta)
            if (end >= lo).all() and (end <= hi).all():
                add(start, end, f", crossing; {label}")
    return pairs


def tie_pairs(spec: AdapterSpec, rng: np.random.Generator) -> list[Pair]:
    """Real vector queries at the ties of rounding to whole numbers: every entry at k - 1/2,
    k + 1/2 and k + 3/2 (k even, drawn from ``rng``), moved up by the sensitivity (every
    entry under L∞, entry 0 alone under L1 and L2).  A mechanism that rounds its answers
    before the noise loses most at a tie: rounding half to even takes k + 1/2 to k and
    k + 3/2 to k + 2, twice the move (half to odd, the next pair).  Inside declared bounds
    only, and for releases of values (real or integer outputs) only: the answers of a
    threshold or a selection gain little from a tie, and the uniform moves there look better
    on a few screening outputs than they certify, crowding the halving (the testers' correct
    SVT1 at 2e6 fell from 0.057 to 0.042 in the mean of seeds 0-4 with them)."""
    numeric = spec.output.kind in (OutputKind.REAL, OutputKind.INTEGER)
    if spec.integer_queries or not numeric or spec.sensitivity is None or not spec.input.norm:
        return []
    m = spec.input.length or DEFAULT_QUERIES
    delta, norm = float(spec.sensitivity), spec.input.norm
    lo, hi = spec.input_bounds or (-math.inf, math.inf)
    # k / 2 for k - 1/2 >= lo and k + 3/2 + delta <= hi
    first = max(-100, math.ceil((lo + 0.5) / 2)) if math.isfinite(lo) else -100
    last = min(100, math.floor((hi - delta - 1.5) / 2)) if math.isfinite(hi) else 100
    if first > last:
        return []
    k = 2 * int(rng.integers(first, last + 1))
    move = np.full(m, delta) if norm is Norm.LINF else np.eye(m)[0] * delta
    what = "every entry" if norm is Norm.LINF else "entry 0"
    pairs: list[Pair] = []
    for tie in (k - 0.5, k + 0.5, k + 1.5):
        base = np.full(m, tie)
        moved = pull_within(base, base + move, norm, delta)
        text = f"{m} queries at {tie:g} (a tie of rounding to whole numbers); {what} up"
        pairs.append((base, moved, f"{text} by {delta:g}"))
    if norm is not Norm.LINF and m > 1:
        # the move spread over every entry, each crossing its tie: rounding that costs a
        # fraction of the budget per entry adds up over all of them (one entry moved by the
        # whole sensitivity crosses one tie only)
        step = delta / (m if norm is Norm.L1 else math.sqrt(m))
        for tie in (k + 0.5, k + 1.5):
            base = np.full(m, tie - step / 2)
            moved = pull_within(base, base + step, norm, delta)
            text = f"{m} queries just below {tie:g}, every entry up by {step:.3g} across it"
            pairs.append((base, moved, f"{text} (straddling ties of rounding)"))
    return pairs


def short_vector_pairs(spec: AdapterSpec, rng: np.random.Generator) -> list[Pair]:
    """``SHORT_VECTOR_PAIRS`` pairs drawn from the relation's inside: a base of random entries
    (within a few sensitivities of 0, or of the declared bounds) moved in a random direction
    by a random fraction of the sensitivity in the declared norm, every entry at once.  The
    patterns move by the whole sensitivity along few directions; a mechanism that snaps,
    buckets or clips each entry shows its loss on moves in between, which only such draws
    reach (they stay candidates where the base moves)."""
    assert spec.sensitivity is not None and spec.input.norm is not None
    m = spec.input.length or DEFAULT_QUERIES
    delta, norm = spec.sensitivity, spec.input.norm
    lo, hi = spec.input_bounds or (-4 * delta, 4 * delta)
    lo, hi = max(lo, -4 * delta), min(hi, 4 * delta)
    if spec.integer_queries:  # whole numbers inside the bounds: clipping then only shortens
        lo, hi = float(np.ceil(lo)), float(np.floor(hi))
    if not hi > lo:
        return []
    pairs: list[Pair] = []
    for _ in range(SHORT_VECTOR_PAIRS):
        base = lo + rng.random(m) * (hi - lo)
        direction = rng.standard_normal(m)
        if not spec.accepts_move(np.zeros(m), np.sign(direction)):
            direction = np.abs(direction)  # a monotone relation: every entry the same way
        size = float(rng.uniform(0.3, 1.0)) * delta
        if spec.integer_queries:
            # whole steps: a random sign pattern, scaled and cut as the patterns are
            base = np.clip(np.round(base), lo, hi)
            signs = np.sign(np.round(direction))
            if not signs.any():
                continue
            move, _ = integer_move(signs, delta, norm)
        else:
            move = size * direction / float_norm(direction, norm)
        moved = pull_within(base, np.clip(base + move, lo, hi), norm, delta)
        if not (moved - base).any():
            continue
        text = (
            f"{m} random queries in [{lo:g}, {hi:g}]; a random move of "
            f"{norm} norm {float_norm(moved - base, norm):.3g} (below or at the sensitivity)"
        )
        if spec.integer_queries:
            base, moved = base.astype(np.int64), moved.astype(np.int64)
        pairs.append((base, moved, text))
    return pairs


def split_tie_pairs(spec: AdapterSpec) -> list[Pair]:
    """Index releases: two entries tied above the others, then pulled apart by the largest
    move of one entry up and the other down (each way round).  A selection that releases its
    argmax only past a gap to the runner-up (propose-test-release, a stable argmax) sees no
    gap at the tie and the gap's whole sensitivity after it, twice a single entry's move
    under L∞; a test calibrated for a gap that moves by one entry's move releases the raised
    index on one side only, a leak in delta alone."""
    if spec.output.kind is not OutputKind.INDEX or spec.sensitivity is None:
        return []
    m, norm = spec.input.length or DEFAULT_QUERIES, spec.input.norm
    if m < 2 or norm is None:
        return []
    delta = float(spec.sensitivity)
    lo, hi = spec.input_bounds or (-math.inf, math.inf)
    pairs: list[Pair] = []
    for up, down in ((1, 0), (0, 1)):
        signs = np.zeros(m)
        signs[up], signs[down] = 1.0, -1.0
        if not spec.accepts_move(np.zeros(m), signs):
            continue  # not neighbours under a monotone relation
        if spec.integer_queries:
            move, _ = integer_move(signs, delta, norm)
        else:
            move = delta * signs / float_norm(signs, norm)
        d = float(move[up])
        rest = lo if math.isfinite(lo) else 0.0
        if d <= 0 or rest + 2 * d > hi:
            continue
        base = np.full(m, rest)
        base[[up, down]] = rest + d  # the tie, one move above the others
        moved = pull_within(base, base + move, norm, delta)
        if spec.integer_queries:
            base, moved = base.astype(np.int64), moved.astype(np.int64)
        text = f"{m} queries at {rest:g}, entries 0 and 1 tied at {rest + d:g}; entry {up} up"
        if moved[down] != base[down]:  # whole steps under L1 may move one entry only
            text += f", entry {down} down"
        pairs.append((base, moved, text))
    return pairs
