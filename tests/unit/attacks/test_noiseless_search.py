"""Noiseless search: climbs over datasets on release_without_noise; exact, never on a correct
mechanism, and finds sensitivity bugs that only structure among records shows."""

import math
from fractions import Fraction

import numpy as np
import pytest

from attacks.neighbours import are_neighbours
from attacks.noiseless_search import NoiselessSearchAttack
from attacks.sensitivity import WHITE_BOX_SENSITIVITY
from auditor.core.claim_kinds import GaussianDP
from auditor.core.errors import AdapterOutputError, AdapterRaised
from auditor.core.kinds import Norm
from auditor.core.oracles import distance, noiseless_answers, squared_distance
from auditor.core.spec import check_adapter

NODES, TOP = 20, 5


@pytest.fixture(autouse=True)
def _shorter_climbs(monkeypatch):
    """A quarter of the moves: these graphs of 20 nodes need far fewer (CI time)."""
    import attacks.noiseless_search as search

    monkeypatch.setattr(search, "MAX_MOVES", search.MAX_MOVES // 4)


class DegreeHistogram:
    """How many of 20 nodes have degree 0, 1, ..., 5 or more, over undirected edges (a record
    (a, b); add/remove one edge).  An edge moves its two ends up a bin: both from one bin
    moves 2 out and 2 in (L1 4, L2 sqrt 8, Linf 2)."""

    input_kind, output_kind, output_length = "dataset", "integer", TOP + 1
    columns = 2
    domain = [(0, NODES - 1), (0, NODES - 1)]
    neighbours = "add_remove"
    epsilon = 1.0
    name = "test.degree_histogram"

    def __init__(self, sensitivity=4, norm="l1", claim=None):
        self.sensitivity, self.norm = sensitivity, norm
        if claim is not None:
            self.claim = claim
        self._rng = np.random.default_rng(0)

    def release_without_noise(self, query):
        edges = np.asarray(query, dtype=np.int64).reshape(-1, 2)
        degree = np.bincount(edges.ravel(), minlength=NODES)
        return np.bincount(np.minimum(degree, TOP), minlength=TOP + 1)

    def sample(self, query, n):
        scale = self.sensitivity / self.epsilon
        noise = self._rng.laplace(0.0, scale, (n, TOP + 1))
        return self.release_without_noise(query) + np.round(noise).astype(np.int64)


class LonelyNodes:
    """How many nodes of 20 have degree exactly 1 (one number).  An edge between two such
    nodes takes both out, an edge between two isolated ones puts both in: Δ = 2."""

    input_kind, output_kind = "dataset", "integer"
    columns = 2
    domain = [(0, NODES - 1), (0, NODES - 1)]
    neighbours = "add_remove"
    epsilon = 1.0
    name = "test.lonely_nodes"

    def __init__(self, sensitivity=2):
        self.sensitivity = sensitivity

    def release_without_noise(self, query):
        edges = np.asarray(query, dtype=np.int64).reshape(-1, 2)
        return int(np.count_nonzero(np.bincount(edges.ravel(), minlength=NODES) == 1))

    def sample(self, query, n):
        return self.release_without_noise(query) + np.zeros(n, dtype=np.int64)


def _search(adapter, seed=0):
    spec = check_adapter(adapter)
    attack = NoiselessSearchAttack()
    assert attack.applies_to(spec)
    (trial,) = attack.trials(spec, np.random.default_rng(seed))
    assert trial.distinguisher.max_events == 0  # no samples, no alpha
    return spec, trial.exact(spec)


# the true sensitivities in each norm: 4, sqrt 8 (as the float math.sqrt gives), 2
@pytest.mark.parametrize(("norm", "declared"), [("l1", 4), ("l2", math.sqrt(8)), ("linf", 2)])
def test_never_flags_a_vector_at_its_true_sensitivity(norm, declared):
    assert _search(DegreeHistogram(declared, norm))[1] is None


@pytest.mark.parametrize(
    ("norm", "declared", "ratio"),
    [("l1", 2, 2.0), ("l2", 2, math.sqrt(2)), ("linf", 1, 2.0)],  # one end's move only
)
def test_flags_a_vector_declared_for_one_end_of_the_edge(norm, declared, ratio):
    adapter = DegreeHistogram(declared, norm)
    spec, evidence = _search(adapter)
    assert evidence is not None
    est = evidence.estimate
    assert est.white_box and est.estimator == WHITE_BOX_SENSITIVITY
    assert est.epsilon_lower_bound == pytest.approx(ratio * adapter.epsilon)
    assert are_neighbours(spec, evidence.x, evidence.x_prime)
    # the reported distance is the adapter's own, recomputed here
    a, b = (adapter.release_without_noise(q) for q in (evidence.x, evidence.x_prime))
    assert float(evidence.probe["difference"]) == pytest.approx(ratio * declared)
    assert evidence.probe["norm"] == norm and f"in {norm}" in est.event
    assert np.abs(a - b).sum() > 0


def test_a_structural_bug_in_one_number_is_found_and_the_exact_twin_is_not():
    # two nodes of degree 1 joined: both leave; an edge between isolated nodes: both join
    assert _search(LonelyNodes(2))[1] is None
    _, evidence = _search(LonelyNodes(1))
    assert evidence is not None and evidence.estimate.epsilon_lower_bound == pytest.approx(2.0)
    assert "norm" not in evidence.probe and evidence.probe["difference"] == "2"


@pytest.mark.parametrize(
    ("claim", "parameter", "bound"),
    [
        ("gdp:mu=1", "mu", 2.0),
        ("zcdp:rho=0.5", "rho", 2.0),
        ("rdp:2=1,4=2,8=4", "scale", 4.0),
        ("profile:0=0.5,1=0.1", None, None),
    ],
)
def test_curve_claims_scale_with_the_noise_they_assume(claim, parameter, bound):
    _, evidence = _search(DegreeHistogram(2, "l1", claim=claim))  # ratio 2
    if parameter is None:  # a ratio says nothing in numbers of a privacy profile
        assert evidence is None
        return
    assert evidence.estimate.parameter == parameter
    assert evidence.estimate.claim_bound == pytest.approx(bound)
    assert "Gaussian" in evidence.estimate.event
    # each claim describes a 1-GDP Gaussian; at twice its sensitivity, exactly 2-GDP's epsilon
    # (the claim's own point times 2 would overstate zCDP's and RDP's, conversions above it)
    exact = GaussianDP(2.0, report_delta=evidence.estimate.delta).epsilon
    assert evidence.estimate.epsilon_lower_bound == pytest.approx(exact, rel=1e-9)


def test_applies_only_where_a_sensitivity_and_its_norm_are_known():
    attack = NoiselessSearchAttack()
    assert not attack.applies_to(check_adapter(DegreeHistogram(4, None)))  # which norm?

    class NoProbe(LonelyNodes):
        release_without_noise = None

    assert not attack.applies_to(check_adapter(NoProbe()))
    from audit_fixtures import GeometricLaplace

    assert not attack.applies_to(check_adapter(GeometricLaplace()))


def test_answers_of_the_wrong_length_are_an_error_that_says_so():
    spec = check_adapter(DegreeHistogram())
    with pytest.raises(AdapterOutputError, match="returned 3 values, expected 6 numbers"):
        spec.adapter.release_without_noise = lambda q: [1, 2, 3]
        noiseless_answers(spec, np.zeros((1, 2), dtype=np.int64), 6)


def test_distances_are_exact_in_every_norm():
    a, b = (2**62 + 1, 0, 3), (1, 0.5, 0)
    assert distance(a, b, Norm.L1) == 2**62 + Fraction(7, 2)  # no float rounding of 2^62
    assert distance((2**62 + 1,), (1,), None) == 2**62
    assert squared_distance((0, 0), (1, 1), Norm.L2) == 2
    assert distance((0, 0), (1, 1), Norm.L2) == pytest.approx(math.sqrt(2))
    assert squared_distance((0, 0), (1, 3), Norm.LINF) == 9


def test_datasets_the_probe_refuses_are_left_out_and_refusing_all_is_an_error():
    class Fussy(LonelyNodes):
        def release_without_noise(self, query):
            if len(query) < 5:
                raise ValueError("too few edges")
            return super().release_without_noise(query)

    _, evidence = _search(Fussy(1))  # the same bug, on datasets of 5 edges or more
    assert evidence is not None and len(evidence.x) >= 5 and len(evidence.x_prime) >= 5

    class Refuses(LonelyNodes):
        def release_without_noise(self, query):
            raise ValueError("never")

    with pytest.raises(AdapterRaised, match="release_without_noise.*never"):
        _search(Refuses())


def test_the_conformance_check_asks_a_vector_probe_for_the_output_length():
    from auditor.testing import check_adapter_conformance

    check_adapter_conformance(DegreeHistogram())

    class Short(DegreeHistogram):
        def release_without_noise(self, query):
            return [0, 1]

        def sample(self, query, n):
            return np.zeros((n, TOP + 1), dtype=np.int64)

    short = Short()
    with pytest.raises(AdapterOutputError, match="returned 2 values, expected 6 numbers"):
        check_adapter_conformance(short)


class UserHistogram:
    """Values in [0, 1] in 4 bins, up to 3 records per user, replace one user's records: a
    user moving 3 records from one bin to another moves the counts by 6 in l1."""

    input_kind, output_kind, output_length = "dataset", "integer", 4
    domain, neighbours, max_contributions = (0.0, 1.0), "replace", 3
    epsilon, norm = 1.0, "l1"
    name = "test.user_histogram"

    def __init__(self, sensitivity):
        self.sensitivity = sensitivity

    def release_without_noise(self, query):
        bins = np.minimum((np.asarray(query, dtype=float) * 4).astype(int), 3)
        return np.bincount(bins, minlength=4)

    def sample(self, query, n):
        return np.tile(self.release_without_noise(query), (n, 1))


def test_a_privacy_unit_of_several_records_changes_once_not_again():
    # the fixed pairs hold one user's 3 distinct records already: made 3 times again they
    # would move 9 records and the counts by 18, a false alarm
    assert _search(UserHistogram(6))[1] is None
    spec, evidence = _search(UserHistogram(2))  # per record, not per user
    assert evidence is not None and evidence.estimate.epsilon_lower_bound == pytest.approx(3.0)
    assert are_neighbours(spec, evidence.x, evidence.x_prime)


class PublicSizeMean:
    """The mean of n scores in 0..10, n public (replace one record): Δ = 10 / n, a function
    of the size.  The broken twin declares 10 / (2 n), the noise of half the range."""

    input_kind, output_kind = "dataset", "real"
    domain = (0, 10)
    neighbours = "replace"
    epsilon = 1.0

    def __init__(self, halved: bool = False) -> None:
        self.halved = halved
        self.name = f"test.public_size_mean{'.halved' if halved else ''}"

    def sensitivity(self, n):
        return 10 / (2 * n) if self.halved else 10 / n

    def release_without_noise(self, query):
        return float(np.mean(np.asarray(query, dtype=float)))

    def sample(self, query, n):
        return self.release_without_noise(query) + np.zeros(n)


def test_a_sensitivity_of_the_public_size_is_met_exactly_and_its_halving_is_found():
    from attacks.sensitivity import SensitivityAttack

    spec, evidence = _search(PublicSizeMean())
    assert evidence is None  # every pair at most 10 / n apart, n its own size
    assert not SensitivityAttack().applies_to(spec)  # its sum pairs assume one Δ
    _, evidence = _search(PublicSizeMean(halved=True))
    assert evidence is not None and evidence.estimate.epsilon_lower_bound == pytest.approx(2.0)
    n = len(evidence.x)
    assert float(Fraction(evidence.probe["declared"])) == pytest.approx(10 / (2 * n))


def test_a_sensitivity_of_the_size_needs_a_public_size_and_must_answer_with_a_number():
    from auditor.core.errors import AdapterContractError

    class AddRemove(PublicSizeMean):
        neighbours = "add_remove"

    with pytest.raises(AdapterContractError, match="only neighbours = 'replace' makes public"):
        check_adapter(AddRemove())

    class Negative(PublicSizeMean):
        def sensitivity(self, n):
            return -1.0

    with pytest.raises(AdapterOutputError, match=r"sensitivity\(\d+\) returned -1.0"):
        _search(Negative())

    class Raises(PublicSizeMean):
        def sensitivity(self, n):
            raise ZeroDivisionError("no records")

    with pytest.raises(AdapterRaised, match="no records"):
        _search(Raises())


class _Counted(LonelyNodes):
    """LonelyNodes that counts the noiseless answers it is asked for."""

    def __init__(self, sensitivity):
        super().__init__(sensitivity)
        self.calls = 0

    def release_without_noise(self, query):
        self.calls += 1
        return super().release_without_noise(query)


def test_the_search_stops_at_a_number_of_oracle_evaluations_not_a_time(monkeypatch):
    """The cap counts evaluations, so a seeded search asks the same datasets and ends the
    same however fast the machine is: checked after one round of moves (at most two
    evaluations for each of the climbs), and twice over with the same seed."""
    import attacks.dataset_moves as dataset_moves
    import attacks.noiseless_search as search

    monkeypatch.setattr(search, "MAX_EVALUATIONS", 300)
    runs = []
    for _ in range(2):
        adapter = _Counted(2)
        spec = check_adapter(adapter)
        (trial,) = NoiselessSearchAttack().trials(spec, np.random.default_rng(3))
        before = adapter.calls  # the conformance check and the fixed pairs' planning
        evidence = trial.exact(spec)
        runs.append((adapter.calls - before, evidence))
    (calls, evidence), (calls_again, evidence_again) = runs
    climbs = len(dataset_moves.START_SIZES)
    # the fixed pairs are measured after the climbs, two answers each at most
    assert 300 <= calls <= 300 + 2 * climbs + 2 * 64
    assert calls == calls_again and evidence is None and evidence_again is None
    # the default cap is far above it: this search runs its moves out (MAX_MOVES) first
    monkeypatch.setattr(search, "MAX_EVALUATIONS", 10**9)
    adapter = _Counted(2)
    spec = check_adapter(adapter)
    (trial,) = NoiselessSearchAttack().trials(spec, np.random.default_rng(3))
    before = adapter.calls
    trial.exact(spec)
    assert adapter.calls - before > calls
