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
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.statistics.events.bit_events import coarsest_grid
from reports.evidence import as_float, is_cells, is_curve_claim, is_sampled, query_text

#: attacks whose findings are about the floating-point representation of outputs
FLOAT_ATTACKS = frozenset({"precision", "lsb-laplace"})
#: event texts that describe bits of the representation, not values
FLOAT_EVENT = re.compile(r"mantissa|multiple of|\bdouble\b|\bulp\b|binade|\bgrid\b|porous", re.I)
#: share of the event's outputs at x off the x′ grid for the grid to be "the" separation
GRID_EXPLAINS = 0.9
#: hex examples shown
EXAMPLES = 3
#: quantile bins of the privacy-loss distribution (before merging thin ones)
LOSS_BINS = 20
#: distinct values up to which outputs are binned one value per bin
DISCRETE_VALUES = 40


@dataclass(frozen=True)
class _Sample:
    x: np.ndarray
    x_prime: np.ndarray
    in_x: np.ndarray
    in_x_prime: np.ndarray
    source: str


def _scalar_sample(r: dict[str, Any]) -> _Sample | None:
    """The result's output sample as float arrays, or None (absent, vector, non-numeric)."""
    s = r.get("output_sample")
    if not isinstance(s, dict):
        return None
    arrays = []
    for key in ("x", "x_prime"):
        values = s.get(key)
        if not isinstance(values, list) or not values:
            return None
        if any(isinstance(v, list | tuple | dict) for v in values):
            return None
        try:
            arrays.append(np.array([float(v) for v in values], dtype=np.float64))
        except (TypeError, ValueError):
            return None
    marks = [np.asarray(s.get(f"in_event_{key}") or [], dtype=bool) for key in ("x", "x_prime")]
    if len(marks[0]) != len(arrays[0]) or len(marks[1]) != len(arrays[1]):
        return None
    sample = _Sample(arrays[0], arrays[1], marks[0], marks[1], str(s.get("source") or "training"))
    if _marks_only(r, sample):
        return None
    return sample


def _marks_only(r: dict[str, Any], s: _Sample) -> bool:
    """Vector outputs with no projection are stored as their in/out-of-event marks: no values."""
    if r.get("family") == "binary":
        return False
    return bool(
        np.array_equal(s.x, s.in_x.astype(np.float64))
        and np.array_equal(s.x_prime, s.in_x_prime.astype(np.float64))
    )


def _counts(r: dict[str, Any]) -> tuple[int, int, int, int] | None:
    c = r.get("counts") or {}
    try:
        n0, k0, n1, k1 = (int(c[k]) for k in ("n0", "k0", "n1", "k1"))
    except (KeyError, TypeError, ValueError):
        return None
    return (n0, k0, n1, k1) if n0 > 0 and n1 > 0 else None


def _pow2(grid: float) -> str:
    """``2^-53`` for a power of two."""
    return f"2^{math.frexp(grid)[1] - 1}"


def _pct(k: int, n: int) -> str:
    return f"{100.0 * k / n:.3g} %" if n else "–"


def _g(value: float) -> str:
    """A number for a sentence, with a true minus sign."""
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.4g}".replace("-", "−")


def _off_grid(values: np.ndarray, grid: float) -> np.ndarray:
    """Finite ``values`` that are not multiples of the power of two ``grid`` (fmod is exact)."""
    v = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(v)
    off = np.zeros(len(v), dtype=bool)
    if math.isfinite(grid) and grid > 0:
        off[finite] = np.fmod(v[finite], grid) != 0
    return off


def _non_integer(values: np.ndarray) -> bool:
    finite = values[np.isfinite(values)]
    return bool(len(finite)) and not bool(np.all(finite == np.round(finite)))


def _queries(r: dict[str, Any]) -> tuple[str, str]:
    q = r.get("queries") or [None, None]
    return query_text(q[0]), query_text(q[1])


# --- float representation ------------------------------------------------------------------


