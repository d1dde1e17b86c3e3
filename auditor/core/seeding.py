"""Deterministic seeds for every draw the harness makes."""

from __future__ import annotations

import zlib

import numpy as np


def entropy(seed: int, *labels: object) -> int:
    """A 64-bit seed derived from the run's seed and stable labels (names, indices)."""
    words = [seed] + [zlib.crc32(str(label).encode()) for label in labels]
    return int(np.random.SeedSequence(words).generate_state(1, np.uint64)[0])
