"""What both kinds of root cause read from a result: its scalar output sample, counts and
queries, and the numbers' wording.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from reports.evidence import query_text
from reports.view import AdapterReport

#: attacks whose findings are about the floating-point representation of outputs
FLOAT_ATTACKS = frozenset({"precision", "lsb-laplace"})
#: event texts that describe bits of the representation, not values
FLOAT_EVENT = re.compile(r"mantissa|multiple of|\bdouble\b|\bulp\b|binade|\bgrid\b|porous", re.I)
#: share of the event's outputs at x off the x′ grid for the grid to be "the" separation
GRID_EXPLAINS = 0.9
#: hex examples shown
EXAMPLES = 3
#: quantile bins of the privacy-loss distribution (before merging thin ones)
LOSS_BINS = 20
#: distinct values up to which outputs are binned one value per bin
DISCRETE_VALUES = 40


@dataclass(frozen=True)
class _Sample:
    x: np.ndarray
    x_prime: np.ndarray
    in_x: np.ndarray
    in_x_prime: np.ndarray
    source: str


def scalar_sample(r: AdapterReport) -> _Sample | None:
    """The result's output sample as float arrays, or None (absent, vector, non-numeric)."""
    s = r.output_sample
    if s is None:
        return None
    arrays = []
    for values in (s.x, s.x_prime):
        if not values:
            return None
        if any(isinstance(v, list | tuple | dict) for v in values):
            return None
        try:
            arrays.append(np.array([float(v) for v in values], dtype=np.float64))
        except (TypeError, ValueError):
            return None
    marks = [np.asarray(m, dtype=bool) for m in (s.in_event_x, s.in_event_x_prime)]
    if len(marks[0]) != len(arrays[0]) or len(marks[1]) != len(arrays[1]):
        return None
    sample = _Sample(arrays[0], arrays[1], marks[0], marks[1], s.source or "training")
    if _marks_only(r, sample):
        return None
    return sample


def _marks_only(r: AdapterReport, s: _Sample) -> bool:
    """Vector outputs with no projection are stored as their in/out-of-event marks: no values."""
    if r.family == "binary":
        return False
    return bool(
        np.array_equal(s.x, s.in_x.astype(np.float64))
        and np.array_equal(s.x_prime, s.in_x_prime.astype(np.float64))
    )


def _counts(r: AdapterReport) -> tuple[int, int, int, int] | None:
    c = r.counts
    if c is None:
        return None
    return (c.n0, c.k0, c.n1, c.k1) if c.n0 > 0 and c.n1 > 0 else None


def pow2(grid: float) -> str:
    """``2^-53`` for a power of two."""
    return f"2^{math.frexp(grid)[1] - 1}"


def pct(k: int, n: int) -> str:
    return f"{100.0 * k / n:.3g} %" if n else "–"


def _g(value: float) -> str:
    """A number for a sentence, with a true minus sign."""
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.4g}".replace("-", "−")


def off_grid(values: np.ndarray, grid: float) -> np.ndarray:
    """Finite ``values`` that are not multiples of the power of two ``grid`` (fmod is exact)."""
    v = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(v)
    off = np.zeros(len(v), dtype=bool)
    if math.isfinite(grid) and grid > 0:
        off[finite] = np.fmod(v[finite], grid) != 0
    return off


def non_integer(values: np.ndarray) -> bool:
    finite = values[np.isfinite(values)]
    return bool(len(finite)) and not bool(np.all(finite == np.round(finite)))


def _queries(r: AdapterReport) -> tuple[str, str]:
    q = r.queries or (None, None)
    return query_text(q[0]), query_text(q[1])
