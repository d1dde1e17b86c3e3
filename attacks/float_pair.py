"""What the white-box floating-point attacks share: a distinguisher for one pair of float
inputs that picks a single event (a set of outputs reachable at x but not at x') from a small
training split of float outputs."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class FloatPairDistinguisher:
    """One event for the pair ``(x, x_prime)``, chosen on 5 % of the budget; subclasses add
    what they choose from and a ``propose``."""

    x: float
    x_prime: float
    max_events: int = field(default=1, kw_only=True)
    train_fraction: float = field(default=0.05, kw_only=True)


def float_training(
    train_x: np.ndarray, train_x_prime: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """Both training splits as float64 arrays, or None unless both are non-empty floats (an
    integer-valued mechanism has no float grid to attack)."""
    if not (
        len(train_x)
        and len(train_x_prime)
        and np.issubdtype(train_x.dtype, np.floating)
        and np.issubdtype(train_x_prime.dtype, np.floating)
    ):
        return None
    return np.asarray(train_x, dtype=np.float64), np.asarray(train_x_prime, dtype=np.float64)
