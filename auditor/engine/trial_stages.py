"""One trial through its stages: white-box check, search, pilot, training, certification looks.

The certifier (``auditor.engine.certify``) holds the alpha ledger and reads every bound; the
stages here decide, from the trial's schedule (``auditor.engine.schedule``), what is drawn
when, and keep the best finding.  The module docstring of ``auditor.engine.certify`` says how
the stages share a trial's alpha.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from auditor.core.errors import DPAuditError
from auditor.core.interfaces import Attack
from auditor.core.results import (
    OUTPUT_SAMPLE_SIZE,
    CertifiedFirst,
    DeltaBound,
    EventCounts,
    Finding,
    OutputSample,
    Replay,
)
from auditor.core.trials import CertificationPlan, Event, Trial
from auditor.engine.certify import Candidate, Certifier, CutTrial, Tally
from auditor.engine.sampling import Counts, count_events
from auditor.engine.schedule import PILOT_SHARE, batch_schedule
from auditor.engine.search_units import PROBING_UNITS, PairChoice, Prober
from auditor.engine.timed_sampling import is_timed
from auditor.statistics.events.cell_chains import CellChain, propose_chain


class TrialStages:
    """One trial through its stages: white-box check, pilot, training, certification looks.

    Holds what the stages share: the best finding so far, the outputs kept for the report's
    plots and the event of the best finding (the plot marks it).
    """

    def __init__(self, certifier: Certifier, attack: Attack, index: int, trial: Trial) -> None:
        self.certifier, self.attack, self.trial = certifier, attack, trial
        self.label = (attack.name, index)
        self.claim = certifier.spec.claim
        self.schedule = certifier._schedule(trial)
        #: the certification looks taken: the planned ones, or the cut ones (futility)
        self.looks = self.schedule.looks
        self.best: Finding | None = None
        self.kept: tuple[list[np.ndarray], str] | None = None
        #: the event of the best finding so far (for the report's plot)
        self.event: Event | None = None
        #: the largest certified lower bound on delta at the claimed epsilon so far
        self.delta: DeltaBound | None = None
        #: where the violation was first certified, when later looks tightened it
        self.first: CertifiedFirst | None = None

    def run(self) -> Finding | None:
        """The trial's best finding, with the largest delta bound any of its tests showed."""
        best = self._run()
        if best is None or self.delta is None:
            return best
        return replace(best, delta_bound=self.delta)

    def _run(self) -> Finding | None:
        exact = self.certifier._exact(self.attack, self.trial)
        self.best = exact
        if self.violated() or self.trial.distinguisher.max_events <= 0:
            return exact
        self.search()
        train = self.pilot() if self.schedule.pilot else self.training()
        if self.violated() and not self.tightens():
            return self.best
        self.certify(train)
        if self.violated():
            return self.best
        # a white-box finding has no counts to state power from
        if self.best is not None and self.best is not exact:
            if self.looks:
                n, share = self.looks[-1]
                alpha = self.certifier.alpha_test * self.schedule.main_share * share
                if self.best.looks >= 1:  # a main look's test: its own weight, at the last look
                    alpha = self.best.estimate.alpha / self.looks[self.best.looks - 1][1] * share
            else:  # cut by the futility check after its pilot: the pilot's bound is the one
                n, alpha = self.schedule.pilot, self.certifier.alpha_test * PILOT_SHARE
            self.best = self.certifier._with_power(self.best, n, alpha)
        return self.best

    def search(self) -> None:
        """Find the pair to certify: the probing units, then the stages planned for the pairs
        they leave, then screening among them (``auditor.engine.search_units``).  The units
        see a prober, never the certifier: nothing here spends alpha or counts towards a
        bound."""
        c = self.certifier
        prober = Prober(c.spec, c.config, c.sampler, c.proposer, self.label, c._counted, c.screens)
        for unit in PROBING_UNITS:
            if unit.applies(self.trial):
                self.trial = unit.search(self.trial, prober)
        # the probes may have added pairs: screening is planned for all (alpha is not)
        self.schedule = c._schedule(self.trial)
        schedule = self.schedule
        plan = CertificationPlan.for_claim(
            schedule.n_cert,
            schedule.final_alpha,
            self.claim,
            quick=True,
            conditional=c.config.conditional_test,
        )
        choice = PairChoice(
            schedule.screened,
            schedule.screen_rounds,
            schedule.screen_streamed,
            schedule.screen_final,
            plan,
        )
        if choice.applies(self.trial):
            self.trial = choice.search(self.trial, prober)

    def violated(self) -> bool:
        return self.best is not None and self.best.estimate.violates(self.claim)

    def tightens(self) -> bool:
        """Whether a certified violation goes on to the trial's later looks on fresh outputs,
        so that the report states the tightest bound the budget certifies, not the first
        that crossed the claim: for sequential certification of vectorised adapters (cheap
        outputs), not for a white-box finding (exact already) or timed rows.  Every look's
        tests hold together (their alpha shares add up), so the largest bound stands."""
        best = self.best
        return (
            best is not None
            and not best.estimate.white_box
            and best.n_certify > 0
            and self.certifier.config.tighten
            and self.certifier.spec.vectorised
            and len(self.certifier.config.looks) > 1
            and not is_timed(self.trial.distinguisher)
        )

    def keep(self, outputs: list[np.ndarray], source: str) -> None:
        """Remember a few outputs per side for the report's plots (never for a bound)."""
        if self.kept is None and len(outputs[0]):
            self.kept = ([o[:OUTPUT_SAMPLE_SIZE].copy() for o in outputs], source)

    def consider(
        self,
        found: Candidate | None,
        n_train: int,
        drawn: int,
        look_no: int,
        seeds: Sequence[tuple[int, int, int]] = (),
    ) -> None:
        """Keep ``found`` if it beats the best so far.  ``seeds``: the counted requests
        ``(side, outputs, entropy)`` (side 0: the trial's x), for the finding's replay."""
        if found is None:
            return
        if self.best is not None and found.bound <= self.best.estimate.bound:
            return
        trial, c = self.trial, self.certifier
        x, x_prime = (trial.x, trial.x_prime) if found.side == 0 else (trial.x_prime, trial.x)
        calls: list[list[tuple[int, int]]] = [[], []]
        for side, n, seed in seeds:
            calls[side] += c.calls(trial.x if side == 0 else trial.x_prime, n, seed)
        if found.side == 1:
            calls.reverse()
        replay = Replay(found.event.source(), (tuple(calls[0]), tuple(calls[1]))) if seeds else None
        self.event = found.event
        if self.first is None and found.estimate.violates(self.claim):
            self.first = CertifiedFirst(found.bound, look_no, drawn)
        self.best = Finding(
            self.attack.name,
            trial.description,
            x,
            x_prime,
            found.estimate,
            n_train,
            drawn,
            look_no,
            replay=replay,
            first_certified=self.first if self.first and self.first.looks != look_no else None,
        )

    def consider_delta(
        self,
        found: tuple[float, int, int, EventCounts, float, float] | None,
        events: list[Event],
    ) -> None:
        """Keep ``found`` (:meth:`Certifier._best_delta`) if it beats the delta bound so far."""
        if found is None or (self.delta is not None and found[0] <= self.delta.delta_lower_bound):
            return
        bound, side, j, counts, alpha, split = found
        trial = self.trial
        x, x_prime = (trial.x, trial.x_prime) if side == 0 else (trial.x_prime, trial.x)
        self.delta = DeltaBound(
            bound,
            float(self.claim.epsilon),
            alpha,
            events[j].description,
            counts,
            split,
            x,
            x_prime,
            trial.description,
        )

    def propose(self, train: list[np.ndarray], plan: CertificationPlan) -> list[Event]:
        d = self.trial.distinguisher
        return list(d.propose(train[0], train[1], plan))[: d.max_events]

    def pilot(self) -> list[np.ndarray]:
        """Propose on a small training part, certify on the next (a gross violation stops
        here); return the whole training split, pilot outputs included."""
        c, size = self.certifier, self.schedule.pilot
        pilot_train = c._draw_pair(self.trial, size, *self.label, "pilot-train")
        pilot_cert = c._draw_pair(self.trial, size, *self.label, "pilot-certify")
        timed = is_timed(self.trial.distinguisher)
        seeds = (
            []
            if timed
            else [(side, size, c.seed(*self.label, "pilot-certify", side)) for side in (0, 1)]
        )
        self.keep(pilot_train, "training")
        alpha = c.alpha_test * PILOT_SHARE
        events = self.propose(
            pilot_train,
            CertificationPlan.for_claim(size, alpha, self.claim, quick=True),
        )
        if events:
            k = np.array([count_events(events, out) for out in pilot_cert])
            alphas = np.full((2, len(events)), alpha)
            splits = c._splits(training_rates(events, pilot_train), size, alphas)
            tally = Tally(k, size, alphas, splits)
            self.consider(c._best(events, tally), size, size, 0, seeds)
            self.consider_delta(c._best_delta(events, tally), events)
        if self.violated() and not self.tightens():
            return pilot_train
        rest = c._draw_pair(self.trial, self.schedule.n_train - 2 * size, *self.label, "train")
        return [np.concatenate(parts) for parts in zip(pilot_train, pilot_cert, rest, strict=True)]

    def training(self) -> list[np.ndarray]:
        """The training split, without a pilot (empty for events fixed in advance)."""
        if not self.schedule.n_train:
            return [np.empty(0), np.empty(0)]
        train = self.certifier._draw_pair(self.trial, self.schedule.n_train, *self.label, "train")
        self.keep(train, "training")
        return train

    def certify(self, train: list[np.ndarray]) -> None:
        """Propose on the whole training split; certify on fresh outputs at the planned looks,
        stopping at the first that certifies a violation."""
        tests = self.main_tests(train)
        if tests is None:
            return
        if self.schedule.futility:
            self.cut_if_futile(tests, train)
            if not self.looks:
                return
        self.take_looks(tests)

    def main_tests(self, train: list[np.ndarray]) -> MainTests | None:
        """The main stage's tests, from the training split alone (None: no event proposed)."""
        c, schedule, d = self.certifier, self.schedule, self.trial.distinguisher
        plan = CertificationPlan.for_claim(
            schedule.n_cert,
            schedule.final_alpha,
            self.claim,
            conditional=c.config.conditional_test and not is_timed(d),
        )
        events = self.propose(train, plan)
        if not events:
            return None
        rates = training_rates(events, train)
        # a Renyi claim (zCDP, RDP) is also tested on cells along the best events' scores
        chain = propose_chain(
            events, train[0], train[1], schedule.looks[-1][0], plan.alpha, self.claim
        )
        predict = (
            None
            if chain is None
            else functools.partial(chain.predicted, self.claim, schedule.looks[-1][0])
        )
        # with ``conditional_test``, a pure epsilon claim (``plan.conditional``) is certified on
        # Poisson-sized samples: each test then takes the conditional test or the box,
        # whichever the training split predicts stronger
        poisson = plan.conditional and chain is None
        # each test's alpha for the whole main stage (looks take their shares of it)
        alphas, chain_alpha = c._test_alphas(
            events,
            rates,
            schedule.looks[-1][0],
            c.alpha_test * schedule.main_share,
            2 * d.max_events,
            predict,
            poisson,
        )
        counted = events + list(chain.events) if chain is not None else events
        return MainTests(events, counted, chain, alphas, chain_alpha, rates, poisson)

    def cut_if_futile(self, tests: MainTests, train: list[np.ndarray]) -> None:
        """Take the short looks if the training split says the trial has no chance (decided
        on the training split alone, before any certification output)."""
        c, schedule = self.certifier, self.schedule
        top = max(float(tests.alphas.max()), tests.chain_alpha) * schedule.looks[-1][1]
        hope = c._optimistic_bound(
            tests.events, train, schedule.n_cert, top, tests.chain, tests.poisson
        )
        if hope <= self.claim.value:
            self.looks = schedule.short_looks
            drawn = self.looks[-1][0] if self.looks else 0
            c.short.append(CutTrial(self.trial.description, schedule.n_cert, drawn, hope))

    def take_looks(self, tests: MainTests) -> None:
        """Count the tests' events on fresh outputs look by look and keep the best bound,
        until a look certifies a violation (or on to the last look, when it tightens)."""
        c, d = self.certifier, self.trial.distinguisher
        events, counted, alphas, poisson = tests.events, tests.counted, tests.alphas, tests.poisson
        last_n, last_share = self.looks[-1]
        splits = c._splits(tests.rates, last_n, alphas * last_share)
        k = np.zeros((2, len(counted)), dtype=np.int64)
        batches_per_look = batch_schedule(self.looks, c.config.batch_size)
        where = (*self.label, "certify")
        conditional = (
            c._conditional(tests.rates, last_n, alphas * last_share, splits) if poisson else None
        )
        size_of: dict[tuple[int, int], int] = {}

        def sized(b: int, size: int, side: int) -> int:
            if (b, side) not in size_of:
                size_of[b, side] = c.poisson_size(size, *where, b, side) if poisson else size
            return size_of[b, side]

        ahead: Counts | None = None
        try:
            for look_no, ((drawn, share), batches) in enumerate(
                zip(self.looks, batches_per_look, strict=True), 1
            ):
                current = ahead
                if is_timed(d):  # timed rows are drawn in this process
                    k += c._draw_counts(self.trial, batches, counted, *where)
                else:
                    if current is None:
                        current = c._send(self.trial, batches, counted, *where, sizes=sized)
                    # the next look goes out before this one is waited on and decided, so the
                    # workers never idle at a look; if this look stops the trial, the next is
                    # discarded unread (its seeds are its own: no count changes)
                    later = batches_per_look[look_no] if look_no < len(batches_per_look) else None
                    ahead = (
                        c._send(self.trial, later, counted, *where, sizes=sized) if later else None
                    )
                    k += c._collect(current, counted)
                seeds = (
                    [] if is_timed(d) else self.look_seeds(where, batches_per_look[:look_no], sized)
                )
                drawn_per_side = [sum(n for s, n, _ in seeds if s == side) for side in (0, 1)]
                sizes = (drawn_per_side[0], drawn_per_side[1]) if poisson else None
                tally = Tally(k, drawn, alphas * share, splits, sizes, conditional)
                found = c._best(events, tally, tests.chain, tests.chain_alpha * share)
                self.consider(found, self.schedule.n_train, drawn, look_no, seeds)
                self.consider_delta(c._best_delta(events, tally), events)
                if self.violated() and not self.tightens():
                    return
        finally:
            if ahead is not None:
                ahead.discard()

    def look_seeds(
        self,
        where: tuple[object, ...],
        batches: list[list[tuple[int, int]]],
        sized: Callable[[int, int, int], int],
    ) -> list[tuple[int, int, int]]:
        """The counted requests ``(side, outputs, entropy)`` of the looks' ``batches`` so far."""
        c = self.certifier
        return [
            (side, sized(b, size, side), c.seed(*where, b, side))
            for look in batches
            for b, size in look
            for side in (0, 1)
        ]


