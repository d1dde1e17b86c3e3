"""Neighbouring pairs to search: systematic patterns per input kind, within the declared
relation.

Which pair of neighbours exposes a mechanism depends on the mechanism: the sparse vector
variant of Lee & Clifton shows its leak when half of the queries move up and half down, report
noisy max when one moves up and the rest down, a histogram when one bin moves.  So the pairs
are not drawn at random; every pattern the testing literature uses is listed (Ding et al.,
StatDP, CCS 2018, section 5.1; Bichsel et al., DP-Sniper, S&P 2021, their input pairs), and
the certifier screens them all on outputs of their own before certifying the most promising
(``Trial.candidates``).

* **vector** queries of m entries: base 0 (or, in declared bounds, the value nearest 0 that
  leaves room for a full move; without bounds the certifier may move the base to where the
  outputs vary, ``Trial.rebase``) and, for a sign
  pattern s in {-1, 0, 1}^m, x' = x + Δ·s/‖s‖ in the declared norm — one entry up or down (at
  the start, middle and end: a sequence mechanism reads its queries in order), one up and the
  rest down and the reverse, the first k up and the rest down for every k, the first k up and
  the rest unchanged, every other entry up, all up, all down.  With ``integer_queries``,
  moves are rounded toward 0, and a pattern some of whose entries would round to nothing is
  cut to as many entries as whole steps fit (``integer_move``).
* **scalar** queries: 0 vs Δ, a moderate offset at ``PHASES`` phases of Δ and a large
  magnitude (``scalar_pair_groups``, shared with the black box's additive trials).
* **local** inputs: pairs of values at both ends and in the middle of the domain (any two
  values are neighbours), and in a domain of at most ``SMALL_DOMAIN`` values every value
  with the next.
* **datasets** (never empty: many mechanisms refuse an empty dataset): one record at the
  midpoint; many records at the midpoint; many distinct values
  (a mechanism that reads its categories from the data); every value of a small integer
  domain; all records at one bound (large and small sums), a large dataset; two clusters at
  the bounds (a quantile that jumps); the fewest records the mechanism accepts (``min_records``,
  where a mean or a variance moves most) at the midpoint and at each bound; each changed by a
  record at a bound, at the midpoint, at just above the lower bound — added, removed or
  replaced as the relation allows; with several columns also by records mixing the bounds
  across columns and records on one axis (one column at a bound, the rest at the midpoint),
  and a record on one axis replaced by one on another (a covariance moves most there); every value
  of a small integer domain also changed by a record of each value; and random datasets of
  ``RANDOM_SIZES`` records, each column drawn on its own from the attack's rng (a graph over
  node-id columns, a contingency table), with a random record added, removed or replaced.  With
  ``max_contributions`` k, every change is made k times (``Trial.grouped``) and each dataset
  is also changed by one user's k distinct records (spread across the domain, or the k values
  from the upper bound down).  Under
  add/remove, the certifier may add the pair at the size where the outputs change
  (``size_pair``, ``Trial.resize``): a minimum count is met by no fixed size.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from attacks.selection_common import largest_move
from auditor.core.distance import float_norm, pull_within
from auditor.core.kinds import InputKind, Norm, OutputKind
from auditor.core.spec import AdapterSpec
from auditor.core.trials import USER_RECORDS, as_rows, row_keys

#: vector length the search uses when the adapter does not fix one (StatDP and DP-Sniper use
#: 5 and 10; 10 leaves room for half-and-half and prefix patterns)
DEFAULT_QUERIES = 10
#: sequences up to this long get every "first k" pattern; longer ones a spread of k
SPLIT_ALL = 16
#: records in the "many" datasets
MANY = 20
#: records in the large dataset
LARGE = 1000
#: sizes of the random datasets (records drawn uniformly, each column on its own)
RANDOM_SIZES = (4, 16, 64)
#: columns of a multi-column domain that get records mixing the bounds (two each)
MIXED_COLUMNS = 4
#: phases of the step at which a scalar query's moderate pair is screened (real answers)
PHASES = 8
#: at most this many values of an integer domain are listed one by one
SMALL_DOMAIN = 16
#: moves shorter than the sensitivity, as fractions of it, screened beside the full ones
SHORT_FRACTIONS = (0.5, 0.25, 0.75)
#: random pairs from the inside of a vector relation (random base, direction and length)
SHORT_VECTOR_PAIRS = 12

Pair = tuple[Any, Any, str]


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


def _one_user_apart(small: np.ndarray, big: np.ndarray, column: int) -> bool:
    """Whether ``big`` is ``small`` plus every record of one user id ``small`` does not hold."""
    small, big = as_rows(small), as_rows(big)
    added = set(big[:, column].tolist()) - set(small[:, column].tolist())
    if len(added) != 1 or len(big) == len(small):
        return False
    rest = big[big[:, column] != added.pop()]
    return Counter(row_keys(rest)) == Counter(row_keys(small))


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


def local_pairs(spec: AdapterSpec) -> list[Pair]:
    """Pairs of values of a local domain: both ends, the middle, neighbours of each; in a
    small domain every two values (the relation is all of them), so that a mechanism that
    mishandles one value or confuses two (reports it as is, collides it with another, lets a
    bucket edge count twice) meets them in some pair."""
    assert spec.exact_domain is not None
    lo, hi = (int(v) for v in spec.exact_domain)
    values = list(range(lo, hi + 1)) if hi - lo + 1 <= SMALL_DOMAIN else []
    mid = (lo + hi) // 2
    chosen = [(lo, hi), (lo, lo + 1), (hi - 1, hi), (mid, mid + 1), (lo, mid), (mid, hi)]
    chosen = [(a, b) for a, b in chosen if lo <= a < b <= hi]
    # a small domain: every two values (any two are neighbours), the next ones first
    chosen += sorted(
        ((a, b) for i, a in enumerate(values) for b in values[i + 1 :]), key=lambda p: p[1] - p[0]
    )
    return [(a, b, f"values {a} and {b}") for a, b in dict.fromkeys(chosen)]


def domain_rows(
    spec: AdapterSpec,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The domain's lower bounds, upper bounds and midpoints (rounded down in an integer
    domain) as rows of one entry per column, and how rows become the adapter's records."""
    assert spec.domain is not None
    columns = spec.column_domains or (spec.domain,)
    lows = np.array([c[0] for c in columns])
    highs = np.array([c[1] for c in columns])
    integer = spec.integer_domain
    mids = np.floor((lows + highs) / 2) if integer else (lows + highs) / 2

    def records(rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=float).reshape(-1, len(columns))
        out = rows if spec.column_domains is not None else rows[:, 0]
        return out.astype(np.int64) if integer else out

    return lows, highs, mids, records


