"""RAPPOR's Bloom-filter encoding with permanent randomized response, exactly (local DP).

Why this module: RAPPOR is the first large deployment of local differential privacy and the
template for many client-side reports; its guarantee depends on the Bloom filter's number of
hash functions h, which implementations (and their claims) easily drop.  This reference makes
every randomized bit an exact rational Bernoulli and gives the exact report pmf, so the claim can
be checked on the output distribution.

**Statement implemented** (Erlingsson, Pihur, Korolova, "RAPPOR: Randomized Aggregatable
Privacy-Preserving Ordinal Response", CCS 2014, Section 2 and Theorem 1):

1. *Signal*: the client's value v is hashed onto a Bloom filter B of m bits with h hash
   functions (``B_i = 1`` iff some hash function maps v to i; collisions leave fewer than h ones).
2. *Permanent randomized response* (PRR), independently for every bit:
   ``B'_i = 1`` with probability f/2, ``0`` with probability f/2, ``B_i`` with probability 1 - f;
   i.e. ``P[B'_i = 1] = f/2`` if ``B_i = 0`` and ``1 - f/2`` if ``B_i = 1``.

Claim: **epsilon-local DP** for any two inputs v, v' with ``epsilon = 2 h ln((1 - f/2)/(f/2))``
(Theorem 1 of the paper, "epsilon_infinity").  Why: the report's pmf is a product over bits;
bits where B(v) and B(v') agree cancel, and each disagreeing bit contributes a factor of at most
``(1 - f/2)/(f/2)``; two Bloom filters of h ones each disagree on at most 2h bits.  The bound is
attained (ratio exactly ``((1 - f/2)/(f/2))^(2h)``) at the report ``B(v)`` when B(v) and B(v')
have h ones each and no common bit.

**One-time RAPPOR.**  The paper's modification for values collected only once: the client sends
the PRR output B' itself, with no instantaneous randomized response (the p, q step that full
RAPPOR applies to the memoised B' before every report).  That is exactly what :meth:`Rappor.sample`
releases: each of the n rows is one independent one-time report (equivalently, the distribution
of the memoised PRR of one client; in full RAPPOR every report is post-processing of it, so the
same epsilon bounds the whole longitudinal sequence).  The instantaneous step is not implemented.

Hashing: a deterministic SHA-256-based family (``hashlib``), not the paper's MD5 layout, so that
encodings are reproducible across runs and platforms; the cohort number selects a different
family, as RAPPOR's cohorts do.  The encoding is public and data-independent, so its choice does
not affect the privacy argument (only collisions, which can only lower the number of ones).

Exactness: f is rational (a float is taken exactly); every bit is one exact Bernoulli draw
(:func:`bernoulli.sample_bernoulli`, uniform integers only); pmfs are ``Fraction``s; the claimed
epsilon is the irrational ``2 h ln((2 - f)/f)`` rounded *up* to a float (MPFR, directed rounding),
and ``ratio_bound = ((2 - f)/f)^(2h)`` is its exact exponential.

Assumptions:
    ``rng.integers`` is exactly uniform; each client contributes one value (local DP: the
    neighbouring inputs are any two values).
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from typing import Any

import gmpy2
import numpy as np

from reference_mechanisms.bernoulli import as_fraction, sample_bernoulli
from reference_mechanisms.params import check_count, check_integer
from reference_mechanisms.randomness import IntegerSource, resolve_rng

__all__ = [
    "MAX_BITS",
    "Rappor",
    "bloom_filter",
    "permanent_randomized_response",
    "prr_bit_probability",
]

#: Largest Bloom filter size m accepted (and the largest number of hash functions h).
MAX_BITS = 1 << 16


def _value_bytes(value: Any) -> bytes:
    """A type-tagged byte encoding of a report value (``str``, ``bytes`` or ``int``)."""
    if isinstance(value, str):
        return b"s:" + value.encode("utf-8")
    if isinstance(value, bytes):
        return b"b:" + value
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return b"i:" + str(int(value)).encode("ascii")
    raise ValueError(f"value={value!r} must be a str, bytes or int")


def bloom_filter(value: Any, m: int, h: int, cohort: int = 0) -> np.ndarray:
    """The Bloom filter of ``value``: uint8 array of m bits with (at most) h ones.

    Hash function i (0 <= i < h) maps v to ``SHA-256(b"rappor" | cohort | i | tag:v) mod m``
    (cohort and i as 4-byte big-endian integers); deterministic and reproducible.

    Raises:
        ValueError: value not a str/bytes/int; m, h or cohort out of range.
    """
    m = check_integer(m, "m", minimum=1, maximum=MAX_BITS)
    h = check_integer(h, "h", minimum=1, maximum=MAX_BITS)
    cohort = check_integer(cohort, "cohort", minimum=0, maximum=(1 << 32) - 1)
    tail = _value_bytes(value)
    out = np.zeros(m, dtype=np.uint8)
    for i in range(h):
        digest = hashlib.sha256(
            b"rappor" + cohort.to_bytes(4, "big") + i.to_bytes(4, "big") + tail
        ).digest()
        out[int.from_bytes(digest, "big") % m] = 1
    return out


def _check_f(f: Any) -> Fraction:
    fr = as_fraction(f, "f")
    if not 0 < fr < 1:
        raise ValueError(f"f={f!r} must be a rational in (0, 1)")
    return fr


def prr_bit_probability(bit: int, f: Any) -> Fraction:
    """``P[B'_i = 1 | B_i = bit]`` under permanent randomized response: f/2 or 1 - f/2 (exact).

    Raises:
        ValueError: bit not 0/1; f not a rational in (0, 1).
    """
    bit = check_integer(bit, "bit", minimum=0, maximum=1)
    fr = _check_f(f)
    return 1 - fr / 2 if bit else fr / 2


def _check_bits(bits: Any) -> np.ndarray:
    a = np.asarray(bits)
    if a.ndim != 1 or a.size == 0 or a.dtype.kind not in "biu":
        raise ValueError(f"bits must be a non-empty 1-D array of 0/1, got {bits!r}")
    if np.any((a != 0) & (a != 1)):
        raise ValueError(f"bits must hold only 0 and 1, got {bits!r}")
    return a.astype(np.uint8)


def permanent_randomized_response(
    bits: Any, f: Any, n: int, rng: IntegerSource | None = None
) -> np.ndarray:
    """``n`` independent PRR outputs of the 0/1 vector ``bits``: uint8 array of shape (n, m).

    Each output bit is one exact Bernoulli draw with probability :func:`prr_bit_probability`.

    Raises:
        ValueError: bits not a non-empty 1-D 0/1 vector; f not in (0, 1); n negative.
    """
    b = _check_bits(bits)
    fr = _check_f(f)
    n = check_count(n)
    rng = resolve_rng(rng)
    out = np.empty((n, b.size), dtype=np.uint8)
    ones = np.flatnonzero(b == 1)
    zeros = np.flatnonzero(b == 0)
    for idx, p in ((ones, 1 - fr / 2), (zeros, fr / 2)):
        if idx.size:
            draws = sample_bernoulli(p, n * idx.size, rng).reshape(n, idx.size)
            out[:, idx] = draws
    return out


class Rappor:
    """RAPPOR's Bloom filter plus permanent randomized response (= one-time RAPPOR reports).

    Args:
        m: Bloom filter size (number of reported bits), 1 <= m <= 2^16.
        h: number of hash functions, 1 <= h <= 2^16.
        f: PRR noise parameter, a rational in (0, 1) (a float is taken exactly).
        cohort: selects the hash family (RAPPOR's cohorts), 0 <= cohort < 2^32.

    Claim: ``epsilon``-local DP with ``epsilon = 2 h ln((1 - f/2)/(f/2))`` (rounded up),
    ``delta = 0`` (Erlingsson, Pihur, Korolova 2014, Thm. 1).

    Raises:
        ValueError: an argument out of range (the message names it and its value).
    """

    def __init__(self, m: int, h: int, f: Any, *, cohort: int = 0) -> None:
        self.m = check_integer(m, "m", minimum=1, maximum=MAX_BITS)
        self.h = check_integer(h, "h", minimum=1, maximum=MAX_BITS)
        self.f = _check_f(f)
        self.cohort = check_integer(cohort, "cohort", minimum=0, maximum=(1 << 32) - 1)
        #: per-bit likelihood ratio (1 - f/2) / (f/2) = (2 - f)/f, exact
        self.bit_ratio: Fraction = (2 - self.f) / self.f
        #: e^epsilon exactly: the largest report-probability ratio between two values
        self.ratio_bound: Fraction = self.bit_ratio ** (2 * self.h)
        with gmpy2.context(precision=256, round=gmpy2.RoundUp):
            eps = (
                2
                * self.h
                * gmpy2.log(
                    gmpy2.mpfr(gmpy2.mpq(self.bit_ratio.numerator, self.bit_ratio.denominator))
                )
            )
        with gmpy2.context(precision=53, round=gmpy2.RoundUp):
            #: the claim 2 h ln((2 - f)/f), rounded up to a float
            self.epsilon = float(+eps)
        self.delta = 0.0

    def __repr__(self) -> str:
        return f"Rappor(m={self.m}, h={self.h}, f={self.f}, cohort={self.cohort})"

    def encode(self, value: Any) -> np.ndarray:
        """The Bloom filter of ``value`` (uint8, m bits)."""
        return bloom_filter(value, self.m, self.h, self.cohort)

    def sample(self, value: Any, n: int, rng: IntegerSource | None = None) -> np.ndarray:
        """``n`` independent one-time RAPPOR reports of ``value``: uint8 array (n, m) of 0/1.

        Raises:
            ValueError: value not a str/bytes/int; n negative.
        """
        bits = self.encode(value)
        return permanent_randomized_response(bits, self.f, n, rng)

    def bit_probabilities(self, value: Any) -> list[Fraction]:
        """``P[report bit i = 1]`` for i = 0..m-1 (exact), for tests and white-box audits."""
        return [prr_bit_probability(int(b), self.f) for b in self.encode(value)]

    def probability(self, report: Any, value: Any) -> Fraction:
        """``P[report | value]``: the product of the per-bit probabilities (exact).

        Raises:
            ValueError: report not a 0/1 vector of length m; value not a str/bytes/int.
        """
        r = _check_bits(report)
        if r.size != self.m:
            raise ValueError(f"report has {r.size} bits, m={self.m}")
        p = Fraction(1)
        for bit, q in zip(r, self.bit_probabilities(value), strict=True):
            p *= q if bit else 1 - q
        return p
