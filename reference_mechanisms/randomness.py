"""Injectable sources of uniform random integers for the exact samplers.

Every exact sampler in :mod:`reference_mechanisms` consumes randomness only as uniform integers,
through one method with numpy's signature::

    rng.integers(low, high=None, size=None) -> np.int64 | np.ndarray[int64]

(``high`` exclusive; ``low``/``high`` may be arrays that broadcast against ``size``).  A
``numpy.random.Generator`` satisfies this protocol, which is what tests and the audit harness pass
(seeded, reproducible).  Production use needs unpredictable randomness: :class:`SystemRandomness`
draws from the operating system's CSPRNG (``os.urandom``), vectorised.

Ranges wider than int64 are served by :func:`randbelow`, which composes 32-bit draws into an exact
uniform Python ``int`` (rejection sampling, so no modulo bias).

References:
    Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020
    (all samplers are written against a uniform-integer oracle ``randrange``).
"""

from __future__ import annotations

import os
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["IntegerSource", "SystemRandomness", "randbelow", "resolve_rng"]

#: Largest exclusive bound the vectorised int64 paths use (keeps sums like ``u + t*v`` far from
#: overflow in callers that check against it).
INT64_SAFE = 1 << 62


@runtime_checkable
class IntegerSource(Protocol):
    """Anything that draws uniform integers in ``[low, high)`` like ``numpy.random.Generator``."""

    def integers(self, low: Any, high: Any = None, size: Any = None) -> Any:  # pragma: no cover
        ...


def _smear(m: np.ndarray) -> np.ndarray:
    """Smallest all-ones mask >= m, elementwise (m as uint64)."""
    for shift in (1, 2, 4, 8, 16, 32):
        m = m | (m >> np.uint64(shift))
    return m


class SystemRandomness:
    """Cryptographically secure uniform integers from ``os.urandom``, vectorised.

    Implements ``integers(low, high=None, size=None)`` with numpy's semantics for int64 bounds
    (``high`` exclusive, array bounds broadcast).  Each value is drawn by masking 64 random bits to
    the next power of two above the range and rejecting values outside it, so every value in the
    range is exactly equally likely (acceptance >= 1/2 per round).

    Not seedable by design: use a ``numpy.random.Generator`` where reproducibility is wanted.
    """

    def integers(self, low: Any, high: Any = None, size: Any = None) -> Any:
        if high is None:
            low, high = 0, low
        lo = np.asarray(low, dtype=np.int64)
        hi = np.asarray(high, dtype=np.int64)
        shape = np.broadcast_shapes(lo.shape, hi.shape) if size is None else _as_shape(size)
        lo = np.broadcast_to(lo, shape)
        hi = np.broadcast_to(hi, shape)
        if np.any(hi <= lo):
            raise ValueError(f"high={high!r} must be > low={low!r}")
        span = (hi.astype(np.uint64) - lo.astype(np.uint64)).reshape(-1)
        mask = _smear(span - np.uint64(1))
        out = np.empty(span.shape, dtype=np.uint64)
        todo = np.arange(span.size)
        while todo.size:
            raw = np.frombuffer(os.urandom(8 * todo.size), dtype=np.uint64)
            v = raw & mask[todo]
            ok = v < span[todo]
            out[todo[ok]] = v[ok]
            todo = todo[~ok]
        res = (out.astype(np.int64) + lo.reshape(-1)).reshape(shape)
        if size is None and res.ndim == 0:
            return np.int64(res)
        return res

    def __repr__(self) -> str:
        return "SystemRandomness()"


def _as_shape(size: Any) -> tuple[int, ...]:
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


def resolve_rng(rng: IntegerSource | None) -> IntegerSource:
    """The default source: ``SystemRandomness()`` when ``rng`` is None, else ``rng`` unchanged."""
    if rng is None:
        return SystemRandomness()
    if not hasattr(rng, "integers"):
        raise ValueError(f"rng={rng!r} must have an .integers(low, high, size) method")
    return rng


def randbelow(rng: IntegerSource, n: int) -> int:
    """Exact uniform Python ``int`` in ``[0, n)`` for any ``n >= 1`` (arbitrary size).

    Small ``n`` uses one ``rng.integers`` call; larger ``n`` composes 32-bit words and rejects
    values ``>= n`` (acceptance >= 1/2), so the result is exactly uniform.
    """
    n = int(n)
    if n < 1:
        raise ValueError(f"n={n!r} must be >= 1")
    if n <= INT64_SAFE:
        return int(rng.integers(0, n))
    nbits = (n - 1).bit_length()
    words = (nbits + 31) // 32
    top_mask = (1 << (nbits - 32 * (words - 1))) - 1
    while True:
        w = np.asarray(rng.integers(0, 1 << 32, size=words), dtype=np.int64)
        v = int(w[0]) & top_mask
        for x in w[1:]:
            v = (v << 32) | int(x)
        if v < n:
            return v
