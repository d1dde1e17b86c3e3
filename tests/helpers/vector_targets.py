"""Kinds-only adapters for the end-to-end test of vector outputs (loaded as a file target)."""

import numpy as np


class Base:
    delta = 0.0

    def __init__(self):
        self._rng = np.random.default_rng()

    def seed(self, e):
        self._rng = np.random.default_rng(e)


class VecLaplace(Base):
    input_kind = "vector"
    norm = "l1"
    sensitivity = 1.0
    output_kind = "real"
    output_length = "query"

    def __init__(self, eps, scale):
        super().__init__()
        self.epsilon = eps
        self.scale = scale
        self.name = f"veclap(eps={eps},scale={scale})"

    def sample(self, q, n):
        q = np.asarray(q, float)
        return np.round(q + self._rng.laplace(0, self.scale, size=(n, len(q))), 3)


class Wide(Base):
    """64 noisy numbers whatever the query's length (a long query, a wide output)."""

    input_kind = "vector"
    norm = "l1"
    sensitivity = 1.0
    output_kind = "real"
    output_length = 64
    epsilon = 1.0
    name = "wide"

    def sample(self, q, n):
        return np.resize(np.asarray(q, float), 64) + self._rng.laplace(size=(n, 64))


class RNMValue(Base):
    input_kind = "vector"
    norm = "linf"
    sensitivity = 1.0
    query_length = 3
    output_kind = "record"
    fields = {"index": "index", "value": "real"}
    name = "max_with_exact_value"
    epsilon = 1.0

    def sample(self, q, n):
        q = np.asarray(q, float)
        noisy = q + self._rng.exponential(2.0, size=(n, len(q)))
        out = np.empty(n, dtype=[("index", np.int64), ("value", float)])
        out["index"] = noisy.argmax(axis=1)
        out["value"] = q[out["index"]]
        return out


class BadShape(Base):
    input_kind = "vector"
    norm = "l1"
    sensitivity = 1.0
    output_kind = "real"
    output_length = "query"
    name = "bad_shape"
    epsilon = 1.0

    def sample(self, q, n):
        return np.zeros((n, 2))


def adapters():
    return [VecLaplace(1.0, 1.0), VecLaplace(1.0, 0.5), RNMValue(), BadShape()]
