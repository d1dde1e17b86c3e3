"""What the white-box floating-point attacks share: a distinguisher for one pair of float
inputs that picks a single event (a set of outputs reachable at x but not at x') from a small
training split of float outputs, and its per-coordinate form for vector outputs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from auditor.core.distance import pull_within
from auditor.core.kinds import QUERY_LENGTH, InputKind, Norm, OutputKind
from auditor.core.source import enclosed, event_code
from auditor.core.spec import AdapterSpec, typical_query
from auditor.core.trials import CertificationPlan, Distinguisher, Event, Trial

#: query length of the per-coordinate trials when the adapter does not fix one
VECTOR_QUERIES = 10


def per_coordinate_outputs(spec: AdapterSpec) -> bool:
    """Whether the adapter answers a vector query with one real number per entry."""
    return (
        spec.input.kind is InputKind.VECTOR
        and spec.output.kind is OutputKind.REAL
        and spec.output.length == QUERY_LENGTH
        and bool(spec.sensitivity)
    )


def float_inputs(spec: AdapterSpec, step: float) -> tuple[float, float] | None:
    """The float attacks' pair of scalar inputs: ``x``, the value nearest 0 inside the declared
    bounds (0 without bounds), and ``x + step`` or, when that leaves the bounds, ``x - step``;
    None when neither fits."""
    x = float(np.asarray(typical_query(spec)).flat[0])
    lo, hi = spec.input_bounds or (-np.inf, np.inf)
    for way in (1, -1):
        # pulled back by ulps where rounding would carry it past the step
        x_prime = float(pull_within([x], [x + way * step], Norm.LINF, step)[0])
        if lo <= x_prime <= hi:
            return x, x_prime
    return None


def float_trial(x: float, x_prime: float, distinguisher: Distinguisher, how: str) -> Trial:
    """The trial on the scalar pair of :func:`float_inputs`, described as the float attacks
    word it: "inputs x and x' " and ``how``."""
    return Trial(
        x=x,
        x_prime=x_prime,
        distinguisher=distinguisher,
        description=f"inputs {x!r} and {x_prime!r} {how}",
    )


def vector_pair(
    spec: AdapterSpec, x: float, x_prime: float
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Every entry at ``x``, and the entries the norm allows to move (all of them under L∞, the
    first alone under L1 and L2) at ``x_prime`` instead; and the moved entries."""
    m = spec.input.length or VECTOR_QUERIES
    moved = list(range(m)) if spec.input.norm is Norm.LINF else [0]
    vx = np.full(m, x)
    vx_prime = vx.copy()
    vx_prime[moved] = x_prime
    return vx, vx_prime, moved


@dataclass
class FloatPairDistinguisher:
    """One event for the pair ``(x, x_prime)``, chosen on 5 % of the budget; subclasses add
    what they choose from and a ``propose``."""

    x: float
    x_prime: float
    max_events: int = field(default=1, kw_only=True)
    train_fraction: float = field(default=0.05, kw_only=True)


def float_training(
    train_x: np.ndarray, train_x_prime: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """Both training splits as float64 arrays, or None unless both are non-empty floats (an
    integer-valued mechanism has no float grid to attack)."""
    if not (
        len(train_x)
        and len(train_x_prime)
        and np.issubdtype(train_x.dtype, np.floating)
        and np.issubdtype(train_x_prime.dtype, np.floating)
    ):
        return None
    return np.asarray(train_x, dtype=np.float64), np.asarray(train_x_prime, dtype=np.float64)


class AnyColumn:
    """Predicate: some moved coordinate's value lies in that coordinate's event."""

    def __init__(self, parts: list[tuple[int, Event]]) -> None:
        self.parts = parts

    def __call__(self, y: np.ndarray) -> np.ndarray:
        hits = np.zeros(len(y), dtype=bool)
        for j, event in self.parts:
            hits |= event(np.ascontiguousarray(y[:, j]))
        return hits

    def code(self) -> str | None:
        """Standalone source (``Event.source``): each coordinate's event, or None if one has none."""
        sources = [event.source() for _, event in self.parts]
        if any(s is None for s in sources):
            return None
        loaders = "\n\n".join(enclosed(str(s), f"_coordinate_{i}") for i, s in enumerate(sources))
        pairs = ", ".join(f"({j}, _coordinate_{i}())" for i, (j, _) in enumerate(self.parts))
        prelude = (
            f"{loaders}\n\nPARTS = [{pairs}]\n\n\n"
            "def any_column(x):\n"
            "    hits = np.zeros(len(x), dtype=bool)\n"
            "    for j, part in PARTS:\n"
            "        hits |= part(np.ascontiguousarray(x[:, j]))\n"
            "    return hits"
        )
        return event_code("any_column(x)", prelude)


@dataclass
class PerCoordinate:
    """A scalar float distinguisher on each coordinate the pair moves (vector outputs whose
    coordinate j answers query j); the event is "some coordinate is in its own event".

    An output vector is impossible at x' if any one coordinate is, so the event's probability
    at x grows with the number of moved coordinates while it stays 0 at x'.
    """

    parts: Mapping[int, FloatPairDistinguisher]
    max_events: int = field(default=1, kw_only=True)
    train_fraction: float = field(default=0.05, kw_only=True)

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        if train_x.ndim != 2 or train_x_prime.ndim != 2:
            return []
        found: list[tuple[int, Event]] = []
        for j, part in self.parts.items():
            events = part.propose(  # type: ignore[attr-defined]
                np.ascontiguousarray(train_x[:, j]), np.ascontiguousarray(train_x_prime[:, j]), plan
            )
            if events:
                found.append((j, events[0]))
        if not found:
            return []
        j, first = found[0]
        more = f", or the same for {len(found) - 1} more coordinates" if len(found) > 1 else ""
        return [
            Event(f"coordinate {j}: {first.description}{more}", AnyColumn(found), white_box=True)
        ]
