"""Strict adapters: correct mechanisms of every input and output kind, each of which refuses
(raises ValueError on) any input its declaration does not allow -- a query of another length,
outside its bounds, a fraction where it declared integers, a record outside its domain, a
fraction in an integer domain, a value outside a local domain.  A library function with a
fixed candidate set or a validated domain behaves like this, and every attack must respect
the declaration, or a correct adapter ends in ``error`` instead of being audited.

Plain numpy; no dp-audit import.  Every real output is rounded to a 2^-20 grid (no
floating-point leak to find: these are all correct).  Run them all (about 3 minutes on 2
cores):

    dp-audit run --adapter bench/strict_adapters.py:ADAPTERS --budget 20000 --out strict

Written on 2026-11-27 as a fuzz; its first run found three attacks sending undeclared inputs
(`family = "selection"` ignored `query_length`; the black-box dataset pairs put 4.5 into the
integer domain 0..9), fixed the same day.  ``tests/statistical/test_strict_adapters.py`` keeps
every one of them free of errors and violations.
"""

from __future__ import annotations

import itertools

import numpy as np

GRID = 2.0**20


def _grid(x):
    return np.round(np.asarray(x, dtype=float) * GRID) / GRID


class _Strict:
    delta = 0.0
    library = "strict-test"

    def __init__(self, **declared):
        self.__dict__.update(declared)
        self.epsilon = declared.get("epsilon", 1.0)
        words = ",".join(f"{k}={v}" for k, v in declared.items() if k != "epsilon")
        self.name = f"strict.{type(self).__name__.lower()}({words})"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def _query(self, query):
        """The query as floats, after every check its declaration implies."""
        q = np.asarray(query)
        if q.dtype.kind not in "iuf" or not np.all(np.isfinite(q)):
            raise ValueError(f"expected finite numbers, got {q!r}")
        bounds = getattr(self, "query_bounds", None) or getattr(self, "utility_bounds", None)
        if bounds is not None and (q.min() < bounds[0] or q.max() > bounds[1]):
            raise ValueError(f"expected values in {bounds}, got {q.min()}..{q.max()}")
        if getattr(self, "integer_queries", False) and not np.array_equal(q, np.round(q)):
            raise ValueError(f"expected whole numbers, got {q!r}")
        length = getattr(self, "query_length", None)
        if length is not None and q.shape != (length,):
            raise ValueError(f"expected {length} entries, got shape {q.shape}")
        return q.astype(float)

    def _records(self, records):
        d = np.asarray(records)
        domains = self.domain if getattr(self, "columns", 1) > 1 else (self.domain,)
        rows = d.reshape(len(d), -1) if d.size else np.zeros((0, len(domains)))
        if rows.shape[1] != len(domains):
            raise ValueError(f"expected {len(domains)} columns, got shape {d.shape}")
        for j, (lo, hi) in enumerate(domains):
            if len(rows) and (rows[:, j].min() < lo or rows[:, j].max() > hi):
                raise ValueError(f"column {j}: expected records in [{lo}, {hi}]")
            if isinstance(lo, int) and not np.array_equal(rows[:, j], np.round(rows[:, j])):
                raise ValueError(f"column {j}: expected whole-number records")
        return rows.astype(float)


class ScalarLaplace(_Strict):
    family = "additive"

    def sample(self, query, n):
        q = self._query(query)
        if q.shape != ():
            raise ValueError(f"expected one number, got shape {q.shape}")
        return _grid(q + self._rng.laplace(0, self.sensitivity / self.epsilon, n))


class VectorLaplace(_Strict):
    """Laplace per entry, calibrated to the L1 sensitivity the declared norm implies."""

    input_kind, output_kind, output_length = "vector", "real", "query"

    def sample(self, query, n):
        q = self._query(query)
        m = len(q)
        l1 = self.sensitivity * {"l1": 1.0, "l2": np.sqrt(m), "linf": m}[self.norm]
        return _grid(q + self._rng.laplace(0, l1 / self.epsilon, (n, m)))


class NoisyMax(_Strict):
    """The exponential mechanism as report-noisy-max with Gumbel(2 sensitivity / eps)."""

    family = "selection"

    def sample(self, query, n):
        q = self._query(query)
        noise = self._rng.gumbel(0, 2 * self.sensitivity / self.epsilon, (n, len(q)))
        return np.argmax(q + noise, axis=1)


