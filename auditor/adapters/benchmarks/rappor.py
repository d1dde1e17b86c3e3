"""RAPPOR and one-time RAPPOR (local model), as in DP-Sniper's benchmark."""

from __future__ import annotations

from typing import Any

import gmpy2
import numpy as np

from auditor.adapters.benchmarks.common import Benchmark, _count, _g, _scalar, round_up
from reference_mechanisms.rappor import bloom_filter

# --- RAPPOR (local) ---------------------------------------------------------------------------


class Rappor(Benchmark):
    """One RAPPOR report (Erlingsson, Pihur, Korolova, CCS 2014, steps 1-3): the value's Bloom
    filter (h hashes into m bits), permanent randomized response f, instantaneous randomized
    response p, q; DP-Sniper's ``Rappor`` with its defaults h = 4, m = 20, f = 0.75, p = 0.45,
    q = 0.55, on values in [-10, 10].

    Claim: the paper's epsilon_1 for one report, ``h ln(q*(1-p*)/(p*(1-q*)))`` with
    ``q* = (1 - f/2) q + (f/2) p`` and ``p* = (f/2) q + (1 - f/2) p`` (0.4001 here), rounded up
    by one ulp.  The testers pass no epsilon for RAPPOR (their figures are power comparisons).

    Hashing: ``reference_mechanisms.rappor.bloom_filter`` (SHA-256), not DP-Sniper's murmur3;
    the encoding is public, so only collisions (which can only lower the loss) differ.
    """

    input_kind = "local"
    output_kind = "boolean"

    def __init__(
        self,
        f: float = 0.75,
        p: float = 0.45,
        q: float = 0.55,
        h: int = 4,
        m: int = 20,
        domain: tuple[int, int] = (-10, 10),
        epsilon: float | None = None,
    ) -> None:
        self.f, self.p, self.q = float(f), float(p), float(q)
        if not (0 < self.f < 1 and 0 <= self.p < self.q <= 1):
            raise ValueError(f"f={f!r}, p={p!r}, q={q!r} need 0 < f < 1 and 0 <= p < q <= 1")
        self.h, self.m = _count(h, "h"), _count(m, "m")
        super().__init__(self.theorem_epsilon() if epsilon is None else epsilon)
        lo, hi = (int(v) for v in domain)
        if not lo < hi:
            raise ValueError(f"domain={domain!r} must have lo < hi")
        self.domain = (lo, hi)
        self.output_length = self.m
        self._filters: dict[int, np.ndarray] = {}
        self.correct = self.epsilon >= self.theorem_epsilon()
        self.name = self._name()
        self.description = (
            f"RAPPOR report (Erlingsson et al. CCS 2014; DP-Sniper's Rappor): {self.h}-hash "
            f"{self.m}-bit Bloom filter, permanent RR f = {_g(self.f)}, instantaneous RR p = "
            f"{_g(self.p)}, q = {_g(self.q)}; eps_1 = h ln(q*(1-p*)/(p*(1-q*))) = "
            f"{self.theorem_epsilon():.4f}-local DP (Erlingsson et al.)."
        )

    def _name(self) -> str:
        return f"benchmark.rappor(f={_g(self.f)},p={_g(self.p)},q={_g(self.q)})"

    def bit_rates(self) -> tuple[float, float]:
        """``(P[report bit = 1 | filter bit 0], P[report bit = 1 | filter bit 1])``."""
        half = self.f / 2.0
        return half * self.q + (1 - half) * self.p, (1 - half) * self.q + half * self.p

    def theorem_epsilon(self) -> float:
        """``h ln(q*(1-p*)/(p*(1-q*)))`` for the float f, p, q, rounded up to a float."""
        with gmpy2.context(precision=200):
            half = gmpy2.mpfr(self.f) / 2
            p, q = gmpy2.mpfr(self.p), gmpy2.mpfr(self.q)
            p_star, q_star = half * q + (1 - half) * p, (1 - half) * q + half * p
            ratio = q_star * (1 - p_star) / (p_star * (1 - q_star))
            return round_up(self.h * gmpy2.log(ratio))

    def bloom(self, value: int) -> np.ndarray:
        if value not in self._filters:
            self._filters[value] = bloom_filter(value, self.m, self.h)
        return self._filters[value]

    def _value(self, query: Any) -> int:
        value = _scalar(query)
        lo, hi = self.domain
        if not value.is_integer() or not lo <= value <= hi:
            raise ValueError(f"query={query!r} must be an integer in [{lo}, {hi}]")
        return int(value)

    def _permanent(self, value: int, n: int) -> np.ndarray:
        bits = self.bloom(value).astype(bool)
        u = self._rng.random((n, self.m))
        half = self.f / 2.0
        out: np.ndarray = np.where(u < half, True, np.where(u < self.f, False, bits))
        return out

    def sample(self, query: Any, n: int) -> np.ndarray:
        prr = self._permanent(self._value(query), n)
        report = self._rng.random((n, self.m)) < np.where(prr, self.q, self.p)
        return report.astype(np.int8)


class OneTimeRappor(Rappor):
    """One-time RAPPOR (Erlingsson et al., steps 1-2): the permanent randomized response alone,
    DP-Sniper's ``OneTimeRappor`` (f = 0.95).  Claim: the paper's Thm. 1,
    ``epsilon_inf = 2h ln((1 - f/2)/(f/2))`` (0.8007 here), rounded up by one ulp."""

    def __init__(
        self,
        f: float = 0.95,
        h: int = 4,
        m: int = 20,
        domain: tuple[int, int] = (-10, 10),
        epsilon: float | None = None,
    ) -> None:
        super().__init__(f=f, p=0.0, q=1.0, h=h, m=m, domain=domain, epsilon=epsilon)
        self.description = (
            f"One-time RAPPOR (Erlingsson et al. CCS 2014; DP-Sniper's OneTimeRappor): {self.h}"
            f"-hash {self.m}-bit Bloom filter and permanent RR f = {_g(self.f)} only; "
            f"eps_inf = 2h ln((1-f/2)/(f/2)) = {self.theorem_epsilon():.4f}-local DP (Thm. 1)."
        )

    def _name(self) -> str:
        return f"benchmark.one_time_rappor(f={_g(self.f)})"

    def theorem_epsilon(self) -> float:
        """``2h ln((1 - f/2)/(f/2))`` for the float f, rounded up to a float."""
        with gmpy2.context(precision=200):
            half = gmpy2.mpfr(self.f) / 2
            return round_up(2 * self.h * gmpy2.log((1 - half) / half))

    def sample(self, query: Any, n: int) -> np.ndarray:
        return self._permanent(self._value(query), n).astype(np.int8)
