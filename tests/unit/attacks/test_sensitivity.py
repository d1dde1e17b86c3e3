"""Sensitivity attack: candidates are neighbours in the domain, the white-box check is exact."""

from fractions import Fraction

import numpy as np
import pytest
from attack_fixtures import (
    ExactIntegerSum,
    NaiveFloatSum,
    NaiveFloatSumWithProbe,
    WrappingIntegerSum,
    are_neighbours,
    within,
)

from attacks.sensitivity import (
    MAX_RECORDS,
    WHITE_BOX_SENSITIVITY,
    SensitivityAttack,
    candidates,
    model_differences,
)
from auditor.core.errors import AdapterContractError, AdapterOutputError, AdapterRaised
from auditor.core.oracles import declared_sensitivity, noiseless_release
from auditor.core.spec import check_adapter

DOMAINS = [
    ((2.0**50, 2.0**50 + 1.0), "replace"),
    ((2.0**50, 2.0**50 + 1.0), "add_remove"),
    ((0, 2**62), "add_remove"),
    ((0, 2**62), "replace"),
    ((-(2**62), 2**62), "replace"),
    ((-(2**60), 0), "add_remove"),
    ((0, 2**50), "add_remove"),
    ((2**50, 2**50 + 1), "replace"),
    ((0.0, 1.0), "add_remove"),
    ((-10.0, 2.0**60), "replace"),
]


class _Stub:
    family = "dataset"
    epsilon = 1.0
    delta = 0.0
    name = "stub"

    def __init__(self, domain, neighbours, **extra):
        self.domain, self.neighbours = domain, neighbours
        self.__dict__.update(extra)

    def sample(self, query, n):
        return np.zeros(n)


@pytest.mark.parametrize(("domain", "relation"), DOMAINS)
def test_candidates_are_neighbours_inside_the_domain(domain, relation):
    spec = check_adapter(_Stub(domain, relation))
    cands = candidates(spec, np.random.default_rng(3))
    integer = isinstance(domain[0], int)
    for c in cands:
        assert are_neighbours(c.x, c.x_prime, relation), c.description
        assert within(c.x, *domain) and within(c.x_prime, *domain), c.description
        assert 1 <= len(c.x) <= MAX_RECORDS + 1 and 1 <= len(c.x_prime) <= MAX_RECORDS + 1
        assert np.issubdtype(c.x.dtype, np.integer) == integer


def test_candidates_are_reproducible_from_the_rng():
    spec = check_adapter(_Stub((2.0**50, 2.0**50 + 1.0), "replace"))
    a = candidates(spec, np.random.default_rng(7))
    b = candidates(spec, np.random.default_rng(7))
    assert [c.description for c in a] == [c.description for c in b]
    assert all(np.array_equal(u.x, v.x) for u, v in zip(a, b, strict=True))


@pytest.mark.parametrize(
    ("domain", "relation"),
    [((0, 2**62), "add_remove"), ((0, 2**62), "replace"), ((-(2**60), 0), "add_remove")],
)
def test_overflow_pairs_straddle_the_int64_range(domain, relation):
    spec = check_adapter(_Stub(domain, relation))
    overflow = [c for c in candidates(spec, np.random.default_rng(0)) if c.kind == "overflow"]
    assert overflow
    for c in overflow:
        exact = [sum(np.asarray(v).tolist()) for v in (c.x, c.x_prime)]
        inside = [-(2**63) <= s < 2**63 for s in exact]
        assert inside[0] and not inside[1], c.description
        # the wrapping model sees a jump far beyond the sensitivity; exact sums do not
        assert model_differences(c)["int64 sum (wraps at 2**63)"] > declared_sensitivity(spec)
        assert abs(exact[1] - exact[0]) <= declared_sensitivity(spec)


def test_large_offset_pair_is_predicted_to_move_by_many_sensitivities():
    spec = check_adapter(_Stub((2.0**50, 2.0**50 + 1.0), "replace"))
    trials = SensitivityAttack().trials(spec, np.random.default_rng(0))
    assert trials and all(t.distinguisher.max_events == 4 for t in trials)
    assert any(t.description.startswith("large-offset") for t in trials)


def test_no_trials_where_floats_cannot_exceed_the_sensitivity():
    spec = check_adapter(_Stub((0.0, 1.0), "add_remove"))
    assert SensitivityAttack().trials(spec, np.random.default_rng(0)) == []


def test_applies_to_dataset_family_only():
    attack = SensitivityAttack()
    assert attack.applies_to(check_adapter(_Stub((0.0, 1.0), "replace")))
    from audit_fixtures import GeometricLaplace

    assert not attack.applies_to(check_adapter(GeometricLaplace()))


# --- white-box check -----------------------------------------------------------------------


def _white_box(adapter):
    spec = check_adapter(adapter)
    trials = SensitivityAttack().trials(spec, np.random.default_rng(0))
    exact = [t for t in trials if t.exact is not None]
    assert len(exact) == 1 and exact[0].distinguisher.max_events == 0
    assert trials[0] is exact[0]  # no samples, no alpha: runs first
    return exact[0].exact(spec)


@pytest.mark.parametrize(
    ("domain", "relation"),
    [
        ((0, 2**62), "add_remove"),
        ((0, 2**62), "replace"),
        ((2**50, 2**50 + 1), "replace"),
        ((-(2**62), 2**62), "replace"),
        ((0, 2**50), "add_remove"),
    ],
)
def test_white_box_never_flags_an_exact_sum(domain, relation):
    assert _white_box(ExactIntegerSum(domain=domain, neighbours=relation)) is None


