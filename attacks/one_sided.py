"""One-sided outputs: leaks in delta alone, where one input brings a value the other lacks.

An (epsilon, delta) claim allows an output that one neighbour never produces, with
probability at most delta on the other.  Partition selection, stability histograms and
thresholded modes spend their delta exactly there: a key, bin or category held by one record
of x' and by no record of x is released by x' alone.  A threshold off by one, or solved for the
wrong count, releases it with a few times delta -- a violation no pure-epsilon event shows,
and one that needs about e^eps / delta outputs per side before it is seen at all.

The pair search screens fifty-odd dataset pairs on a few hundred outputs each, where such an
output shows less than once and its pair loses to the pair that is tight in epsilon.  This
attack gives the pairs that can show a one-sided output a trial of their own: only pairs whose
added (or replacing) record holds a value the other dataset lacks -- for vector queries, entries
that go from 0 to something (a key's count, a score that appears) -- few enough that each is
screened on the thousands of outputs the leak needs, then certified like any other trial
(events chosen on training outputs, certified on fresh ones, within the run's alpha).

Assumptions:
    None about the implementation; the declared domain and neighbouring relation only.  Runs
    for dataset, vector and local inputs under an (epsilon, delta) claim with delta > 0 (local
    values: the farthest apart first, where bounded noise leaves outputs to one side), and for
    scalar queries of a vectorised adapter whose outputs are discrete or may be "none": moves
    of the whole sensitivity, where truncated noise or a threshold on the answer leaves the
    edge of one input's outputs to it alone (real outputs spread everywhere, and a per-call
    library cannot draw the outputs such a leak needs).

References:
    Desfontaines, Voss, Gipson, Mandayam, "Differentially private partition selection"
    (PoPETs 2022): the thresholds whose off-by-one this targets.
    Dwork & Roth, "The Algorithmic Foundations of Differential Privacy", section 3.5 (the
    stability-based histogram); Vadhan, "The Complexity of Differential Privacy", 3.3.
"""

from __future__ import annotations

import math

import numpy as np

from attacks.neighbours import Pair, dataset_pairs, local_pairs, split_tie_pairs, vector_pairs
from attacks.neighbours.scalars import shifted
from attacks.pair_search import distinguisher_for
from attacks.selection_common import largest_move
from auditor.core.claim_kinds import is_point
from auditor.core.kinds import InputKind, OutputKind
from auditor.core.spec import AdapterSpec
from auditor.core.trials import Trial, as_rows, row_keys
from auditor.statistics.power import outputs_for_one_sided

#: candidate pairs the trial screens: few, so that each gets thousands of outputs
MAX_PAIRS = 8
#: the trial asks for the outputs that certify a one-sided output of this many times delta
LEAK_MULTIPLE = 3.0
#: the per-test significance the trial's size is planned at (a default run's is about 2e-5;
#: planning only: the certification uses the run's own)
PLANNING_ALPHA = 1e-5
#: most outputs per side it asks for (the run caps it again: ``AuditConfig.budget_for``)
MOST_OUTPUTS = 1 << 23


def brings_new_value(x: np.ndarray, x_prime: np.ndarray) -> bool:
    """Whether one dataset of the pair holds a record value the other holds nowhere (the
    record added, or put in place of another): the pairs on which a released key, bin or
    category can show on one side only."""
    a, b = set(row_keys(as_rows(x))), set(row_keys(as_rows(x_prime)))
    return bool(a ^ b)


def present_pairs(spec: AdapterSpec) -> list[Pair]:
    """Vector queries whose entries go from 0 to something (a count of a key nobody held, a
    score that appears): the patterns moving up from a base of zeros, "all up" and "one up"
    first.  A histogram, a threshold or a gap test released only for keys present shows its
    one-sided outputs there; for index outputs, also the ties split apart
    (``split_tie_pairs``).  The patterns' other moves are the pair search's."""
    ups = [p for p in vector_pairs(spec, 0.0) if _rises_from_zero(p[0], p[1])]
    moved = [int(np.count_nonzero(np.asarray(b) - np.asarray(a))) for a, b, _ in ups]
    most = max(moved, default=0)
    # all up first, then one up, then the others in the patterns' order (a stable sort)
    order = sorted(range(len(ups)), key=lambda i: 0 if moved[i] == most else moved[i] != 1)
    ups = [ups[i] for i in order]
    # an index released past a gap test shows one-sided where a tie is split (no zero base)
    return (ups[:2] + split_tie_pairs(spec) + ups[2:])[:MAX_PAIRS]


def _rises_from_zero(x: np.ndarray, x_prime: np.ndarray) -> bool:
    a, b = np.asarray(x, dtype=float), np.asarray(x_prime, dtype=float)
    return bool((a == 0).all() and (b >= 0).all() and (b > 0).any())


