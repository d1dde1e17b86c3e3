"""Deliberately broken adapters, one per way an implementation can fail the harness.

Loaded by target (``path/to/bad_adapters.py:ALL``) in the CLI test and by worker processes, so
everything here must be importable from the file alone.  ``EXPECTED`` maps each name to a piece
of the error message the harness must report.
"""

from __future__ import annotations

import ctypes
import math
import os
import re
import time

import numpy as np


class _Base:
    family = "additive"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1.0

    def __init__(self, name: str) -> None:
        self.name = name


class Raises(_Base):
    def sample(self, query, n):
        raise RuntimeError("library exploded")


class Hangs(_Base):
    def sample(self, query, n):
        time.sleep(3600)
        return np.zeros(n)


class HangsSeeded(Hangs):
    """Hangs on every call, first one included, and is seedable: the worker's replay check
    calls it right after loading, which must count as a sample call (--timeout), not a load."""

    def seed(self, entropy):
        pass


class HangsOnLargeCalls(_Base):
    """Answers small calls (its load check, a pilot), then hangs: a hang on a warm worker."""

    def sample(self, query, n):
        if n >= 4096:
            time.sleep(3600)
        return np.zeros(n)


class HoldsTheGILOnLargeCalls(_Base):
    """Like HangsOnLargeCalls, but in C code that never releases the GIL (a catastrophic regex),
    as a hung pybind11 call would: the worker's own event loop cannot run, nor answer."""

    def sample(self, query, n):
        if n >= 4096:
            re.match(r"(a+)+$", "a" * 64 + "b")
        return np.zeros(n)


class Exits(_Base):
    def sample(self, query, n):
        os._exit(3)


class Segfaults(_Base):
    def sample(self, query, n):
        ctypes.string_at(0)  # reads address 0: SIGSEGV
        return np.zeros(n)


class ReturnsNaN(_Base):
    def sample(self, query, n):
        out = np.zeros(n)
        out[n // 2] = math.nan
        return out


class ReturnsInf(_Base):
    def sample(self, query, n):
        return np.full(n, math.inf)


class WrongShape(_Base):
    def sample(self, query, n):
        return np.zeros((n, 2))


class WrongLength(_Base):
    def sample(self, query, n):
        return np.zeros(n - 1)


class Strings(_Base):
    def sample(self, query, n):
        return np.array(["0.5"] * n)


class Objects(_Base):
    def sample(self, query, n):
        return np.array([object() for _ in range(n)], dtype=object)


class IndexOutOfRange:
    name = "bad.index_out_of_range"
    family = "selection"
    epsilon = 1.0
    sensitivity = 1.0

    def sample(self, query, n):
        return np.full(n, len(query))  # one past the last index


class NegativeEpsilon(_Base):
    epsilon = -1.0

    def sample(self, query, n):
        return np.zeros(n)


class MissingSensitivity:
    name = "bad.missing_sensitivity"
    family = "additive"
    epsilon = 1.0

    def sample(self, query, n):
        return np.zeros(n)


class GoodGeometric:
    """Discrete Laplace (two-sided geometric), seedable: exact, so never a violation."""

    name = "good.geometric"
    family = "additive"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1
    integer_queries = True

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        g = self._rng.geometric(1.0 - math.exp(-self.epsilon), size=(2, n))
        return int(query) + g[0] - g[1]


#: adapter name -> a piece of the error message the harness must report
EXPECTED = {
    "bad.raises": "sample raised RuntimeError: library exploded",
    "bad.hangs": "did not return within",
    "bad.hangs_seeded": "did not return within",
    "bad.exits": "crashed its worker process (exit code 3)",
    "bad.segfaults": "crashed its worker process (killed by signal SIGSEGV)",
    "bad.nan": "returned nan (outputs must be finite)",
    "bad.inf": "returned inf (outputs must be finite)",
    "bad.wrong_shape": "returned shape (",
    "bad.wrong_length": "expected (",
    "bad.strings": "returned dtype <U3, expected numbers",
    "bad.objects": "returned dtype object, expected numbers",
    "bad.index_out_of_range": "outside [0, 4)",
    "bad.negative_epsilon": "claim epsilon=-1.0 must be a finite number > 0",
    "bad.missing_sensitivity": "attribute 'sensitivity' is missing",
}

#: the cases that take the whole process down: only worker processes survive them
CRASHES = ("bad.exits", "bad.segfaults")


def bad() -> list:
    return [
        Raises("bad.raises"),
        Hangs("bad.hangs"),
        HangsSeeded("bad.hangs_seeded"),
        Exits("bad.exits"),
        Segfaults("bad.segfaults"),
        ReturnsNaN("bad.nan"),
        ReturnsInf("bad.inf"),
        WrongShape("bad.wrong_shape"),
        WrongLength("bad.wrong_length"),
        Strings("bad.strings"),
        Objects("bad.objects"),
        IndexOutOfRange(),
        NegativeEpsilon("bad.negative_epsilon"),
        MissingSensitivity(),
    ]


def good() -> list:
    return [GoodGeometric()]


def everything() -> list:
    return bad() + good()
