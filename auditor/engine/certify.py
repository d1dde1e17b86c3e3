"""Certifying one trial: a pilot stage, then training, event proposal and staged certification.

This module holds what spends alpha (the ``Certifier``); ``auditor.engine.schedule`` fixes
each stage's size and share before anything is drawn, ``auditor.engine.trial_stages`` runs
the stages, and ``auditor.engine.search_units`` finds the pair first without spending any.

The outputs an event is chosen on are never the outputs that certify it.  Each trial's tests
(``2 * max_events``: every event in both directions) share the trial's alpha as follows, all
fixed before any sample is drawn:

1. **Pilot** (``PILOT_SHARE`` of each test's alpha): events are proposed from a small first
   part of the training split and certified on the next part.  A gross violation (an event
   that one neighbour almost never produces) is certified here, after a few thousand outputs.
2. **Main**: the whole training split (pilot data included: it is no longer used to certify
   anything after the pilot) proposes events again, which are certified on fresh samples at
   the planned looks; look j spends ``share_j`` of the remaining alpha (group-sequential
   alpha-spending).  Looks that would see fewer than ``MIN_LOOK`` outputs per side are merged
   into the next look.

With a single configured look (``AuditConfig(looks=((1.0, 1.0),))``) the certification is
fixed-n: no pilot, no early stop, the whole alpha at the end.

The main stage's alpha is weighted Bonferroni over the proposed events (``_test_alphas``):
half of the trial's reservation to the (event, direction) the training split predicts
strongest, half evenly over the others.  For each (event, direction) the alpha split between
the two Clopper-Pearson limits is chosen from the training estimates (``best_split``), i.e.
also before certification.  A trial stops at
the first look whose best bound exceeds the claim.  See docs/estimators.md for the numbers
behind this design.

**Futility** (``AuditConfig.futility``): after proposing, and before any certification output
is drawn, the training split is asked whether the trial has any chance.  Every proposed event's
training rates are moved to the edge of their one-sided ``1 - futility`` Clopper-Pearson
intervals in the event's favour and the bound they would certify at the final look is
predicted; if no event, in either direction, reaches the claimed epsilon, the trial is *cut*:
it takes ``Schedule.short_looks`` instead of ``Schedule.looks``, both fixed from the
configuration like every other size.  A trial with a pilot then draws no main certification
output at all (the pilot has certified its bound already; the main alpha goes unspent); one
without a pilot is certified at its first look alone, with the whole of the main alpha.  Each
schedule is a valid test, and the choice between them sees training outputs only, so no bound
changes meaning; a cut trial only loses the power its training split says it did not have.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from auditor.core.claim_kinds import is_point
from auditor.core.configs import AuditConfig
from auditor.core.interfaces import Attack
from auditor.core.results import (
    EpsilonEstimate,
    EventCounts,
    Finding,
    Replay,
)
from auditor.core.seeding import entropy
from auditor.core.spec import AdapterSpec
from auditor.core.trials import Event, Trial
from auditor.engine.proposals import Proposer
from auditor.engine.sampling import (
    Counts,
    InProcessSampler,
    Sampler,
    call_with_timeout,
    chunk_entropy,
    count_events,
    request_chunks,
)
from auditor.engine.schedule import (
    Schedule,
    plan_stages,
)
from auditor.engine.timed_sampling import draw_timed_pair, is_timed
from auditor.statistics.clopper_pearson import (
    best_predicted_lower_bounds,
    best_splits,
    cp_lower_array,
    cp_upper_array,
    delta_lower_bound,
    epsilon_lower_bound,
    epsilon_point_estimate,
    predicted_lower_bounds,
)
from auditor.statistics.conditional import (
    CONDITIONAL_ESTIMATOR,
    conditional_lower_bound,
    predicted_conditional_bounds,
)
from auditor.statistics.events.cell_chains import (
    CELLS_ESTIMATOR,
    CellChain,
    certify_chain,
)
from auditor.statistics.power import (
    claim_power_statement,
    detectable_delta,
    power_statement,
)

if TYPE_CHECKING:
    from auditor.core.configs import AuditConfig


@dataclass(frozen=True)
class Tally:
    """Counts ``k`` (per side, per event) of ``drawn`` outputs per side and each test's alpha
    and split (per direction, per event), as :meth:`Certifier._best` and
    :meth:`Certifier._best_delta` read them.  ``sizes``: the outputs drawn on x and x' when
    they were Poisson-sized with mean ``drawn`` each; ``conditional`` marks the tests that
    then take the conditional test."""

    k: np.ndarray
    drawn: int
    alphas: np.ndarray
    splits: np.ndarray
    sizes: tuple[int, int] | None = None
    conditional: np.ndarray | None = None

    def tests(self, events: int) -> list[tuple[int, int, EventCounts, float, float, bool]]:
        """The tests of the first ``events`` events, event by event and direction by direction:
        ``(event, side, counts, alpha, split, by ratio)``; by ratio: the conditional test."""
        k, sizes, out = self.k, self.sizes, []
        marked = self.conditional if sizes is not None else None
        for j in range(events):
            for side in (0, 1):
                n0, n1 = (self.drawn,) * 2 if sizes is None else (sizes[side], sizes[1 - side])
                counts = EventCounts(n0=n0, k0=int(k[side, j]), n1=n1, k1=int(k[1 - side, j]))
                alpha, split = float(self.alphas[side, j]), float(self.splits[side, j])
                by_ratio = bool(marked is not None and marked[side, j])
                out.append((j, side, counts, alpha, split, by_ratio))
        return out


class Certifier:
    """The alpha ledger of one adapter's trials: each test's alpha and split, the bounds read
    at each look, the futility prediction, power, and the draws that certify.  The stages of
    a trial (``auditor.engine.trial_stages.run_trial``) call it; the search before them
    (``auditor.engine.search_units``) never does."""

    def __init__(
        self,
        spec: AdapterSpec,
        config: AuditConfig,
        alpha_test: float,
        on_samples: Callable[[int], None],
        sampler: Sampler | None = None,
        proposer: Proposer | None = None,
    ):
        self.spec, self.config, self.alpha_test = spec, config, alpha_test
        self.on_samples = on_samples
        # where draws run (auditor.engine.backends); every backend draws the same seeded chunks
        self.sampler = sampler if sampler is not None else InProcessSampler()
        # where screening's many proposals run (auditor.engine.proposals): the same results
        self.proposer = proposer if proposer is not None else Proposer()
        self.samples = 0
        #: each trial the futility check cut, for the report's notes
        self.short: list[CutTrial] = []
        #: (attack, candidate pairs, outputs per side each was first scored on) of every
        #: screening under a point claim with delta > 0, for the note on leaks in delta alone
        self.screens: list[tuple[str, int, int]] = []

    def seed(self, *labels: object) -> int:
        """The entropy of the request named by ``labels`` (one per request: fresh outputs)."""
        return entropy(self.config.seed, self.spec.name, *labels)

    def _counted(self, n: int) -> None:
        """``n`` more outputs were drawn (held or counted where drawn)."""
        self.samples += n
        self.on_samples(n)

    def _draw(self, query: Any, n: int, *labels: object) -> np.ndarray:
        out = self.sampler.draw(self.spec, query, n, self.seed(*labels))
        self._counted(n)
        return out

    def _send(
        self,
        trial: Trial,
        batches: list[tuple[int, int]],
        events: list[Event],
        *labels: object,
        sizes: Callable[[int, int, int], int] | None = None,
    ) -> Counts:
        """Start counting ``events`` on fresh outputs of x and x' for each ``(batch_no, size)``
        batch; a backend may count where it samples and send back only the counts.
        ``sizes(batch_no, size, side)``: the outputs each request draws (default ``size``)."""
        requests = [
            (q, size if sizes is None else sizes(b, size, side), self.seed(*labels, b, side))
            for b, size in batches
            for side, q in enumerate((trial.x, trial.x_prime))
        ]
        return self.sampler.start_counts(self.spec, requests, events)

    def poisson_size(self, mean: int, *labels: object) -> int:
        """A request's size drawn from Poisson(``mean``), seeded by ``labels`` alone (never by
        outputs): the counts of Poisson-sized samples are what the conditional test needs."""
        return int(np.random.default_rng(self.seed(*labels, "size")).poisson(mean))

    def _predicted(
        self, p0: np.ndarray, p1: np.ndarray, n: int, alpha: float, poisson: bool
    ) -> np.ndarray:
        """What each event would certify at rates ``p0`` (x) and ``p1`` (x') on ``n`` outputs
        per side: the box with its best split, or (``poisson``: Poisson-sized samples of a
        pure epsilon claim) the better of that and the conditional test."""
        claim = self.spec.claim
        box = best_predicted_lower_bounds(p0, p1, n, alpha, claim.delta, claim)
        if not poisson:
            return box
        best: np.ndarray = np.maximum(box, predicted_conditional_bounds(p0, p1, n, alpha))
        return best

    def _conditional(
        self, rates: np.ndarray | None, n: int, alphas: np.ndarray, splits: np.ndarray
    ) -> np.ndarray:
        """Per (direction, event), whether the conditional test is predicted to certify more
        than the box with its split, from the training rates (None: no training split, the
        conditional test everywhere); chosen before certification, so either stays valid."""
        if rates is None:
            return np.ones(alphas.shape, dtype=bool)
        delta, claim = self.spec.claim.delta, self.spec.claim
        out = np.zeros(alphas.shape, dtype=bool)
        for side in (0, 1):
            for j in range(alphas.shape[1]):
                p0, p1 = rates[side, j : j + 1], rates[1 - side, j : j + 1]
                alpha, split = float(alphas[side, j]), float(splits[side, j])
                box = predicted_lower_bounds(p0, p1, n, alpha, delta, split, claim)[0]
                out[side, j] = predicted_conditional_bounds(p0, p1, n, alpha)[0] > box
        return out

    def _collect(self, counts: Counts, events: list[Event]) -> np.ndarray:
        """Rows 0 and 1: the counts on x and on x', summed over the batches."""

        found = np.array(counts.wait(self._counted), dtype=np.int64)
        summed: np.ndarray = found.reshape(-1, 2, len(events)).sum(axis=0)
        return summed

    def _draw_counts(
        self, trial: Trial, batches: list[tuple[int, int]], events: list[Event], *labels: object
    ) -> np.ndarray:
        """``_collect(_send(...))`` for timed distinguishers, whose rows are drawn here."""
        k = np.zeros((2, len(events)), dtype=np.int64)
        for b, size in batches:
            outs = self._draw_pair(trial, size, *labels, b)
            for side, out in enumerate(outs):
                k[side] += count_events(events, out)
        return k

    def _exact(self, attack: Attack, trial: Trial) -> Finding | None:
        """Run the trial's white-box check (no sampling, no alpha), if it has one."""
        exact = trial.exact
        if exact is None:
            return None
        # white-box extras (probabilities, release_without_noise) run here, not in a worker:
        # a hang gets the engine's timeout rather than stopping the whole audit
        evidence = call_with_timeout(
            lambda: exact(self.spec),
            self.sampler.timeout,
            f"adapter {self.spec.name!r}: the white-box check of attack {attack.name!r}",
        )
        if evidence is None:
            return None
        # exact evidence holds with probability 1, so at every significance; record the run's
        # per-test alpha so that every estimate in a report carries an alpha in (0, 1)
        estimate = replace(evidence.estimate, alpha=self.alpha_test)
        claim = self.spec.claim
        if not is_point(claim) and estimate.claim_bound is None:
            # an exact epsilon says nothing in a curve's own parameter: the claim's test on the
            # exact probabilities does; evidence with neither is not used
            if estimate.probabilities is None:
                return None
            p0, p1 = estimate.probabilities
            bound = float(claim.certified(p0, p1))
            estimate = replace(estimate, claim_bound=bound, parameter=claim.parameter)
        return Finding(
            attack.name,
            trial.description,
            evidence.x,
            evidence.x_prime,
            estimate,
            0,
            0,
            0,
            replay=Replay(evidence.event_code, probe=evidence.probe),
        )

    def calls(self, query: Any, n: int, seed: int) -> tuple[tuple[int, int], ...]:
        """The seeded ``sample`` calls ``(outputs, entropy)`` of a request (its chunks)."""
        sizes = request_chunks(self.spec, query, n)
        return tuple((size, chunk_entropy(seed, i)) for i, size in enumerate(sizes))

    def _draw_pair(self, trial: Trial, n: int, *labels: object) -> list[np.ndarray]:
        """``n`` outputs on each side.

        Distinguishers that opt in to timing (``timed = True``) get interleaved single-output
        calls with their durations instead: (n, 2) arrays (see ``auditor.engine.timed_sampling``).
        """
        pair = (trial.x, trial.x_prime)
        if is_timed(trial.distinguisher):
            seed = entropy(self.config.seed, self.spec.name, *labels, "timed")
            out = draw_timed_pair(self.spec, pair[0], pair[1], n, seed)
            self._counted(2 * n)
            return list(out)
        return [self._draw(q, n, *labels, side) for side, q in enumerate(pair)]

    def _splits(self, rates: np.ndarray | None, n: int, alphas: np.ndarray) -> np.ndarray:
        """Alpha share of the lower limit per (direction, event), from the events' training
        rates (:func:`_training_rates`; None: no training split, even splits) and each test's
        alpha ``alphas`` (shape (2, events))."""
        splits = np.full(alphas.shape, 0.5)
        if rates is None:
            return splits
        p, claim = rates, self.spec.claim
        for side in (0, 1):
            for alpha in np.unique(alphas[side]):
                at = alphas[side] == alpha
                chosen = best_splits(p[side][at], p[1 - side][at], n, alpha, claim.delta, claim)
                splits[side, at] = chosen
        return splits

    def _test_alphas(
        self,
        events: list[Event],
        rates: np.ndarray | None,
        n: int,
        alpha: float,
        tests: int,
        chain: Callable[[float], float] | None = None,
        poisson: bool = False,
    ) -> tuple[np.ndarray, float]:
        """Each (direction, event)'s alpha, and the cells' (``chain``: their predicted bound at
        a given alpha; 0.0 without cells): the ``tests`` shares of ``alpha`` the trial reserved,
        spread over the tests proposed -- half to the one the training split predicts to
        certify the largest bound at ``n``, half evenly over the others.  Weighted Bonferroni:
        the weights are fixed from training outputs only and sum to the reservation, so the
        union bound holds as with even shares; the likely winner pays a smaller multiplicity
        price (with 8 events, alpha/2 instead of alpha/16 for it)."""
        total, m = alpha * tests, 2 * len(events) + (chain is not None)
        alphas = np.full((2, len(events)), total / m)
        chain_alpha = total / m if chain is not None else 0.0
        if m < 2 or rates is None:
            return alphas, chain_alpha
        predicted = [self._predicted(rates[s], rates[1 - s], n, total / m, poisson) for s in (0, 1)]
        alphas[:] = total / (2 * (m - 1))
        if chain is not None:
            chain_alpha = total / (2 * (m - 1))
            if chain(total / m) > float(np.max(predicted, initial=0.0)):
                return alphas, total / 2
        alphas[np.unravel_index(int(np.argmax(predicted)), alphas.shape)] = total / 2
        return alphas, chain_alpha

    def _best(
        self,
        events: list[Event],
        tally: Tally,
        chain: CellChain | None = None,
        chain_alpha: float = 0.0,
    ) -> Candidate | None:
        """The strongest (event, direction) on the counts of ``tally`` (its first
        ``len(events)`` columns), by the bound in the claim's own parameter (epsilon for a point
        claim).  With ``chain``, its events' counts follow the events' and its cells are a test
        too, at ``chain_alpha``."""
        claim = self.spec.claim
        delta = claim.delta
        point = is_point(claim)
        drawn = tally.drawn
        best: Candidate | None = None
        for j, side, counts, alpha, split, by_ratio in tally.tests(len(events)):
            k0, n0, k1, n1 = counts.k0, counts.n0, counts.k1, counts.n1
            if by_ratio:
                bound = conditional_lower_bound(k0, k1, drawn, drawn, alpha)
            else:
                bound = epsilon_lower_bound(k0, n0, k1, n1, alpha, delta, split, claim)
            if best is None or bound > best.bound:
                # for a curve claim, also the (epsilon, delta) statement it implies
                lb = bound if point else epsilon_lower_bound(k0, n0, k1, n1, alpha, delta, split)
                estimate = EpsilonEstimate(
                    epsilon_lower_bound=lb,
                    point_estimate=epsilon_point_estimate(k0, n0, k1, n1, delta),
                    alpha=alpha,
                    delta=delta,
                    event=events[j].description,
                    counts=counts,
                    estimator=CONDITIONAL_ESTIMATOR if by_ratio else "clopper-pearson",
                    white_box=events[j].white_box,
                    alpha_split=split,
                    claim_bound=None if point else bound,
                    parameter=None if point else claim.parameter,
                    poisson_mean=None if tally.sizes is None else drawn,
                )
                best = Candidate(bound, side, estimate, events[j])
        if chain is not None:
            cells = self._chain_candidate(chain, tally.k[:, len(events) :], drawn, chain_alpha)
            if best is None or cells.bound > best.bound:
                best = cells
        return best

    def _best_delta(
        self, events: list[Event], tally: Tally
    ) -> tuple[float, int, int, EventCounts, float, float] | None:
        """The largest certified lower bound on delta at the claimed epsilon among the box
        tests of ``events`` in ``tally``: ``(bound, side, event, counts, alpha, split)``, or None for a curve
        claim or when no test shows a positive one.  The same limits as the tests' epsilon
        bounds: no alpha of its own."""
        claim = self.spec.claim
        if not is_point(claim):
            return None
        best = None
        for j, side, c, alpha, split, by_ratio in tally.tests(len(events)):
            if by_ratio:
                continue  # the conditional test's alpha is spent on its ratio alone
            if c.k0 == 0:
                continue
            bound = delta_lower_bound(c.k0, c.n0, c.k1, c.n1, alpha, claim.epsilon, split)
            if bound > 0 and (best is None or bound > best[0]):
                best = (bound, side, j, c, alpha, split)
        return best

    def _chain_candidate(
        self, chain: CellChain, above: np.ndarray, drawn: int, alpha: float
    ) -> Candidate:
        """The cells' certificate as a candidate: the claim's parameter from the cells, and
        the (epsilon, delta) statement and counts of the cut it reads best on."""
        claim = self.spec.claim
        cells = [chain.cells(above[side], drawn) for side in (0, 1)]
        result = certify_chain(chain, claim, cells[0], cells[1], drawn, alpha, claim.delta)
        side = result.side
        on_x, on_x_prime = cells[side], cells[1 - side]
        j = result.cut + 1
        inside = slice(j, None) if result.above else slice(0, j)
        k0, k1 = int(on_x[inside].sum()), int(on_x_prime[inside].sum())
        estimate = EpsilonEstimate(
            epsilon_lower_bound=result.epsilon,
            point_estimate=epsilon_point_estimate(k0, drawn, k1, drawn, claim.delta),
            alpha=alpha,
            delta=claim.delta,
            event=chain.describe(on_x, on_x_prime),
            counts=EventCounts(n0=drawn, k0=k0, n1=drawn, k1=k1),
            estimator=CELLS_ESTIMATOR,
            claim_bound=result.bound,
            parameter=claim.parameter,
        )
        return Candidate(result.bound, side, estimate, chain.cut_event(result.cut, result.above))

    def _optimistic_bound(
        self,
        events: list[Event],
        train: list[np.ndarray],
        n: int,
        alpha: float,
        chain: CellChain | None = None,
        poisson: bool = False,
    ) -> float:
        """The largest bound any event, in either direction, could certify on ``n`` outputs
        per side at ``alpha`` if its rates were at the favourable edge of their one-sided
        ``1 - futility`` intervals on the training split, or ``chain``'s cells at their
        training proportions taken as exact (training outputs only)."""
        gamma, claim = self.config.futility, self.spec.claim
        m = min(len(train[0]), len(train[1]))
        k = [count_events(events, t[:m]) for t in train]
        high = [cp_upper_array(ks, m, gamma) for ks in k]
        low = [cp_lower_array(ks, m, gamma) for ks in k]
        bounds = [self._predicted(high[s], low[1 - s], n, alpha, poisson) for s in (0, 1)]
        hope = float(np.max(bounds, initial=0.0))
        return max(hope, chain.plug_in(claim)) if chain is not None else hope

    def _schedule(self, trial: Trial) -> Schedule:
        """Sizes and alpha shares of the trial's stages (:func:`plan_stages`)."""
        return plan_stages(self.spec, self.config, self.alpha_test, trial)

    def _with_power(self, finding: Finding, n_cert: int, alpha: float) -> Finding:
        """Attach the power statement of the finding's event at the main certification's n and alpha."""
        est = finding.estimate
        claim = self.spec.claim
        if est.estimator == CELLS_ESTIMATOR:
            # cells have no one-event model of the larger values they would catch: say what
            # they certified, on what
            text = (
                f"no violation found; the best test, the cells ({est.event}), certified "
                f"{claim.parameter} ≥ {est.bound:.3g} (claimed {claim.value:g}) on "
                f"{est.counts.n0:,} outputs per side at significance {est.alpha:.3g}; their power "
                "against larger values is not modelled"
            )
            return replace(finding, power={"statement": text, "value_detectable": None})
        if not is_point(claim):
            statement = claim_power_statement(
                est.event, est.counts.k1, est.counts.n1, n_cert, alpha, claim, est.alpha_split
            )
            return replace(finding, power=statement)
        power = power_statement(
            est.event,
            est.counts.k1,
            est.counts.n1,
            n_cert,
            alpha,
            claim.epsilon,
            claim.delta,
            est.alpha_split,
            conditional=est.estimator == CONDITIONAL_ESTIMATOR,
        )
        return replace(finding, power=_with_delta_power(power, n_cert, alpha, claim))


@dataclass(frozen=True)
class CutTrial:
    """A trial the futility check cut short: its certification outputs per side as planned and
    as drawn instead (0 when its pilot's bound stands alone), and the most its proposed events
    could have certified at the plan's size, read at the favourable edge of their training
    intervals (in the claim's parameter)."""

    trial: str
    planned: int
    drawn: int
    hope: float


@dataclass(frozen=True)
class Candidate:
    """The strongest (event, direction) at one look: its bound, the direction (0: the event is
    likelier on x, 1: on x') and the estimate behind it."""

    bound: float
    side: int
    estimate: EpsilonEstimate
    event: Event


def _with_delta_power(power: dict[str, Any], n: int, alpha: float, claim: Any) -> dict[str, Any]:
    """``power`` with what the budget says of leaks in delta alone: the smallest probability
    of an output one neighbour never shows that the last look would certify above delta."""
    if claim.delta <= 0:
        return power
    p = detectable_delta(n, alpha, claim.epsilon, claim.delta)
    if p is None:
        text = (
            f"; an output one neighbour never produces would not be certified above delta = "
            f"{claim.delta:g} at any probability on {n:,} outputs per side"
        )
    else:
        text = (
            f"; an output one neighbour never produces is certified above delta = "
            f"{claim.delta:g} with probability ≥ 0.8 once its probability is ≥ {p:.3g} "
            f"({p / claim.delta:.3g} x delta) on {n:,} outputs per side"
        )
    return {**power, "delta_detectable": p, "statement": power["statement"] + text}