def float_root_cause(r: dict[str, Any]) -> dict[str, Any] | None:
    """The grid or bit pattern that separates the neighbours of a float-representation finding.

    Applies to violations whose sample holds non-integer floats and whose attack (precision,
    lsb-laplace), event text (mantissa bits, multiples, binades…) or data (the event's outputs
    at x lie off the coarsest power-of-two grid of every output at x′) says the finding is
    about the representation.  Returns a dict with ``kind`` ("grid" when that grid explains
    the event, "pattern" otherwise), ``grid_x`` / ``grid_x_prime`` (coarsest power of two
    dividing every finite nonzero output seen on each side, inf when there is none),
    ``finest_x`` (the smallest lowest set bit among the outputs at x: the same number as
    ``grid_x``), the ``*_exponent`` of each, ``off_grid_x`` (outputs at x in the sample off the
    x′ grid), ``examples`` (up to three outputs at x in the event, as ``float.hex``),
    ``fraction_x`` / ``fraction_x_prime`` (k0/n0 and k1/n1 of the certification counts, or
    the sample's shares without counts), ``counts_source`` and ``sentence``; None otherwise.
    """
    if r.get("verdict") != "violation":
        return None
    s = _scalar_sample(r)
    if s is None or not (_non_integer(s.x) or _non_integer(s.x_prime)):
        return None
    g0, g1 = coarsest_grid(s.x), coarsest_grid(s.x_prime)
    grids_differ = math.isfinite(g0) and math.isfinite(g1) and g0 < g1
    event_x = s.x[s.in_x]
    explained = float(np.mean(_off_grid(event_x, g1))) if grids_differ and len(event_x) else 0.0
    kind = "grid" if explained >= GRID_EXPLAINS else "pattern"
    binades = _binade_grids(s.x, s.x_prime, event_x)
    event = str(r.get("event") or "")
    if not (
        str(r.get("attack") or "") in FLOAT_ATTACKS or FLOAT_EVENT.search(event) or kind == "grid"
    ):
        return None
    x, x_prime = _queries(r)
    counts = _counts(r)
    if counts is not None:
        n0, k0, n1, k1 = counts
        counts_source = "certification"
    else:
        n0, k0 = len(s.x), int(np.count_nonzero(s.in_x))
        n1, k1 = len(s.x_prime), int(np.count_nonzero(s.in_x_prime))
        counts_source = s.source
    off_x = int(np.count_nonzero(_off_grid(s.x, g1))) if grids_differ else 0
    examples = _examples(event_x, g1 if grids_differ else math.inf)
    share = (
        f"{k0:,} of {n0:,} outputs at {x} ({_pct(k0, n0)}) lie in the event and {k1:,} of "
        f"{n1:,} at {x_prime}" + (f" ({_pct(k1, n1)})" if k1 else "")
    )
    share += (
        " (certification counts)."
        if counts_source == "certification"
        else f" (in the {s.source} sample)."
    )
    grid_words = (
        f"outputs at input {x} reach doubles off the {_pow2(g1)} grid (as fine as {_pow2(g0)}); "
        f"from input {x_prime} every output seen is a multiple of {_pow2(g1)}"
    )
    if kind == "grid":
        sentence = (
            f"{grid_words[0].upper()}{grid_words[1:]}. {share} In the {s.source} sample "
            f"{off_x:,} of {len(s.x):,} outputs at {x} ({_pct(off_x, len(s.x))}) are off that grid."
        )
    else:
        if grids_differ:
            grids = (
                f"The grids alone do not separate the neighbours: {grid_words}, but only "
                f"{_pct(round(explained * len(event_x)), len(event_x))} of the event's outputs "
                f"at {x} in the {s.source} sample are off that grid."
            )
        elif math.isfinite(g0) and g0 == g1:
            grids = (
                f"No grid separates the neighbours: the outputs seen at {x} and at {x_prime} "
                f"are all multiples of {_pow2(g0)} (the coarsest grid on both sides)."
            )
        else:
            grids = (
                "No grid separates the neighbours: the outputs seen at "
                f"{x} are multiples of {_pow2(g0) if math.isfinite(g0) else 'any power of two'}, "
                f"those at {x_prime} of "
                f"{_pow2(g1) if math.isfinite(g1) else 'any power of two'}."
            )
        pattern = (
            "which exact doubles the sampler can produce from each input"
            if "cannot produce" in event
            else "a bit pattern"
        )
        sentence = (
            f"{grids}{_binade_words(binades, len(event_x), x, x_prime, s.source)} What separates "
            f"them is {pattern}, the event “{event}”. {share}"
        )
    return {
        "kind": kind,
        "grid_x": g0,
        "grid_x_prime": g1,
        "grid_x_exponent": math.frexp(g0)[1] - 1 if math.isfinite(g0) else None,
        "grid_x_prime_exponent": math.frexp(g1)[1] - 1 if math.isfinite(g1) else None,
        "finest_x": g0,
        "off_grid_x": off_x,
        "sample_x": len(s.x),
        "examples": examples,
        "binades": binades,
        "n0": n0,
        "k0": k0,
        "n1": n1,
        "k1": k1,
        "fraction_x": k0 / n0 if n0 else math.nan,
        "fraction_x_prime": k1 / n1 if n1 else math.nan,
        "counts_source": counts_source,
        "source": s.source,
        "sentence": sentence,
    }


