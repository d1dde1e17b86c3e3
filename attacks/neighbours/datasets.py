"""Neighbouring pairs to search: datasets.

**datasets** (never empty: many mechanisms refuse an empty dataset): one record at the
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

from collections import Counter
from collections.abc import Callable

import numpy as np

from attacks.neighbours.local import SMALL_DOMAIN
from attacks.neighbours.pair import Pair
from auditor.core.spec import AdapterSpec
from auditor.core.trials import USER_RECORDS, as_rows, row_keys

#: records in the "many" datasets
MANY = 20
#: records in the large dataset
LARGE = 1000
#: sizes of the random datasets (records drawn uniformly, each column on its own)
RANDOM_SIZES = (4, 16, 64)
#: columns of a multi-column domain that get records mixing the bounds (two each)
MIXED_COLUMNS = 4


def one_user_apart(small: np.ndarray, big: np.ndarray, column: int) -> bool:
    """Whether ``big`` is ``small`` plus every record of one user id ``small`` does not hold."""
    small, big = as_rows(small), as_rows(big)
    added = set(big[:, column].tolist()) - set(small[:, column].tolist())
    if len(added) != 1 or len(big) == len(small):
        return False
    rest = big[big[:, column] != added.pop()]
    return Counter(row_keys(rest)) == Counter(row_keys(small))


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


Rows = tuple[np.ndarray, str]


def dataset_pairs(spec: AdapterSpec, rng: np.random.Generator | None = None) -> list[Pair]:
    """Datasets and neighbours of each, following the declared relation; with ``rng``, also
    random datasets (``RANDOM_SIZES``) and random neighbours of them."""
    lows, highs, mids, records = domain_rows(spec)
    integer = spec.integer_domain
    out = _Neighbours(spec, records)
    bases, (one_mid, many_mid, at_low, at_high) = _base_datasets(spec, lows, highs, mids)
    # between the two lowest of the distinct values: present in none of the datasets
    near_low = np.minimum(lows + 1, highs) if integer else lows + (highs - lows) / (2 * MANY)
    changes = [
        (lows, "the lower bound"),
        (highs, "the upper bound"),
        (mids, "the midpoint"),
        (near_low, "just above the lower bound"),
    ]
    mixed, axes = _mixed_records(lows, highs, mids, changes)
    every, values = _every_value(spec, lows, highs, changes)
    if every is not None:
        bases.append(every)
    for rows, text in bases:
        out.neighbours_of(rows, text, changes)
        out.first_removed(rows, text)
    # random datasets, their columns drawn apart: the structured ones above tie the columns
    # together (every spread record on the diagonal), so structure among records -- a graph
    # over node-id columns, a contingency table -- is seen only here; their first record is
    # random too, so removing or replacing it changes a random record
    for size in RANDOM_SIZES if rng is not None else ():
        assert rng is not None
        rows = uniform_rows(lows, highs, integer, rng, max(size, spec.min_records))
        text = f"{len(rows)} random records (columns drawn apart)"
        out.neighbours_of(rows, text, [(uniform_rows(lows, highs, integer, rng, 1)[0], "random")])
        out.first_removed(rows, text)
    on_axis = [(row[None, :], f"one record with {where}") for row, where in axes[:1]]
    for rows, text in (one_mid, many_mid, at_low, at_high, *on_axis):
        out.neighbours_of(rows, text, mixed)
    if every is not None and values:
        out.neighbours_of(*every, values)
    _one_unit_apart(spec, out, bases, (one_mid, many_mid), lows, highs)
    return out.pairs


class _Neighbours:
    """The pairs listed so far, and how a dataset's neighbours join them."""

    def __init__(self, spec: AdapterSpec, records: Callable[[np.ndarray], np.ndarray]) -> None:
        self.spec, self.records = spec, records
        self.pairs: list[Pair] = []

    def neighbours_of(
        self,
        rows: np.ndarray,
        text: str,
        moves: list[Rows],
        who: tuple[str, str] = ("a record at", "one at"),
    ) -> None:
        """``rows`` with each of ``moves`` (a record, or a block of one user's records) added,
        or put in place of its first records; ``who`` names a move added and put in place."""
        records, pairs = self.records, self.pairs
        x = records(rows)
        for value, where in moves:
            block = np.atleast_2d(value)
            if self.spec.neighbours == "add_remove":
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

    def first_removed(self, rows: np.ndarray, text: str) -> None:
        """``rows`` and the same without its first record (add/remove; never the empty
        dataset)."""
        if self.spec.neighbours == "add_remove" and len(rows) > 1:
            records = self.records
            self.pairs.append(
                (records(rows), records(rows[1:]), f"{text}; remove its first record")
            )


def _spread(lows: np.ndarray, highs: np.ndarray, integer: bool, k: int) -> np.ndarray:
    """``k`` records evenly spread from the lower bounds to the upper ones."""
    t = np.linspace(0, 1, k)[:, None]
    rows = lows + t * (highs - lows)
    return np.asarray(np.round(rows) if integer else rows)


