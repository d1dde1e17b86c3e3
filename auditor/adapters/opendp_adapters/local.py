"""OpenDP's randomized response: one bit, and RAPPOR's bit vector."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer
from auditor.adapters.base import call_source, keywords
from auditor.adapters.opendp_adapters.common import EPSILON, OpenDPAdapter, invoke_many
from auditor.core.space import Range


class RandomizedResponseBool(OpenDPAdapter):
    """``make_randomized_response_bool`` with keep-probability e^ε/(1 + e^ε).

    Not vectorised: the bit-vector variant (``make_randomized_response_bitvec``) needs a
    ``max_weight`` on its domain, and ``n`` copies of a 1 bit fall outside any small one.
    """

    name = "opendp.randomized_response"
    family = "binary"
    delta = 0.0
    description = "opendp make_randomized_response_bool (keep with prob e^eps/(1+e^eps))"
    space = {"epsilon": EPSILON}
    _reproducer_sample = """
        def sample(query, n):
            value = bool(int(query))
            return np.fromiter((int(measurement(value)) for _ in range(n)), np.int64, count=n)
        """

    def __init__(self, epsilon: float = 1.0) -> None:
        super().__init__()
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        self._target_epsilon = float(epsilon)
        self.epsilon = float(self._measurement.map(1))

    def _keep(self) -> float:
        return 1.0 / (1.0 + math.exp(-self._target_epsilon))

    def _build(self, dp: Any) -> Any:
        return dp.m.make_randomized_response_bool(prob=self._keep())

    def _measurement_source(self) -> str:
        probability = keywords(prob=self._keep())
        return call_source("measurement = dp.m.make_randomized_response_bool", probability)

    def sample(self, query: int, n: int) -> np.ndarray:
        """``n`` released bits (0/1) for the true bit ``query``."""
        bit = as_integer(query)
        if bit not in (0, 1):
            raise ValueError(f"query={query!r} must be a bit, 0 or 1")
        releases = invoke_many(self._measurement, bool(bit), n)
        return np.fromiter((int(r) for r in releases), np.int64, count=n)


class RandomizedResponseBitvec(OpenDPAdapter):
    """``make_randomized_response_bitvec`` (RAPPOR's permanent randomized response: each bit
    replaced by a fair coin with probability f) on the one-hot encoding of a value in
    ``0 .. m - 1`` (``bitvector_domain(max_weight=1)``, the unary encoding); local DP.

    Claim ``measurement.map(1)`` under ``discrete_distance``: any two inputs of weight <= 1,
    ``2 * 1 * ln((2 - f) / f)`` by its docstring.  The default f makes that 1.
    """

    name = "opendp.randomized_response_bitvec"
    input_kind = "local"
    output_kind = "boolean"
    delta = 0.0
    #: f from 0.01 to 0.99 claims epsilon from about 10.6 down to 0.04
    space = {"f": Range(0.01, 0.99, log=True), "m": Range(2, 64, log=True, integer=True)}

    def __init__(self, f: float = 2 / (1 + math.exp(0.5)), m: int = 8) -> None:
        super().__init__()
        if not 0 < f <= 1:
            raise ValueError(f"f={f!r} must be in (0, 1]")
        self.f = float(f)
        self.output_length = as_integer(m, "m")
        self.domain = (0, self.output_length - 1)
        self.epsilon = float(self._measurement.map(1))
        self.description = (
            f"opendp make_randomized_response_bitvec(f={self.f:.6g}) on the one-hot encoding "
            f"of a value in 0..{self.output_length - 1} (max_weight=1); claim from "
            "measurement.map(1)"
        )

    def _build(self, dp: Any) -> Any:
        return dp.m.make_randomized_response_bitvec(
            dp.bitvector_domain(max_weight=1), dp.discrete_distance(), f=self.f
        )

    def _measurement_source(self) -> str:
        space = ["dp.bitvector_domain(max_weight=1)", "dp.discrete_distance()"]
        f = keywords(f=self.f)
        return call_source("measurement = dp.m.make_randomized_response_bitvec", [*space, *f])

    def _sample_source(self) -> str:
        m = self.output_length
        return f"""
            def sample(query, n):
                bits = np.zeros({m}, dtype=np.uint8)
                bits[int(query)] = 1
                data = np.packbits(bits).tobytes()
                out = np.empty((n, {m}), dtype=np.int8)
                for i in range(n):
                    out[i] = np.unpackbits(np.frombuffer(measurement(data), dtype=np.uint8))[:{m}]
                return out
            """

    def sample(self, query: int, n: int) -> np.ndarray:
        """``n`` released bit vectors (0/1, shape (n, m)) for the value ``query``."""
        value = as_integer(query)
        if not 0 <= value < self.output_length:
            raise ValueError(f"query={query!r} must be in 0..{self.output_length - 1}")
        bits = np.zeros(self.output_length, dtype=np.uint8)
        bits[value] = 1
        data = np.packbits(bits).tobytes()
        measurement = self._measurement
        out = np.empty((n, self.output_length), dtype=np.int8)
        for i in range(n):
            released = np.frombuffer(measurement(data), dtype=np.uint8)
            out[i] = np.unpackbits(released)[: self.output_length]
        return out