def _binade_keys(values: np.ndarray) -> np.ndarray:
    """Each finite nonzero double's binade as a signed integer: ±(e + 1100) for |v| in
    [2^(e-1), 2^e) (0 for zeros and non-finite values)."""
    v = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(v) & (v != 0)
    exponent = np.frexp(np.where(ok, np.abs(v), 1.0))[1].astype(np.int64) + 1100
    return np.where(ok, np.where(np.signbit(v), -exponent, exponent), 0)


def _binade_text(key: int) -> str:
    """``[1, 2)`` or ``(−1, −0.5]``; powers of two beyond 2^±20 as ``2^-30``."""
    e = abs(key) - 1100

    def power(k: int) -> str:
        return f"{2.0**k:g}" if -20 <= k <= 20 else f"2^{k}"

    lo, hi = power(e - 1), power(e)
    return f"(−{hi}, −{lo}]" if key < 0 else f"[{lo}, {hi})"


def _binade_grids(a: np.ndarray, b: np.ndarray, event_x: np.ndarray) -> list[dict[str, Any]]:
    """Binades (power-of-two ranges) where the event's outputs at x reach a finer grid than
    every output at x′ in the same binade: per binade ``binade`` (text), ``grid_x``,
    ``grid_x_prime``, ``in_event`` (the event's outputs at x there) and ``explained`` (those
    off the x′ grid), most explained first.  Binades x′ never reached are left out."""
    ka, kb, ke = _binade_keys(a), _binade_keys(b), _binade_keys(event_x)
    found = []
    for key in np.unique(ke[ke != 0]):
        gx, gx_prime = coarsest_grid(a[ka == key]), coarsest_grid(b[kb == key])
        if not (math.isfinite(gx_prime) and gx < gx_prime):
            continue
        in_event = event_x[ke == key]
        explained = int(np.count_nonzero(_off_grid(in_event, gx_prime)))
        if explained:
            found.append(
                {
                    "binade": _binade_text(int(key)),
                    "grid_x": gx,
                    "grid_x_prime": gx_prime,
                    "in_event": len(in_event),
                    "explained": explained,
                }
            )
    return sorted(found, key=lambda d: -int(d["explained"]))


def _binade_words(
    binades: list[dict[str, Any]], events: int, x: str, x_prime: str, source: str
) -> str:
    """ " Within binades the grids differ: in [1, 2) …" (two binades at most), or ""."""
    if not binades:
        return ""
    shown = [
        f"in {d['binade']} outputs at {x} reach the {_pow2(d['grid_x'])} grid while every "
        f"output from {x_prime} there is a multiple of {_pow2(d['grid_x_prime'])}"
        for d in binades[:2]
    ]
    more = f", and {len(binades) - 2} more binade(s)" if len(binades) > 2 else ""
    explained = sum(int(d["explained"]) for d in binades)
    return (
        f" Within binades the grids do differ: {'; '.join(shown)}{more}. That accounts for "
        f"{explained:,} of the event's {events:,} outputs at {x} in the {source} sample."
    )


def _examples(event_x: np.ndarray, grid: float) -> list[str]:
    """Up to three distinct finite outputs at x in the event, off ``grid`` first, as hex."""
    v = event_x[np.isfinite(event_x)]
    off = _off_grid(v, grid) if math.isfinite(grid) else np.ones(len(v), dtype=bool)
    chosen: list[str] = []
    for value in [*v[off], *v[~off]]:
        text = float.hex(float(value))
        if text not in chosen:
            chosen.append(text)
        if len(chosen) == EXAMPLES:
            break
    return chosen


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


