"""The statistical root cause: the output region whose empirical privacy loss exceeds the claim."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from reports.evidence import as_float
from reports.root_cause.floats import result_float_root_cause
from reports.root_cause.sample import (
    DISCRETE_VALUES,
    LOSS_BINS,
    _counts,
    _g,
    _queries,
    scalar_sample,
)
from reports.view import AdapterReport, parse_result

# --- statistical: the empirical privacy-loss distribution ----------------------------------


def _bin_edges(pooled: np.ndarray) -> np.ndarray:
    """Bin edges (ascending, ``len(bins) + 1``) over the finite pooled outputs: one bin per
    value for few distinct values, quantile bins otherwise."""
    values = np.unique(pooled)
    if len(values) <= DISCRETE_VALUES:
        if len(values) == 1:
            return np.array([values[0] - 0.5, values[0] + 0.5])
        mids = (values[:-1] + values[1:]) / 2
        return np.concatenate(
            [[values[0] - (mids[0] - values[0])], mids, [values[-1] + (values[-1] - mids[-1])]]
        )
    inner = np.unique(np.quantile(pooled, np.linspace(0.0, 1.0, LOSS_BINS + 1))[1:-1])
    return np.concatenate([[values[0]], inner, [values[-1]]])


def _bin_index(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin of each value: [e_i, e_{i+1}), the last bin closed."""
    return np.searchsorted(edges[1:-1], values, side="right")


def _merge_thin(edges: np.ndarray, pooled: np.ndarray, least: int) -> np.ndarray:
    """Remove edges until every bin holds at least ``least`` pooled outputs (or one bin is left):
    the thinnest bin joins its thinner neighbour."""
    edges = edges.copy()
    while len(edges) > 2:
        counts = np.bincount(_bin_index(pooled, edges), minlength=len(edges) - 1)
        i = int(np.argmin(counts))
        if counts[i] >= least:
            break
        if i == 0:
            j = 1
        elif i == len(counts) - 1:
            j = i
        else:
            j = i if counts[i - 1] <= counts[i + 1] else i + 1
        edges = np.delete(edges, j)  # the edge between bins j-1 and j
    return edges


def _claimed_epsilon(r: AdapterReport) -> tuple[float, str]:
    """The ε to compare the loss with, and how the sentence names it."""
    claim = r.claim
    eps = as_float(claim.epsilon if claim else None)
    delta = as_float(claim.delta if claim else None)
    if claim is not None and claim.is_curve:
        described = claim.description or claim.kind
        return eps, (
            f"ε = {_g(eps)}, the ε the claimed {described} implies at δ = {delta:g}"
            if math.isfinite(eps)
            else f"the claimed {described} (which implies no finite ε at δ = {delta:g})"
        )
    if math.isfinite(delta) and delta > 0:
        return eps, (
            f"the claimed ε = {_g(eps)} (δ = {delta:g} lets the loss exceed ε on outputs of "
            "total probability up to about δ)"
        )
    return eps, f"the claimed ε = {_g(eps)}"


