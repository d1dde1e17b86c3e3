"""Choosing distinguishing events from a training split (model-free).

Candidates are the events the Neyman-Pearson lemma points to for one-dimensional outputs:
for continuous outputs, tails ``{y > t}`` / ``{y < t}``, unions of top-ratio histogram bins
(``histogram_events``) and unions of top-ratio float-representation cells (``bit_events``);
for discrete outputs, single outcomes, tails and unions of the outcomes with the largest
estimated likelihood ratio; for both, thresholds on a logistic-regression score of the value
and its float bits (``classifier_events``).  Each candidate is scored by the bound it would
certify at the planned certification size, so a rare event with a huge ratio wins only when
``n`` is large enough to see it.

The chosen events are certified on fresh samples by the runner; nothing here touches them.

Assumptions:
    None about the implementation; outputs are numbers (NaN meaning ⊥).

References:
    Ding et al., StatDP (CCS 2018): event selection on a separate batch.
    Bichsel et al., DP-Sniper (S&P 2021): threshold events on a one-dimensional score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from auditor.core.source import array_literal, event_code, literal
from auditor.core.trials import CertificationPlan, Event
from auditor.statistics.clopper_pearson import predicted_lower_bounds
from auditor.statistics.conditional import predicted_conditional_bounds
from auditor.statistics.events.bit_events import bit_cell_events
from auditor.statistics.events.classifier_events import classifier_events
from auditor.statistics.events.histogram_events import histogram_events

#: at most this many distinct values make an output "discrete"
MAX_DISCRETE_VALUES = 512
#: discrete outputs with at most this many values get every prefix of their likelihood-ratio
#: order as an event, both ways (so no classifier: its threshold sets cannot do better)
MAX_PREFIXES = 64

#: continuous outputs: the values seen most often (at least ``MIN_ATOM`` times in the build
#: half), up to this many, are single outcomes too, always scored exactly (the shortlist's
#: stand-in ranks rare events low).  A value the mechanism emits as such (a clamp bound, a
#: sentinel, a fallback answer) may carry a loss that no threshold isolates, far out in a
#: tail or amid the noise
MAX_ATOMS = 8
MIN_ATOM = 5
#: the repeated values likelier on one side are also united, alone and with either tail cut
#: where the other side's build half ends or at these build-half quantiles: noise clamped
#: to [q - A, q + A] puts atoms at both bounds that a neighbour never gives, beside an edge
#: strip it does not reach, and only together do they exceed a delta (up to ``MAX_UNITED``
#: values, the most repeated)
ATOM_TAILS = (1e-3, 1e-2, 0.1)
MAX_UNITED = 64


def _fmt(value: float) -> str:
    """Six significant digits, or as many as it takes to name the value exactly (2**33 + 1)."""
    short = f"{value:.6g}"
    if float(short) == value:
        return short
    as_float = float(value)
    return str(int(as_float)) if as_float.is_integer() else repr(as_float)


def _few_values(distinct: np.ndarray) -> bool:
    """Outputs of so few distinct finite values (discrete, then) that every likelihood-ratio
    prefix is a candidate: by the Neyman-Pearson lemma the best set of each size is such a
    prefix, so a classifier's score thresholds (sets too) add nothing but time."""
    return len(distinct) < MAX_PREFIXES


def _is_discrete(distinct: np.ndarray, dtype: np.dtype[Any]) -> bool:
    """Whether outputs whose distinct finite values are ``distinct`` count as discrete."""
    if distinct.size == 0:
        return True
    if np.issubdtype(dtype, np.integer) or np.all(distinct == np.round(distinct)):
        return len(distinct) <= 4 * MAX_DISCRETE_VALUES
    return len(distinct) <= MAX_DISCRETE_VALUES


@dataclass(frozen=True)
class Tail:
    """``y > threshold`` (``above``) or ``y < threshold``; NaN is in neither.  Carries its
    threshold so that :func:`selection_counts` counts many tails from one sorted copy."""

    threshold: float
    above: bool

    def __call__(self, y: np.ndarray) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        return y > self.threshold if self.above else y < self.threshold