def test_white_box_flags_a_float_sum_with_large_offset():
    evidence = _white_box(NaiveFloatSumWithProbe())
    est = evidence.estimate
    assert est.white_box and est.estimator == WHITE_BOX_SENSITIVITY and est.alpha == 0.0
    assert est.epsilon_lower_bound > 1.0 and "release_without_noise" in est.event
    assert are_neighbours(evidence.x, evidence.x_prime, "replace")
    # the reported ratio is the real one, recomputed from the adapter
    adapter = NaiveFloatSumWithProbe()
    d = abs(
        adapter.release_without_noise(evidence.x) - adapter.release_without_noise(evidence.x_prime)
    )
    assert est.epsilon_lower_bound == pytest.approx(d / 1.0)


def test_white_box_flags_a_wrapping_int64_sum():
    evidence = _white_box(WrappingIntegerSum(domain=(0, 2**62), neighbours="add_remove"))
    assert evidence.estimate.epsilon_lower_bound > 2.0


class _SumWithProbe(_Stub):
    def release_without_noise(self, query):
        return int(np.sum(query))


@pytest.mark.parametrize(("relation", "declared", "flagged"), [
    ("replace", 10, True),  # the add/remove sensitivity max(|lo|, |hi|) under replace-one
    ("replace", 16, False),
    ("add_remove", 6, True),  # |lo| instead of max(|lo|, |hi|)
    ("add_remove", 10, False),
])  # fmt: skip
def test_white_box_asks_the_plain_pairs_at_the_bounds_of_a_small_integer_domain(
    relation, declared, flagged
):
    # no float candidate exists on (-6, 10): the check still runs, on the bounds' pairs
    adapter = _SumWithProbe((-6, 10), relation, sensitivity=declared)
    evidence = _white_box(adapter)
    assert (evidence is not None) is flagged
    if flagged:
        assert evidence.estimate.epsilon_lower_bound == pytest.approx(
            (16 if relation == "replace" else 10) / declared
        )
        assert are_neighbours(evidence.x, evidence.x_prime, relation)
    # and no statistical trial where floats cannot exceed the sensitivity
    trials = SensitivityAttack().trials(check_adapter(adapter), np.random.default_rng(0))
    assert len(trials) == 1


def test_no_white_box_trial_without_the_probe():
    spec = check_adapter(NaiveFloatSum())
    assert all(t.exact is None for t in SensitivityAttack().trials(spec, np.random.default_rng(0)))


# --- the probe and the declared sensitivity ------------------------------------------------


def test_declared_sensitivity_prefers_the_adapter_attribute_and_is_exact():
    assert declared_sensitivity(check_adapter(_Stub((0, 10), "replace", sensitivity=3))) == 3
    assert declared_sensitivity(check_adapter(_Stub((-4, 10), "replace"))) == 14
    assert declared_sensitivity(check_adapter(_Stub((-4, 10), "add_remove"))) == 10
    wide = check_adapter(_Stub((2**62, 2**62 + 1), "replace"))
    assert declared_sensitivity(wide) == Fraction(1)
    with pytest.raises(AdapterContractError, match="sensitivity=-1"):
        declared_sensitivity(check_adapter(_Stub((0, 1), "replace", sensitivity=-1)))


def test_probe_answers_are_checked_and_integers_stay_exact():
    def spec_with(probe):
        return check_adapter(_Stub((0, 1), "replace", release_without_noise=probe))

    assert noiseless_release(spec_with(lambda q: np.int64(2**62 + 1)), [0]) == 2**62 + 1
    assert isinstance(noiseless_release(spec_with(lambda q: 2**70 + 1), [0]), int)
    assert noiseless_release(spec_with(lambda q: np.float32(0.5)), [0]) == 0.5
    with pytest.raises(AdapterRaised, match="release_without_noise.*ZeroDivisionError"):
        noiseless_release(spec_with(lambda q: 1 / 0), [0])
    with pytest.raises(AdapterOutputError, match="nan"):
        noiseless_release(spec_with(lambda q: float("nan")), [0])
    with pytest.raises(AdapterOutputError):
        noiseless_release(spec_with(lambda q: "three"), [0])
    with pytest.raises(AdapterOutputError):
        noiseless_release(spec_with(lambda q: np.array([1.0, 2.0])), [0])


def test_white_box_findings_render_without_clopper_pearson_wording():
    from attacks import load_attacks
    from auditor.core.configs import AuditConfig
    from auditor.engine.runner import run_audit
    from reports import RENDERERS

    report = run_audit(
        [NaiveFloatSumWithProbe()], load_attacks(["sensitivity"]), AuditConfig(budget=1000)
    ).to_dict()
    row = report["results"][0]
    assert row["verdict"] == "violation" and row["estimator"] == WHITE_BOX_SENSITIVITY
    md = RENDERERS["md"][1](report)
    assert "white-box ε ≥" in md and "significance 0 " not in md
    html = RENDERERS["html"][1](report)
    assert "white-box bound" in html and "release_without_noise" in html


def test_conformance_check_covers_the_probe():
    from auditor.testing import check_adapter_conformance

    check_adapter_conformance(NaiveFloatSumWithProbe())
    check_adapter_conformance(ExactIntegerSum())
    broken = NaiveFloatSumWithProbe()
    broken.release_without_noise = lambda q: float("nan")
    with pytest.raises(AdapterOutputError, match="release_without_noise"):
        check_adapter_conformance(broken)