def _region_text(lo: float, hi: float, first: bool, last: bool) -> str:
    """Outputs between the region's smallest and largest values seen."""
    if lo == hi:
        return f"output {_g(lo)}"
    if first and last:
        return "outputs of every value"
    if first:
        return f"outputs up to {_g(hi)}"
    if last:
        return f"outputs of {_g(lo)} and above"
    return f"outputs from {_g(lo)} to {_g(hi)}"


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Maximal runs ``(i, j)`` (inclusive) of True in ``mask``."""
    runs: list[tuple[int, int]] = []
    for i, on in enumerate(mask):
        if on and runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        elif on:
            runs.append((i, i))
    return runs


def _region(i: int, j: int, per_bin: tuple[np.ndarray, ...]) -> dict[str, Any]:
    """Bins ``i`` to ``j`` as one region: its outputs' range, counts and largest loss
    (``per_bin``: the bins' smallest and largest output, counts at x and x′, and loss)."""
    lo, hi, ca, cb, loss = per_bin
    k = len(loss)
    return {
        "text": _region_text(
            float(np.nanmin(lo[i : j + 1])), float(np.nanmax(hi[i : j + 1])), i == 0, j == k - 1
        ),
        "lo": float(np.nanmin(lo[i : j + 1])),
        "hi": float(np.nanmax(hi[i : j + 1])),
        "count_x": int(ca[i : j + 1].sum()),
        "count_x_prime": int(cb[i : j + 1].sum()),
        "loss": float(loss[i : j + 1].max()),
    }


def _loss_head(
    regions: list[dict[str, Any]],
    reverse_regions: list[dict[str, Any]],
    sizes: tuple[int, int],
    queries: tuple[str, str],
    eps_text: str,
    bins: tuple[np.ndarray, np.ndarray, np.ndarray],
    source: str,
) -> str:
    """The sentence's head: the regions of excess loss with their counts out of ``sizes``
    outputs at the two ``queries``, or the bin nearest to it when there is none; then the
    reverse direction's."""
    loss, lo, hi = bins
    k = len(loss)
    (n_x, n_x_prime), (x, x_prime) = sizes, queries
    if regions:
        parts = [
            f"{g['text']}, where the {source} sample has {g['count_x']:,} of {n_x:,} "
            f"outputs at x = {x} against {g['count_x_prime']:,} of {n_x_prime:,} at x′ = {x_prime}: "
            f"an empirical log ratio of up to {_g(g['loss'])}"
            for g in regions
        ]
        head = f"The excess privacy loss sits in {'; and in '.join(parts)}, against {eps_text}."
    else:
        top = int(np.argmax(loss))
        head = (
            f"None of the {k} bins of the {source} sample has an empirical log ratio above "
            f"{eps_text} (the largest, {_g(float(loss[top]))}, is in "
            f"{_region_text(float(lo[top]), float(hi[top]), top == 0, top == k - 1)}): the "
            "excess shows only in the event itself, which is narrower than a bin (a single "
            "value) or spread over several."
        )
    if reverse_regions:
        head += (
            " In the other direction, ln(P̂_x′ / P̂_x) exceeds it in "
            + " and ".join(g["text"] for g in reverse_regions)
            + "."
        )
    return head


def loss_region(r: Mapping[str, Any]) -> dict[str, Any] | None:
    """Where a statistical violation's excess privacy loss sits, from the empirical
    privacy-loss distribution of the output sample.

    The finite pooled outputs are cut into about 20 quantile bins (one per value for at most
    40 distinct values), thin bins merged; each bin's loss is ln(P̂_x / P̂_x′) with 0.5 added to
    every count.  Bins whose loss exceeds the claimed ε (a curve claim: the ε it implies at its
    report δ) are the excess; contiguous ones form regions, named by the smallest and largest
    outputs seen in them.  Returns a dict with ``edges``, per-bin ``loss``, ``count_x``,
    ``count_x_prime``, ``in_event`` (share of the bin's outputs in the event > 1/2),
    ``lo`` / ``hi`` (outputs seen per bin), ``excess`` / ``reverse`` (loss > ε / < −ε), the
    ``regions`` (dicts: ``text``, ``lo``, ``hi``, ``count_x``, ``count_x_prime``, ``loss``),
    ``epsilon``, the sample's sizes and ``sentence``; None for anything but a violation with a
    scalar numeric sample that is not a float-representation finding
    (:func:`float_root_cause`).  ``r``: a report.json result.
    """
    return result_loss_region(parse_result(r))


def result_loss_region(r: AdapterReport) -> dict[str, Any] | None:
    """:func:`loss_region` of a result of the report view."""
    if r.verdict != "violation" or result_float_root_cause(r) is not None:
        return None
    s = scalar_sample(r)
    if s is None:
        return None
    a, b = s.x[np.isfinite(s.x)], s.x_prime[np.isfinite(s.x_prime)]
    ea, eb = s.in_x[np.isfinite(s.x)], s.in_x_prime[np.isfinite(s.x_prime)]
    if not len(a) or not len(b):
        return None
    pooled = np.concatenate([a, b])
    least = min(20, max(5, len(pooled) // 40))
    edges = _merge_thin(_bin_edges(pooled), pooled, least)
    k = len(edges) - 1
    ia, ib = _bin_index(a, edges), _bin_index(b, edges)
    ca, cb = np.bincount(ia, minlength=k), np.bincount(ib, minlength=k)
    sa, sb = ca + 0.5, cb + 0.5
    loss = np.log(sa / sa.sum()) - np.log(sb / sb.sum())
    hits = np.bincount(ia, weights=ea, minlength=k) + np.bincount(ib, weights=eb, minlength=k)
    in_event = hits > (ca + cb) / 2
    both = np.concatenate([ia, ib])
    lo = np.array([pooled[both == i].min() if np.any(both == i) else np.nan for i in range(k)])
    hi = np.array([pooled[both == i].max() if np.any(both == i) else np.nan for i in range(k)])
    eps, eps_text = _claimed_epsilon(r)
    limit = eps if math.isfinite(eps) else math.inf
    excess, reverse = loss > limit, loss < -limit
    x, x_prime = _queries(r)

    per_bin = (lo, hi, ca, cb, loss)
    regions = [_region(i, j, per_bin) for i, j in _runs(excess)]
    reverse_regions = [_region(i, j, per_bin) for i, j in _runs(reverse)]
    head = _loss_head(
        regions, reverse_regions, (len(a), len(b)), (x, x_prime), eps_text, (loss, lo, hi), s.source
    )
    sentence = (
        f"{head} These per-bin ratios are descriptive (outputs kept for plots, {len(edges) - 1} "
        f"bins); {_certified_clause(r)}"
    )
    return {
        "edges": edges.tolist(),
        "loss": loss.tolist(),
        "count_x": ca.tolist(),
        "count_x_prime": cb.tolist(),
        "in_event": in_event.tolist(),
        "lo": lo.tolist(),
        "hi": hi.tolist(),
        "excess": excess.tolist(),
        "reverse": reverse.tolist(),
        "regions": regions,
        "reverse_regions": reverse_regions,
        "epsilon": eps,
        "epsilon_text": eps_text,
        "sample_x": len(a),
        "sample_x_prime": len(b),
        "non_finite": int(len(s.x) - len(a) + len(s.x_prime) - len(b)),
        "source": s.source,
        "sentence": sentence,
    }


def _certified_clause(r: AdapterReport) -> str:
    """What the certified bound rests on: the event's counts (or exact probabilities)."""
    event = r.event or "the event"
    bound = f"ε ≥ {_g(as_float(r.epsilon_lower_bound))}"
    counts = _counts(r)
    if counts is not None and r.is_sampled:
        n0, k0, n1, k1 = counts
        return (
            f"the certified bound, {bound}, rests on the event's counts alone ({event}): "
            f"{k0:,} of {n0:,} outputs at x against {k1:,} of {n1:,} at x′."
        )
    if counts is not None and r.is_cells:
        return (
            f"the certified bound rests on the counts of the cells alone ({event}); its "
            f"(ε, δ) statement, {bound}, on the same confidence limits."
        )
    p0, p1 = r.probabilities or (None, None)
    if p0 is not None:
        return (
            f"the bound, {bound}, rests on the event's exact probabilities ({event}): "
            f"{_g(as_float(p0))} at x against {_g(as_float(p1))} at x′."
        )
    return f"the bound, {bound}, rests on the event ({event}), not on these bins."