class NoisyMaxIndex(NoisyMax):
    family = None
    input_kind, norm, output_kind = "vector", "linf", "index"


class SparseVector(_Strict):
    """Lyu, Su & Li's Alg. 1 with c = m (every query answered): rho ~ Lap(2/eps),
    nu ~ Lap(4m/eps), threshold 5."""

    input_kind, norm, output_kind, output_length = "vector", "linf", "boolean", "query"

    def sample(self, query, n):
        q = self._query(query)
        rho = self._rng.laplace(0, 2 * self.sensitivity / self.epsilon, (n, 1))
        nu = self._rng.laplace(0, 4 * len(q) * self.sensitivity / self.epsilon, (n, len(q)))
        return (q + nu >= 5 + rho).astype(np.int8)


class TopK(_Strict):
    """One-shot Gumbel top-k: k peeling rounds of the exponential mechanism at eps/k each."""

    input_kind, norm, output_kind = "vector", "linf", "index_set"

    def sample(self, query, n):
        q = self._query(query)
        k = self.output_length
        scale = 2 * k * self.sensitivity / self.epsilon
        top = np.argsort(-(q + self._rng.gumbel(0, scale, (n, len(q)))), axis=1)[:, :k]
        return top if getattr(self, "ordered", True) else np.sort(top, axis=1)


class MaxWithValue(_Strict):
    """The noisy max's index at eps/2, its score plus Laplace at eps/2."""

    input_kind, norm, output_kind = "vector", "linf", "record"
    fields = {"index": "index", "value": "real"}

    def sample(self, query, n):
        q = self._query(query)
        half = self.epsilon / 2
        i = np.argmax(q + self._rng.gumbel(0, 2 * self.sensitivity / half, (n, len(q))), axis=1)
        out = np.empty(n, dtype=[("index", np.int64), ("value", float)])
        out["index"] = i
        out["value"] = _grid(q[i] + self._rng.laplace(0, self.sensitivity / half, n))
        return out


class VectorGaussian(_Strict):
    """The classic Gaussian mechanism, sigma = sensitivity sqrt(2 ln(1.25/delta)) / eps."""

    input_kind, norm, output_kind, output_length = "vector", "l2", "real", "query"

    def sample(self, query, n):
        q = self._query(query)
        sigma = self.sensitivity * np.sqrt(2 * np.log(1.25 / self.delta)) / self.epsilon
        return _grid(q + self._rng.normal(0, sigma, (n, len(q))))


class PrefixSums(_Strict):
    """The first three prefix sums of the query, Laplace(3 sensitivity / eps) each."""

    input_kind, norm, output_kind, output_length = "vector", "l1", "real", 3

    def sample(self, query, n):
        q = self._query(query)
        sums = np.cumsum(np.r_[q, np.zeros(3)])[:3]
        return _grid(sums + self._rng.laplace(0, 3 * self.sensitivity / self.epsilon, (n, 3)))


class ClampedSum(_Strict):
    """The sum of the records plus Laplace(the sum's sensitivity under the relation)."""

    family = "dataset"

    def sample(self, records, n):
        rows = self._records(records)
        lo, hi = self.domain
        delta = max(abs(lo), abs(hi)) if self.neighbours == "add_remove" else hi - lo
        return _grid(rows.sum() + self._rng.laplace(0, delta / self.epsilon, n))


class ColumnSums(_Strict):
    """Both columns' sums plus Laplace(the L1 sensitivity of the pair under the relation)."""

    input_kind, columns, output_kind, output_length = "dataset", 2, "real", 2

    def sample(self, records, n):
        rows = self._records(records)
        if self.neighbours == "add_remove":
            l1 = sum(max(abs(lo), abs(hi)) for lo, hi in self.domain)
        else:
            l1 = sum(hi - lo for lo, hi in self.domain)
        return _grid(rows.sum(axis=0) + self._rng.laplace(0, l1 / self.epsilon, (n, 2)))


