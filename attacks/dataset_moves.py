"""Moves between neighbouring datasets, for the search that climbs them (``Trial.explore``).

Some statistics change by an amount that depends on the rest of the dataset: an edge added to
a graph adds as many wedges as its ends have neighbours, and joins two components of whatever
sizes they have.  A sensitivity bug in such a mechanism shows only on pairs with the right
structure among their records (two components of three nodes joined by the added edge), and
the fixed and random pairs of ``attacks.neighbours`` meet it by luck.  So the certifier climbs
from random pairs, one record at a time (``auditor.engine.search_units.datasets``).

A state is the records both datasets hold, the changed record(s) and where they sit.  A move
changes one thing: a shared record replaced, added or removed, the changed record redrawn, or
moved to another place (a mechanism may read its records in order).  New records take each
column's value at random from the domain, from its bounds, from the values already in the
dataset in any column (a node id of the changed edge as an end of another edge), or near one
of those, a step of any scale away (a timestamp just after another: gaps, runs, clusters).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from attacks.neighbours import Pair, domain_rows, uniform_rows
from auditor.core.spec import AdapterSpec

#: records the shared part of each start holds (random, each column drawn on its own): sizes
#: on a ladder of about sqrt(2), ordered so that the first few of them spread (a small budget
#: climbs from the first few only)
START_SIZES = (4, 16, 2, 8, 3, 12, 6, 24)
#: the most records the shared part may grow to
MAX_RECORDS = 64
#: a real column's smallest step to a value near a held one: its range over 2^this
NEAR_SCALES = 20
#: the share of new records drawn near a whole record the state holds (clusters of records,
#: near-duplicates: what joins or splits groups of records close in every column)
NEAR_RECORD = 0.25


@dataclass(frozen=True)
class DatasetState:
    """Two neighbouring datasets: ``shared`` rows with the block of rows ``removed`` (None
    under add/remove: the first dataset is ``shared`` alone) or ``added`` inserted before row
    ``at``; a block holds one privacy unit's records."""

    shared: np.ndarray
    removed: np.ndarray | None
    added: np.ndarray
    at: int
    #: the start it was reached from ("16 random records") and the moves kept since
    start: str
    moves: int = 0


