"""Adapters for the engine tests, importable by name in worker processes."""

from __future__ import annotations

import os

import numpy as np
from audit_fixtures import GeometricLaplace


class SeedIgnored(GeometricLaplace):
    """Has seed() but ignores it: copies in two workers would replay the same stream."""

    def seed(self, entropy):
        pass


def cli_adapters() -> list:
    """Seedable adapters for CLI runs: one exact, one broken by calibration, one float Laplace."""
    from audit_fixtures import RandomizedResponse

    from auditor.adapters.textbook import TextbookLaplace

    return [
        GeometricLaplace(1.0, name="fixture.dlap"),
        RandomizedResponse(1.0, name="fixture.bad_rr", p_true=0.9),
        TextbookLaplace(1.0, name="fixture.textbook_laplace"),
    ]


class SleepsOnLargeCalls(GeometricLaplace):
    """Answers its load check (16 outputs), then hangs on larger calls."""

    def sample(self, query, n):
        if n > 16:
            import time

            time.sleep(3600)
        return super().sample(query, n)


class Counter:
    """Unseedable and deterministic: each copy replays 0, 1, 2, ... from where it is."""

    name, family, epsilon, sensitivity = "test.counter", "additive", 1.0, 1.0

    def __init__(self):
        self.next = 0

    def sample(self, query, n):
        out = np.arange(self.next, self.next + n, dtype=float)
        self.next += n
        return out


class ProcessStamp:
    """Unseedable, declares ``os_entropy``: each output is the id of the process that drew it
    plus a fraction from the OS (so that the outputs are not all alike)."""

    name, family, epsilon, sensitivity = "test.process_stamp", "additive", 1.0, 1.0
    os_entropy = True

    def sample(self, query, n):
        fraction = np.frombuffer(os.urandom(8 * n), dtype=np.uint64) / 2.0**64
        return os.getpid() + fraction


class Exits:
    name, family, epsilon, sensitivity = "test.exits", "additive", 1.0, 1.0

    def sample(self, query, n):
        os._exit(3)


def strip_timing(value):
    """A report dict without its ``timing`` keys and its ``run_id``: what must match between
    equal runs."""
    if isinstance(value, dict):
        return {k: strip_timing(v) for k, v in value.items() if k not in ("timing", "run_id")}
    if isinstance(value, list):
        return [strip_timing(v) for v in value]
    return value
