"""White-box probes of dataset adapters: the value the implementation adds its noise to.

An adapter of the ``dataset`` family may offer the optional extra

    release_without_noise(query) -> float

which returns, for a dataset ``query``, the statistic the implementation computes *before*
adding noise, computed by the same code path ``sample`` uses (same clamping, same summation
order, same dtype).  Its sensitivity is the adapter's ``sensitivity`` attribute when it declares
one (the Δ its noise is calibrated to), else that of a bounded sum over the declared domain:
``hi - lo`` for ``replace`` neighbours, ``max(|lo|, |hi|)`` for ``add_remove``.

This module is the only place that calls the probe, as ``auditor.engine.sampling`` is for ``sample``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from auditor.core.errors import AdapterOutputError, adapter_code
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
    assert spec.exact_domain is not None
    lo, hi = spec.exact_domain
    one = Fraction(hi - lo if spec.neighbours == "replace" else max(abs(lo), abs(hi)))
    return one * spec.max_contributions  # per privacy unit


def noiseless_release(spec: AdapterSpec, query: Any) -> int | float:
    """Call ``release_without_noise(query)`` and check it returned one finite number.

    Integers come back as Python ints (exact at any width, so differences of answers near
    2**63 are not rounded), anything else as a float.

    Raises:
        AdapterRaised: the probe raised.
        AdapterOutputError: the probe returned something other than one finite real number.
    """
    where = f"adapter {spec.name!r}: {PROBE}(query)"
    with adapter_code(where):
        raw = getattr(spec.adapter, PROBE)(query)
    try:
        value = exact_number(raw.item() if hasattr(raw, "item") else raw)
    except (TypeError, ValueError) as exc:
        raise AdapterOutputError(f"{where} returned {type(raw).__name__}: {exc}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise AdapterOutputError(f"{where} returned {value}, expected a finite number")
    return value