def threshold_event(t: float, above: bool) -> Event:
    op = ">" if above else "<"
    code = event_code(f"np.asarray(x, dtype=float) {op} {literal(float(t))}")
    return Event(f"output {op} {_fmt(t)}", Tail(float(t), above), code=code)


@dataclass(frozen=True)
class _InOrTail:
    """``y`` in ``values`` or beyond ``threshold`` (a :class:`Tail`); NaN is in neither."""

    values: np.ndarray
    threshold: float
    above: bool

    def __call__(self, y: np.ndarray) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        beyond = y > self.threshold if self.above else y < self.threshold
        return np.isin(y, self.values) | beyond


def outcome_set_or_tail_event(values: np.ndarray, t: float, above: bool) -> Event:
    """The outputs in ``values`` together with one tail, ``output > t`` or ``output < t``."""
    values = np.sort(np.asarray(values, dtype=float))
    op = ">" if above else "<"
    inside = outcome_set_event(values).description.removeprefix("output ")
    code = event_code(
        f"np.isin(x, VALUES) | (np.asarray(x, dtype=float) {op} {literal(float(t))})",
        f"VALUES = {array_literal(values, values.dtype.name)}",
    )
    text = f"output {inside} or output {op} {_fmt(t)}"
    return Event(text, _InOrTail(values, float(t), above), code=code)


def outcome_set_event(values: np.ndarray) -> Event:
    values = np.sort(np.asarray(values))
    if len(values) == 1:
        text = f"output == {_fmt(values[0])}"
    elif len(values) <= 8:
        text = "output in {" + ", ".join(_fmt(v) for v in values) + "}"
    else:
        shown = ", ".join(_fmt(v) for v in values[:6])
        text = f"output in a set of {len(values)} values {{{shown}, ...}}"

    def member(y: np.ndarray, v: np.ndarray = values) -> np.ndarray:
        return np.isin(y, v)

    code = (
        event_code("np.isin(x, VALUES)", f"VALUES = {array_literal(values, values.dtype.name)}")
        if values.dtype.kind in "biuf"
        else None
    )
    return Event(text, member, code=code)


def bottom_event() -> Event:
    return Event(
        "output is ⊥ (no answer, NaN)",
        lambda y: np.isnan(np.asarray(y, dtype=float)),
        code=event_code("np.isnan(np.asarray(x, dtype=float))"),
    )


def selection_counts(events: list[Event], y: np.ndarray) -> np.ndarray:
    """How many of the outputs ``y`` fall in each event.  Tails (``y > t``, ``y < t``) are
    counted by binary search in one sorted copy of the outputs; events that unite cells of
    one partition (a histogram's bins, float cells: their predicate has ``partition``,
    ``cells_of`` and ``members``, sorted and distinct) from one tally of the outputs' cells;
    other events one by one.  The same counts as deciding every output."""
    counts = np.empty(len(events), dtype=np.int64)
    tallies: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
    ordered: np.ndarray | None = None
    for j, event in enumerate(events):
        p: Any = event.predicate
        if isinstance(p, Tail) and np.ndim(y) == 1:
            if ordered is None:
                values = np.asarray(y, dtype=float)
                ordered = np.sort(values[~np.isnan(values)])
            if p.above:
                counts[j] = len(ordered) - np.searchsorted(ordered, p.threshold, side="right")
            else:
                counts[j] = np.searchsorted(ordered, p.threshold, side="left")
            continue
        partition = getattr(p, "partition", None)
        if partition is None:
            counts[j] = np.count_nonzero(event(y))
            continue
        if partition not in tallies:
            tallies[partition] = np.unique(p.cells_of(y), return_counts=True)
        cells, multiplicities = tallies[partition]
        if len(cells):  # both sorted and distinct: a binary search finds the shared cells
            at = np.minimum(np.searchsorted(cells, p.members), len(cells) - 1)
            counts[j] = int(multiplicities[at[cells[at] == p.members]].sum())
        else:
            counts[j] = 0
    return counts