def one_sided_pairs(spec: AdapterSpec, rng: np.random.Generator) -> list[Pair]:
    """Up to ``MAX_PAIRS`` neighbouring datasets that differ in a value, the smallest first
    (a small dataset leaves the new value the most room: a mode, a top key, a threshold met
    by one record), each size's first pairs before any size's later ones."""
    pairs = [p for p in dataset_pairs(spec, rng) if brings_new_value(p[0], p[1])]
    by_size: dict[int, list[Pair]] = {}
    for p in pairs:
        by_size.setdefault(min(len(as_rows(p[0])), len(as_rows(p[1]))), []).append(p)
    chosen: list[Pair] = []
    rank = 0
    while len(chosen) < MAX_PAIRS and any(rank < len(v) for v in by_size.values()):
        for size in sorted(by_size):
            if rank < len(by_size[size]) and len(chosen) < MAX_PAIRS:
                chosen.append(by_size[size][rank])
        rank += 1
    return chosen


def far_value_pairs(spec: AdapterSpec) -> list[Pair]:
    """Values of a local domain, the farthest apart first: a randomizer whose noise is
    bounded (truncated, or a window around the value) gives the outputs at the edge of one
    value's range that a distant value never produces, and its delta is spent there."""
    pairs = sorted(local_pairs(spec), key=lambda p: -abs(float(p[1]) - float(p[0])))
    return pairs[:MAX_PAIRS]


def full_move_pairs(spec: AdapterSpec) -> list[Pair]:
    """Scalar queries a whole sensitivity apart: 0 and Δ, and inside declared bounds the pairs
    at both ends and in the middle.  Noise truncated to a window around the answer, or a
    release gated on the answer, gives outputs at the window's edge that the other answer
    never reaches, and the full move shifts the window most."""
    step = largest_move(spec)
    if step <= 0:
        return []
    bases = [0.0]
    bounds = spec.query_bounds
    if bounds is not None:
        lo, hi = bounds
        if not (lo <= 0.0 and step <= hi):
            bases = []
        if hi - lo >= step:
            bases += [lo, hi - step, lo + (hi - lo - step) / 2]
    pairs: list[Pair] = []
    for a in dict.fromkeys(bases):
        if spec.integer_queries:
            x: int | float = math.floor(a)
            x_prime: int | float = int(x) + int(step)
            if bounds is not None and not (bounds[0] <= x and x_prime <= bounds[1]):
                continue
        else:
            x, x_prime = a, a + step
            if shifted(a, step) != x_prime:  # rounding went past it: no pair here
                continue
        pairs.append((x, x_prime, f"inputs {x!r} and {x_prime!r} (one sensitivity apart)"))
    return pairs[:MAX_PAIRS]


def _discrete_scalar(spec: AdapterSpec) -> bool:
    """A scalar query of a vectorised adapter with outputs that are not spread over the reals:
    discrete values, or "none"."""
    output = spec.output
    return bool(
        spec.vectorised
        and spec.sensitivity is not None
        and (output.kind is not OutputKind.REAL or output.nullable)
    )


class OneSidedAttack:
    name = "one-sided"
    description = (
        "datasets, vector queries, local values and discrete scalar releases under a claim "
        "with delta > 0: the pairs where one input brings a value the other lacks (a record, "
        "an entry rising from 0, a distant value, a whole-sensitivity move), in a trial of "
        "their own so that an output one side never shows gets the outputs it needs (a leak "
        "in delta alone)"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        claim = spec.claim
        if not is_point(claim) or claim.delta <= 0:
            return False
        if spec.input.kind is InputKind.VECTOR:
            return spec.sensitivity is not None and spec.input.norm is not None
        if spec.input.kind is InputKind.LOCAL:
            return spec.exact_domain is not None
        if spec.input.kind is InputKind.SCALAR:
            return _discrete_scalar(spec)
        return spec.input.kind is InputKind.DATASET and spec.domain is not None

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        if spec.input.kind is InputKind.VECTOR:
            pairs = present_pairs(spec)
        elif spec.input.kind is InputKind.LOCAL:
            pairs = far_value_pairs(spec)
        elif spec.input.kind is InputKind.SCALAR:
            pairs = full_move_pairs(spec)
        else:
            pairs = one_sided_pairs(spec, rng)
        if not pairs:
            return []
        (x, x_prime, text), rest = pairs[0], pairs[1:]
        distinguisher = distinguisher_for(spec, spec.query_length(x) or 1)
        claim = spec.claim
        # outputs to certify a one-sided output of LEAK_MULTIPLE x delta, on the certification
        # share of the trial (none when no budget can: e^eps outweighs what delta leaves)
        seen = outputs_for_one_sided(
            claim.epsilon, claim.delta, LEAK_MULTIPLE, PLANNING_ALPHA, MOST_OUTPUTS
        )
        needs = 0 if seen is None else math.ceil(seen / (1.0 - distinguisher.train_fraction))
        return [
            Trial(
                x,
                x_prime,
                distinguisher,
                f"{text} (one input brings a value the other lacks)",
                candidates=tuple(rest),
                needs=needs,
            )
        ]
