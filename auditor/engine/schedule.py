"""A trial's stages planned before anything is drawn: sizes, looks and alpha shares.

Everything here is a function of the configuration, the adapter's declaration and the
trial's number of candidate pairs -- never of outputs -- so the alpha each stage may spend is
fixed in advance (see ``auditor.engine.certify`` for how the stages spend it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from auditor.core.configs import AuditConfig
from auditor.core.spec import AdapterSpec
from auditor.core.trials import Trial

#: share of every test's alpha spent by the pilot stage
PILOT_SHARE = 0.1
#: pilot training and pilot certification size per side (at most; capped by the training split)
PILOT_SIZE = 2048
#: the pilot runs only when the training split holds at least this many outputs per side
MIN_PILOT_TRAIN = 400
#: a look is kept only if it sees at least this many certification outputs per side
MIN_LOOK = 500
#: most bytes of outputs per side held at once, as drawn, for screening (2^23 float values):
#: bounds memory for wide outputs, and screens on eight times as many rows of compact answers
#: (int8 answer patterns and bit vectors) as of floats
HELD_BYTES = 1 << 26
#: most output values (outputs x d) per side in a training split: a larger one only takes
#: certification outputs from mechanisms whose few outcomes it would not find better
TRAIN_VALUES = 1 << 23
#: ... unless the budget is far larger: compact rows (int8 answers, bits) then train on up to
#: this share of it, within what screening holds (``HELD_BYTES``) and ``max_train``.  At
#: 2 x 10^8 outputs of ten int8 answers, 2^21 rows instead of 838,860: rare answer patterns
#: are proposed and chosen on enough outputs, for 0.6 % of the certification outputs
TRAIN_SHARE = 1 / 64
#: screening outputs per side and candidate pair, at least and at most (see ``Trial.candidates``)
MIN_SCREEN = 500
#: a budget far above what is held for screening buys a sharper choice of pair: the screened
#: pairs' events are also counted on streamed outputs (counted where drawn, never held), up to
#: this share of the budget per side in all
SCREEN_SHARE = 0.1


def batch_schedule(
    looks: Sequence[tuple[int, float]], batch_size: int
) -> list[list[tuple[int, int]]]:
    """For each planned look, the ``(batch_no, size)`` certification batches that bring the
    per-side count from the previous look's to this one's (batches never exceed
    ``batch_size``, and are numbered across looks: the number is part of their seed)."""
    schedule, drawn, batch_no = [], 0, 0
    for target, _ in looks:
        batches = []
        while drawn < target:
            size = min(batch_size, target - drawn)
            batches.append((batch_no, size))
            drawn += size
            batch_no += 1
        schedule.append(batches)
    return schedule


def screening_rounds(pairs: int, outputs: int) -> tuple[tuple[int, int], ...]:
    """Successive halving over ``pairs`` candidates with about ``outputs`` per side in all:
    ``(pairs in the round, new outputs per side for each)`` per round, until one is left;
    every round gets an equal share, each pair at least ``MIN_SCREEN``."""
    alive, sizes = pairs, []
    while alive > 1:
        sizes.append(alive)
        alive //= 2
    share = outputs // max(1, len(sizes))
    return tuple((k, max(MIN_SCREEN, share // k)) for k in sizes)


def plan_looks(looks: Sequence[tuple[float, float]], n_cert: int) -> list[tuple[int, float]]:
    """Per-side sample counts and alpha shares of the looks actually taken.

    Looks below ``MIN_LOOK`` outputs, or at the same count as the next look, hand their share to
    the next look; the last look is always kept.  Depends only on the configuration and
    ``n_cert``, never on data, so the merged schedule spends exactly the configured alpha.
    """
    planned: list[tuple[int, float]] = []
    carry = 0.0
    for i, (fraction, share) in enumerate(looks):
        target = max(1, round(fraction * n_cert))
        last = i == len(looks) - 1
        nxt = None if last else max(1, round(looks[i + 1][0] * n_cert))
        if not last and (target < MIN_LOOK or target == nxt):
            carry += share
            continue
        planned.append((target, share + carry))
        carry = 0.0
    return planned


@dataclass(frozen=True)
class Schedule:
    """A trial's stages, fixed from the configuration before anything is sampled: training
    and certification outputs per side, the pilot's size (0: none), the share of alpha left
    to the main stage, the planned looks ``(outputs seen, share)`` and the last look's alpha."""

    n_train: int
    n_cert: int
    pilot: int
    main_share: float
    looks: tuple[tuple[int, float], ...]
    final_alpha: float
    #: candidate pairs screened (1: the trial's own pair only), and for each successive
    #: halving round the pairs still in it and the new outputs per side each of them gets
    screened: int = 1
    screen_rounds: tuple[tuple[int, int], ...] = ()
    #: per round, the streamed outputs per side on which each pair's events are also counted
    #: (empty: none; see ``SCREEN_SHARE``)
    screen_streamed: tuple[int, ...] = ()
    #: outputs each input of the last round holds at least (0: what the rounds give)
    screen_final: int = 0
    #: whether the futility check runs (see ``auditor.engine.certify``), and the looks of a
    #: trial it cuts: none when the trial has a pilot (the pilot's bound stands), else the
    #: first planned look alone with the whole main share
    futility: bool = False
    short_looks: tuple[tuple[int, float], ...] = ()


