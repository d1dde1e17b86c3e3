"""Adapters for the engine tests, importable by name in worker processes."""

from __future__ import annotations

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
