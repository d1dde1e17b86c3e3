"""Sensitivity underestimation: neighbouring datasets on which a computed sum moves by more than Δ.

A bounded sum calibrates its noise to Δ = hi − lo (replace) or max(|lo|, |hi|) (add/remove),
the sensitivity of the *real-number* sum.  Implementations compute something else: int64 sums
wrap around at 2**63, float sums round at every step, so one changed record can move the
computed answer by much more than Δ.  This attack builds adversarial neighbouring datasets
inside the adapter's declared ``domain`` and ``neighbours`` relation:

* **overflow**: integer records whose sum straddles ±2**63, so that one record more (or one
  record changed) wraps the int64 sum to the other end of the range;
* **large offset, narrow bounds** (replace neighbours): n records in a domain such as
  [2**50, 2**50 + 1], i of them at the top, for i = 0, 1, ... (a chain).  The exact sums climb
  by Δ per step while the float sum lives on a grid as coarse as the ulp U of the total, so
  some consecutive pair of the chain jumps by about U >> Δ, whatever the summation order;
  plus random datasets of the same size;
* **absorption**: one huge record and many tiny ones, in both orders (the tiny ones vanish
  when added to the huge one, or add up first);
* **summation order**: the same datasets sorted ascending and descending.

Two ways to conclude:

1. *White-box*, when the adapter offers ``release_without_noise(query)`` (see
   ``auditor.core.oracles``), first because it needs no samples and no alpha: the implementation's
   own noiseless answers on every candidate pair; the largest |f(D) − f(D')| is compared
   exactly (integers as integers, floats as fractions) with Δ.  An exact implementation never
   exceeds Δ, so it is never flagged.  When Δ is exceeded by a factor r the finding reports
   ε = r·ε_claim.
2. *Statistically* (always): each candidate pair is scored by the difference its noiseless
   answers would have under models of common implementations (numpy's pairwise float sum, a
   left-to-right float sum, a wrapping int64 sum); for each kind and model the best pair whose
   predicted difference is at least ``MIN_RATIO``·Δ becomes a trial certified by the runner
   with data-driven events.  No assumption about the implementation: the models only choose
   the inputs.

Assumptions:
    White-box findings assume the noise is calibrated to Δ with a scale family
    (Laplace, discrete Laplace, geometric: scale Δ/ε), for which a shift of r·Δ costs r·ε;
    they have no sampling error.  Statistical findings assume nothing.

References:
    Casacuberta, Shoemate, Vadhan, Wagaman, "Widespread Underestimation of Sensitivity in
    Differentially Private Libraries and How to Fix It" (CCS 2022), sections 4-5: overflow,
    rounding in bounded sums with large offsets, absorption and summation order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

import numpy as np

from auditor.core.claim_kinds import REGISTRY, GaussianDP, is_point, kind_of
from auditor.core.claims import Family
from auditor.core.oracles import declared_sensitivity, noiseless_release
from auditor.core.results import EpsilonEstimate, EventCounts, ExactEvidence
from auditor.core.spec import AdapterSpec
from auditor.core.trials import Event, Trial
from auditor.statistics.events.event_selection import DataDrivenEvents

#: largest dataset the attack builds (datasets are stored in full in the report)
MAX_RECORDS = 1 << 14
#: a statistical trial is planned only for pairs predicted to move the answer by this many Δ
MIN_RATIO = 2.0
#: events certified per statistical trial (threshold events on a shifted distribution)
MAX_EVENTS = 4
#: estimator label of white-box sensitivity findings
WHITE_BOX_SENSITIVITY = "white-box-sensitivity"

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


@dataclass(frozen=True)
class Candidate:
    """A neighbouring pair of datasets and what it is meant to provoke."""

    kind: str
    x: np.ndarray
    x_prime: np.ndarray
    description: str


# --- models of implementations, used to rank candidates when no probe is offered -------------


def _float_pairwise(x: np.ndarray) -> float:
    return float(np.sum(x.astype(np.float64)))


def _float_sequential(x: np.ndarray) -> float:
    return float(np.cumsum(x.astype(np.float64))[-1]) if len(x) else 0.0


def _int64_wrapping(x: np.ndarray) -> int:
    return int(np.sum(x, dtype=np.int64))


MODELS: dict[str, Callable[[np.ndarray], int | float]] = {
    "numpy float64 sum": _float_pairwise,
    "left-to-right float64 sum": _float_sequential,
}
INTEGER_MODELS: dict[str, Callable[[np.ndarray], int | float]] = {
    **MODELS,
    "int64 sum (wraps at 2**63)": _int64_wrapping,
}


def difference(a: int | float, b: int | float) -> Fraction:
    """|a − b| exactly (no rounding of large integers or of float differences)."""
    return abs(Fraction(a) - Fraction(b))


def model_differences(c: Candidate) -> dict[str, Fraction]:
    """|f(x) − f(x')| under every model that applies to the pair's record type."""
    models = INTEGER_MODELS if np.issubdtype(c.x.dtype, np.integer) else MODELS
    return {label: difference(model(c.x), model(c.x_prime)) for label, model in models.items()}


def predicted_difference(c: Candidate) -> tuple[Fraction, str]:
    """The largest |f(x) − f(x')| over the models, and the model that produced it."""
    label, d = max(model_differences(c).items(), key=lambda item: item[1])
    return d, label


# --- building candidates -------------------------------------------------------------------


@dataclass(frozen=True)
class _Domain:
    lo: int | float
    hi: int | float
    integer: bool
    relation: str
    delta: Fraction

    @property
    def top(self) -> int | float:
        """The bound of largest magnitude."""
        return self.hi if abs(self.hi) >= abs(self.lo) else self.lo

    @property
    def other(self) -> int | float:
        return self.lo if self.top == self.hi else self.hi

    def array(self, values: Any) -> np.ndarray:
        return np.asarray(values, dtype=np.int64 if self.integer else np.float64)


def _domain(spec: AdapterSpec) -> _Domain:
    assert spec.exact_domain is not None
    raw_lo, raw_hi = spec.exact_domain
    integer = isinstance(raw_lo, int) and isinstance(raw_hi, int)
    if integer:  # records must fit an int64 array
        raw_lo, raw_hi = max(raw_lo, INT64_MIN), min(raw_hi, INT64_MAX)
    relation = spec.neighbours or "add_remove"
    return _Domain(raw_lo, raw_hi, integer, relation, declared_sensitivity(spec))


def _edits(x: np.ndarray, dom: _Domain) -> Iterator[tuple[np.ndarray, str]]:
    """Neighbours of ``x``: one record changed in place, or one added/removed at an end."""
    if dom.relation == "replace":
        for i in sorted({0, len(x) - 1}):
            for v in (dom.lo, dom.hi):
                if x[i] != v:
                    y = x.copy()
                    y[i] = v
                    yield y, f"record {i} replaced by {v!r}"
        return
    for v in (dom.lo, dom.hi):
        yield np.append(x, dom.array([v])), f"one record {v!r} appended"
        yield np.insert(x, 0, dom.array([v])[0]), f"one record {v!r} prepended"
    for i in sorted({0, len(x) - 1}):
        yield np.delete(x, i), f"record {i} removed"


def _fill(total: int, count: int, lo: int, hi: int) -> list[int] | None:
    """``count`` integers in [lo, hi] summing to ``total`` (mostly hi, one filler, rest lo)."""
    if count < 1 or not (count * lo <= total <= count * hi):
        return None
    spare = total - count * lo
    full, rest = divmod(spare, hi - lo)
    values = [hi] * full + ([lo + rest] if rest and full < count else [])
    return values + [lo] * (count - len(values))


def _overflow(dom: _Domain) -> list[Candidate]:
    """Integer datasets whose sum sits just inside ±2**63, and a neighbour just outside."""
    if not dom.integer or dom.hi - dom.lo < 1:
        return []
    # an integer domain's bounds are Python ints (see _domain)
    int_lo, int_hi = cast(int, dom.lo), cast(int, dom.hi)
    out = []
    two63 = 1 << 63
    for sign in (1, -1):
        # mirror the negative side onto the positive one
        lo, hi = (int_lo, int_hi) if sign == 1 else (-int_hi, -int_lo)
        if hi <= 0:
            continue
        boundary = two63 if sign == 1 else two63 + 1  # -2**63 itself does not wrap
        step = hi - lo if dom.relation == "replace" else hi
        target = boundary - step  # the sum of x; the neighbour's sum reaches the boundary
        if dom.relation == "replace":  # record 0 at lo, the rest make up the target
            count = max(1, -(-(target - lo) // hi))
            rest = _fill(target - lo, count, lo, hi) if count < MAX_RECORDS else None
            values = None if rest is None else [lo, *rest]
        else:
            count = max(1, -(-target // hi))
            values = _fill(target, count, lo, hi) if count <= MAX_RECORDS else None
        if values is None:
            continue
        x = np.asarray([sign * v for v in values], dtype=np.int64)
        y = x.copy()
        if dom.relation == "replace":
            y[0] = sign * hi
            text = f"record 0 replaced by {sign * hi!r}"
        else:
            y = np.append(x, np.int64(sign * hi))
            text = f"one record {sign * hi!r} appended"
        side = "2**63" if sign == 1 else "-2**63"
        out.append(
            Candidate(
                "overflow", x, y, f"{len(x)} integer records summing to just inside {side}; {text}"
            )
        )
    return out


def _records_for_ratio(dom: _Domain, ratio: int) -> int | None:
    """Fewest records (a power of 2) of magnitude |top| whose float sum's ulp is >= ratio·Δ."""
    m = float(abs(dom.top))
    if m == 0:
        return None
    for k in range(1, int(math.log2(MAX_RECORDS)) + 1):
        n = 1 << k
        if Fraction(math.ulp(n * m)) >= ratio * dom.delta:
            return n
    return None


def _offset_chain(dom: _Domain, n: int, steps: int, ascending: bool) -> list[Candidate]:
    """D_i = n records, i of them moved from lo to hi; each pair (D_i, D_i+1) differs by one.

    The exact sums climb by Δ per step, while the float sums live on a grid whose spacing is
    the ulp U of the total: over 2U/Δ steps the float sum has to move, and every move is a
    jump of at least U.  Some consecutive pair therefore differs by about U >> Δ, whatever
    the summation order (the models, or the probe, find which one).
    """
    order = "ascending" if ascending else "descending"
    out = []
    for i in range(min(steps, n)):
        if ascending:
            x = dom.array([dom.lo] * (n - i) + [dom.hi] * i)
            at = n - 1 - i
        else:
            x = dom.array([dom.hi] * i + [dom.lo] * (n - i))
            at = i
        y = x.copy()
        y[at] = dom.hi
        kind = "order" if ascending else "large-offset"
        text = f"{n} records, {i} at {dom.hi!r} and the rest at {dom.lo!r} (sorted {order})"
        out.append(Candidate(kind, x, y, f"{text}; record {at} replaced by {dom.hi!r}"))
    return out


#: targets for the ratio ulp(total) / Δ a large-offset chain aims at
OFFSET_RATIOS = (16, 64)


def _large_offset_chains(dom: _Domain) -> list[Candidate]:
    """Chains (replace neighbours only: add/remove moves a sum by a whole record)."""
    if dom.relation != "replace":
        return []
    out = []
    for ratio in OFFSET_RATIOS:
        n = _records_for_ratio(dom, ratio)
        if n is not None:
            for ascending in (False, True):
                out += _offset_chain(dom, n, 2 * ratio, ascending)
    return out


Base = tuple[str, np.ndarray]


def _random_bases(dom: _Domain, rng: np.random.Generator) -> list[Base]:
    """Random datasets of many records in the domain, sized for a float ulp of >= 16Δ."""
    n = _records_for_ratio(dom, OFFSET_RATIOS[0])
    if n is None:
        return []
    if dom.integer:
        # an integer domain's bounds are Python ints (see _domain)
        uniform = rng.integers(
            cast(int, dom.lo), cast(int, dom.hi), size=n, endpoint=True, dtype=np.int64
        )
    else:
        uniform = np.clip(dom.lo + rng.random(n) * (dom.hi - dom.lo), dom.lo, dom.hi)
    mixed = np.where(rng.random(n) < 0.5, dom.lo, dom.hi)
    return [
        (f"{n} records uniform in the domain", dom.array(uniform)),
        (f"{n} records at {dom.lo!r} or {dom.hi!r} at random", dom.array(mixed)),
    ]


def _absorption(dom: _Domain) -> list[Base]:
    """One huge record and many tiny ones, huge first or last (and ±huge when allowed)."""
    huge = dom.top
    limit = math.ulp(float(abs(huge))) / 4
    tiny: int | float | None = None
    for t in ((1 if dom.integer else limit), (-1 if dom.integer else -limit)):
        if dom.lo <= t <= dom.hi and t != 0 and abs(t) <= limit:
            tiny = t
            break
    if tiny is None:
        return []
    out = []
    for m in (64, 1024):
        out.append((f"one record {huge!r} then {m} records {tiny!r}", [huge] + [tiny] * m))
        out.append((f"{m} records {tiny!r} then one record {huge!r}", [tiny] * m + [huge]))
        if dom.lo <= -huge <= dom.hi:
            out.append(
                (f"{huge!r}, {m} records {tiny!r}, then {-huge!r}", [huge] + [tiny] * m + [-huge])
            )
    return [(text, dom.array(values)) for text, values in out]


def _sorted_bases(bases: list[Base]) -> list[Base]:
    """The same datasets sorted ascending and descending (summation order), when different."""
    out = []
    for text, x in bases:
        for name, key in (("ascending", 1), ("descending", -1)):
            y = np.sort(x)[::key]
            if not np.array_equal(x, y):
                out.append((f"{text}, sorted {name}", y))
    return out


def _pairs(kind: str, bases: list[Base], dom: _Domain) -> list[Candidate]:
    """Every base with every neighbouring edit (edits keep the other records in place)."""
    return [
        Candidate(kind, x, y, f"{text}; {edit}") for text, x in bases for y, edit in _edits(x, dom)
    ]


def _bound_bases(dom: _Domain) -> list[Base]:
    """Small datasets at the domain's bounds and midpoint, whose edits move a record from one
    bound to the other (or add one at a bound): where an exact sum, count or mean moves most."""
    mid = (dom.lo + dom.hi) // 2 if dom.integer else (dom.lo + dom.hi) / 2
    out: list[Base] = []
    for size in (1, 10):
        for name, v in (("lower bound", dom.lo), ("upper bound", dom.hi), ("midpoint", mid)):
            out.append((f"{size} record(s) at the {name} {v!r}", dom.array([v] * size)))
    return out


def candidates(spec: AdapterSpec, rng: np.random.Generator) -> list[Candidate]:
    """Every adversarial neighbouring pair this attack tries on ``spec`` (dataset family)."""
    dom = _domain(spec)
    random = _random_bases(dom, rng)
    absorbed = _absorption(dom)
    return (
        _overflow(dom)
        + _large_offset_chains(dom)
        + _pairs("large-offset", random, dom)
        + _pairs("absorption", absorbed, dom)
        + _pairs("order", _sorted_bases(random + absorbed[:3]), dom)
    )


# --- the white-box check -------------------------------------------------------------------


def _white_box_check(
    cands: list[Candidate], delta: Fraction
) -> Callable[[AdapterSpec], ExactEvidence | None]:
    def check(spec: AdapterSpec) -> ExactEvidence | None:
        answers: dict[tuple[str, int, bytes], int | float] = {}  # chains share datasets

        def answer(x: np.ndarray) -> int | float:
            key = (x.dtype.str, len(x), x.tobytes())
            if key not in answers:
                answers[key] = noiseless_release(spec, x)
            return answers[key]

        best: tuple[Fraction, Candidate] | None = None
        for c in cands:
            d = difference(answer(c.x), answer(c.x_prime))
            if best is None or d > best[0]:
                best = (d, c)
        if best is None or best[0] <= delta:
            return None
        d, c = best
        ratio = float(d / delta)
        event = (
            f"noiseless answers (release_without_noise) differ by {float(d):.6g} > declared "
            f"sensitivity {float(delta):.6g} ({ratio:.6g}x) on the pair "
            f"{c.description} (from the {c.kind} candidates)"
        )
        probe = {"declared": str(delta), "difference": str(d)}
        return sensitivity_evidence(spec, c.x, c.x_prime, ratio, event, probe)

    return check


def gaussian_mu(claim: Any) -> float:
    """The mu of the Gaussian mechanism a GDP, zCDP or RDP claim describes: mu itself,
    sqrt(2 rho), or for an RDP curve the largest mu whose D_alpha = alpha mu^2 / 2 stays
    within the curve at every order (the kind's ``gaussian_mu`` in the claim registry)."""
    entry = kind_of(claim)
    if entry is None or entry.gaussian_mu is None:
        raise ValueError(
            f"a {getattr(claim, 'kind', None)!r} claim describes no Gaussian mechanism"
        )
    return entry.gaussian_mu(claim)


def _scaled_epsilon(claim: Any, ratio: float) -> float:
    """Epsilon at the claim's delta of its noise at ``ratio`` times the declared sensitivity.

    For Gaussian noise that is the exact epsilon of (ratio mu)-GDP: scaling the claim's own
    (epsilon, delta) point by the ratio would overstate it for zCDP and RDP, whose points are
    conversions above the Gaussian's exact curve (rho 0.5 at delta 1e-6: 2 x 5.76 against
    the exact 11.0 of 2-GDP)."""
    if is_point(claim):  # Laplace-type: epsilon itself scales
        return float(claim.epsilon * ratio)
    mu = ratio * gaussian_mu(claim)
    if not 0.0 < mu < math.inf:  # an RDP curve at 0 at some order, or inf at every one
        return 0.0 if mu == 0.0 else math.inf
    return float(GaussianDP(mu, report_delta=claim.delta).epsilon)


def sensitivity_evidence(
    spec: AdapterSpec, x: Any, x_prime: Any, ratio: float, event: str, probe: dict[str, str]
) -> ExactEvidence | None:
    """A white-box finding: on the neighbours ``x`` and ``x_prime`` the noiseless answers lie
    ``ratio`` times the declared sensitivity apart (``event`` says how, ``probe`` holds the
    declared and observed sizes for the reproducer).  With noise calibrated to the declared
    sensitivity the claim's parameter grows by ``ratio`` (to the power of its kind's
    ``scaling`` in the claim registry); None for claim kinds a ratio says nothing of in numbers (privacy profiles, f-DP)."""
    claim = spec.claim
    entry = REGISTRY.get(getattr(claim, "kind", "approx"))
    if entry is None or entry.scaling is None:
        return None
    power, noise = entry.scaling
    epsilon = _scaled_epsilon(claim, ratio)
    point = is_point(claim)
    what = "epsilon" if point else claim.parameter
    estimate = EpsilonEstimate(
        epsilon_lower_bound=epsilon,
        point_estimate=epsilon,
        alpha=0.0,
        delta=claim.delta,
        event=event
        + (
            f"; {what} = ratio{'' if power == 1 else '^2'} x claim, assuming noise "
            f"calibrated to the declared sensitivity ({noise})"
        ),
        counts=EventCounts(0, 0, 0, 0),
        estimator=WHITE_BOX_SENSITIVITY,
        white_box=True,
        claim_bound=None if point else claim.value * ratio**power,
        parameter=None if point else claim.parameter,
    )
    return ExactEvidence(x, x_prime, estimate, probe=probe)


@dataclass(frozen=True)
class NoEvents:
    """A distinguisher for trials that only run a white-box check: reserves no alpha."""

    max_events: int = 0
    train_fraction: float = 0.0

    def propose(self, train_x: Any, train_x_prime: Any, plan: Any) -> list[Event]:
        return []


class SensitivityAttack:
    """Overflow, large-offset, absorption and summation-order neighbours for dataset adapters."""

    name = "sensitivity"
    description = (
        "dataset: neighbours that overflow int64 or round float sums by more than the "
        "sensitivity (Casacuberta et al. 2022); white-box with release_without_noise"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        # its pairs differ in records; a sensitivity per user id is not one per record, and
        # its float-sum pairs are built for one Δ, not one per dataset size
        return (
            spec.family is Family.DATASET
            and spec.user_column is None
            and spec.size_sensitivity is None
        )

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        # the white-box check calls the adapter on its pairs too: only sizes it accepts
        def accepted(pairs: list[Candidate]) -> list[Candidate]:
            return [c for c in pairs if spec.accepts_size(c.x) and spec.accepts_size(c.x_prime)]

        cands = accepted(candidates(spec, rng))
        delta = declared_sensitivity(spec)
        trials = []
        # the white-box check also asks the plain pairs at the domain's bounds: a noise
        # calibrated to the wrong relation's sensitivity shows there, whatever the floats do
        checked = accepted(_pairs("bounds", _bound_bases(_domain(spec)), _domain(spec))) + cands
        if spec.has_noiseless_probe and checked:  # no samples and no alpha: first
            first = checked[0]
            trials.append(
                Trial(
                    first.x,
                    first.x_prime,
                    NoEvents(),
                    f"white-box: release_without_noise on {len(checked)} adversarial pairs",
                    exact=_white_box_check(checked, delta),
                )
            )
        # the implementation is unknown: the best pair of each kind under each model
        best: dict[tuple[str, str], tuple[Fraction, Candidate]] = {}
        for c in cands:
            for model, d in model_differences(c).items():
                key = (c.kind, model)
                if key not in best or d > best[key][0]:
                    best[key] = (d, c)
        chosen: dict[int, tuple[Fraction, str, Candidate]] = {}
        for (_, model), (d, c) in best.items():
            if d >= MIN_RATIO * delta and (id(c) not in chosen or d > chosen[id(c)][0]):
                chosen[id(c)] = (d, model, c)
        for d, model, c in chosen.values():
            trials.append(
                Trial(
                    c.x,
                    c.x_prime,
                    DataDrivenEvents(max_events=MAX_EVENTS),
                    f"{c.kind}: {c.description} (noiseless answers predicted "
                    f"{float(d / delta):.3g}x the sensitivity apart by a {model})",
                )
            )
        return trials