def uniform_rows(
    lows: np.ndarray, highs: np.ndarray, integer: bool, rng: np.random.Generator, k: int
) -> np.ndarray:
    """``k`` rows drawn from ``rng``, each column uniform in its bounds on its own (whole
    numbers in an integer domain)."""
    u = rng.random((k, len(lows)))
    if integer:
        return np.asarray(np.minimum(lows + np.floor(u * (highs - lows + 1)), highs))
    return np.asarray(lows + u * (highs - lows))


def dataset_pairs(spec: AdapterSpec, rng: np.random.Generator | None = None) -> list[Pair]:
    """Datasets and neighbours of each, following the declared relation; with ``rng``, also
    random datasets (``RANDOM_SIZES``) and random neighbours of them."""
    lows, highs, mids, records = domain_rows(spec)
    integer = spec.integer_domain

    def uniform(k: int) -> np.ndarray:
        assert rng is not None
        return uniform_rows(lows, highs, integer, rng, k)

    def spread(k: int) -> np.ndarray:
        t = np.linspace(0, 1, k)[:, None]
        rows = lows + t * (highs - lows)
        return np.asarray(np.round(rows) if integer else rows)

    # between the two lowest of the distinct values: present in none of the datasets
    near_low = np.minimum(lows + 1, highs) if integer else lows + (highs - lows) / (2 * MANY)
    one_mid = (mids[None, :], "one record at the midpoint")
    many_mid = (np.repeat(mids[None, :], MANY, axis=0), f"{MANY} records at the midpoint")
    at_low = (np.repeat(lows[None, :], MANY, axis=0), f"{MANY} records at the lower bound")
    at_high = (np.repeat(highs[None, :], MANY, axis=0), f"{MANY} records at the upper bound")
    bases: list[tuple[np.ndarray, str]] = [
        one_mid,
        many_mid,
        (spread(MANY), f"{MANY} distinct values across the domain"),
        at_low,
        at_high,
        (
            np.vstack(
                [np.repeat(lows[None, :], MANY // 2, 0), np.repeat(highs[None, :], MANY // 2, 0)]
            ),
            "two clusters at the bounds",
        ),
        (np.repeat(highs[None, :], LARGE, axis=0), f"{LARGE} records at the upper bound"),
    ]
    fewest = spec.min_records
    if fewest > 1:
        # the fewest records the mechanism accepts: where a mean or a variance moves most
        bases[1:1] = [
            (np.repeat(row[None, :], fewest, axis=0), f"{fewest} records at {where}")
            for row, where in (
                (mids, "the midpoint"),
                (lows, "the lower bound"),
                (highs, "the upper bound"),
            )
        ]
    changes = [
        (lows, "the lower bound"),
        (highs, "the upper bound"),
        (mids, "the midpoint"),
        (near_low, "just above the lower bound"),
    ]
    # records mixing the bounds across columns: one column at one bound, the rest at the
    # other (a customer id at the top with a product at the bottom: a new record of a key
    # the dataset already holds, with another column's extreme)
    # and records on one axis: one column at a bound, the rest at the midpoint (a record
    # that moves one feature alone: a covariance moves most between two such records)
    mixed: list[tuple[np.ndarray, str]] = []
    axes: list[tuple[np.ndarray, str]] = []
    for j in range(min(len(lows), MIXED_COLUMNS) if len(lows) > 1 else 0):
        for base_row, other, where in ((highs, lows, "lower"), (lows, highs, "upper")):
            row = base_row.copy()
            row[j] = other[j]
            if not any(np.array_equal(row, r) for r, _ in changes + mixed):
                mixed.append((row, f"column {j} at its {where} bound, the rest at the other"))
        for bound, where in ((highs, "upper"), (lows, "lower")):
            row = mids.copy()
            row[j] = bound[j]
            if not any(np.array_equal(row, r) for r, _ in changes + mixed + axes):
                axes.append((row, f"column {j} at its {where} bound, the rest at the midpoint"))
    mixed += axes
    pairs: list[Pair] = []

    def neighbours_of(
        rows: np.ndarray,
        text: str,
        moves: list[tuple[np.ndarray, str]],
        who: tuple[str, str] = ("a record at", "one at"),
    ) -> None:
        """``rows`` with each of ``moves`` (a record, or a block of one user's records) added,
        or put in place of its first records; ``who`` names a move added and put in place."""
        x = records(rows)
        for value, where in moves:
            block = np.atleast_2d(value)
            if spec.neighbours == "add_remove":
                grown = records(np.vstack([rows, block]))
                pairs.append((x, grown, f"{text}; add {who[0]} {where}"))
                continue
            if len(rows) < len(block):
                continue
            changed = rows.copy()
            changed[: len(block)] = block
            first = "record" if len(block) == 1 else f"{len(block)} records"
            if not np.array_equal(changed, rows):
                text_changed = f"{text}; replace its first {first} by {who[1]} {where}"
                pairs.append((x, records(changed), text_changed))

    def first_removed(rows: np.ndarray, text: str) -> None:
        """``rows`` and the same without its first record (add/remove; never the empty
        dataset)."""
        if spec.neighbours == "add_remove" and len(rows) > 1:
            pairs.append((records(rows), records(rows[1:]), f"{text}; remove its first record"))

    values: list[tuple[np.ndarray, str]] = []
    if integer and all(h - lo_ + 1 <= SMALL_DOMAIN for lo_, h in zip(lows, highs, strict=True)):
        size = int(max(highs - lows)) + 1
        every = (
            np.minimum(lows + np.arange(size)[:, None], highs),
            "every value of the domain once",
        )
        bases.append(every)
        # a mechanism may mishandle one value (count it twice, drop it): with every value in
        # the dataset, each one is also the record that changes
        known = {tuple(value) for value, _ in changes}
        rest = [row for row in dict.fromkeys(map(tuple, every[0])) if row not in known]
        values = [(np.array(row), "value " + ", ".join(f"{v:g}" for v in row)) for row in rest]
    for rows, text in bases:
        neighbours_of(rows, text, changes)
        first_removed(rows, text)
    # random datasets, their columns drawn apart: the structured ones above tie the columns
    # together (every spread record on the diagonal), so structure among records -- a graph
    # over node-id columns, a contingency table -- is seen only here; their first record is
    # random too, so removing or replacing it changes a random record
    for size in RANDOM_SIZES if rng is not None else ():
        rows = uniform(max(size, fewest))
        text = f"{len(rows)} random records (columns drawn apart)"
        neighbours_of(rows, text, [(uniform(1)[0], "random")])
        first_removed(rows, text)
    on_axis = [(row[None, :], f"one record with {where}") for row, where in axes[:1]]
    for rows, text in (one_mid, many_mid, at_low, at_high, *on_axis):
        neighbours_of(rows, text, mixed)
    if values:
        neighbours_of(*every, values)
    # one privacy unit's records at distinct values, beside the copies of one record that
    # ``Trial.for_privacy_units`` makes of every pair above: a mechanism that bounds what each
    # value (partition, bin) takes in, or counts distinct values, shows its user-level loss
    # only on distinct records
    unit_sizes = [spec.max_contributions] if spec.max_contributions > 1 else []
    if spec.user_column is not None:
        unit_sizes = [k for k in USER_RECORDS if k > 1]
    step = np.ones_like(lows) if integer else (highs - lows) / (2 * MANY)
    for users in unit_sizes:
        below_top = np.maximum(highs - np.arange(users)[:, None] * step, lows)
        units = [
            (spread(users), f"{users} distinct values across the domain"),
            (below_top, f"{users} distinct values from the upper bound down"),
        ]
        # a domain too small for that many distinct values has no such unit (user ids aside:
        # a user's records spread over fewer values still spread)
        data = [c for c in range(len(lows)) if c != spec.user_column]
        kept = []
        for unit, what in units:
            distinct = len(np.unique(unit[:, data], axis=0)) if data else 1
            if distinct == users:
                kept.append((unit, what))
            elif spec.user_column is not None and distinct > 1:
                kept.append(
                    (unit, what.replace("distinct values", f"records on {distinct} values"))
                )
        units = kept
        for rows, text in bases:
            neighbours_of(rows, text, units, who=("one user's", "one user's"))
        # several columns: the records spread along one column, the rest at the upper bound
        # (a user in every partition, each with the largest value: a bound on partitions per
        # user shows only when the values it keeps are large)
        along = data[:MIXED_COLUMNS] if len(data) > 1 else []
        lined = []
        for j in along:
            rows = np.repeat(highs[None, :], users, axis=0)
            line = np.linspace(lows[j], highs[j], users)
            rows[:, j] = np.round(line) if integer else line
            if len(np.unique(rows[:, j])) > 1:
                text = f"{users} records spread along column {j}, the rest at the upper bound"
                lined.append((rows, text))
        for rows, text in (one_mid, many_mid):
            neighbours_of(rows, text, lined, who=("one user's", "one user's"))
    return pairs


def size_pair(spec: AdapterSpec, size: int) -> Pair:
    """``size`` records at the domain's midpoint, and the same plus one more there (add/remove:
    the pair that exposes a minimum count between the two sizes)."""
    _, _, mids, records = domain_rows(spec)
    both = records(np.repeat(mids[None, :], size + 1, axis=0))
    return both[:size], both, f"{size} records at the midpoint; add one more there"


def _shifted(a: float, step: float) -> float:
    """The largest float <= a + step (rounding must never push a pair past the sensitivity)."""
    y = a + step
    while Fraction(y) - Fraction(a) > Fraction(step):
        y = math.nextafter(y, -math.inf)
    return y


def scalar_pair_groups(
    spec: AdapterSpec, rng: np.random.Generator
) -> list[tuple[bool, list[Pair]]]:
    """A scalar query's pairs one sensitivity apart, in groups ``(standard, pairs)``: 0 vs Δ
    (the standard group), then, at magnitudes drawn from ``rng``, a moderate offset a vs a + Δ
    (a random multiple of Δ; real answers at ``PHASES`` phases of Δ from a random one), a
    large one ±2**k vs ±2**k + Δ and real answers at the ties of rounding to whole numbers,
    for mechanisms whose noise or rounding depends on the magnitude or the position of the
    answer.  Inside declared query bounds only."""
    step = largest_move(spec)
    if step <= 0:
        return []
    groups: list[tuple[bool, list[Pair]]] = []
    standard = int(step) if spec.integer_queries else float(step)
    bounds = spec.query_bounds
    if bounds is None or bounds[0] <= 0 <= standard <= bounds[1]:  # else refused, maybe
        groups.append((True, [(0, standard, f"inputs 0 and {standard!r} (one sensitivity apart)")]))
    multiple = float(rng.integers(-100, 101))
    # ulp(2**k) = 2**(k - 52) must stay below the step, or x + step rounds back to x
    k_max = 50 if spec.integer_queries else min(50, math.floor(math.log2(step)) + 50)
    k = int(rng.integers(min(20, k_max), k_max + 1))
    large = float(rng.choice([-1.0, 1.0])) * 2.0**k
    # off the standard pair's grid: a mechanism that snaps or rounds its answer to a grid
    # loses most between answers on either side of a boundary
    phase = 0.0 if spec.integer_queries else float(rng.random())
    phases = [0.0] if spec.integer_queries else [(phase + j / PHASES) % 1 for j in range(PHASES)]
    moderate = [((multiple + f) * step, "a moderate offset") for f in phases]
    shorter = _shorter_moves(spec, step, multiple, phases)
    if not spec.integer_queries:
        # rounding half to even takes k + 1/2 to k and k + 3/2 to k + 2 (k even): see tie_pairs
        even = 2.0 * (multiple // 2)
        moderate += [(even + h, "a tie of rounding to whole numbers") for h in (0.5, 1.5)]
    offsets = [moderate, [(large, f"a large magnitude (±2**{k})")]]
    if bounds is not None:  # keep both inputs inside the range the mechanism accepts
        lo, hi = bounds
        offsets = [[(a, t) for a, t in group if lo <= a and a + step <= hi] for group in offsets]
        offsets = [group for group in offsets if group]
        if not offsets and spec.integer_queries:
            first, last = math.ceil(lo), math.floor(hi - step)
            if first <= last:
                offsets = [[(float(rng.integers(first, last + 1)), "a random offset")]]
        elif not offsets and hi - lo >= step:
            offsets = [[(lo + rng.random() * (hi - lo - step), "a random offset")]]
    if bounds is not None:
        shorter = [(a, m) for a, m in shorter if bounds[0] <= a and a + m <= bounds[1]]
    for group in offsets:
        pairs: list[Pair] = []
        if group is offsets[0]:
            pairs += [_short_pair(spec, a, m) for a, m in shorter]
        for a, text in group:
            x: int | float
            x_prime: int | float
            if spec.integer_queries:
                x, x_prime = int(a), int(a) + int(step)
            else:
                x, x_prime = float(a), _shifted(float(a), step)
                if x_prime == x:  # the step vanishes at this magnitude
                    continue
            pairs.append(
                (x, x_prime, f"inputs {x!r} and {x_prime!r} (one sensitivity apart at {text})")
            )
        if pairs:
            groups.append((False, pairs))
    return groups


def _shorter_moves(
    spec: AdapterSpec, step: float, multiple: float, phases: list[float]
) -> list[tuple[float, float]]:
    """``(a, move)`` with moves shorter than the sensitivity at the moderate offset: real
    answers move by ``SHORT_FRACTIONS`` of it at four of the phases, integer ones by every
    whole step below it (at most ``SHORT_FRACTIONS`` many, spread).  The relation allows
    every move up to the sensitivity: a mechanism whose noise or rounding depends on where
    the answer sits within a step shows it only on a move that lands elsewhere in the step."""
    if spec.integer_queries:
        whole = int(step)
        moves = sorted({max(1, round(whole * f)) for f in SHORT_FRACTIONS} - {whole})
        return [(multiple * whole, float(m)) for m in moves]
    return [((multiple + f) * step, m * step) for f in phases[::2][:4] for m in SHORT_FRACTIONS]


def _short_pair(spec: AdapterSpec, a: float, move: float) -> Pair:
    if spec.integer_queries:
        x, y = int(a), int(a) + int(move)
        return x, y, f"inputs {x!r} and {y!r} (a move of {int(move)}, below the sensitivity)"
    x_f, y_f = float(a), float(a) + move
    return x_f, y_f, f"inputs {x_f!r} and {y_f!r} (a move of {move:g}, below the sensitivity)"


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


def search_pairs(spec: AdapterSpec, rng: np.random.Generator) -> list[Pair]:
    """The pairs to screen for this adapter's input kind (``rng`` places a scalar query's)."""
    kind = spec.input.kind
    if kind is InputKind.VECTOR:
        return vector_pairs(spec) + tie_pairs(spec, rng) + short_vector_pairs(spec, rng)
    if kind is InputKind.LOCAL:
        return local_pairs(spec)
    if kind is InputKind.DATASET:
        return dataset_pairs(spec, rng)
    return [pair for _, group in scalar_pair_groups(spec, rng) for pair in group]


def are_neighbours(spec: AdapterSpec, x: Any, x_prime: Any) -> bool:
    """Whether ``x`` and ``x_prime`` are neighbours under the adapter's declared relation."""
    kind = spec.input.kind
    if kind is InputKind.LOCAL:
        assert spec.exact_domain is not None
        lo, hi = spec.exact_domain
        return bool(lo <= x <= hi and lo <= x_prime <= hi)
    if kind in (InputKind.SCALAR, InputKind.VECTOR):
        assert spec.sensitivity is not None
        return spec.within_sensitivity(x, x_prime) and spec.accepts_move(x, x_prime)
    a, b = np.asarray(x), np.asarray(x_prime)
    k = spec.max_contributions  # records of one privacy unit
    if spec.neighbours == "replace":
        return a.shape == b.shape and int((a != b).reshape(len(a), -1).any(axis=1).sum()) <= k
    small, big = (a, b) if len(a) < len(b) else (b, a)
    if spec.user_column is not None:
        return _one_user_apart(small, big, spec.user_column)
    if not 1 <= len(big) - len(small) <= k:
        return False

    left = Counter(row_keys(big))
    left.subtract(row_keys(small))
    return min(left.values(), default=0) >= 0 and sum(left.values()) == len(big) - len(small)
