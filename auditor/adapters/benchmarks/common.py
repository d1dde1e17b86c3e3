"""What every benchmark adapter shares: argument checks and the pure-epsilon, numpy-noise base class."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from auditor.adapters.base import SeededAdapter

#: Lyu, Su, Li, "Understanding the Sparse Vector Technique for Differential Privacy"
LYU = "Lyu, Su, Li, PVLDB 10(6) 2017"


def _g(x: Any) -> str:
    return f"{float(x):g}"


def _epsilon(epsilon: Any) -> float:
    value = float(epsilon)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"epsilon={epsilon!r} must be a finite number > 0")
    return value


def round_up(value: Any) -> float:
    """The least float >= ``value`` (an mpfr computed at 200 bits, far beyond a float's 53)."""
    out = float(value)
    return math.nextafter(out, math.inf) if out < value else out


def _count(value: Any, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or int(value) != value or int(value) < minimum:
        raise ValueError(f"{name}={value!r} must be a whole number >= {minimum}")
    return int(value)


def _scalar(query: Any) -> float:
    """One finite number (a 0-d or one-element array is that number)."""
    q = np.asarray(query, dtype=float)
    if q.size != 1:
        raise ValueError(f"query={query!r} must be one number")
    value = float(q.reshape(()))
    if not math.isfinite(value):
        raise ValueError(f"query={query!r} must be finite")
    return value


def _vector(query: Any, length: int | None = None, integers: bool = False) -> np.ndarray:
    """A 1-D float array of finite query answers (of ``length`` entries when given)."""
    q = np.asarray(query, dtype=float)
    if q.ndim != 1 or q.size == 0:
        raise ValueError(f"query must be a non-empty 1-D array of numbers, got shape {q.shape}")
    if not np.isfinite(q).all():
        raise ValueError("query must hold finite numbers")
    if length is not None and q.size != length:
        raise ValueError(f"query has {q.size} entries; this mechanism answers exactly {length}")
    if integers and not np.array_equal(q, np.round(q)):
        raise ValueError("query must hold integers (counts)")
    return q


class Benchmark(SeededAdapter):
    """Shared claim fields: pure epsilon-DP claims, numpy noise."""

    library = "numpy"
    delta = 0.0
    #: the literature's verdict on the claim as declared (epsilon and neighbouring relation)
    correct: bool = True

    def __init__(self, epsilon: float) -> None:
        super().__init__()
        self.epsilon = _epsilon(epsilon)
        self.library_version = np.__version__
