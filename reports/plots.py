"""Figures for the HTML report and ``dp-audit compare``, as PNG bytes.

Every figure is drawn on a fresh ``matplotlib.figure.Figure`` rendered by the Agg backend: no
pyplot, no global state, no display needed.  Functions take the report.json dictionaries (one
result, or the list of results) so a report can be re-rendered from its JSON alone.  matplotlib
is imported inside the functions: importing this module stays cheap.  The shared frame and
colours are in ``figure_base``; the trade-off figure of curve claims is ``tradeoff_plot``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from reports.evidence import as_float, as_floats
from reports.figure_base import (
    CLAIM_COLOUR,
    EVENT_COLOUR,
    NEUTRAL_COLOUR,
    X_COLOUR,
    X_PRIME_COLOUR,
    _figure,
    _g,
    claim_tick,
    short,
    to_png,
)
from reports.view import AdapterReport, parse_result

#: attack names / event texts for which the low-order-bits ("porous support") plot is drawn
POROUS_PATTERN = re.compile(r"lsb|precision|porous|float|ulp|grid|mantissa|double", re.I)


def epsilon_png(results: Sequence[AdapterReport]) -> bytes | None:
    """ε lower bound and the event's confidence interval against each adapter's claim.

    One row per adapter with counts.  The interval is the event's privacy loss
    ln((p0 − δ)/p1) at the result's significance; its lower end is the certified ε_lb, its
    upper end is drawn as an arrow when no output on x' fell in the event (unbounded).
    """
    rows = [(r, r.event_evidence) for r in results if r.event_evidence is not None]
    if not rows:
        return None
    finite = [
        v for r, ev in rows for v in (ev.lower, ev.upper, ev.point, _claimed(r)) if math.isfinite(v)
    ]
    x_max = max(1.0, max(finite) * 1.15)
    fig = _figure(7.5, 1.4 + 0.45 * len(rows), fit_labels=True)
    ax = fig.add_subplot()
    for i, (r, ev) in enumerate(rows):
        y = len(rows) - 1 - i
        assert ev is not None
        colour = EVENT_COLOUR if r.verdict == "violation" else X_COLOUR
        upper = ev.upper if math.isfinite(ev.upper) else x_max
        ax.plot([ev.lower, upper], [y, y], color=colour, lw=2, solid_capstyle="butt")
        if not math.isfinite(ev.upper):
            ax.annotate(
                "",
                xy=(x_max, y),
                xytext=(x_max * 0.97, y),
                arrowprops={"arrowstyle": "->", "color": colour},
            )
        ax.plot(
            [ev.lower],
            [y],
            "o",
            color=colour,
            ms=7,
            label="certified ε lower bound" if i == 0 else None,
        )
        if math.isfinite(ev.point):
            ax.plot(
                [ev.point],
                [y],
                "o",
                mfc="white",
                mec=colour,
                ms=6,
                label="point estimate" if i == 0 else None,
            )
        claim_tick(ax, _claimed(r), y, 0.35, labelled=i == 0)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([short(r.adapter, 40) for r, _ in reversed(rows)])
    ax.set_xlim(0, x_max)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel("ε: certified lower bound — event interval (red: claim violated)")
    fig.legend(loc="outside lower center", ncols=3, fontsize=8)
    return to_png(fig)


def _claimed(r: AdapterReport) -> float:
    """The claimed ε (a curve claim's implied ε may be infinite)."""
    assert r.claim is not None, "a result with counts has a claim"
    return as_float(r.claim.epsilon)


def event_png(r: AdapterReport) -> bytes | None:
    """The event's probability on x and on x' with their Clopper-Pearson limits (from counts)."""
    ev = r.event_evidence
    if ev is None:
        return None
    fig = _figure(4.2, 2.6)
    fig.subplots_adjust(left=0.15)
    ax = fig.add_subplot()
    for i, (p, lo, hi, colour) in enumerate(
        ((ev.p0, ev.p0_low, ev.p0_high, X_COLOUR), (ev.p1, ev.p1_low, ev.p1_high, X_PRIME_COLOUR))
    ):
        ax.bar([i], [p], color=colour, width=0.6)
        ax.errorbar([i], [p], yerr=[[p - lo], [hi - p]], color="black", capsize=6, lw=1.5)
    ax.set_xticks([0, 1])
    ax.set_xticklabels(["P[event | x]", "P[event | x']"])
    ax.set_ylim(0, min(1.0, max(ev.p0_high, ev.p1_high) * 1.2) or 1.0)
    ax.set_title(f"counts {ev.k0:,}/{ev.n0:,} vs {ev.k1:,}/{ev.n1:,}", fontsize=9)
    return to_png(fig)


def _discrete(values: np.ndarray) -> bool:
    finite = values[np.isfinite(values)]
    return (
        bool(len(finite))
        and bool(np.all(finite == np.round(finite)))
        and len(np.unique(finite)) <= 40
    )


def distributions_png(r: AdapterReport) -> bytes | None:
    """The two output distributions (kept sample) with the outputs in the event marked."""
    sample = r.output_sample
    if not sample:
        return None
    sides = [
        (as_floats(sample.x), np.asarray(sample.in_event_x, bool), "x", X_COLOUR),
        (
            as_floats(sample.x_prime),
            np.asarray(sample.in_event_x_prime, bool),
            "x'",
            X_PRIME_COLOUR,
        ),
    ]
    both = np.concatenate([v for v, *_ in sides])
    fig = _figure(7.5, 3.8)
    axes = fig.subplots(2, 1, sharex=True)
    discrete = _discrete(both)
    finite_all = both[np.isfinite(both)]
    if not len(finite_all):
        return None
    if discrete:
        support = np.unique(finite_all)
    else:
        lo, hi = np.quantile(finite_all, [0.005, 0.995])
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.linspace(lo, hi, 61)
    for ax, (values, hits, label, colour) in zip(axes, sides, strict=True):
        finite = np.isfinite(values)
        if discrete:
            inside = [np.count_nonzero((values == s) & hits) for s in support]
            outside = [np.count_nonzero((values == s) & ~hits) for s in support]
            ax.bar(support, outside, color=colour, alpha=0.55, width=0.8, label="not in event")
            ax.bar(
                support,
                inside,
                bottom=outside,
                color=colour,
                edgecolor=EVENT_COLOUR,
                hatch="//",
                width=0.8,
                label="in event",
            )
        else:
            clipped = np.clip(values[finite], edges[0], edges[-1])
            ax.hist(
                [clipped[~hits[finite]], clipped[hits[finite]]],
                bins=edges,
                stacked=True,
                histtype="stepfilled",
                color=[colour, EVENT_COLOUR],
                alpha=0.75,
                label=["not in event", "in event"],
            )
        bottom = int(np.count_nonzero(~finite))
        extra = f"; ⊥/non-finite: {bottom}" if bottom else ""
        ax.set_ylabel("outputs")
        ax.set_title(
            f"on {label} = {short(_query(r, 0 if label == 'x' else 1), 40)}: "
            f"{int(hits.sum())} of {len(values)} in event{extra}",
            fontsize=9,
            loc="left",
        )
        ax.legend(fontsize=7, loc="upper right")
    if discrete and len(support) <= 12:
        axes[1].set_xticks(support)
    source = "training" if sample.source is None else sample.source
    axes[1].set_xlabel(f"output ({source} sample)")
    return to_png(fig)


def _query(r: AdapterReport, side: int) -> Any:
    return (r.queries or (None, None))[side]


def wants_porosity(r: AdapterReport) -> bool:
    """Whether a finding is about floating-point support (attack name or event text says so)."""
    text = f"{r.attack or ''} {r.event or ''}"
    return bool(r.output_sample) and bool(POROUS_PATTERN.search(text))


def trailing_zero_bits(values: np.ndarray) -> np.ndarray:
    """Trailing zero bits of each double's 53-bit significand (0..52); 52 for zeros."""
    v = np.asarray(values, dtype=np.float64)
    bits = v.view(np.uint64)
    significand = (bits & np.uint64((1 << 52) - 1)) | np.uint64(1 << 52)
    lowest = significand & (~significand + np.uint64(1))  # lowest set bit
    tz = np.log2(lowest.astype(np.float64)).astype(np.int64)
    return np.where(v == 0, 52, tz)


def porosity_png(r: AdapterReport) -> bytes | None:
    """Low-order bits of the outputs on x vs x': where a float sampler's support is porous.

    Left: each output's binade (log2 of its magnitude) against the number of trailing zero bits
    of its significand: outputs confined to a coarse grid (e.g. multiples of 2^-53 near 0)
    climb a diagonal, full-precision outputs stay at the bottom.  Right: the
    share of outputs in the event per binade (power-of-two range of |output|): a support
    that x' cannot reach shows as bars on x with nothing on x'.
    """
    sample = r.output_sample
    if sample is None or not wants_porosity(r):
        return None
    fig = _figure(7.5, 3.2)
    left, right = fig.subplots(1, 2)
    rng = np.random.default_rng(0)  # jitter only, so points do not hide each other
    binades: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for outputs, marks, label, colour in (
        (sample.x, sample.in_event_x, "x", X_COLOUR),
        (sample.x_prime, sample.in_event_x_prime, "x'", X_PRIME_COLOUR),
    ):
        values = as_floats(outputs)
        hits = np.asarray(marks, bool)
        keep = np.isfinite(values) & (values != 0)
        values, hits = values[keep], hits[keep]
        if not len(values):
            continue
        tz = trailing_zero_bits(values) + rng.uniform(-0.25, 0.25, len(values))
        magnitude = np.log2(np.abs(values))
        left.scatter(
            magnitude[~hits], tz[~hits], s=6, color=colour, alpha=0.45, label=f"on {label}"
        )
        left.scatter(
            magnitude[hits],
            tz[hits],
            s=9,
            color=colour,
            edgecolor=EVENT_COLOUR,
            linewidth=0.6,
            label=f"on {label}, in event",
        )
        binades[label] = (np.floor(np.log2(np.abs(values))).astype(int), hits)
    left.set_xlabel("log2 |output|")
    left.set_ylabel("trailing zero bits of significand")
    left.legend(fontsize=7)
    if binades:
        exps = np.unique(np.concatenate([e for e, _ in binades.values()]))
        exps = (
            exps[(exps >= np.percentile(exps, 2)) & (exps <= np.percentile(exps, 98))]
            if len(exps) > 20
            else exps
        )
        width = 0.4
        for offset, (label, colour) in zip(
            (-width / 2, width / 2), (("x", X_COLOUR), ("x'", X_PRIME_COLOUR)), strict=True
        ):
            if label not in binades:
                continue
            e, hits = binades[label]
            share = [hits[e == k].mean() if np.any(e == k) else 0.0 for k in exps]
            right.bar(
                exps + offset,
                share,
                width=width,
                color=colour,
                edgecolor=colour,
                linewidth=1.5,
                label=f"on {label}",
            )
        right.set_xlabel("binade: floor(log2 |output|)")
        right.set_ylabel("share of outputs in event")
        right.set_ylim(0, 1.05)
        right.legend(fontsize=7)
    return to_png(fig)


def _loss_positions(
    edges: np.ndarray, loss: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, bool]:
    """The bins' x positions: their edges, or for heavy-tailed outputs (the outer bins much
    wider than the bulk) their quantile positions; and which of the two."""
    k = len(loss)
    width = np.diff(edges)
    bulk = float(np.median(width)) if k > 2 else float(edges[-1] - edges[0])
    quantile_axis = k > 2 and float(edges[-1] - edges[0]) > 20 * k * max(bulk, 1e-300)
    # quantile positions: each bin as wide as its share of the pooled outputs
    pos = (
        np.concatenate([[0.0], np.cumsum(counts) / max(1, counts.sum())])
        if quantile_axis
        else edges
    )
    return pos, quantile_axis


def _claim_and_bound_lines(ax: Any, r: AdapterReport, found: dict[str, Any]) -> None:
    """Dashed lines at ± the claimed ε and, when finite, the certified bound dotted."""
    eps = float(found["epsilon"])
    if math.isfinite(eps):
        for sign in (1.0, -1.0):
            ax.axhline(
                sign * eps,
                ls="--",
                lw=1.2,
                color=CLAIM_COLOUR,
                label=f"± claimed ε = {_g(eps)}" if sign > 0 else None,
            )
    bound = as_float(r.epsilon_lower_bound)
    if math.isfinite(bound) and bound > 0 and not r.unbounded:
        ax.axhline(
            bound,
            ls=":",
            lw=1.2,
            color=EVENT_COLOUR,
            label=f"certified ε ≥ {_g(bound)} (event counts)",
        )


def privacy_loss_png(r: Mapping[str, Any]) -> bytes | None:
    """The empirical privacy-loss distribution of a statistical violation against its claim.

    Per bin of the pooled output sample (:func:`reports.root_cause.loss_region`), the empirical
    loss ln(P̂_x / P̂_x′) as a step line over the output values, both signs; dashed lines at
    ± the claimed ε; bins mostly in the event shaded; bins above the claim drawn thick in red.
    Heavy-tailed outputs (the outer bins much wider than the bulk) are drawn at their quantile
    positions instead, ticks labelled with output values.  Descriptive: the certified bound
    (dotted, when finite) rests on the event's counts.  None when there is no such finding.
    ``r``: a report.json result.
    """
    return result_privacy_loss_png(parse_result(r))


def result_privacy_loss_png(r: AdapterReport) -> bytes | None:
    """:func:`privacy_loss_png` of a result of the report view."""
    from reports.root_cause.loss import result_loss_region

    found = result_loss_region(r)
    if found is None:
        return None
    edges = np.asarray(found["edges"], dtype=np.float64)
    loss = np.asarray(found["loss"], dtype=np.float64)
    counts = np.asarray(found["count_x"]) + np.asarray(found["count_x_prime"])
    k = len(loss)
    pos, quantile_axis = _loss_positions(edges, loss, counts)
    fig = _figure(7.5, 3.6, fit_labels=True)
    ax = fig.add_subplot()
    for i in range(k):
        if found["in_event"][i]:
            ax.axvspan(
                pos[i],
                pos[i + 1],
                color=EVENT_COLOUR,
                alpha=0.1,
                lw=0,
                label="bins mostly in the event" if not any(found["in_event"][:i]) else None,
            )
    ax.stairs(
        loss, pos, baseline=None, color=X_COLOUR, lw=1.5, label="empirical ln(P̂_x / P̂_x′) per bin"
    )
    beyond = [int(j) for j in np.flatnonzero(np.array(found["excess"]) | found["reverse"])]
    for j in beyond:
        ax.hlines(
            loss[j],
            pos[j],
            pos[j + 1],
            color=EVENT_COLOUR,
            lw=3.5,
            label="beyond the claim: |loss| > ε" if j == beyond[0] else None,
        )
    _claim_and_bound_lines(ax, r, found)
    ax.axhline(0.0, lw=0.6, color=NEUTRAL_COLOUR)
    if quantile_axis:
        ticks = np.linspace(0, k, min(k, 6) + 1).astype(int)
        ax.set_xticks(pos[ticks])
        ax.set_xticklabels([_g(edges[t]) for t in ticks], fontsize=7)
        ax.set_xlabel(f"output (at its quantile position in the pooled {found['source']} sample)")
    else:
        ax.set_xlabel(f"output ({found['source']} sample)")
    ax.set_xlim(pos[0], pos[-1])
    ax.set_ylabel("privacy loss ln(P̂_x / P̂_x′)")
    ax.set_title(
        short(
            f"{r.adapter}: empirical privacy loss, {found['sample_x']:,} + "
            f"{found['sample_x_prime']:,} outputs (descriptive)",
            100,
        ),
        fontsize=9,
    )
    ax.legend(fontsize=7, loc="best")
    return to_png(fig)