def _base_datasets(
    spec: AdapterSpec, lows: np.ndarray, highs: np.ndarray, mids: np.ndarray
) -> tuple[list[Rows], tuple[Rows, Rows, Rows, Rows]]:
    """The fixed datasets whose neighbours are listed, and four of them by name (one record
    at the midpoint, many there, many at the lower bound, many at the upper bound)."""
    one_mid = (mids[None, :], "one record at the midpoint")
    many_mid = (np.repeat(mids[None, :], MANY, axis=0), f"{MANY} records at the midpoint")
    at_low = (np.repeat(lows[None, :], MANY, axis=0), f"{MANY} records at the lower bound")
    at_high = (np.repeat(highs[None, :], MANY, axis=0), f"{MANY} records at the upper bound")
    spread = _spread(lows, highs, spec.integer_domain, MANY)
    bases: list[Rows] = [
        one_mid,
        many_mid,
        (spread, f"{MANY} distinct values across the domain"),
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
    return bases, (one_mid, many_mid, at_low, at_high)


def _mixed_records(
    lows: np.ndarray, highs: np.ndarray, mids: np.ndarray, changes: list[Rows]
) -> tuple[list[Rows], list[Rows]]:
    """Records mixing the bounds across columns, then records on one axis (both in the first
    list; the second: those on one axis alone).

    Mixing: one column at one bound, the rest at the other (a customer id at the top with a
    product at the bottom: a new record of a key the dataset already holds, with another
    column's extreme).  On one axis: one column at a bound, the rest at the midpoint (a record
    that moves one feature alone: a covariance moves most between two such records)."""
    mixed: list[Rows] = []
    axes: list[Rows] = []
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
    return mixed + axes, axes


def _every_value(
    spec: AdapterSpec, lows: np.ndarray, highs: np.ndarray, changes: list[Rows]
) -> tuple[Rows | None, list[Rows]]:
    """In a small integer domain, the dataset of every value once (None: the domain is not
    small), and each value not among ``changes`` as a record that changes it: a mechanism may
    mishandle one value (count it twice, drop it)."""
    small = all(h - lo_ + 1 <= SMALL_DOMAIN for lo_, h in zip(lows, highs, strict=True))
    if not (spec.integer_domain and small):
        return None, []
    size = int(max(highs - lows)) + 1
    every = (
        np.minimum(lows + np.arange(size)[:, None], highs),
        "every value of the domain once",
    )
    known = {tuple(value) for value, _ in changes}
    rest = [row for row in dict.fromkeys(map(tuple, every[0])) if row not in known]
    return every, [(np.array(row), "value " + ", ".join(f"{v:g}" for v in row)) for row in rest]


def _one_unit_apart(
    spec: AdapterSpec,
    out: _Neighbours,
    bases: list[Rows],
    middle: tuple[Rows, Rows],
    lows: np.ndarray,
    highs: np.ndarray,
) -> None:
    """One privacy unit's records at distinct values, beside the copies of one record that
    ``Trial.for_privacy_units`` makes of every pair: a mechanism that bounds what each value
    (partition, bin) takes in, or counts distinct values, shows its user-level loss only on
    distinct records."""
    integer = spec.integer_domain
    unit_sizes = [spec.max_contributions] if spec.max_contributions > 1 else []
    if spec.user_column is not None:
        unit_sizes = [k for k in USER_RECORDS if k > 1]
    step = np.ones_like(lows) if integer else (highs - lows) / (2 * MANY)
    data = [c for c in range(len(lows)) if c != spec.user_column]
    for users in unit_sizes:
        below_top = np.maximum(highs - np.arange(users)[:, None] * step, lows)
        units = [
            (_spread(lows, highs, integer, users), f"{users} distinct values across the domain"),
            (below_top, f"{users} distinct values from the upper bound down"),
        ]
        # a domain too small for that many distinct values has no such unit (user ids aside:
        # a user's records spread over fewer values still spread)
        kept = []
        for unit, what in units:
            distinct = len(np.unique(unit[:, data], axis=0)) if data else 1
            if distinct == users:
                kept.append((unit, what))
            elif spec.user_column is not None and distinct > 1:
                kept.append(
                    (unit, what.replace("distinct values", f"records on {distinct} values"))
                )
        for rows, text in bases:
            out.neighbours_of(rows, text, kept, who=("one user's", "one user's"))
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
        for rows, text in middle:
            out.neighbours_of(rows, text, lined, who=("one user's", "one user's"))


def size_pair(spec: AdapterSpec, size: int) -> Pair:
    """``size`` records at the domain's midpoint, and the same plus one more there (add/remove:
    the pair that exposes a minimum count between the two sizes)."""
    _, _, mids, records = domain_rows(spec)
    both = records(np.repeat(mids[None, :], size + 1, axis=0))
    return both[:size], both, f"{size} records at the midpoint; add one more there"
