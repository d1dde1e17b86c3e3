"""Choosing among a trial's candidate pairs on screening outputs (successive halving).

Successive halving: every screened pair gets outputs of its own, the better half gets more,
and so on until one is left (Karnin, Koren & Somekh, ICML 2013); each round costs about the
same.  A pair's outputs so far are halved: events are proposed on one half and scored on the
other (``predicted_scores``) at the planned certification size.  Nothing drawn here certifies
anything, so the choice costs no alpha.

Each distinct input is drawn once per round and shared by every pair it belongs to (most
pairs move one common base): the round's outputs go further, and the base's sampling noise
is common to the pairs it would otherwise rank at random.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from auditor.core.claim_kinds import is_point
from auditor.core.trials import CertificationPlan, Event, Trial
from auditor.engine.proposals import ProposalJob
from auditor.engine.search_units.prober import Prober
from auditor.engine.timed_sampling import is_timed
from auditor.statistics.events.event_selection import (
    pessimistic_log_ratios,
    predicted_scores,
)

#: a first screening round shows an output of probability delta fewer times than this per
#: pair: the report notes that a leak in delta alone may go unseen
THIN_SCREEN = 3.0


def per_input(per_pair: int, pairs: int, inputs: int) -> int:
    """Outputs to draw for each of a round's ``inputs`` distinct inputs so that each of its
    ``pairs`` pairs gets about ``per_pair`` per side (pairs share inputs, mostly a base)."""
    return max(per_pair, 2 * pairs * per_pair // inputs)


def edge_pairs(
    losers: list[int],
    k: dict[int, list[np.ndarray]],
    m: dict[int, list[int]],
    slots: int,
    claim: Any,
) -> list[int]:
    """Up to ``slots`` of the pairs a screening round's ranking drops (``losers``; ``k`` and
    ``m`` their events' counts and outputs per side) that go on to the next round all the
    same, for a point claim with delta > 0: those whose event seen on one side only owes the
    other side the most outputs, at least one.  If the claim held, an event of probability p
    on one side would have probability at least (p - delta) e^-eps on the other: at the seen
    rate, (k/m - delta) e^-eps m' outputs of the m' counted there.  A tail event of a
    mechanism true to its claim owes about one whatever the round's size; an output the other
    side never produces owes more with every round.

    Such an event shows delta exceeded once its probability is measured above delta, which
    takes outputs in the thousands at delta = 1e-3, but a round's predicted bound reads its
    zero side pessimistically (a fraction of one output) and ranks its pair below pairs whose
    honest events come near the claimed epsilon.  An event that only looks one-sided falls
    back in the next round, where its pair has twice the outputs; the last round's choice is
    the ranking's alone, and nothing here spends alpha."""
    delta = claim.delta
    if slots < 1 or not is_point(claim) or delta <= 0:
        return []
    shrink = math.exp(-claim.epsilon)
    weight = {}
    for i in losers:
        (ka, kb), (ma, mb) = k[i], m[i]
        if not len(ka):
            continue
        # the outputs the empty side should have shown if the claim held at the seen rate
        owed = np.concatenate(
            [(ka[kb == 0] / max(ma, 1) - delta) * mb, (kb[ka == 0] / max(mb, 1) - delta) * ma]
        )
        heaviest = float(np.max(owed, initial=0.0)) * shrink
        if heaviest >= 1.0:
            weight[i] = heaviest
    return sorted(weight, key=lambda i: (-weight[i], i))[:slots]