class MeanOfThree(_Strict):
    """None for fewer than 3 records, else the clamped mean plus Laplace; replace-one only,
    where the size is public."""

    input_kind, output_kind, nullable, neighbours = "dataset", "real", True, "replace"

    def sample(self, records, n):
        rows = self._records(records)
        if len(rows) < 3:
            return np.full(n, np.nan)
        lo, hi = self.domain
        scale = (hi - lo) / (len(rows) * self.epsilon)
        return _grid(rows.mean() + self._rng.laplace(0, scale, n))


class RandomizedResponse(_Strict):
    """k-ary randomized response over the local domain (keep with e^eps / (e^eps + k - 1))."""

    input_kind, output_kind = "local", "integer"

    def sample(self, value, n):
        lo, hi = self.domain
        if not (np.ndim(value) == 0 and float(value) == int(value) and lo <= value <= hi):
            raise ValueError(f"expected an integer in [{lo}, {hi}], got {value!r}")
        v, k, e = int(value), hi - lo + 1, np.exp(self.epsilon)
        keep = self._rng.random(n) < e / (e + k - 1)
        other = self._rng.integers(lo, hi, n)
        return np.where(keep, v, np.where(other >= v, other + 1, other))


class BinaryResponse(_Strict):
    family = "binary"

    def sample(self, value, n):
        if value not in (0, 1):
            raise ValueError(f"expected a bit, got {value!r}")
        keep = self._rng.random(n) < np.exp(self.epsilon) / (1 + np.exp(self.epsilon))
        return np.where(keep, value, 1 - value).astype(np.int8)


ADAPTERS: list[_Strict] = []
_BOUNDS = [None, (0.0, 100.0), (10.0, 20.0), (-20.0, -10.0), (0.0, 0.5)]
for bounds, integer in itertools.product(_BOUNDS, [False, True]):
    if integer and bounds == (0.0, 0.5):
        continue  # no pair of whole numbers one apart inside
    kw: dict = {"query_bounds": bounds} if bounds else {}
    selection: dict = {"utility_bounds": bounds} if bounds else {}
    if integer:
        kw["integer_queries"] = selection["integer_queries"] = True
    ADAPTERS.append(ScalarLaplace(sensitivity=1.0, **kw))
    ADAPTERS += [VectorLaplace(norm=norm, sensitivity=1.0, **kw) for norm in ("l1", "l2", "linf")]
    ADAPTERS.append(VectorLaplace(norm="l1", sensitivity=1.0, query_length=3, **kw))
    ADAPTERS.append(NoisyMax(sensitivity=1.0, **selection))
    ADAPTERS.append(NoisyMax(sensitivity=1.0, query_length=4, **selection))
    ADAPTERS.append(NoisyMaxIndex(sensitivity=1.0, **kw))
    ADAPTERS.append(SparseVector(sensitivity=1.0, query_length=6, **kw))
for kw in [{}, {"query_length": 6}, {"query_bounds": (10.0, 20.0)}]:
    ADAPTERS.append(TopK(sensitivity=1.0, output_length=2, **kw))
    ADAPTERS.append(TopK(sensitivity=1.0, output_length=3, ordered=False, **kw))
    ADAPTERS.append(MaxWithValue(sensitivity=1.0, **kw))
    ADAPTERS.append(VectorGaussian(sensitivity=1.0, epsilon=0.9, delta=1e-5, **kw))
ADAPTERS.append(TopK(sensitivity=1.0, output_length=2, integer_queries=True, query_length=5))
ADAPTERS.append(PrefixSums(sensitivity=1.0))
ADAPTERS.append(PrefixSums(sensitivity=1.0, query_length=4, integer_queries=True))
for neighbours in ("add_remove", "replace"):
    for domain in [(0, 9), (0.0, 1.0), (5.0, 7.0), (-3, -1)]:
        ADAPTERS.append(ClampedSum(domain=domain, neighbours=neighbours))
    for domains in [((0.0, 1.0), (0.0, 1.0)), ((-10.0, 10.0), (2.0, 3.0))]:
        ADAPTERS.append(ColumnSums(domain=domains, neighbours=neighbours))
ADAPTERS += [MeanOfThree(domain=(0.0, 1.0)), MeanOfThree(domain=(2.0, 5.0))]
ADAPTERS += [RandomizedResponse(domain=(0, 3)), RandomizedResponse(domain=(5, 9))]
ADAPTERS.append(BinaryResponse())
