"""Adapters for the engine tests, importable by name in worker processes."""

from __future__ import annotations

from audit_fixtures import GeometricLaplace


class SeedIgnored(GeometricLaplace):
    """Has seed() but ignores it: copies in two workers would replay the same stream."""

    def seed(self, entropy):
        pass
