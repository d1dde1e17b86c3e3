"""diffprivlib's mechanisms with a finite output set: the exponential mechanism and binary
randomized response.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters._provenance import (
    as_integer,
)
from auditor.adapters.base import call_source, keywords
from auditor.adapters.diffprivlib_adapters.common import EPSILON, SENSITIVITY, DiffprivlibAdapter


class Exponential(DiffprivlibAdapter):
    """``diffprivlib.mechanisms.Exponential``: exponential mechanism, higher utility is better.

    The library shifts utilities by their maximum before exponentiating, then samples by
    comparing one uniform with the cumulative probabilities.  ``probabilities(query)`` returns
    the library's own (float) selection probabilities.
    """

    name = "diffprivlib.exponential"
    family = "selection"
    delta = 0.0
    #: higher utility is more likely (diffprivlib's convention)
    maximise = True
    description = "diffprivlib.mechanisms.Exponential (max-shifted float weights, cumulative sum)"
    space = {"epsilon": EPSILON, "sensitivity": SENSITIVITY}

    def __init__(self, epsilon: float = 1.0, sensitivity: float = 1.0) -> None:
        super().__init__()
        self.epsilon = float(epsilon)
        self.sensitivity = float(sensitivity)
        self._mechanism([0.0, 1.0])

    def _mechanism(self, query: Any) -> Any:
        from diffprivlib.mechanisms import Exponential as _Exponential

        return _Exponential(
            epsilon=self.epsilon,
            sensitivity=self.sensitivity,
            utility=[float(u) for u in np.asarray(query, dtype=np.float64).ravel()],
            random_state=self._random_state,
        )

    def _reproducer_code(self) -> str:
        arguments = keywords(epsilon=self.epsilon, sensitivity=self.sensitivity)
        construct = call_source(
            "    return mechanisms.Exponential",
            [*arguments, "utility=utility", "random_state=random_state"],
        )
        return f"""
def exponential(query):
    utility = [float(u) for u in np.asarray(query, dtype=np.float64).ravel()]
{construct}


def probabilities(query):
    cumulative = np.asarray(exponential(query)._probabilities, dtype=np.float64)
    return np.diff(cumulative, prepend=0.0)


def sample(query, n):
    mechanism = exponential(query)
    return np.fromiter((mechanism.randomise() for _ in range(n)), np.int64, count=n)
"""

    def probabilities(self, query: Any) -> np.ndarray:
        """The library's selection probabilities for utility vector ``query`` (length k)."""
        cumulative = np.asarray(self._mechanism(query)._probabilities, dtype=np.float64)
        return np.diff(cumulative, prepend=0.0)

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` selected indices in ``[0, k)`` for utility vector ``query``."""
        mechanism = self._mechanism(query)
        return np.fromiter((mechanism.randomise() for _ in range(n)), np.int64, count=n)


class Binary(DiffprivlibAdapter):
    """``diffprivlib.mechanisms.Binary``: randomized response on the labels ``"0"``/``"1"``."""

    name = "diffprivlib.binary"
    family = "binary"
    delta = 0.0
    description = "diffprivlib.mechanisms.Binary (randomized response, one float uniform)"
    space = {"epsilon": EPSILON}

    def __init__(self, epsilon: float = 1.0) -> None:
        super().__init__()
        self.epsilon = float(epsilon)
        self._mechanism()

    def _mechanism(self) -> Any:
        from diffprivlib.mechanisms import Binary as _Binary

        return _Binary(
            epsilon=self.epsilon, value0="0", value1="1", random_state=self._random_state
        )

    def _reproducer_code(self) -> str:
        arguments = keywords(epsilon=self.epsilon, value0="0", value1="1")
        construct = call_source(
            "    mechanism = mechanisms.Binary", [*arguments, "random_state=random_state"]
        )
        return f"""
def sample(query, n):
{construct}
    label = str(int(query))
    return np.fromiter((int(mechanism.randomise(label)) for _ in range(n)), np.int64, count=n)
"""

    def sample(self, query: int, n: int) -> np.ndarray:
        """``n`` released bits (0/1) for the true bit ``query``."""
        bit = as_integer(query)
        if bit not in (0, 1):
            raise ValueError(f"query={query!r} must be a bit, 0 or 1")
        mechanism, label = self._mechanism(), str(bit)
        return np.fromiter((int(mechanism.randomise(label)) for _ in range(n)), np.int64, count=n)
