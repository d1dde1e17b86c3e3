"""Adapters whose code raises ``SystemExit`` (or another ``BaseException``) where it runs in the
main process: each must end as that adapter's ``error``, never as a run that exits 0 without a
report.  Loaded by target from the CLI tests, so importable from the file alone."""

from __future__ import annotations

import sys

import numpy as np


class Good:
    """Exact discrete Laplace: never a violation."""

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
        g = self._rng.geometric(1.0 - np.exp(-self.epsilon), size=(2, n))
        return int(query) + g[0] - g[1]


class ExitsInSample(Good):
    name = "exits.sample"

    def sample(self, query, n):
        sys.exit(0)


class ExitsInSeed(Good):
    name = "exits.seed"

    def seed(self, entropy):
        raise SystemExit(0)


class ExitsInProbabilities:
    name = "exits.probabilities"
    family = "selection"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1.0

    def sample(self, query, n):
        return np.zeros(n, dtype=int)

    def probabilities(self, query):
        sys.exit(0)


class VersionOfMissingPackage(Good):
    """A ``library_version`` that looks up a package that is not installed."""

    name = "raises.library_version"

    @property
    def library_version(self):
        from importlib.metadata import version

        return version("no-such-package-dp-audit-test")


class ExitingName(Good):
    @property
    def name(self):
        sys.exit(0)


class Skipped(BaseException):
    """Like pytest's ``Skipped``: a BaseException that is neither SystemExit nor Ctrl-C."""


class RaisesBaseException(Good):
    name = "raises.base_exception"

    def sample(self, query, n):
        raise Skipped("not today")


#: adapter name -> a piece of the error message the harness must report
EXPECTED = {
    "exits.sample": "sample raised SystemExit: 0",
    "exits.seed": "seed raised SystemExit: 0",
    "exits.probabilities": "probabilities(query) raised SystemExit: 0",
    "raises.library_version": "reading 'library_version' raised PackageNotFoundError",
    "<ExitingName object>": "reading 'name' raised SystemExit: 0",
    "raises.base_exception": "sample raised Skipped: not today",
}


def adapters() -> list:
    return [
        Good(),
        ExitsInSample(),
        ExitsInSeed(),
        ExitsInProbabilities(),
        VersionOfMissingPackage(),
        ExitingName(),
        RaisesBaseException(),
    ]