def _claimed_epsilon(r: dict[str, Any]) -> tuple[float, str]:
    """The ε to compare the loss with, and how the sentence names it."""
    claim = r.get("claim") or {}
    eps = as_float(claim.get("epsilon"))
    delta = as_float(claim.get("delta"))
    if is_curve_claim(r):
        described = claim.get("description") or claim.get("kind")
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


def loss_region(r: dict[str, Any]) -> dict[str, Any] | None:
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
    (:func:`float_root_cause`).
    """
    if r.get("verdict") != "violation" or float_root_cause(r) is not None:
        return None
    s = _scalar_sample(r)
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

    def region(i: int, j: int) -> dict[str, Any]:
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

    regions = [region(i, j) for i, j in _runs(excess)]
    reverse_regions = [region(i, j) for i, j in _runs(reverse)]
    if regions:
        parts = [
            f"{g['text']}, where the {s.source} sample has {g['count_x']:,} of {len(a):,} "
            f"outputs at x = {x} against {g['count_x_prime']:,} of {len(b):,} at x′ = {x_prime}: "
            f"an empirical log ratio of up to {_g(g['loss'])}"
            for g in regions
        ]
        head = f"The excess privacy loss sits in {'; and in '.join(parts)}, against {eps_text}."
    else:
        top = int(np.argmax(loss))
        head = (
            f"None of the {k} bins of the {s.source} sample has an empirical log ratio above "
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


def _certified_clause(r: dict[str, Any]) -> str:
    """What the certified bound rests on: the event's counts (or exact probabilities)."""
    event = r.get("event") or "the event"
    bound = f"ε ≥ {_g(as_float(r.get('epsilon_lower_bound')))}"
    counts = _counts(r)
    if counts is not None and is_sampled(r):
        n0, k0, n1, k1 = counts
        return (
            f"the certified bound, {bound}, rests on the event's counts alone ({event}): "
            f"{k0:,} of {n0:,} outputs at x against {k1:,} of {n1:,} at x′."
        )
    if counts is not None and is_cells(r):
        return (
            f"the certified bound rests on the counts of the cells alone ({event}); its "
            f"(ε, δ) statement, {bound}, on the same confidence limits."
        )
    p = r.get("probabilities") or {}
    if p.get("p0") is not None:
        return (
            f"the bound, {bound}, rests on the event's exact probabilities ({event}): "
            f"{_g(as_float(p['p0']))} at x against {_g(as_float(p.get('p1')))} at x′."
        )
    return f"the bound, {bound}, rests on the event ({event}), not on these bins."


def noiseless_root_cause(r: dict[str, Any]) -> dict[str, Any] | None:
    """A violation whose sampled outputs are one value on x and another on x': the mechanism
    added no noise (a scale of zero, or one that rounds to zero at its configuration), so any
    event on the outputs separates the inputs; no sampler's bit patterns are involved."""
    s = _scalar_sample(r) if r.get("verdict") == "violation" else None
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


def root_cause(r: dict[str, Any]) -> dict[str, Any] | None:
    """The root cause of a violation for the renderers: :func:`noiseless_root_cause`'s dict with
    ``"finding": "noiseless"``, :func:`float_root_cause`'s with ``"finding": "float"``, or :func:`loss_region`'s with ``"finding": "statistical"``; None
    otherwise, and when the result's data cannot be read (a report from elsewhere: the root
    cause is commentary, the verdict and the counts are the report)."""
    if is_cells(r):
        return None  # the cells' counts, in the event's text, are where its divergence shows
    try:
        noiseless = noiseless_root_cause(r)
        if noiseless is not None:
            return {"finding": "noiseless", **noiseless}
        found = float_root_cause(r)
        if found is not None:
            return {"finding": "float", **found}
        region = loss_region(r)
        return None if region is None else {"finding": "statistical", **region}
    except Exception:  # noqa: BLE001 - see the docstring
        return None


def root_cause_text(r: dict[str, Any]) -> str | None:
    """The root cause as one paragraph of plain text (hex examples included), or None."""
    found = root_cause(r)
    if found is None:
        return None
    examples = found.get("examples") or []
    tail = f" Examples at x (in the event): {', '.join(examples)}." if examples else ""
    return str(found["sentence"]) + tail