class DatasetMoves:
    """The neighbourhood of an adapter's dataset pairs under its declared relation, for its
    privacy unit of ``max_contributions`` records (ids in a ``user_column`` are left to the
    fixed pairs: ``Trial.by_user`` drops the climbs)."""

    def __init__(self, spec: AdapterSpec, seed: int) -> None:
        self.seed = seed
        self.lows, self.highs, self.mids, self.records = domain_rows(spec)
        self.integer = spec.integer_domain
        self.replacing = spec.neighbours == "replace"
        self.fewest = max(1, spec.min_records)
        self.unit = spec.max_contributions

    def starts(self) -> list[DatasetState]:
        rng = np.random.default_rng(self.seed)
        return [self.start(rng, size) for size in START_SIZES]

    def start(self, rng: np.random.Generator, size: int) -> DatasetState:
        """A random pair of ``size`` shared records (at least ``min_records``), the change
        first."""
        shared = self._uniform(rng, max(size, self.fewest))
        removed = self._uniform(rng, self.unit) if self.replacing else None
        text = f"{len(shared)} random records"
        return DatasetState(shared, removed, self._uniform(rng, self.unit), 0, text)

    def moved(self, state: DatasetState, rng: np.random.Generator) -> DatasetState | None:
        shared, k = state.shared, len(state.shared)
        move = int(rng.integers(6))
        if move == 0:  # a shared record redrawn
            i = int(rng.integers(k))
            shared = shared.copy()
            shared[i] = self._record(rng, state)
            return self._with(state, shared=shared)
        if move == 1:  # one more shared record
            if k >= MAX_RECORDS:
                return None
            i = int(rng.integers(k + 1))
            shared = np.insert(shared, i, self._record(rng, state), axis=0)
            return self._with(state, shared=shared, at=state.at + (i < state.at))
        if move == 2:  # one shared record fewer
            if k <= self.fewest:
                return None
            i = int(rng.integers(k))
            return self._with(
                state, shared=np.delete(shared, i, axis=0), at=state.at - (i < state.at)
            )
        if move == 4 and state.removed is not None:  # a removed record redrawn (replace)
            return self._with(state, removed=self._redrawn(rng, state, state.removed))
        if move in (3, 4):  # an added record redrawn
            return self._with(state, added=self._redrawn(rng, state, state.added))
        return self._with(state, at=int(rng.integers(k + 1)))  # the change moved elsewhere

    def pair(self, state: DatasetState) -> Pair:
        def with_block(block: np.ndarray) -> np.ndarray:
            return np.asarray(self.records(np.insert(state.shared, state.at, block, axis=0)))

        x = self.records(state.shared) if state.removed is None else with_block(state.removed)
        k = len(state.added)
        change = "add" if state.removed is None else f"replace {'one' if k == 1 else k} by"
        values = "; ".join("(" + ", ".join(f"{v:g}" for v in row) + ")" for row in state.added)
        text = (
            f"{len(state.shared)} shared records found by a search over datasets (from "
            f"{state.start}, {state.moves} moves kept); {change} "
            f"{'a record' if k == 1 else f'{k} records'} {values}"
        )
        return x, with_block(state.added), text

    def _with(self, state: DatasetState, **changed: object) -> DatasetState:
        return replace(state, moves=state.moves + 1, **changed)  # type: ignore[arg-type]

    def _redrawn(
        self, rng: np.random.Generator, state: DatasetState, block: np.ndarray
    ) -> np.ndarray:
        """``block`` with one of its records redrawn."""
        block = block.copy()
        block[int(rng.integers(len(block)))] = self._record(rng, state)
        return block

    def _uniform(self, rng: np.random.Generator, k: int) -> np.ndarray:
        return uniform_rows(self.lows, self.highs, self.integer, rng, k)

    def _record(self, rng: np.random.Generator, state: DatasetState) -> np.ndarray:
        """A new record: near a record the state holds (each column kept or a step away), or
        column by column: uniform, at a bound, at the midpoint, or a value the state already
        holds in any column that fits this column's bounds, or near one."""
        rows = [state.shared, state.added] + ([] if state.removed is None else [state.removed])
        if rng.random() < NEAR_RECORD:
            held_rows = np.concatenate(rows)
            row = held_rows[int(rng.integers(len(held_rows)))].copy()
            for j in range(len(row)):
                if rng.random() < 0.5:
                    row[j] = self._near(rng, row[j], j)
            return np.asarray(row)
        pool = np.concatenate([r.ravel() for r in rows])
        row = self._uniform(rng, 1)[0]
        for j in range(len(row)):
            lo, hi = self.lows[j], self.highs[j]
            kind = int(rng.integers(4))
            if kind == 2:
                row[j] = (lo, hi, self.mids[j])[int(rng.integers(3))]
                continue
            fits = pool[(pool >= lo) & (pool <= hi)]
            if kind == 0 or not len(fits):
                continue  # uniform
            row[j] = fits[int(rng.integers(len(fits)))]
            if kind == 3:
                row[j] = self._near(rng, row[j], j)
        return np.asarray(row)

    def _near(self, rng: np.random.Generator, value: float, j: int) -> float:
        """``value`` a step of any scale away in column ``j``, up to the column's range."""
        lo, hi = self.lows[j], self.highs[j]
        unit = 1.0 if self.integer else (hi - lo) / 2**NEAR_SCALES
        scales = max(1, int(np.ceil(np.log2(max(2.0, (hi - lo) / unit)))))
        step = unit * 2.0 ** int(rng.integers(scales)) * (1 if rng.random() < 0.5 else -1)
        return float(min(max(value + step, lo), hi))
