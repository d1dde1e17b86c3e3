"""Adapters of issue #52's probes: parameter searches that cannot run, inputs changed in place,
outputs too large for memory, slow calls to interrupt.

Loaded by target (``path/to/search_adapters.py:attr``) by the CLI tests and by worker
processes, so everything here must be importable from the file alone.
"""

from __future__ import annotations

import math
import os
import time

import numpy as np

from auditor.adapters.reference_dataset import PTRMedianAdapter
from auditor.adapters.reference_vector import VectorLaplaceAdapter
from auditor.core.space import Configurable, Range


class Geometric(Configurable):
    """A correct two-sided geometric mechanism with a searchable epsilon."""

    name = "probe.searchable"
    family = "additive"
    integer_queries = True
    sensitivity = 1.0
    delta = 0.0
    space = {"epsilon": Range(0.5, 2.0, log=True)}

    def __init__(self, epsilon: float = 1.0) -> None:
        self.epsilon = float(epsilon)
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        p = -math.expm1(-self.epsilon)
        return int(query) + self._rng.geometric(p, n) - self._rng.geometric(p, n)


class UnknownParameter(Geometric):
    """Its space names a parameter ``__init__`` does not take: every configuration fails."""

    name = "probe.unknown_parameter"
    space = {"scale": Range(0.5, 2.0)}


class AlwaysRaises(Geometric):
    """``with_parameters`` raises at every point of the space."""

    name = "probe.always_raises"

    def with_parameters(self, **values):
        raise ValueError("this library accepts no configuration")


class SpaceWithoutRebuild:
    """Declares a space but no ``with_parameters``: it cannot be searched."""

    name = "probe.space_only"
    family = "additive"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1.0
    integer_queries = True
    space = {"epsilon": Range(0.5, 2.0)}

    def sample(self, query, n):
        rng = np.random.default_rng()
        p = -math.expm1(-self.epsilon)
        return int(query) + rng.geometric(p, n) - rng.geometric(p, n)


def unknown_parameter():
    return [UnknownParameter(), Geometric()]


def always_raises():
    return [AlwaysRaises(), Geometric()]


def space_without_rebuild():
    return [SpaceWithoutRebuild(), Geometric()]


def space_without_rebuild_alone():
    return [SpaceWithoutRebuild()]


def searchable():
    return [Geometric()]


class SlowSearchable(Geometric):
    """Every ``sample`` call takes a second: a screening to interrupt."""

    name = "probe.slow_searchable"

    def sample(self, query, n):
        time.sleep(1.0)
        return super().sample(query, n)


def slow_searchable():
    return [SlowSearchable()]


class MutatesVector(VectorLaplaceAdapter):
    """Adds one to its query vector in place on every call."""

    def sample(self, query, n):
        out = super().sample(query, n)
        query += 1
        return out


class MutatesDataset(PTRMedianAdapter):
    """Overwrites its dataset's records in place on every call."""

    def sample(self, query, n):
        out = super().sample(query, n)
        records = np.asarray(query)
        records[...] = records.max()
        records[0] = records.min() - 1
        return out


def mutates_inputs():
    return [
        MutatesVector(name="probe.mutates_vector"),
        MutatesDataset(name="probe.mutates_dataset"),
    ]


def mutates_vector():
    return [MutatesVector(name="probe.mutates_vector")]


class ZeroScaleLaplace(Configurable):
    """numpy Laplace at scale sensitivity / epsilon rounded to 3 decimals, as a careless
    library might: below a sensitivity of 0.0005 the scale rounds to zero, no noise is added."""

    name = "probe.zero_scale_laplace"
    family = "additive"
    epsilon = 1.0
    delta = 0.0
    space = {"sensitivity": Range(1e-4, 4e-4, log=True)}

    def __init__(self, sensitivity: float = 1e-4) -> None:
        self.sensitivity = float(sensitivity)
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        return self._rng.laplace(float(query), round(self.sensitivity / self.epsilon, 3), n)


def zero_scale_laplace():
    return [ZeroScaleLaplace()]


class Wide:
    """A vector output of a million values per output: thousands of them fill the memory."""

    name = "probe.wide"
    input_kind = "scalar"
    output_kind = "real"
    output_length = 10**6
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1.0

    def sample(self, query, n):
        rng = np.random.default_rng()
        return float(query) + rng.laplace(0.0, 1.0, (n, self.output_length))


class Wider(Wide):
    """A hundred million values per output: no machine holds the 800 an audit needs."""

    name = "probe.wider"
    output_length = 10**8


def wide():
    return [Wide(), Geometric()]


def wider():
    return [Wider(), Geometric()]


class CrashesAtLargeEpsilon(Geometric):
    """Kills its process (as a segfault would) at epsilon above 1.2, samples correctly below."""

    name = "probe.crashes_at_large_epsilon"

    def sample(self, query, n):
        if self.epsilon > 1.2:
            os._exit(3)
        return super().sample(query, n)


def crashes_at_large_epsilon():
    return [CrashesAtLargeEpsilon()]