def plan_stages(
    spec: AdapterSpec, config: AuditConfig, alpha_test: float, trial: Trial
) -> Schedule:
    """Sizes and alpha shares of the trial's stages (``alpha_test``: each test's alpha in
    the run), from the configuration and the number of the trial's pairs alone."""
    d = trial.distinguisher
    budget = config.budget_for(spec, trial.needs)
    n_train = math.ceil(budget * d.train_fraction) if d.train_fraction > 0 else 0
    n_train = min(n_train, config.max_train)  # memory bound (engine); see AuditConfig
    width = spec.output.width(spec.query_length(trial.x))
    held = max(HELD_BYTES // row_bytes(spec, trial), MIN_PILOT_TRAIN)  # screening, per side
    large = min(held, int(budget * TRAIN_SHARE))
    n_train = min(n_train, max(TRAIN_VALUES // width, large, MIN_PILOT_TRAIN))
    n_cert = budget - n_train
    # the pilot belongs to the sequential design: a single configured look means a fixed-n
    # certification with no early stop, so no pilot either
    sequential = len(config.looks) > 1
    pilot = min(PILOT_SIZE, n_train // 4) if sequential and n_train >= MIN_PILOT_TRAIN else 0
    main_share = 1.0 - PILOT_SHARE if pilot else 1.0
    looks = plan_looks(config.looks, n_cert)
    final_alpha = alpha_test * main_share * looks[-1][1]
    # the futility check needs a training split to look at and a schedule to cut: a trial
    # it cuts keeps its pilot's bound, or without a pilot takes the first look alone
    futile = bool(config.futility and n_train and len(looks) > 1)
    short = () if pilot else ((looks[0][0], 1.0),)
    return Schedule(
        n_train,
        n_cert,
        pilot,
        main_share,
        tuple(looks),
        final_alpha,
        *screening(1 + len(trial.candidates), budget, held, n_train),
        futile,
        short,
    )


def row_bytes(spec: AdapterSpec, trial: Trial) -> int:
    """Bytes of one output of ``trial`` as drawn (its canonical dtype)."""
    empty = spec.output.empty(spec.query_length(trial.x))
    return max(1, empty.dtype.itemsize * math.prod(empty.shape[1:]))


def screening(
    pairs: int, budget: int, held: int, n_train: int
) -> tuple[int, tuple[tuple[int, int], ...], tuple[int, ...], int]:
    """Screening ``pairs`` candidate pairs (``Schedule.screened``, ``screen_rounds``,
    ``screen_streamed``, ``screen_final``): up to one more budget per side (at most ``held``
    outputs), in successive halving rounds of equal cost.

    A budget far above what is held also buys streamed counts in every round, and a last
    round whose inputs hold as many outputs as the chosen pair's training split will:
    events that take many outputs to find (long answer patterns) are then judged as they
    will be certified, not by what a few thousand outputs show."""
    screened = min(pairs, max(1, budget // (2 * MIN_SCREEN))) if pairs > 1 else 1
    rounds = screening_rounds(screened, min(budget, held)) if screened > 1 else ()
    streamed = max(0, int(budget * SCREEN_SHARE) - min(budget, held)) // max(1, len(rounds))
    per_pair = tuple(streamed // k for k, _ in rounds) if streamed >= MIN_SCREEN else ()
    # a training split per input of the last round (half proposes, half scores): with its
    # usual four inputs, twice what training holds for its two sides
    final = n_train if per_pair else 0
    return screened, rounds, per_pair, final
