"""Float-representation events: unions of (sign, binade, last mantissa bits) cells.

Floating-point mechanisms leak through the representation of their outputs, not only through
their values: ``1.0 + noise`` rounds differently from ``0.0 + noise``, so in some binades one
neighbour's outputs always have their last mantissa bit clear while the other's have it set
half of the time (Mironov 2012).  Such an event has probability 0 on one side, i.e. epsilon is
infinite, yet no threshold on the value sees it and a linear classifier sees it only partly.

Here every finite output falls in a *cell* = (sign, binary exponent, lowest ``LOW_BITS``
mantissa bits).  Cells are treated as discrete outcomes: their ratio is estimated on the
training split, they are sorted by it, and the unions of the top-r cells (both directions) are
the candidates.  Model-free: no knowledge of the sampler is needed.

Assumptions:
    Outputs are float64 values (integer-valued outputs carry no such information and are skipped).

References:
    Mironov, "On significance of the least significant bits for differential privacy",
    CCS 2012.  Ding et al., StatDP (CCS 2018): discrete outcomes as events.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

from auditor.core.source import array_literal, event_code
from auditor.core.trials import Event

#: lowest mantissa bits that define a cell, together with sign and exponent
LOW_BITS = 2
#: largest union size proposed
MAX_UNION = 64


def cell_keys(y: np.ndarray) -> np.ndarray:
    """The cell of each output as an integer; -1 for NaN and infinities."""
    y = np.asarray(y, dtype=np.float64)
    bits = np.where(np.isfinite(y), y, 0.0).view(np.uint64)
    sign_exp = (bits >> np.uint64(52)).astype(np.int64)  # sign bit and 11 exponent bits
    low = (bits & np.uint64((1 << LOW_BITS) - 1)).astype(np.int64)
    return np.where(np.isfinite(y), (sign_exp << LOW_BITS) | low, -1)


def coarsest_grid(y: np.ndarray) -> float:
    """The largest power of two that divides every finite nonzero entry of ``y`` (inf if there
    is none; NaN, "no answer" in a nullable output, and infinities carry no grid)."""
    y = np.abs(np.asarray(y, dtype=np.float64))
    y = y[np.isfinite(y) & (y != 0)]
    if not y.size:
        return math.inf
    mant, exp = np.frexp(y)
    ints = (mant * 2.0**53).astype(np.int64)  # exact: 53-bit integers
    low = ints & -ints
    return float(np.ldexp(low.astype(np.float64), exp - 53).min())


#: its source, read when this module is loaded (the file on disk may change later)
_CELL_KEYS_SOURCE = inspect.getsource(cell_keys)


def cell_keys_code() -> str:
    """Standalone source defining ``cell_keys`` (with its ``LOW_BITS``), for event sources."""
    return f"LOW_BITS = {LOW_BITS}\n\n\n" + _CELL_KEYS_SOURCE


def describe_cell(key: int) -> str:
    """e.g. ``[0.25, 0.5) with last bits 01``."""
    low = key & ((1 << LOW_BITS) - 1)
    sign_exp = key >> LOW_BITS
    negative, exponent = bool(sign_exp >> 11), sign_exp & 0x7FF
    lo = 0.0 if exponent == 0 else 2.0 ** (exponent - 1023)
    hi = 2.0 ** (max(exponent, 1) - 1022)
    span = f"(-{hi:g}, -{lo:g}]" if negative else f"[{lo:g}, {hi:g})"
    return f"{span} with last bits {low:0{LOW_BITS}b}"


class CellUnion:
    """Predicate: the output's cell is one of ``cells``."""

    #: the partition whose cells it unites (see ``selection_counts``)
    partition = b"float cells"

    def __init__(self, cells: np.ndarray) -> None:
        self.cells = np.unique(np.asarray(cells, dtype=np.int64))
        self.members = self.cells

    @staticmethod
    def cells_of(y: np.ndarray) -> np.ndarray:
        return cell_keys(y)

    def __call__(self, y: np.ndarray) -> np.ndarray:
        return np.isin(cell_keys(y), self.cells)

    def code(self) -> str:
        """Standalone source of this predicate (``Event.source``)."""
        prelude = f"CELLS = {array_literal(self.cells, 'int64')}\n" + cell_keys_code()
        return event_code("np.isin(cell_keys(x), CELLS)", prelude)


def _describe(cells: np.ndarray, side: str) -> str:
    shown = "; ".join(describe_cell(int(c)) for c in cells[:3])
    more = f"; and {len(cells) - 3} more" if len(cells) > 3 else ""
    return (
        f"output's float64 binade and last {LOW_BITS} mantissa bits in {{{shown}{more}}} "
        f"({len(cells)} cells most likely on {side}, chosen on training data)"
    )


def bit_cell_events(a: np.ndarray, b: np.ndarray) -> list[Event]:
    """Unions of the top-ratio cells, both directions, from training outputs ``a`` (x), ``b`` (x').

    Returns [] for integer-valued outputs or when the last bits never vary.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    pooled = np.concatenate([a, b])
    finite = pooled[np.isfinite(pooled)]
    if finite.size == 0 or np.all(finite == np.round(finite)):
        return []
    if not np.any(cell_keys(finite) & ((1 << LOW_BITS) - 1)):
        return []
    ka, kb = cell_keys(a), cell_keys(b)
    keys = np.unique(np.concatenate([ka, kb]))
    keys = keys[keys >= 0]
    if len(keys) < 2:
        return []
    ca = np.searchsorted(keys, ka[ka >= 0])
    cb = np.searchsorted(keys, kb[kb >= 0])
    na = np.bincount(ca, minlength=len(keys)) + 0.5
    nb = np.bincount(cb, minlength=len(keys)) + 0.5
    ratio = np.log(na / na.sum()) - np.log(nb / nb.sum())
    events: list[Event] = []
    for sign, side in ((1.0, "x"), (-1.0, "x'")):
        order = np.argsort(-sign * ratio, kind="stable")
        for r in range(1, min(len(keys), MAX_UNION + 1)):
            chosen = np.sort(keys[order[:r]])
            events.append(Event(_describe(chosen, side), CellUnion(chosen)))
    return events
