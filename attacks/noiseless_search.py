"""White-box sensitivity search: climbs over neighbouring datasets on the mechanism's own
noiseless answers.

A dataset mechanism whose statistic moves by an amount that depends on the other records (the
wedges an added edge closes, the two components it joins, the sessions one event bridges, a
cap that one more record pushes another over) has a sensitivity bug only on pairs with that
structure among their records.  Sampling finds such a pair only when its outputs show it
(``auditor.engine.search_units.datasets``), and certifies it only as far as the noise allows.  When the
adapter offers ``release_without_noise`` (``auditor.core.oracles``) no sample is needed: this
attack climbs from random pairs one record at a time with the moves of
``attacks.dataset_moves``, keeping a move when the noiseless answers lie at least as far apart
as before, measured in the declared sensitivity's norm.  The fixed pairs of
``attacks.neighbours`` are measured too.

A pair whose answers lie farther apart than the declared sensitivity is a white-box finding,
exact and without alpha, reported as the sensitivity attack reports its own (epsilon = ratio x
claim, for noise calibrated to the declared sensitivity).  An implementation whose answers
never move by more than it declares is never flagged, however long the climb (nor one that
exceeds it by 10^-9 of itself, the rounding of a declared float).

It needs a sensitivity to compare with: declared, or for one number that of a bounded sum
over the domain (the ``dataset`` family's default), and for a vector output a declared
``norm``.  Datasets keyed by user ids are left out, as by the climbs on samples.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from attacks.dataset_moves import START_SIZES, DatasetMoves, DatasetState
from attacks.neighbours import are_neighbours, dataset_pairs
from attacks.sensitivity import NoEvents, sensitivity_evidence
from auditor.core.errors import DPAuditError
from auditor.core.oracles import (
    answer_count,
    distance,
    noiseless_answers,
    pair_sensitivity,
    squared_distance,
)
from auditor.core.results import ExactEvidence
from auditor.core.spec import AdapterSpec
from auditor.core.trials import Trial, unit_pair

#: moves tried in all, over every climb (each asks the probe once or twice; a cheap probe
#: runs them in about 10 s, and structure such as four records around a fifth needs them)
MAX_MOVES = 65536
#: moves a climb may make without going farther before it starts again elsewhere
STALL = 512
#: a distance this close above the declared sensitivity, relatively, is not flagged: a
#: declared ``math.sqrt(3)`` is a float a little below the square root it stands for
ROUNDING = Fraction(1, 10**9)
#: the search stops sooner after this many oracle evaluations (``release_without_noise`` on a
#: dataset not asked before, failed calls included): a slow probe's cap, counted so that a
#: seeded audit ends the same on every machine (a cap in seconds did not).  Here (2 cores) the
#: corpus's slowest probe (0.17 ms a call, with its climb) spends about 20 s of CPU on them;
#: no climb of a built-in or corpus adapter measured reaches it: the moves run out at 38,000
#: to 104,000 (each move asks at most two).  The engine's timeout, which turns the adapter
#: into an error, is for hangs.
MAX_EVALUATIONS = 120_000


class NoiselessSearchAttack:
    """Climbs over neighbouring datasets on ``release_without_noise`` (white-box, exact)."""

    name = "noiseless-search"
    description = (
        "dataset: climbs over neighbouring datasets on release_without_noise to answers "
        "farther apart than the declared sensitivity (structure among records; white-box)"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        # user ids: their Δ is per record, and the moves change records, not users
        return (
            spec.has_noiseless_probe and spec.user_column is None and answer_count(spec) is not None
        )

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        moves = DatasetMoves(spec, int(rng.integers(2**63)))
        units = [unit_pair(p, spec.max_contributions) for p in dataset_pairs(spec, rng)]
        # min_records; and every pair reported must be neighbours, which this checks again
        fixed = [
            (x, y, text)
            for x, y, text in units
            if spec.accepts_size(x) and spec.accepts_size(y) and are_neighbours(spec, x, y)
        ]
        x, x_prime, _ = fixed[0] if fixed else moves.pair(moves.starts()[0])
        search = NoiselessSearch(moves, fixed, int(rng.integers(2**63)))
        return [
            Trial(
                x,
                x_prime,
                NoEvents(),
                f"white-box: release_without_noise on {len(fixed)} fixed pairs and climbs "
                f"from {len(START_SIZES)} random ones",
                exact=search,
            )
        ]


class NoiselessSearch:
    """The exact check: the pair whose noiseless answers lie farthest apart, as evidence when
    that is farther than the declared sensitivity."""

    def __init__(self, moves: DatasetMoves, fixed: list[tuple[Any, Any, str]], seed: int) -> None:
        self.moves, self.fixed, self.seed = moves, fixed, seed

    def __call__(self, spec: AdapterSpec) -> ExactEvidence | None:
        length = answer_count(spec)
        assert length is not None  # applies_to
        norm = spec.output_norm if length > 1 else None
        known: dict[tuple[str, tuple[int, ...], bytes], tuple[int | float, ...]] = {}
        failed: list[DPAuditError] = []

        def answers(x: np.ndarray) -> tuple[int | float, ...]:
            key = (x.dtype.str, x.shape, x.tobytes())
            if key not in known:
                known[key] = noiseless_answers(spec, x, length)
            return known[key]

        def apart(pair: tuple[Any, Any, str]) -> Fraction:
            """The pair's squared distance over its squared Δ (one Δ, or one per dataset
            size); -1 where the probe fails (a dataset it refuses: that pair is left out, as
            the climbs on samples leave it out)."""
            try:
                a, b = answers(np.asarray(pair[0])), answers(np.asarray(pair[1]))
                delta = pair_sensitivity(spec, pair[0])
            except DPAuditError as exc:
                failed.append(exc)
                return Fraction(-1)
            return squared_distance(a, b, norm) / (delta * delta)

        reached, state = self._climb(
            lambda state: apart(self.moves.pair(state)), lambda: len(known) + len(failed)
        )
        best = (reached, self.moves.pair(state))
        for pair in self.fixed:
            if (squared := apart(pair)) > best[0]:
                best = (squared, pair)
        squared, (x, x_prime, text) = best
        if squared < 0:  # it refused every pair: say why, as for any adapter that fails
            raise failed[0]
        if squared <= (1 + ROUNDING) ** 2:
            return None
        # a finding on inputs that are not neighbours would be a false alarm: never report one
        assert are_neighbours(spec, x, x_prime), f"not neighbours under the relation: {text}"
        size = distance(answers(np.asarray(x)), answers(np.asarray(x_prime)), norm)
        delta = pair_sensitivity(spec, x)
        ratio = float(squared) ** 0.5
        where = "" if norm is None else f" in {norm}"
        event = (
            f"noiseless answers (release_without_noise) lie {float(size):.6g}{where} apart, "
            f"{ratio:.6g}x the declared sensitivity {float(delta):.6g}, on the pair: {text}"
        )
        probe = {"declared": str(delta), "difference": str(size)}
        if norm is not None:
            probe["norm"] = str(norm)
        return sensitivity_evidence(spec, x, x_prime, ratio, event, probe)

    def _climb(
        self, score: Callable[[DatasetState], Fraction], evaluations: Callable[[], int]
    ) -> tuple[Fraction, DatasetState]:
        """Every climb one move at a time, in turn, until the moves or the oracle evaluations
        (``evaluations()`` so far) run out; the farthest pair reached.  A climb that has not gone farther in ``STALL`` moves
        starts again from a new random pair of its size (a walk along a plateau can drift
        where no single move leads up: every record the same value)."""
        states = self.moves.starts()
        scores = [score(s) for s in states]
        best = max(zip(scores, states, strict=True), key=lambda item: item[0])
        since = [0] * len(states)
        rng = np.random.default_rng(self.seed)
        tried = 0
        while tried < MAX_MOVES and evaluations() < MAX_EVALUATIONS:
            for i, state in enumerate(states):
                tried += 1
                since[i] += 1
                if since[i] > STALL:
                    states[i] = self.moves.start(rng, START_SIZES[i % len(START_SIZES)])
                    scores[i], since[i] = score(states[i]), 0
                    continue
                moved = self.moves.moved(state, rng)
                if moved is None:
                    continue
                value = score(moved)
                if value > scores[i]:
                    since[i] = 0
                if value >= scores[i]:  # ties too: a plateau is walked, not stopped at
                    states[i], scores[i] = moved, value
                if value > best[0]:
                    best = (value, moved)
        return best
