"""Cells along one score, for claims stated as Renyi divergences (zCDP, RDP).

Why: a threshold event keeps only part of a Renyi divergence (about 2/pi of a close Gaussian
pair's), so a zCDP or RDP claim that is off by less than that factor passes every single
event.  The counts of k cells cut along the same score keep most of it
(``auditor.statistics.renyi_cells``).  The score is that of a threshold event proposed on the
training split -- the output itself, a projection of a vector, a classifier's score -- and the
cuts are quantiles of the training scores, equal-mass or thinning out into a tail (where a high
order's divergence sits); which score and which cuts is decided by the bound each would
certify at the training proportions.  Nothing here sees certification outputs.

A chain is counted as k - 1 nested threshold events ``score > cut_j`` (cuts increasing), so the
engine's event counting serves it unchanged: the cells' counts are differences of the events'
counts, and outputs whose score is NaN fall in the first cell with those at or below the
first cut.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from auditor.core.claim_kinds import REGISTRY, kind_of
from auditor.core.trials import Event
from auditor.statistics.clopper_pearson import corner_bounds
from auditor.statistics.events.classifier_events import ScoreThreshold
from auditor.statistics.events.event_selection import Tail
from auditor.statistics.events.vector_events import Threshold
from auditor.statistics.renyi_cells import ZCDP_ORDERS, cell_box, renyi_lower_bounds, renyi_plug_in

#: claim kinds a chain is proposed for: those with a Renyi event test (``renyi_orders``)
RENYI_KINDS = tuple(name for name, kind in REGISTRY.items() if kind.renyi_orders is not None)
#: numbers of equal-mass cells tried per score
CELL_COUNTS = (3, 4, 6, 8, 12, 16)
#: ratios of tail cells' masses in the tail layouts tried per score (a high order's divergence
#: sits where the likelihood ratio is extreme, in a score's far tail, which equal cells lump)
TAIL_RATIOS = (0.1, 0.25)
#: fewest outputs a tail layout's outermost cell is expected to hold among the training outputs
#: it is chosen on (fewer, and their proportions are mostly noise)
MIN_TAIL_OUTPUTS = 50
#: scores tried: those of the first proposed threshold events with distinct scores
MAX_SCORES = 3
#: report.json's ``estimator`` of a bound certified on cells
CELLS_ESTIMATOR = "clopper-pearson-cells"

Score = Callable[[np.ndarray], np.ndarray]


def _output_value(y: np.ndarray) -> np.ndarray:
    return np.asarray(y, dtype=float)


def score_of(event: Event) -> tuple[Score, str] | None:
    """The score a threshold event cuts, and what it is in words; None for other events."""
    p: Any = event.predicate
    if isinstance(p, Tail):
        return _output_value, "the output"
    if isinstance(p, Threshold):
        return p.projection, str(getattr(p.projection, "text", "a projection of the output"))
    if isinstance(p, ScoreThreshold):
        return p.score, "a logistic score of the output"
    return None


class Above:
    """``score(y) > t`` (``above``), else its complement (at most t, or NaN)."""

    def __init__(self, score: Score, t: float, above: bool = True) -> None:
        self.score, self.t, self.above = score, t, above

    @property
    def projection(self) -> Score:
        """What the report's plot draws the outputs as."""
        return self.score

    def __call__(self, y: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            hits = np.asarray(np.asarray(self.score(y), dtype=float) > self.t)
        return hits if self.above else ~hits


@dataclass(frozen=True)
class CellChain:
    """k cells of one score between increasing ``cuts``; ``events[j]`` is ``score > cuts[j]``."""

    text: str
    cuts: tuple[float, ...]
    events: tuple[Event, ...]
    score: Score = field(repr=False, compare=False)
    #: the cells' counts on the training split it was chosen on (x's, x''s), for predictions
    train_cells: tuple[np.ndarray, ...] = field(default=(), repr=False, compare=False)

    @property
    def k(self) -> int:
        return len(self.cuts) + 1

    def cells(self, above: np.ndarray, n: int) -> np.ndarray:
        """Counts of the k cells from the counts ``above`` of ``events`` among ``n`` outputs."""
        tail = np.concatenate([[n], np.asarray(above, dtype=np.int64), [0]])
        cells = tail[:-1] - tail[1:]
        if (cells < 0).any():
            raise ValueError(f"the chain's events are not nested: counts {tail.tolist()}")
        return np.asarray(cells, dtype=np.int64)

    def predicted(self, claim: Any, n: int, alpha: float) -> float:
        """The bound the cells are predicted to certify on ``n`` outputs per side at ``alpha``:
        their training proportions taken as the certification's (training outputs only)."""
        e0, e1 = (np.round(c / c.sum() * n).astype(np.int64) for c in self.train_cells)
        return chain_bound(claim, e0, e1, int(e0.sum()), int(e1.sum()), alpha)

    def plug_in(self, claim: Any) -> float:
        """The claim's parameter at the training proportions (optimistic; futility only)."""
        c0, c1 = self.train_cells
        return chain_plug_in(claim, c0, c1, int(c0.sum()), int(c1.sum()))

    def describe(self, on_x: np.ndarray, on_x_prime: np.ndarray) -> str:
        """The cells in words, with their counts on each side."""
        cuts = ", ".join(f"{c:.6g}" for c in self.cuts)
        return (
            f"{self.k} cells of {self.text} cut at {cuts}; outputs per cell on x: "
            f"{', '.join(f'{c:,}' for c in on_x)}; on x′: {', '.join(f'{c:,}' for c in on_x_prime)}"
        )

    def cut_event(self, j: int, above: bool) -> Event:
        """Cut j as one event (for plots of the score; no standalone source, since the
        chain's bound is not one event's)."""
        op = ">" if above else "≤"
        return Event(f"{self.text} {op} {self.cuts[j]:.6g}", Above(self.score, self.cuts[j], above))


def claim_orders(claim: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """The orders a Renyi claim binds and the divisor of each order's divergence in the
    claim's parameter (zCDP: rho >= D_a / a; RDP: scale >= D_a / eps(a) unscaled); None for
    other claims."""
    kind = kind_of(claim)
    if kind is None or kind.renyi_orders is None:
        return None
    return kind.renyi_orders(claim, ZCDP_ORDERS)


def parameter_bound(divergences: np.ndarray, divisors: np.ndarray) -> float:
    """max over orders of D_a / divisor(a): an order whose claimed divergence is 0 makes any
    shown divergence unbounded, one that claims nothing (inf) shows nothing."""
    d = np.asarray(divergences, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(divisors > 0, d / divisors, np.where(d > 0, np.inf, 0.0))
    ratio = np.where(np.isnan(ratio), 0.0, ratio)
    return float(max(0.0, ratio.max(initial=0.0)))


def chain_bound(
    claim: Any, on_x: np.ndarray, on_x_prime: np.ndarray, n0: int, n1: int, alpha: float
) -> float:
    """The claim's parameter certified from cell counts at confidence 1 - ``alpha``."""
    orders = claim_orders(claim)
    if orders is None:
        return 0.0
    a, divisors = orders
    return parameter_bound(renyi_lower_bounds(on_x, on_x_prime, n0, n1, alpha, a), divisors)


def chain_plug_in(claim: Any, on_x: np.ndarray, on_x_prime: np.ndarray, n0: int, n1: int) -> float:
    """The claim's parameter at the cells' observed proportions (no confidence: an optimistic
    estimate, for the futility check)."""
    orders = claim_orders(claim)
    if orders is None:
        return 0.0
    a, divisors = orders
    return parameter_bound(renyi_plug_in(on_x, on_x_prime, n0, n1, a), divisors)


def quantile_layouts(m: int) -> list[np.ndarray]:
    """Where to cut a score, as quantiles, for a choice made on ``m`` training outputs: ``k``
    equal-mass cells for each of ``CELL_COUNTS``, and, for each of ``TAIL_RATIOS`` r, cuts at
    the median and at tail masses r, r^2, ... (down to ``MIN_TAIL_OUTPUTS`` / m) in the upper
    tail, the lower tail or both."""
    layouts = [np.arange(1, k) / k for k in CELL_COUNTS]
    for r in TAIL_RATIOS:
        masses = r ** np.arange(1, 64)
        masses = masses[masses * m >= MIN_TAIL_OUTPUTS]
        if masses.size == 0:
            continue
        upper, lower = 1.0 - masses, masses
        for levels in (upper, lower, np.concatenate([lower, upper])):
            layouts.append(np.unique(np.concatenate([levels, [0.5]])))
    return layouts


def _chain(score: Score, text: str, pooled: np.ndarray, levels: np.ndarray) -> CellChain | None:
    """The cells of ``score`` cut at the ``levels`` quantiles of the ``pooled`` scores."""
    finite = pooled[np.isfinite(pooled)]
    if finite.size == 0:
        return None
    cuts = np.unique(np.quantile(finite, levels))
    cuts = cuts[cuts < finite.max()]  # a cut at the top leaves an empty cell
    if cuts.size == 0:
        return None
    events = tuple(Event(f"{text} > {c:.6g}", Above(score, float(c))) for c in cuts)
    return CellChain(text, tuple(float(c) for c in cuts), events, score)


def propose_chain(
    events: list[Event],
    train_x: np.ndarray,
    train_x_prime: np.ndarray,
    n: int,
    alpha: float,
    claim: Any,
) -> CellChain | None:
    """The cells, along the score of one of the first proposed threshold events, predicted to
    certify the largest value of the claim's parameter on ``n`` outputs per side at ``alpha``.

    The training split's first half is the one the events' scores were fitted on (as in
    ``event_selection``): the cuts are its quantiles, and the prediction takes the second
    half's proportions as the certification's, so a score that memorised its fitting outputs
    (boosted trees) or a tail cut on a few of them is not favoured."""
    if claim_orders(claim) is None or min(len(train_x), len(train_x_prime)) < 2:
        return None
    scores: list[tuple[Score, str]] = []
    for event in events:
        found = score_of(event)
        if found is not None and all(found[0] is not s for s, _ in scores):
            scores.append(found)
        if len(scores) >= MAX_SCORES:
            break
    best: tuple[float, CellChain] | None = None
    m0, m1 = len(train_x), len(train_x_prime)
    h0, h1 = m0 // 2, m1 // 2
    for score, text in scores:
        try:
            s0 = np.asarray(score(train_x), dtype=float)
            s1 = np.asarray(score(train_x_prime), dtype=float)
        except Exception:  # noqa: BLE001 - a score that fails on these outputs proposes nothing
            continue
        if s0.shape != (m0,) or s1.shape != (m1,):
            continue  # one number per output, or no cells
        pooled = np.concatenate([s0[:h0], s1[:h1]])
        held0, held1 = s0[h0:], s1[h1:]
        for levels in quantile_layouts(len(held0) + len(held1)):
            chain = _chain(score, text, pooled, levels)
            if chain is None:
                continue
            c0 = chain.cells(np.array([np.count_nonzero(held0 > c) for c in chain.cuts]), m0 - h0)
            c1 = chain.cells(np.array([np.count_nonzero(held1 > c) for c in chain.cuts]), m1 - h1)
            chain = dataclasses.replace(chain, train_cells=(c0, c1))
            predicted = chain.predicted(claim, n, alpha)
            if best is None or predicted > best[0]:
                best = (predicted, chain)
    return None if best is None or best[0] <= 0.0 else best[1]


def _sum_down(x: np.ndarray) -> float:
    return float(np.nextafter(math.fsum(x.tolist()), -np.inf))


def _sum_up(x: np.ndarray) -> float:
    return float(np.nextafter(math.fsum(x.tolist()), np.inf))


@dataclass(frozen=True)
class ChainResult:
    """What cell counts certify: ``bound`` in the claim's parameter, and the (epsilon, delta)
    statement of the same confidence box on its best cut (``epsilon``: from cut ``cut``,
    ``above`` or at-most; ``side`` 1 when the cut is likelier on x')."""

    bound: float
    epsilon: float
    cut: int
    above: bool
    side: int


def certify_chain(
    chain: CellChain,
    claim: Any,
    on_x: np.ndarray,
    on_x_prime: np.ndarray,
    n: int,
    alpha: float,
    delta: float,
) -> ChainResult:
    """The chain's certificate on ``n`` outputs per side at confidence 1 - ``alpha``.

    Both statements rest on the same simultaneous box (``renyi_cells``): a cut's probability
    lies between the sums of its cells' limits (and those of its complement's, from 1), so its
    (epsilon, delta) statement needs no alpha of its own."""
    bound = chain_bound(claim, on_x, on_x_prime, n, n, alpha)
    k = chain.k
    each = alpha / (4 * k)
    boxes = (cell_box(on_x, n, each), cell_box(on_x_prime, n, each))
    best = ChainResult(bound, 0.0, 0, True, 0)
    for j in range(1, k):
        for above in (True, False):
            inside = slice(j, None) if above else slice(0, j)
            outside = slice(0, j) if above else slice(j, None)
            for side in (0, 1):
                (lo_a, hi_a), (lo_b, hi_b) = boxes[side], boxes[1 - side]
                likely_lo = max(_sum_down(lo_a[inside]), 1.0 - _sum_up(hi_a[outside]))
                other_hi = min(_sum_up(hi_b[inside]), 1.0 - _sum_down(lo_b[outside]))
                eps = float(corner_bounds(np.array([likely_lo]), np.array([other_hi]), delta)[0])
                if eps > best.epsilon:
                    best = ChainResult(bound, eps, j - 1, above, side)
    return best
