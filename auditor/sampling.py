"""Drawing outputs from an adapter and holding them to the family's output contract.

This is the only place that calls ``adapter.sample``.  Whatever the adapter does wrong —
raises, returns the wrong shape, NaN where none is allowed, an index out of range — becomes
one exception with a precise message, which the runner records as an ``error`` verdict.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.claims import Family
from auditor.errors import AdapterOutputError, AdapterRaised
from auditor.validation import AdapterSpec


def check_outputs(spec: AdapterSpec, query: Any, n: int, raw: Any) -> np.ndarray:
    """Return ``raw`` as a 1-D array of length ``n`` if it meets the family's contract.

    Raises:
        AdapterOutputError: naming the adapter and what was wrong.
    """
    where = f"adapter {spec.name!r}: sample(query, n={n})"
    try:
        out = np.asarray(raw)
    except Exception as exc:  # noqa: BLE001 - anything the adapter hands back
        raise AdapterOutputError(
            f"{where} returned {type(raw).__name__}, not an array: {exc}"
        ) from None
    if out.ndim != 1 or out.shape[0] != n:
        raise AdapterOutputError(f"{where} returned shape {out.shape}, expected ({n},)")
    if out.dtype == object or not (
        np.issubdtype(out.dtype, np.number) or np.issubdtype(out.dtype, np.bool_)
    ):
        raise AdapterOutputError(f"{where} returned dtype {out.dtype}, expected numbers")
    if np.issubdtype(out.dtype, np.complexfloating):
        raise AdapterOutputError(f"{where} returned complex numbers")
    family = spec.family
    if family is Family.DATASET:
        if np.isinf(out).any():
            raise AdapterOutputError(f"{where} returned inf (only finite numbers or NaN for ⊥)")
        return out.astype(float, copy=False)
    if np.issubdtype(out.dtype, np.floating) and not np.isfinite(out).all():
        bad = out[~np.isfinite(out)][0]
        raise AdapterOutputError(f"{where} returned {bad} (outputs must be finite)")
    if family is Family.ADDITIVE:
        return out if not np.issubdtype(out.dtype, np.bool_) else out.astype(np.int64)
    as_int = out.astype(np.int64)
    if np.issubdtype(out.dtype, np.floating) and not np.array_equal(as_int, out):
        raise AdapterOutputError(f"{where} returned non-integer values for a {family} mechanism")
    if family is Family.SELECTION:
        k = len(query)
        if as_int.min(initial=0) < 0 or as_int.max(initial=0) >= k:
            raise AdapterOutputError(
                f"{where} returned index {int(as_int.max() if as_int.max() >= k else as_int.min())} "
                f"outside [0, {k})"
            )
    elif family is Family.BINARY and not np.isin(as_int, (0, 1)).all():
        raise AdapterOutputError(f"{where} returned values other than 0 and 1")
    return as_int


def draw(spec: AdapterSpec, query: Any, n: int, entropy: int) -> np.ndarray:
    """Seed the adapter (when it can be seeded) with ``entropy`` and draw ``n`` outputs."""
    adapter = spec.adapter
    try:
        if spec.seedable:
            adapter.seed(int(entropy))
        raw = adapter.sample(query, n)
    except Exception as exc:  # noqa: BLE001 - an adapter's failure is a finding, not a crash
        raise AdapterRaised(
            f"adapter {spec.name!r}: sample raised {type(exc).__name__}: {exc}".rstrip(": ")
        ) from exc
    return check_outputs(spec, query, n, raw)


#: how far the oracle's probabilities may sum from 1 (float rounding over many outcomes)
PROBABILITY_SUM_TOLERANCE = 1e-6


def oracle_probabilities(spec: AdapterSpec, query: Any) -> np.ndarray:
    """Call the selection adapter's ``probabilities(query)`` extra and check what it returns.

    The white-box counterpart of :func:`draw`: the only place that calls ``probabilities``.
    A malformed answer must never turn into a finding, so it is an error instead.

    Raises:
        AdapterRaised: the oracle raised.
        AdapterOutputError: not k finite probabilities in [0, 1] summing to 1 (within
            ``PROBABILITY_SUM_TOLERANCE``).
    """
    where = f"adapter {spec.name!r}: probabilities(query)"
    try:
        raw = spec.adapter.probabilities(query)
    except Exception as exc:  # noqa: BLE001 - an adapter's failure is reported, not a crash
        raise AdapterRaised(f"{where} raised {type(exc).__name__}: {exc}".rstrip(": ")) from exc
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
