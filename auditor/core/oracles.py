"""The white-box oracles an adapter may offer, and the only place that calls them: no sample is
drawn and no alpha spent here, so attacks may ask them while planning.

``probabilities(query)`` (selection adapters) gives the exact output distribution:
:func:`oracle_probabilities`.

A dataset adapter may offer the optional extra

    release_without_noise(query) -> float, or d numbers for an output of length d

which returns, for a dataset ``query``, the statistic the implementation computes *before*
adding noise, computed by the same code path ``sample`` uses (same clamping, same summation
order, same dtype).  Its sensitivity is the adapter's ``sensitivity`` attribute when it declares
one (the Δ its noise is calibrated to; under ``replace`` it may be a function of the number of
records, ``sensitivity(n)``), else that of a bounded sum over the declared domain:
``hi - lo`` for ``replace`` neighbours, ``max(|lo|, |hi|)`` for ``add_remove``.  A vector's Δ
is measured in the adapter's declared ``norm`` (``l1``, ``l2`` or ``linf``).

This module is the only place that calls the probe and the oracle, as ``auditor.engine.sampling``
is for ``sample``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from auditor.core.claims import Family
from auditor.core.errors import AdapterOutputError, adapter_code
from auditor.core.kinds import InputKind, Norm, OutputKind
from auditor.core.spec import NOISELESS_PROBE, AdapterSpec, exact_number

PROBE = NOISELESS_PROBE


def declared_sensitivity(spec: AdapterSpec) -> Fraction:
    """The Δ a dataset adapter's noise is calibrated to (see the module docstring), exactly:
    for one privacy unit, so ``max_contributions`` records' worth unless declared.

    Computed from the adapter's own ``domain`` values (not the float copies in ``spec``), so
    that an integer domain near 2**62 keeps its width.
    """
    if spec.dataset_sensitivity is not None:
        return spec.dataset_sensitivity
    assert spec.size_sensitivity is None, "a sensitivity of the size: pair_sensitivity"
    assert spec.exact_domain is not None
    lo, hi = spec.exact_domain
    one = Fraction(hi - lo if spec.neighbours == "replace" else max(abs(lo), abs(hi)))
    return one * spec.max_contributions  # per privacy unit


def pair_sensitivity(spec: AdapterSpec, x: Any) -> Fraction:
    """The Δ of a pair of datasets with as many records as ``x`` (both, under ``replace``):
    the declared one, or what the adapter's ``sensitivity(n)`` says for n records.

    Raises:
        AdapterRaised: ``sensitivity(n)`` raised.
        AdapterOutputError: it returned anything but a finite number > 0.
    """
    if spec.size_sensitivity is None:
        return declared_sensitivity(spec)
    n = len(np.asarray(x))
    where = f"adapter {spec.name!r}: sensitivity({n})"
    with adapter_code(where):
        raw = spec.size_sensitivity(n)
    try:
        delta = Fraction(exact_number(raw))
    except (TypeError, ValueError, OverflowError):
        delta = Fraction(-1)
    if not delta > 0:
        raise AdapterOutputError(f"{where} returned {raw!r}, expected a finite number > 0")
    return delta


def answer_count(spec: AdapterSpec) -> int | None:
    """How many numbers ``release_without_noise`` returns for a dataset adapter whose Δ is
    known (declared, or the ``dataset`` family's default) and, for a vector, its ``norm``;
    None where its answers cannot be compared with a sensitivity (records, booleans, ...)."""
    length = spec.output.length
    if spec.input.kind is not InputKind.DATASET or not isinstance(length, int):
        return None
    if spec.output.kind not in (OutputKind.REAL, OutputKind.INTEGER):
        return None
    declared = spec.dataset_sensitivity is not None or spec.size_sensitivity is not None
    if not declared and spec.family is not Family.DATASET:
        return None
    return length if length == 1 or spec.output_norm is not None else None


def noiseless_release(spec: AdapterSpec, query: Any) -> int | float:
    """Call ``release_without_noise(query)`` and check it returned one finite number.

    Integers come back as Python ints (exact at any width, so differences of answers near
    2**63 are not rounded), anything else as a float.

    Raises:
        AdapterRaised: the probe raised.
        AdapterOutputError: the probe returned something other than one finite real number.
    """
    (value,) = noiseless_answers(spec, query, 1)
    return value


def noiseless_answers(spec: AdapterSpec, query: Any, length: int) -> tuple[int | float, ...]:
    """Call ``release_without_noise(query)`` and check it returned ``length`` finite numbers
    (one number, or a sequence or array of them), each exact as :func:`noiseless_release`'s.

    Raises:
        AdapterRaised: the probe raised.
        AdapterOutputError: the probe returned anything else.
    """
    where = f"adapter {spec.name!r}: {PROBE}(query)"
    with adapter_code(where):
        raw = getattr(spec.adapter, PROBE)(query)
    try:
        # an object array keeps Python ints of any width (and numpy's become Python ints)
        values = [
            exact_number(v.item() if hasattr(v, "item") else v)
            for v in np.asarray(raw, dtype=object).ravel()
        ]
    except (TypeError, ValueError) as exc:
        raise AdapterOutputError(f"{where} returned {type(raw).__name__}: {exc}") from None
    if len(values) != length:
        expected = "one number" if length == 1 else f"{length} numbers (the output's length)"
        raise AdapterOutputError(f"{where} returned {len(values)} values, expected {expected}")
    for value in values:
        if isinstance(value, float) and not math.isfinite(value):
            raise AdapterOutputError(f"{where} returned {value}, expected finite numbers")
    return tuple(values)


def distance(
    a: tuple[int | float, ...], b: tuple[int | float, ...], norm: Norm | None
) -> Fraction | float:
    """‖a − b‖ in ``norm`` (None: one number), exactly (floats as the fractions they are),
    except l2's square root, a float: compare :func:`squared_distance` instead."""
    gaps = [abs(Fraction(u) - Fraction(v)) for u, v in zip(a, b, strict=True)]
    if norm is Norm.L2:
        return math.sqrt(sum(g * g for g in gaps))
    if norm is Norm.LINF:
        return max(gaps, default=Fraction(0))
    return sum(gaps, Fraction(0))


def squared_distance(
    a: tuple[int | float, ...], b: tuple[int | float, ...], norm: Norm | None
) -> Fraction:
    """‖a − b‖² in ``norm``, exactly in every norm: compared with Δ² it says whether the
    answers lie farther apart than the sensitivity."""
    if norm is Norm.L2:
        gaps = [Fraction(u) - Fraction(v) for u, v in zip(a, b, strict=True)]
        return sum((g * g for g in gaps), Fraction(0))
    size = distance(a, b, norm)
    assert isinstance(size, Fraction)
    return size * size


#: how far the oracle's probabilities may sum from 1 (float rounding over many outcomes)
PROBABILITY_SUM_TOLERANCE = 1e-6


def oracle_probabilities(spec: AdapterSpec, query: Any) -> np.ndarray:
    """Call the selection adapter's ``probabilities(query)`` extra and check what it returns.

    The white-box counterpart of ``auditor.engine.sampling.draw``: the only place that calls
    ``probabilities``.
    A malformed answer must never turn into a finding, so it is an error instead.

    Raises:
        AdapterRaised: the oracle raised.
        AdapterOutputError: not k finite probabilities in [0, 1] summing to 1 (within
            ``PROBABILITY_SUM_TOLERANCE``).
    """
    where = f"adapter {spec.name!r}: probabilities(query)"
    with adapter_code(where):
        raw = spec.adapter.probabilities(query)
    try:
        p = np.asarray(raw, dtype=float)
    except (TypeError, ValueError) as exc:
        raise AdapterOutputError(f"{where} returned {type(raw).__name__}: {exc}") from None
    k = len(query)
    if p.shape != (k,):
        raise AdapterOutputError(f"{where} returned shape {p.shape}, expected ({k},)")
    if not np.isfinite(p).all() or (p < 0).any() or (p > 1).any():
        raise AdapterOutputError(f"{where} returned values outside [0, 1] or non-finite")
    total = float(np.sum(p))
    if abs(total - 1.0) > PROBABILITY_SUM_TOLERANCE:
        raise AdapterOutputError(f"{where} returned probabilities summing to {total!r}, not 1")
    return p