@dataclass(frozen=True)
class MainTests:
    """The main stage's tests, fixed from the training split before any certification output:
    the proposed events (``counted``: with the cells' events after them), the cells (None:
    none), each test's alpha for the whole main stage and the cells', the events' training
    rates and whether samples are Poisson-sized (the conditional test)."""

    events: list[Event]
    counted: list[Event]
    chain: CellChain | None
    alphas: np.ndarray
    chain_alpha: float
    rates: np.ndarray | None
    poisson: bool


def training_rates(events: list[Event], train: list[np.ndarray]) -> np.ndarray | None:
    """Each event's rate on each side's training outputs (shrunk off 0 and 1), shape (2, E);
    None without a training split (events fixed in advance).  Counted once per proposal: the
    alpha weights and the splits both read them."""
    if min(len(train[0]), len(train[1])) == 0:
        return None
    return np.array([(count_events(events, t) + 0.5) / (len(t) + 1.0) for t in train])


def run_trial(certifier: Certifier, attack: Attack, index: int, trial: Trial) -> Finding | None:
    """The trial's best finding (a violation as soon as one is certified), or None."""
    stages = TrialStages(certifier, attack, index, trial)
    best = stages.run()
    trial = stages.trial  # the pair chosen among the trial's candidates, if it has any
    # timed rows (output, ns) are not plotted; a white-box finding has no outputs
    if best is None or is_timed(trial.distinguisher) or best.n_certify == 0:
        return best
    if stages.kept is None:
        # no training split: a few fresh outputs, drawn for the plot alone
        try:
            stages.keep(
                certifier._draw_pair(trial, OUTPUT_SAMPLE_SIZE, attack.name, index, "plot"), "plot"
            )
        except DPAuditError:
            return best  # a plot never costs a finding
    assert stages.kept is not None
    kept, source = stages.kept
    return replace(best, output_sample=_output_sample(best, trial, stages.event, kept, source))


def _output_sample(
    best: Finding, trial: Trial, event: Event | None, kept: list[np.ndarray], source: str
) -> OutputSample | None:
    """The kept outputs in the finding's bound order, marked by its event (plots only)."""
    if event is None or not len(kept[0]):
        return None
    on_x, on_x_prime = kept if best.x is trial.x else kept[::-1]
    try:
        marks = event(on_x), event(on_x_prime)
        if on_x.ndim > 1 or on_x.dtype.names is not None:
            # rows are plotted as the event's projection (a coordinate, a sum, a classifier's
            # score), or as in/out of an outcome set when it has none
            project = getattr(event.predicate, "projection", None)
            if project is None:
                on_x, on_x_prime = (m.astype(float) for m in marks)
            else:
                on_x, on_x_prime = np.asarray(project(on_x)), np.asarray(project(on_x_prime))
        return OutputSample(on_x, on_x_prime, marks[0], marks[1], source)
    except Exception:  # noqa: BLE001 - a plot must never turn into an error verdict
        return None
