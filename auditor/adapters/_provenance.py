"""Provenance helpers shared by the library adapters.

Reports name the exact library release an adapter exercised, so the version comes from the
installed distribution's metadata, not from a constant in this project.
"""

from __future__ import annotations

import numbers
from importlib import metadata

import numpy as np


def installed_version(distribution: str) -> str:
    """Return the installed version of ``distribution`` (a pip name), or ``""`` if unknown."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return ""


def legacy_random_state(entropy: int) -> np.random.RandomState:
    """A ``numpy.random.RandomState`` seeded from the full ``entropy`` (any non-negative int).

    Libraries built on scikit-learn's ``check_random_state`` (diffprivlib) accept a
    ``RandomState`` but not a ``Generator``; routing the entropy through ``SeedSequence`` keeps
    every bit of it instead of truncating to 32 bits.
    """
    if entropy < 0:
        raise ValueError(f"entropy={entropy!r} must be >= 0")
    return np.random.RandomState(np.random.MT19937(np.random.SeedSequence(entropy)))


#: how a reproducer seeds like :func:`legacy_random_state` (needs ``import numpy as np``):
#: ``random_state`` is None, the library's default, until ``seed`` is called
LEGACY_RANDOM_STATE_SOURCE = """\
random_state = None


def seed(entropy):
    global random_state
    random_state = np.random.RandomState(np.random.MT19937(np.random.SeedSequence(entropy)))"""


def as_integer(query: float, argument: str = "query") -> int:
    """Return ``query`` as an ``int``, raising ``ValueError`` if it is not integer-valued."""
    if isinstance(query, numbers.Integral):
        return int(query)
    value = float(query)
    if not value.is_integer():
        raise ValueError(f"{argument}={query!r} must be integer-valued for this adapter")
    return int(value)