@dataclass
class PairChoice:
    """The candidate pair whose screening outputs promise the largest bound.

    ``screened``, ``rounds``, ``streamed`` and ``final``: the schedule's screening sizes
    (``Schedule.screened``, ``screen_rounds``, ``screen_streamed``, ``screen_final``);
    ``plan``: the certification the scores are predicted for.
    """

    screened: int
    rounds: tuple[tuple[int, int], ...]
    streamed: tuple[int, ...]
    final: int
    plan: CertificationPlan
    #: input number -> query, and a key of each input's value -> its number
    queries: list[Any] = field(default_factory=list)
    inputs: dict[bytes, int] = field(default_factory=dict)

    def applies(self, trial: Trial) -> bool:
        # timed rows are drawn per pair, interleaved: not screened
        return self.screened > 1 and not is_timed(trial.distinguisher)

    def search(self, trial: Trial, prober: Prober) -> Trial:
        pairs = trial.pairs
        # an evenly spaced subset when the budget cannot screen every pair; the first always
        picks = np.unique(np.linspace(0, len(pairs) - 1, self.screened).round().astype(int))
        ends = {int(i): (self.input_no(pairs[i][0]), self.input_no(pairs[i][1])) for i in picks}
        drawn: dict[int, np.ndarray] = {}
        alive = [int(i) for i in picks]
        streamed = self.streamed or (0,) * len(self.rounds)
        for round_no, ((_, n), more) in enumerate(zip(self.rounds, streamed, strict=True), 1):
            last = round_no == len(self.rounds)
            k, m = self.round(trial, prober, round_no, (n, more), alive, ends, drawn)
            if round_no == 1:
                note_thin_screening(prober, len(picks), min(min(sizes) for sizes in m.values()))
            alive = self.survivors(alive, k, m, last, prober)
            kept = {u for i in alive for u in ends[i]}
            for u in list(drawn):
                if u not in kept:
                    del drawn[u]  # memory: only the inputs still in the race keep outputs
        x, x_prime, description = pairs[alive[0]]
        chosen = (
            f"{description} (chosen among {len(picks)} neighbouring pairs on screening outputs)"
        )
        return replace(trial, x=x, x_prime=x_prime, description=chosen, candidates=())

    def input_no(self, q: Any) -> int:
        """The number of input ``q`` (equal values share one)."""
        a = np.asarray(q)
        key = repr((a.dtype.str, a.shape)).encode() + a.tobytes()
        if key not in self.inputs:
            self.inputs[key] = len(self.queries)
            self.queries.append(q)
        return self.inputs[key]

    def round(
        self,
        trial: Trial,
        prober: Prober,
        round_no: int,
        sizes: tuple[int, int],
        alive: list[int],
        ends: dict[int, tuple[int, int]],
        drawn: dict[int, np.ndarray],
    ) -> tuple[dict[int, list[np.ndarray]], dict[int, list[int]]]:
        """One round: more outputs for each input still in the race (``drawn``), then each
        pair's events proposed on the first half of its held outputs and counted on the second
        half (and on ``sizes[1]`` streamed outputs per pair, when the budget buys them): the
        events' counts and the outputs counted per side, by pair."""
        n, more = sizes
        used = sorted({u for i in alive for u in ends[i]})
        size = per_input(n, len(alive), len(used))
        last = round_no == len(self.rounds)
        for u in used:
            held = len(drawn[u]) if u in drawn else 0
            wanted = max(size, self.final - held) if last else size
            new = prober.draw(self.queries[u], wanted, "screen", round_no, "input", u)
            drawn[u] = np.concatenate([drawn[u], new]) if u in drawn else new
        jobs, m = [], {}
        for i in alive:
            outs = [drawn[u] for u in ends[i]]
            half = len(outs[0]) // 2
            build = (outs[0][:half], outs[1][:half])
            scored = (outs[0][half:], outs[1][half:])
            jobs.append(ProposalJob(trial.distinguisher, build, scored, self.plan))
            m[i] = [len(out) for out in scored]
        done = prober.proposer.map(jobs)  # in worker processes when there are several
        proposed = {i: events for i, (events, _) in zip(alive, done, strict=True)}
        k = {i: counts for i, (_, counts) in zip(alive, done, strict=True)}
        if more:
            size = per_input(more, len(alive), len(used))
            self.count_streamed(prober, round_no, size, ends, proposed, k, m)
        return k, m

    def survivors(
        self,
        alive: list[int],
        k: dict[int, list[np.ndarray]],
        m: dict[int, list[int]],
        last: bool,
        prober: Prober,
    ) -> list[int]:
        """The better half of ``alive`` by predicted score (ties: the pessimistic log ratio,
        then the pair's number), with room made for pairs with one-sided events."""
        scores = {i: self.score(k[i], m[i]) for i in alive}
        ranked = sorted(scores, key=lambda i: (-scores[i][0], -scores[i][1], i))
        keep = max(1, len(alive) // 2)
        edges = [] if last else edge_pairs(ranked[keep:], k, m, keep // 4, prober.spec.claim)
        return ranked[: keep - len(edges)] + edges

    def score(self, k: list[np.ndarray], m: list[int]) -> tuple[float, float]:
        """A pair's best predicted score at the plan, and its best pessimistic log ratio."""
        if not len(k[0]):
            return -math.inf, -math.inf
        return (
            float(np.max(predicted_scores(k[0], m[0], k[1], m[1], self.plan))),
            float(np.max(pessimistic_log_ratios(k[0], m[0], k[1], m[1]))),
        )

    def count_streamed(
        self,
        prober: Prober,
        round_no: int,
        size: int,
        ends: dict[int, tuple[int, int]],
        proposed: dict[int, list[Event]],
        k: dict[int, list[np.ndarray]],
        m: dict[int, list[int]],
    ) -> None:
        """Add to each pair's counts ``k`` (and sizes ``m``) those of its events on ``size``
        fresh outputs of each of its inputs, counted where they are drawn: every input is
        drawn once for the events of all the pairs it belongs to."""
        users: dict[int, list[tuple[int, int]]] = {}  # input -> (pair, side)
        for i, events in proposed.items():
            if events:
                for side, u in enumerate(ends[i]):
                    users.setdefault(u, []).append((i, side))
        started = []
        for u, members in users.items():
            events = [e for i, _ in members for e in proposed[i]]
            where = ("screen", round_no, "streamed", u)
            started.append((members, prober.start_counts(self.queries[u], size, events, *where)))
        for members, counts in started:
            (found,) = prober.wait(counts)
            at = 0
            for i, side in members:
                width = len(proposed[i])
                k[i][side] = k[i][side] + np.asarray(found[at : at + width], dtype=np.int64)
                m[i][side] += size
                at += width


def note_thin_screening(prober: Prober, pairs: int, scored: int) -> None:
    """Remember the first screening round's size under a point claim with delta > 0: where an
    output of probability delta shows fewer than ``THIN_SCREEN`` times per pair, a leak in
    delta alone (an output one neighbour never produces) can lose its pair unseen."""
    claim = prober.spec.claim
    if is_point(claim) and claim.delta > 0:
        prober.screens.append((str(prober.label[0]), pairs, scored))
