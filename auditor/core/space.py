"""Parameter spaces: where a mechanism may be configured, and one configuration of it.

Many flaws live in part of a mechanism's parameter space only -- a small epsilon, a large
sensitivity, a delta where a formula stops holding (Delta-Siege, Lokna et al., CCS 2023).  An
adapter opts in to a search over its space by declaring

    space = {"epsilon": Range(0.01, 10, log=True), "delta": Range(1e-10, 1e-2, log=True),
             "dtype": Choice(("float64", "float32"))}

    def with_parameters(self, **values):  # the adapter at one point of the space
        return type(self)(**values)

``with_parameters`` gets a value for every name of the space; it may raise ``ValueError`` for
combinations the mechanism rejects (that configuration is then skipped, and counted).
Built-in adapters inherit it from ``auditor.adapters.base.Configurable``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.core.errors import InvalidArgument


@dataclass(frozen=True)
class Range:
    """Real (or ``integer``) values in ``[low, high]``, spread evenly or, with ``log``, evenly
    in their logarithm (for scales that span decades: epsilon, sensitivity, delta)."""

    low: float
    high: float
    log: bool = False
    integer: bool = False

    def __post_init__(self) -> None:
        if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low <= self.high):
            raise InvalidArgument(f"Range({self.low!r}, {self.high!r}): need low <= high, finite")
        if self.log and self.low <= 0:
            raise InvalidArgument(f"Range({self.low!r}, {self.high!r}, log=True): need low > 0")

    def at(self, u: float) -> float | int:
        """The value at quantile ``u`` in [0, 1) of the range."""
        if self.log:
            value = math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low)))
        else:
            value = self.low + u * (self.high - self.low)
        value = min(max(value, self.low), self.high)
        return int(round(value)) if self.integer else float(value)

    def describe(self) -> str:
        scale = ", log scale" if self.log else ""
        kind = "integers" if self.integer else "reals"
        return f"{kind} in [{self.low:g}, {self.high:g}]{scale}"


@dataclass(frozen=True)
class Choice:
    """One of a few values (a dtype, a rounding mode, a bound layout)."""

    options: tuple[Any, ...]

    def __post_init__(self) -> None:
        if not self.options:
            raise InvalidArgument("Choice(): needs at least one option")

    def at(self, u: float) -> Any:
        return self.options[min(int(u * len(self.options)), len(self.options) - 1)]

    def describe(self) -> str:
        return "one of " + ", ".join(repr(o) for o in self.options)


Dimension = Range | Choice


class Configurable:
    """``with_parameters`` for adapters whose constructor takes the names of their ``space``."""

    space: dict[str, Dimension]

    def with_parameters(self, **values: Any) -> Any:
        """A new adapter of the same type at ``values``."""
        return type(self)(**values)


class Configured:
    """An adapter rebuilt at one point of its space, named after it: ``base[eps=0.1,...]``.

    Everything but ``name`` is the rebuilt adapter's; ``configuration`` says where it sits.
    A worker process rebuilds one from its base adapter's target and ``configuration``.
    """

    def __init__(self, base: str, adapter: Any, values: Mapping[str, Any]) -> None:
        self._adapter = adapter
        self.name = f"{base}[{label(values)}]"
        self.configuration: dict[str, Any] = {"adapter": base, "parameters": dict(values)}

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") or attr == "_adapter":
            raise AttributeError(attr)  # pickling and copying look these up before __init__
        return getattr(self._adapter, attr)


def check_space(space: Any, where: str) -> dict[str, Dimension]:
    """The declared space as a dict, or a clear error naming ``where`` it came from."""
    if not isinstance(space, Mapping) or not space:
        raise InvalidArgument(
            f"{where}: 'space' must be a non-empty mapping of name -> Range/Choice"
        )
    for name, dim in space.items():
        if not isinstance(name, str) or not isinstance(dim, Range | Choice):
            raise InvalidArgument(
                f"{where}: space entry {name!r} must map a name to Range(...) or Choice(...), "
                f"not {type(dim).__name__}"
            )
    return dict(space)


def design(space: Mapping[str, Dimension], n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` configurations spread over ``space`` by a scrambled Sobol sequence
    (``scipy.stats.qmc``, seeded by ``seed``): every one-dimensional projection is evenly
    covered, so a flaw confined to a slice of one parameter (epsilon < 0.05, delta > 1e-3) is
    hit by about its share of the points, and pairs of parameters are covered too."""
    from scipy.stats import qmc

    if n < 1:
        raise InvalidArgument(f"configurations={n!r} must be >= 1")
    names = list(space)
    sampler = qmc.Sobol(d=len(names), scramble=True, seed=np.random.default_rng(seed))
    points = sampler.random_base2(max(0, math.ceil(math.log2(n))))[:n]
    return [
        {name: space[name].at(float(u)) for name, u in zip(names, row, strict=True)}
        for row in points
    ]


def label(values: Mapping[str, Any]) -> str:
    """``epsilon=0.0123,delta=1e-07``: a configuration as people read it (and as a name)."""
    return ",".join(
        f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items()
    )


def describe_space(space: Mapping[str, Dimension]) -> dict[str, str]:
    return {name: dim.describe() for name, dim in space.items()}


__all__: Sequence[str] = [
    "Choice",
    "Configurable",
    "Dimension",
    "Range",
    "check_space",
    "describe_space",
    "design",
    "label",
]