#: distinct candidates ranked exactly (the rest are shortlisted out by a normal approximation)
SHORTLIST = 256

#: how many standard errors the selection-half estimates are moved against each candidate
PESSIMISM = 1.0


def _pessimistic(k: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(k + 0.5) / (n + 1)`` moved ``PESSIMISM`` standard errors down and up."""
    p = (np.asarray(k, dtype=float) + 0.5) / (n + 1.0)
    s = np.sqrt(p * (1 - p) / (n + 1.0))
    return np.clip(p - PESSIMISM * s, 0, 1), np.clip(p + PESSIMISM * s, 0, 1)


def predicted_scores(
    ka: np.ndarray, na: int, kb: np.ndarray, nb: int, plan: CertificationPlan
) -> np.ndarray:
    """Predicted certified bound (best direction) of events seen ``ka``/``na`` and ``kb``/``nb`` times.

    The estimates ``(k + 0.5) / (n + 1)`` are never exactly 0 or 1, so events one side never
    produced stay in play (they win when the planned n is large) without sampling zeros
    dominating.  Each estimate is moved ``PESSIMISM`` standard errors against the event before
    predicting: among many candidates the luckiest small one otherwise wins (winner's curse),
    and the ranking should prefer events whose advantage is well measured.
    """
    lo_a, hi_a = _pessimistic(ka, na)
    lo_b, hi_b = _pessimistic(kb, nb)
    best: np.ndarray = np.maximum(
        predicted_lower_bounds(lo_a, hi_b, plan.n, plan.alpha, plan.delta, claim=plan.claim),
        predicted_lower_bounds(lo_b, hi_a, plan.n, plan.alpha, plan.delta, claim=plan.claim),
    )
    if plan.conditional:  # the certification may take the conditional test instead
        for p0, p1 in ((lo_a, hi_b), (lo_b, hi_a)):
            best = np.maximum(best, predicted_conditional_bounds(p0, p1, plan.n, plan.alpha))
    return best


def pessimistic_log_ratios(ka: np.ndarray, na: int, kb: np.ndarray, nb: int) -> np.ndarray:
    """``ln(p_a / p_b)`` (best direction) of the same pessimistic estimates, with no limit's
    width: tells apart events whose predicted bound is 0 at the planned size (a weak leak)."""
    lo_a, hi_a = _pessimistic(ka, na)
    lo_b, hi_b = _pessimistic(kb, nb)
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.log(lo_a / hi_b)
        down = np.log(lo_b / hi_a)
    ratios: np.ndarray = np.nan_to_num(np.maximum(up, down), nan=-np.inf)
    return ratios


def approximate_scores(
    ka: np.ndarray, na: int, kb: np.ndarray, nb: int, plan: CertificationPlan
) -> np.ndarray:
    """A cheap stand-in for :func:`predicted_scores` (normal approximations of the limits)
    to shortlist thousands of candidates before the exact ranking; never used to certify."""
    ka, kb = np.asarray(ka, dtype=float), np.asarray(kb, dtype=float)
    pa, pb = (ka + 0.5) / (na + 1.0), (kb + 0.5) / (nb + 1.0)
    z = float(np.sqrt(2 * np.log(2 / plan.alpha)))  # a Chernoff-style width, conservative

    def width(p: np.ndarray, n: float) -> np.ndarray:
        # the training estimate's pessimism plus a certification limit's width at plan.n
        training = PESSIMISM * np.sqrt(p * (1 - p) / n)
        return np.asarray(training + z * np.sqrt(p / plan.n) + z * z / plan.n)

    sa, sb = width(pa, na + 1.0), width(pb, nb + 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.log(np.clip(pa - sa - plan.delta, 0, None) / (pb + sb))
        down = np.log(np.clip(pb - sb - plan.delta, 0, None) / (pa + sa))
    return np.asarray(np.nan_to_num(np.maximum(up, down), nan=-np.inf, neginf=-np.inf))


def ranking_scores(
    ka: np.ndarray,
    na: int,
    kb: np.ndarray,
    nb: int,
    plan: CertificationPlan,
    always: np.ndarray | None = None,
) -> np.ndarray:
    """:func:`predicted_scores` of the candidates seen ``ka``/``na`` and ``kb``/``nb`` times,
    computed once per distinct pair of counts (thresholds between the same outputs share
    theirs) and only for the ``SHORTLIST`` best by :func:`approximate_scores` and the
    candidates ``always`` (indices: a few that the stand-in would rank too low); -inf for
    the rest.  The exact limits are what a ranking of many candidates spends its time on."""
    counts = np.stack([np.asarray(ka, dtype=np.int64), np.asarray(kb, dtype=np.int64)])
    unique, inverse = np.unique(counts, axis=1, return_inverse=True)
    inverse = inverse.ravel()
    rough = approximate_scores(unique[0], na, unique[1], nb, plan)
    shortlist = np.argsort(-rough, kind="stable")[:SHORTLIST]
    if always is not None and len(always):
        shortlist = np.union1d(shortlist, inverse[always])
    exact = np.full(unique.shape[1], -np.inf)
    exact[shortlist] = predicted_scores(unique[0][shortlist], na, unique[1][shortlist], nb, plan)
    scores: np.ndarray = exact[inverse]
    return scores


def _atoms(a: np.ndarray, b: np.ndarray) -> list[Event]:
    """Single outcomes for the ``MAX_ATOMS`` values the build half repeats most (each at
    least ``MIN_ATOM`` times), then the repeated values likelier on one side united
    (``MAX_UNITED`` at most), alone and with each tail (``ATOM_TAILS``)."""
    build = np.concatenate([a, b])
    build = build[np.isfinite(build)]
    values, counts = np.unique(build, return_counts=True)
    order = np.argsort(-counts, kind="stable")

    def most(k: int) -> np.ndarray:
        """The up to ``k`` most repeated values seen at least ``MIN_ATOM`` times, sorted."""
        top = order[:k]
        return np.sort(values[top[counts[top] >= MIN_ATOM]])

    events = [outcome_set_event(np.array([v])) for v in most(MAX_ATOMS)]
    repeated = most(MAX_UNITED)
    if not len(repeated):
        return events

    def share(y: np.ndarray) -> np.ndarray:
        hits = np.searchsorted(repeated, y[np.isin(y, repeated)])
        return np.bincount(hits, minlength=len(repeated)) / max(len(y), 1)

    share_a, share_b = share(a), share(b)
    lows, highs = np.split(np.quantile(build, [*ATOM_TAILS, *(1 - q for q in ATOM_TAILS)]), 2)
    for side, other in ((share_a > share_b, b), (share_b > share_a, a)):
        chosen = repeated[side]
        if not len(chosen):
            continue
        if len(chosen) > 1:
            events.append(outcome_set_event(chosen))
        seen = other[np.isfinite(other)]
        ends = (seen.min(), seen.max()) if len(seen) else ()
        for low in np.unique([*ends[:1], *lows]):
            events.append(outcome_set_or_tail_event(chosen, float(low), above=False))
        for high in np.unique([*ends[1:], *highs]):
            events.append(outcome_set_or_tail_event(chosen, float(high), above=True))
    return events


@dataclass
class DataDrivenEvents:
    """Model-free distinguisher for one-dimensional outputs of any family.

    The training split is halved.  The first half *builds* candidates: thresholds, single
    outcomes and top-ratio outcome unions (discrete outputs), the most repeated values
    (``MAX_ATOMS``) alone and united with a tail (``ATOM_TAILS``), unions of top-ratio
    histogram bins and of top-ratio (sign, binade, last mantissa bits) cells (continuous
    outputs), thresholds on a logistic-regression score of
    the value and its float bits.  The second half *scores* them by the bound each is
    predicted to certify at the planned certification ``n`` and ``alpha``
    (:func:`predicted_scores`); the best ``max_events`` are proposed.

    Assumptions: none about the implementation; outputs are numbers (NaN meaning ⊥).
    """

    max_events: int = 8
    train_fraction: float = 0.2
    n_thresholds: int = 256
    bins: bool = True
    bit_cells: bool = True
    classifier: bool = True

    def _candidates(
        self, a: np.ndarray, b: np.ndarray, pooled: np.ndarray, distinct: np.ndarray | None = None
    ) -> list[Event]:
        """Candidate events from the build half ``a``, ``b``; ``pooled`` is all training data
        and ``distinct`` its distinct finite values (computed when not given)."""
        events: list[Event] = []
        if np.isnan(pooled).any():
            events.append(bottom_event())
        finite = pooled[np.isfinite(pooled)]
        if finite.size == 0:
            return events
        if distinct is None:
            distinct = np.unique(finite)
        if _is_discrete(distinct, pooled.dtype):
            values = distinct
            counts_a = np.array([np.count_nonzero(a == v) for v in values], dtype=float)
            counts_b = np.array([np.count_nonzero(b == v) for v in values], dtype=float)
            if len(values) <= MAX_DISCRETE_VALUES:
                events += [outcome_set_event(values[i : i + 1]) for i in range(len(values))]
            ratio = np.log((counts_a + 0.5) / (counts_a.sum() + 1)) - np.log(
                (counts_b + 0.5) / (counts_b.sum() + 1)
            )
            order = np.argsort(-ratio, kind="stable")
            for r in range(2, min(len(values), MAX_PREFIXES)):
                events.append(outcome_set_event(values[order[:r]]))
                events.append(outcome_set_event(values[order[-r:]]))
            cut_points = values[:-1]
            if len(cut_points) > self.n_thresholds:
                cut_points = np.unique(
                    np.quantile(cut_points, np.linspace(0, 1, self.n_thresholds))
                )
        else:
            build = np.concatenate([a, b])
            build = build[np.isfinite(build)]
            qs = np.linspace(0, 1, self.n_thresholds + 2)[1:-1]
            cut_points = np.unique(np.quantile(build if build.size else finite, qs))
            if self.bins:
                events += histogram_events(a, b)
            if self.bit_cells:
                events += bit_cell_events(a, b)
        for t in cut_points:
            events.append(threshold_event(float(t), above=True))
            events.append(threshold_event(float(t), above=False))
        return events

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        """The ``max_events`` candidates with the largest predicted certified bound.

        Uses the training outputs only; returns [] when there are fewer than 2 per side.
        """
        a = np.asarray(train_x, dtype=float)
        b = np.asarray(train_x_prime, dtype=float)
        if len(a) < 2 or len(b) < 2:
            return []
        ha, hb = len(a) // 2, len(b) // 2
        build_a, build_b, sel_a, sel_b = a[:ha], b[:hb], a[ha:], b[hb:]
        pooled = np.concatenate([a, b])
        distinct = np.unique(pooled[np.isfinite(pooled)])
        events = self._candidates(build_a, build_b, pooled, distinct)
        # atoms last, and scored exactly whatever the stand-in says (see MAX_ATOMS)
        atoms = [] if _is_discrete(distinct, pooled.dtype) else _atoms(build_a, build_b)
        always = np.arange(len(events), len(events) + len(atoms))
        events += atoms
        ka, kb = selection_counts(events, sel_a), selection_counts(events, sel_b)
        if self.classifier and not _few_values(distinct):
            more, more_a, more_b = classifier_events(build_a, build_b, sel_a, sel_b)
            events += more
            ka, kb = np.concatenate([ka, more_a]), np.concatenate([kb, more_b])
        if not events:
            return []
        scores = ranking_scores(ka, len(sel_a), kb, len(sel_b), plan, always)
        chosen: list[Event] = []
        seen: set[str] = set()
        for i in np.argsort(-scores, kind="stable"):
            event = events[i]
            if event.description not in seen:
                seen.add(event.description)
                chosen.append(event)
            if len(chosen) == self.max_events:
                break
        return chosen
