"""The root cause of a violation, in words and numbers (issue #18).

Two kinds of finding, told apart by the data in report.json, not only by the attack's name:

* **float representation** (:func:`float_root_cause`): the neighbours' outputs differ in their
  bits, not in their values: outputs at x reach doubles off a grid every output at x′ lies on
  (Haney et al.'s precision attack), or a bit pattern (a sampler model's reachable set, a
  union of last-mantissa-bit cells) tells them apart.  The text names the grids, gives exact
  example outputs as hex floats (``float.hex``) and the share of outputs affected.
* **statistical** (:func:`loss_region`): the outputs' *values* carry too much privacy loss.
  The pooled output sample is cut into quantile bins and each bin's empirical privacy loss
  ln(P̂_x / P̂_x′) is compared with the claimed ε, naming the output region that carries the
  excess.

Everything here is descriptive: the per-bin ratios and the grids come from ``output_sample``
(the training outputs, or outputs drawn for plots), never used for a bound.  The certified
bound rests on the event's counts alone, and the sentences say so.  Both functions return
None for anything but a violation, and for results without a scalar numeric sample (vector
outputs, white-box estimates with no sample, reports written before samples were kept).

The two kinds live in ``floats`` and ``loss``, what they read from a result in ``sample``; this
package names the entry points.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from reports.root_cause.floats import float_root_cause, result_float_root_cause
from reports.root_cause.loss import loss_region, result_loss_region
from reports.root_cause.sample import _queries, scalar_sample
from reports.view import AdapterReport, parse_result

__all__ = [
    "cause_of",
    "cause_text",
    "float_root_cause",
    "loss_region",
    "noiseless_root_cause",
    "root_cause",
    "root_cause_text",
]


def noiseless_root_cause(r: Mapping[str, Any]) -> dict[str, Any] | None:
    """A violation whose sampled outputs are one value on x and another on x': the mechanism
    added no noise (a scale of zero, or one that rounds to zero at its configuration), so any
    event on the outputs separates the inputs; no sampler's bit patterns are involved.
    ``r``: a report.json result."""
    return _noiseless(parse_result(r))


def _noiseless(r: AdapterReport) -> dict[str, Any] | None:
    s = scalar_sample(r) if r.verdict == "violation" else None
    if s is None or len(set(s.x.tolist())) != 1 or len(set(s.x_prime.tolist())) != 1:
        return None
    (v0,), (v1,) = set(s.x.tolist()), set(s.x_prime.tolist())
    if v0 == v1 or math.isnan(v0) or math.isnan(v1):
        return None
    x, x_prime = _queries(r)
    sentence = (
        f"The mechanism added no noise: every output seen at input {x} is {v0!r} and every one "
        f"at {x_prime} is {v1!r} ({len(s.x):,} and {len(s.x_prime):,} outputs, {s.source} "
        "sample), so a single output tells the inputs apart. Its noise scale is zero, or rounds "
        "to zero at this configuration; the event that certified it is incidental."
    )
    return {"kind": "noiseless", "value_x": v0, "value_x_prime": v1, "sentence": sentence}


# --- one entry point for the renderers -----------------------------------------------------


def root_cause(r: Mapping[str, Any]) -> dict[str, Any] | None:
    """The root cause of a violation (of a report.json result): :func:`cause_of`."""
    try:
        view = parse_result(r)
    except Exception:  # noqa: BLE001 - see cause_of
        return None
    return cause_of(view)


def cause_of(r: AdapterReport) -> dict[str, Any] | None:
    """The root cause of a violation for the renderers: :func:`noiseless_root_cause`'s dict with
    ``"finding": "noiseless"``, :func:`float_root_cause`'s with ``"finding": "float"``, or
    :func:`loss_region`'s with ``"finding": "statistical"``; None otherwise, and when the
    result's data cannot be read (a report from elsewhere: the root cause is commentary, the
    verdict and the counts are the report)."""
    if r.is_cells:
        return None  # the cells' counts, in the event's text, are where its divergence shows
    try:
        noiseless = _noiseless(r)
        if noiseless is not None:
            return {"finding": "noiseless", **noiseless}
        found = result_float_root_cause(r)
        if found is not None:
            return {"finding": "float", **found}
        region = result_loss_region(r)
        return None if region is None else {"finding": "statistical", **region}
    except Exception:  # noqa: BLE001 - see the docstring
        return None


def root_cause_text(r: Mapping[str, Any]) -> str | None:
    """:func:`cause_text` of a report.json result."""
    found = root_cause(r)
    return None if found is None else _text(found)


def cause_text(r: AdapterReport) -> str | None:
    """The root cause as one paragraph of plain text (hex examples included), or None."""
    found = cause_of(r)
    return None if found is None else _text(found)


def _text(found: dict[str, Any]) -> str:
    examples = found.get("examples") or []
    tail = f" Examples at x (in the event): {', '.join(examples)}." if examples else ""
    return str(found["sentence"]) + tail
