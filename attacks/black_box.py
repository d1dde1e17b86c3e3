"""Black-box attack: standard and randomised neighbouring inputs, events learned from data.

Needs no model of the implementation.  It catches wrong calibration (too little noise, a
missing 1/2 in the exponential mechanism, wrong randomized-response probabilities), noiseless
releases (the differencing attack: an exact count is certified at once), and leaky
propose-test-release, through the model-free distinguisher in
``auditor.statistics.events.event_selection``.

Trials per family:

* additive: 0 vs Δ (the standard pair), plus two pairs at magnitudes drawn from the attack's
  rng — a moderate offset a vs a + Δ (a random multiple of Δ, for real answers at ``PHASES``
  fractions of Δ screened as candidates, off the standard pair's grid) and a large one
  ±2**k vs ±2**k + Δ — for mechanisms whose noise or rounding depends on the magnitude or
  the position of the answer;
* binary: 0 vs 1;
* selection: equal utilities vs one up (and the rest down) by the sensitivity;
* dataset: the standard pairs (midpoint records, one changed to a bound), a random pair (a
  random size up to ``MAX_RANDOM_RECORDS`` and random contents within the domain, one record
  changed, added or removed), and a *stability chain* for
  propose-test-release: datasets with c records at the domain's midpoint between blocks at the
  two bounds, c = 0, 1, ..., each paired with the one that has c + 1 (see ``_stability_chain``).

Budget trade-off: the run's alpha is split over 2·max_events tests per trial (Bonferroni),
so every extra trial and event makes every test a little stricter (the bound shrinks only
logarithmically in the number of tests), and every trial costs up to 2·budget samples, which
is what dominates the run time of slow (per-call) adapters.  The standard pairs keep 8 events; the randomised
pairs get ``EXTRA_MAX_EVENTS`` = 4 (a shifted distribution is caught by a threshold event,
which needs few candidates); the chain's trials certify only the ⊥ event (1 event, 2 tests
each) and spend only ``CHAIN_TRAIN_FRACTION`` of the budget on training, certifying nothing
unless the training split already shows a ⊥ rate gap large enough to break the claim.

Assumptions:
    None about the implementation; only the declared sensitivity / neighbouring relation.

References:
    Ding et al., "Detecting Violations of Differential Privacy" (CCS 2018).
    Dwork and Roth, "The Algorithmic Foundations of Differential Privacy", sections 7.2-7.3
    (propose-test-release: the test on the distance to instability must be noisy).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from attacks.neighbours import scalar_pair_groups
from attacks.selection_common import (
    bounds_note,
    largest_move,
    middle,
    outcome_counts,
    pull_within,
    within,
)
from auditor.core.claims import Family
from auditor.core.spec import AdapterSpec
from auditor.core.trials import CertificationPlan, Event, Trial
from auditor.statistics.clopper_pearson import predicted_lower_bound
from auditor.statistics.events.event_selection import DataDrivenEvents, bottom_event

#: events per randomised trial (each event is tested in both directions)
EXTRA_MAX_EVENTS = 4
#: share of the per-side budget the stability chain spends on deciding whether to certify
CHAIN_TRAIN_FRACTION = 0.01
#: longest stability chain (number of trials)
MAX_CHAIN = 128
#: most records in a random dataset pair
MAX_RANDOM_RECORDS = 50


@dataclass(frozen=True)
class BottomGap:
    """Proposes the ⊥ event when the training split shows a ⊥ rate gap that could break the claim.

    With ``train_fraction = 0`` (no training) the ⊥ event is always proposed.  Otherwise it is
    proposed only if the bound predicted from the training rates at the planned certification
    size exceeds the claimed epsilon, so trials on mechanisms that never (or always) answer ⊥
    cost only their small training draw.

    Assumptions: outputs are numbers with NaN meaning ⊥.
    """

    max_events: int = 1
    train_fraction: float = CHAIN_TRAIN_FRACTION

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        if len(train_x) == 0:
            return [bottom_event()]
        p0 = float(np.isnan(np.asarray(train_x, dtype=float)).mean())
        p1 = float(np.isnan(np.asarray(train_x_prime, dtype=float)).mean())
        predicted = max(
            predicted_lower_bound(p0, p1, plan.n, plan.alpha, plan.delta, claim=plan.claim),
            predicted_lower_bound(p1, p0, plan.n, plan.alpha, plan.delta, claim=plan.claim),
        )
        return [bottom_event()] if predicted > plan.epsilon else []


# --- additive ------------------------------------------------------------------------------


def _additive_trials(spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
    """A trial per group of ``scalar_pair_groups``, its other pairs screened as candidates:
    the standard pair keeps 8 events, the randomised ones ``EXTRA_MAX_EVENTS``."""
    trials = []
    for standard, ((x, x_prime, description), *rest) in scalar_pair_groups(spec, rng):
        events = DataDrivenEvents() if standard else DataDrivenEvents(max_events=EXTRA_MAX_EVENTS)
        trials.append(Trial(x, x_prime, events, description, candidates=tuple(rest)))
    return trials


# --- selection -----------------------------------------------------------------------------


def _selection_trials(spec: AdapterSpec) -> list[Trial]:
    """Equal utilities against the first moved up (and the rest down) by the largest move, in
    the middle of declared bounds: a mechanism may refuse utilities outside them."""
    (k,) = outcome_counts(spec, (4,))
    bounds = spec.utility_bounds
    centre, room = middle(bounds)
    s = min(largest_move(spec), room)
    if spec.integer_queries:
        centre, s = float(math.floor(centre)), float(math.floor(s))
    if k < 2 or s <= 0:
        return []  # one outcome (nothing to select), or no move that fits
    base = np.full(k, centre)
    moves = [
        (np.array([s] + [-s] * (k - 1)), "the first up and the rest down"),
        (np.array([s] + [0.0] * (k - 1)), "the first up"),
    ]
    return [
        Trial(
            base,
            pull_within(base, base + move, s),  # rounding never carries it past s
            DataDrivenEvents(),
            f"{k} equal utilities vs {text} by the sensitivity" + bounds_note(bounds),
        )
        for move, text in moves
        if within(base + move, bounds)
    ]


# --- dataset -------------------------------------------------------------------------------


def _records(spec: AdapterSpec) -> tuple[Any, Any, Any, type[np.int64] | type[np.float64]]:
    """The domain's bounds and midpoint as records, and their dtype: integers (the midpoint
    rounded down) for an integer domain a mechanism may refuse fractions in, else floats."""
    assert spec.domain is not None and spec.exact_domain is not None
    if spec.integer_domain:
        lo_v, hi_v = int(spec.exact_domain[0]), int(spec.exact_domain[1])
        if lo_v >= -(2**62) and hi_v <= 2**62:  # int64, and its sums, hold them exactly
            return lo_v, (lo_v + hi_v) // 2, hi_v, np.int64
    lo, hi = spec.domain
    return lo, (lo + hi) / 2.0, hi, np.float64


def _dataset_pairs(spec: AdapterSpec) -> list[tuple[np.ndarray, np.ndarray, str]]:
    lo, mid, hi, dtype = _records(spec)
    base = np.full(10, mid, dtype=dtype)
    if spec.neighbours == "replace":
        changed = base.copy()
        changed[0] = hi
        other = base.copy()
        other[0] = lo
        return [
            (base, changed, "10 records at the domain midpoint; one replaced by the upper bound"),
            (other, changed, "one record moved from the lower to the upper bound"),
        ]
    return [
        (
            base,
            np.append(base, np.array([hi], dtype=dtype)),
            "10 records at the domain midpoint, plus one at the upper bound",
        ),
        (
            np.full(10, lo, dtype=dtype),
            np.append(np.full(10, lo, dtype=dtype), np.array([hi], dtype=dtype)),
            "10 records at the lower bound, plus one at the upper bound",
        ),
    ]


def _random_pair(spec: AdapterSpec, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, str]:
    """A random dataset of random size within the domain and a random neighbour of it."""
    assert spec.domain is not None
    lo, hi = spec.domain
    n = int(rng.integers(1, MAX_RANDOM_RECORDS + 1))
    assert spec.exact_domain is not None
    raw_lo, raw_hi = spec.exact_domain
    bound: np.int64 | float
    if spec.integer_domain and int(raw_lo) >= -(2**62) and int(raw_hi) <= 2**62:
        ilo, ihi = int(raw_lo), int(raw_hi)  # exact: float copies of wide ints may round out
        x = rng.integers(ilo, ihi, size=n, endpoint=True, dtype=np.int64)
        bound = np.int64(ilo if rng.random() < 0.5 else ihi)
    else:
        x = np.clip(lo + rng.random(n) * (hi - lo), lo, hi)
        bound = float(rng.choice([lo, hi]))
    i = int(rng.integers(0, n))
    if spec.neighbours == "replace":
        y = x.copy()
        y[i] = bound
        return x, y, f"{n} random records; record {i} replaced by {bound!r}"
    if n > 1 and rng.random() < 0.5:
        return x, np.delete(x, i), f"{n} random records; record {i} removed"
    return x, np.append(x, bound), f"{n} random records; one record {bound!r} added"


def chain_length(spec: AdapterSpec) -> int:
    """How many stability levels to try: ~4x the PTR threshold ln(1/δ)/ε, plus slack."""
    claim = spec.claim
    if claim.delta <= 0:
        return 0
    threshold = math.log(1 / claim.delta) / claim.epsilon
    return min(MAX_CHAIN, math.ceil(4 * threshold) + 8)


def _stability_chain(spec: AdapterSpec) -> list[Trial]:
    """Pairs of datasets one record apart whose "distance to instability" differs by one.

    D_c holds c records at the domain midpoint between blocks at the two bounds, so any
    statistic of the middle (a median, a mode, a trimmed mean) is stable up to about c/2 changed
    records.  Consecutive D_c, D_{c+1} are neighbours, so for whatever threshold an
    implementation compares its distance with, some pair in the chain straddles it: a PTR whose
    test is not noisy answers ⊥ on one and not the other.
    """
    length = chain_length(spec)
    if length == 0:
        return []
    lo, mid, hi, dtype = _records(spec)
    if spec.integer_domain and (dtype is not np.int64 or hi - lo < 2):
        return []  # no integer strictly between the bounds (or none int64 holds)
    side = length // 2 + 2
    total = 2 * side + length  # replace: every dataset in the chain has this size
    trials = []
    for c in range(length):
        if spec.neighbours == "replace":
            a, b = -(-(total - c) // 2), (total - c) // 2
            x = np.array([lo] * a + [mid] * c + [hi] * b, dtype=dtype)
            y = x.copy()
            i = len(x) - 1 if a == b else 0  # keep the blocks at the bounds balanced
            y[i] = mid
            change = f"record {i} replaced by the midpoint"
        else:
            x = np.array([lo] * side + [mid] * c + [hi] * side, dtype=dtype)
            y = np.append(x, np.array([mid], dtype=dtype))
            change = "one midpoint record added"
        trials.append(
            Trial(
                x,
                y,
                BottomGap(),
                f"stability chain c={c}: {len(x)} records, {c} at the midpoint {mid!r} between "
                f"blocks at {lo!r} and {hi!r}; {change} (propose-test-release ⊥ event)",
            )
        )
    return trials


def _dataset_trials(spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
    trials = [Trial(x, xp, DataDrivenEvents(), text) for x, xp, text in _dataset_pairs(spec)]
    x, y, text = _random_pair(spec, rng)
    trials.append(Trial(x, y, DataDrivenEvents(max_events=EXTRA_MAX_EVENTS), text))
    return trials + _stability_chain(spec)


class BlackBoxAttack:
    """Standard and randomised neighbours per family, events chosen on a training split."""

    name = "black-box"
    description = (
        "model-free: standard and randomised neighbouring inputs, threshold/outcome/⊥ events "
        "learned on a training split; PTR stability chain for dataset mechanisms with delta > 0"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        # adapters outside the four families get the pair search (attacks.pair_search)
        return spec.family is not None

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        family = spec.family
        if family is Family.ADDITIVE:
            return _additive_trials(spec, rng)
        if family is Family.BINARY:
            return [Trial(0, 1, DataDrivenEvents(), "bits 0 and 1")]
        if family is Family.SELECTION:
            return _selection_trials(spec)
        return _dataset_trials(spec, rng)
