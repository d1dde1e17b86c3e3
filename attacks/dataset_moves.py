"""Moves between neighbouring datasets, for the search that climbs them (``Trial.explore``).

Some statistics change by an amount that depends on the rest of the dataset: an edge added to
a graph adds as many wedges as its ends have neighbours, and joins two components of whatever
sizes they have.  A sensitivity bug in such a mechanism shows only on pairs with the right
structure among their records (two components of three nodes joined by the added edge), and
the fixed and random pairs of ``attacks.neighbours`` meet it by luck.  So the certifier climbs
from random pairs, one record at a time (``auditor.engine.dataset_search``).

A state is the records both datasets hold, the changed record(s) and where they sit.  A move
changes one thing: a shared record replaced, added or removed, the changed record redrawn, or
moved to another place (a mechanism may read its records in order).  New records take each
column's value at random from the domain, from its bounds or from the values already in the
dataset in any column (a node id of the changed edge as an end of another edge: structure).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from attacks.neighbours import Pair, domain_rows
from auditor.core.spec import AdapterSpec

#: records the shared part of each start holds (random, each column drawn on its own): sizes
#: on a ladder of about sqrt(2), ordered so that the first few of them spread (a small budget
#: climbs from the first few only)
START_SIZES = (4, 16, 2, 8, 3, 12, 6, 24)
#: the most records the shared part may grow to
MAX_RECORDS = 64


@dataclass(frozen=True)
class DatasetState:
    """Two neighbouring datasets: ``shared`` rows with ``removed`` (None under add/remove: the
    first dataset is ``shared`` alone) or ``added`` inserted before row ``at``."""

    shared: np.ndarray
    removed: np.ndarray | None
    added: np.ndarray
    at: int
    start: str
    moves: int = 0


class DatasetMoves:
    """The neighbourhood of an adapter's dataset pairs under its declared relation (one
    record: a privacy unit of several is left to the fixed pairs)."""

    def __init__(self, spec: AdapterSpec, seed: int) -> None:
        self.spec = spec
        self.seed = seed
        self.lows, self.highs, self.mids, self.records = domain_rows(spec)
        self.integer = spec.integer_domain
        self.replacing = spec.neighbours == "replace"
        self.fewest = max(1, spec.min_records)

    def starts(self) -> list[DatasetState]:
        rng = np.random.default_rng(self.seed)
        found = []
        for size in START_SIZES:
            shared = self._uniform(rng, max(size, self.fewest))
            removed = self._uniform(rng, 1)[0] if self.replacing else None
            text = f"{len(shared)} random records"
            found.append(DatasetState(shared, removed, self._uniform(rng, 1)[0], 0, text))
        return found

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
        if move == 3:  # the added record redrawn
            return self._with(state, added=self._record(rng, state))
        if move == 4:  # the removed record redrawn (replace), else the added one
            if state.removed is None:
                return self._with(state, added=self._record(rng, state))
            return self._with(state, removed=self._record(rng, state))
        return self._with(state, at=int(rng.integers(k + 1)))  # the change moved elsewhere

    def pair(self, state: DatasetState) -> Pair:
        def with_row(row: np.ndarray) -> np.ndarray:
            return np.asarray(self.records(np.insert(state.shared, state.at, row, axis=0)))

        x = self.records(state.shared) if state.removed is None else with_row(state.removed)
        change = "add" if state.removed is None else "replace one by"
        values = ", ".join(f"{v:g}" for v in state.added)
        text = (
            f"{len(state.shared)} shared records found by a search over datasets (from "
            f"{state.start}, {state.moves} moves kept); {change} a record ({values})"
        )
        return x, with_row(state.added), text

    def _with(self, state: DatasetState, **changed: object) -> DatasetState:
        return replace(state, moves=state.moves + 1, **changed)  # type: ignore[arg-type]

    def _uniform(self, rng: np.random.Generator, k: int) -> np.ndarray:
        """``k`` rows, each column uniform in its bounds on its own."""
        u = rng.random((k, len(self.lows)))
        if self.integer:
            rows = self.lows + np.floor(u * (self.highs - self.lows + 1))
            return np.asarray(np.minimum(rows, self.highs))
        return np.asarray(self.lows + u * (self.highs - self.lows))

    def _record(self, rng: np.random.Generator, state: DatasetState) -> np.ndarray:
        """A new record: each column uniform, at a bound, at the midpoint, or a value the
        state already holds in any column that fits this column's bounds."""
        held = [state.shared.ravel(), state.added]
        if state.removed is not None:
            held.append(state.removed)
        pool = np.concatenate(held)
        row = self._uniform(rng, 1)[0]
        for j in range(len(row)):
            kind = int(rng.integers(4))
            if kind == 1:
                fits = pool[(pool >= self.lows[j]) & (pool <= self.highs[j])]
                if len(fits):
                    row[j] = fits[int(rng.integers(len(fits)))]
            elif kind == 2:
                row[j] = (self.lows[j], self.highs[j], self.mids[j])[int(rng.integers(3))]
        return np.asarray(row)
