"""The privacy claim an implementation makes, and the four families of mechanisms."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from auditor.core.errors import InvalidArgument


class Family(StrEnum):
    """How an attack talks to an implementation: the query it sends and the output it gets.

    ``additive``: query is the true answer f(D) (a number); outputs are numbers.
    ``selection``: query is a utility vector of k numbers; outputs are indices in [0, k).
    ``binary``: query is a bit; outputs are bits.
    ``dataset``: query is a 1-D array of records in a declared domain; outputs are numbers,
    NaN standing for the "no answer" symbol ⊥.
    """

    ADDITIVE = "additive"
    SELECTION = "selection"
    BINARY = "binary"
    DATASET = "dataset"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class PrivacyClaim:
    """What an implementation promises: (epsilon, delta)-differential privacy.

    Raises:
        InvalidArgument: epsilon is not a finite number > 0, or delta is not in [0, 1).
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        eps, delta = self.epsilon, self.delta
        if (
            isinstance(eps, bool)
            or not isinstance(eps, int | float)
            or not math.isfinite(eps)
            or eps <= 0
        ):
            raise InvalidArgument(f"epsilon={eps!r} must be a finite number > 0")
        if (
            isinstance(delta, bool)
            or not isinstance(delta, int | float)
            or not (0.0 <= delta < 1.0)
        ):
            raise InvalidArgument(f"delta={delta!r} must be a number in [0, 1)")
        object.__setattr__(self, "epsilon", float(eps))
        object.__setattr__(self, "delta", float(delta))

    def to_dict(self) -> dict[str, float]:
        return {"epsilon": self.epsilon, "delta": self.delta}
