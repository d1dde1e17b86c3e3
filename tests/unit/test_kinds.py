"""The input/output kinds contract: what ``check_adapter`` accepts and what ``conform`` makes of
each output kind, with the message a maintainer sees when an adapter gets it wrong."""

from __future__ import annotations

import numpy as np
import pytest

from auditor.core.claims import Family
from auditor.core.errors import AdapterContractError, AdapterOutputError
from auditor.core.kinds import InputKind, Norm, OutputKind, OutputKindSpec, OutputProblem
from auditor.core.spec import check_adapter, typical_query
from auditor.engine.sampling import check_outputs, draw


class Kinds:
    """An adapter declared by kinds; attributes set per test."""

    name = "kinds.test"
    epsilon = 1.0
    delta = 0.0
    sensitivity = 1.0

    def __init__(self, out=None, **attrs):
        self.out = out
        for k, v in attrs.items():
            setattr(self, k, v)

    def sample(self, query, n):
        return self.out(query, n) if callable(self.out) else self.out


def vector(**attrs):
    return Kinds(input_kind="vector", norm="l1", **attrs)


# --- check_adapter ---


@pytest.mark.parametrize(
    ("attrs", "family"),
    [
        ({"input_kind": "scalar", "output_kind": "real"}, Family.ADDITIVE),
        ({"input_kind": "vector", "norm": "linf", "output_kind": "index"}, Family.SELECTION),
        (
            {"input_kind": "local", "domain": (0, 1), "output_kind": "boolean"},
            Family.BINARY,
        ),
        ({"input_kind": "dataset", "domain": (0, 1), "output_kind": "real"}, Family.DATASET),
        ({"input_kind": "vector", "norm": "l1", "output_kind": "index"}, None),
        (
            {"input_kind": "vector", "norm": "l2", "output_kind": "real", "output_length": "query"},
            None,
        ),
        (
            {"input_kind": "local", "domain": (0, 9), "output_kind": "boolean", "output_length": 8},
            None,
        ),
        ({"input_kind": "local", "domain": (0, 9), "output_kind": "boolean"}, None),
    ],
)
def test_kinds_that_make_up_a_family_get_it_and_its_attacks(attrs, family):
    spec = check_adapter(Kinds(**attrs))
    assert spec.family is family
    if family is not None:
        assert spec.kind_label == family.value
    else:
        assert "→" in spec.kind_label


def test_a_family_declared_the_old_way_has_the_kinds_of_the_family():
    spec = check_adapter(Kinds(family="selection"))
    assert spec.input.kind is InputKind.VECTOR and spec.input.norm is Norm.LINF
    assert spec.output.kind is OutputKind.INDEX and spec.output.length == 1


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({}, "attribute 'family' is missing (declare a family, or input_kind and output_kind)"),
        ({"input_kind": "vector"}, "attribute 'output_kind' is missing"),
        ({"input_kind": "matrix", "output_kind": "real"}, "input_kind='matrix' is not one of"),
        ({"input_kind": "vector", "output_kind": "real"}, "norm=None is not one of: l1, l2, linf"),
        (
            {"input_kind": "scalar", "output_kind": "real", "output_length": "query"},
            "needs input_kind = 'vector'",
        ),
        (
            {"input_kind": "scalar", "output_kind": "real", "output_length": 0},
            "output_length=0 must be",
        ),
        ({"input_kind": "scalar", "output_kind": "record"}, "a record output needs"),
        (
            {"input_kind": "scalar", "output_kind": "record", "fields": {"a b": "real"}},
            "is not a valid field name",
        ),
        (
            {"input_kind": "scalar", "output_kind": "record", "fields": {"v": "record"}},
            "fields['v']='record' is not one of",
        ),
        (
            {"input_kind": "scalar", "output_kind": "record", "fields": {"v": ("real", "query")}},
            "fields['v'] has length 'query', which needs input_kind = 'vector'",
        ),
        (
            {"input_kind": "scalar", "output_kind": "record", "fields": {"v": ("index", 3)}},
            "fields['v']='index' is not one of: real, integer, boolean, ternary, index_set (for 3",
        ),
        (
            {"input_kind": "scalar", "output_kind": "record", "fields": {"v": ("real", 0)}},
            "fields['v'] has length 0; a length is a whole number",
        ),
        (
            {"input_kind": "local", "domain": (0.5, 2), "output_kind": "boolean"},
            "must be a pair of integers",
        ),
        (
            {"input_kind": "dataset", "columns": 2, "domain": [(0, 1)] * 3, "output_kind": "real"},
            "one (lo, hi) per column (2 columns)",
        ),
        (
            {"family": "additive", "input_kind": "vector", "norm": "l1", "output_kind": "real"},
            "does not match",
        ),
        (
            {"input_kind": "vector", "norm": "l1", "output_kind": "index", "output_length": 3},
            "use index_set",
        ),
    ],
)
def test_a_wrong_declaration_says_which_attribute_and_why(attrs, message):
    with pytest.raises(AdapterContractError) as err:
        check_adapter(Kinds(**attrs))
    assert message in str(err.value)
    assert "'kinds.test'" in str(err.value)


def test_multi_column_datasets_take_one_domain_or_one_per_column():
    spec = check_adapter(Kinds(input_kind="dataset", columns=2, domain=(0, 4), output_kind="real"))
    assert spec.column_domains == ((0.0, 4.0), (0.0, 4.0)) and spec.family is None
    spec = check_adapter(
        Kinds(input_kind="dataset", columns=2, domain=[(0, 1), (-5, 5)], output_kind="real")
    )
    assert spec.column_domains == ((0.0, 1.0), (-5.0, 5.0))
    assert typical_query(spec).shape == (11, 2)


@pytest.mark.parametrize(
    ("domain", "integer"),
    [([(0, 2), (0, 7)], True), ((0, 4), True), ([(0, 2), (0.0, 7.0)], False)],
)
def test_columns_bounded_by_ints_get_integer_records_from_every_attack(domain, integer):
    # categories and node ids: a record at the midpoint of 0..7 is 3, never 3.5
    from attacks import load_attacks

    for neighbours in ("add_remove", "replace"):
        spec = check_adapter(
            Kinds(
                input_kind="dataset",
                columns=2,
                domain=domain,
                neighbours=neighbours,
                output_kind="real",
            )
        )
        assert spec.integer_domain is integer
        rng = np.random.default_rng(0)
        pairs = [
            p
            for a in load_attacks(None)
            if a.applies_to(spec)
            for t in a.trials(spec, rng)
            for p in t.pairs
        ]
        pairs.append((typical_query(spec), typical_query(spec), "typical"))
        assert pairs
        for x, x_prime, text in pairs:
            for d in (np.asarray(x), np.asarray(x_prime)):
                assert d.ndim == 2 and d.shape[1] == 2, text
                if integer:
                    assert d.dtype.kind == "i", (text, d)


# --- conform: one checker for every output kind ---


def conform(kind, raw, n, query_length=None, **kw):
    return OutputKindSpec(OutputKind(kind), **kw).conform(raw, n, query_length)


def test_scalar_outputs_are_one_dimensional_even_when_returned_as_a_column():
    out = conform("real", np.arange(6.0).reshape(6, 1), 6)
    assert out.shape == (6,)


def test_vector_outputs_have_the_query_length_or_the_declared_one():
    assert conform("integer", np.zeros((4, 7)), 4, 7, length="query").shape == (4, 7)
    assert conform("integer", np.zeros((4, 3), int), 4, None, length=3).dtype == np.int64
    with pytest.raises(OutputProblem, match=r"shape \(4, 3\), expected \(4, 7\)"):
        conform("integer", np.zeros((4, 3)), 4, 7, length="query")
    with pytest.raises(OutputProblem, match="declare output_length = 3 or 'query'"):
        conform("real", np.zeros((4, 3)), 4)


@pytest.mark.parametrize(
    ("kind", "raw", "kw", "message"),
    [
        ("real", [[1.0, np.inf]], {"length": 2}, "returned inf"),
        ("real", [[1.0, np.nan]], {"length": 2}, "declare nullable = True"),
        ("integer", [[1.5, 2]], {"length": 2}, "non-integer"),
        ("boolean", [[0, 2]], {"length": 2}, "returned 2; boolean outputs are 0 and 1"),
        ("ternary", [[1, -2]], {"length": 2}, "returned -2; ternary outputs are 1 (above)"),
        ("index", [5], {}, "returned index 5 outside [0, 4)"),
        ("index", [-1], {}, "-1 means 'none': declare nullable = True"),
        ("index_set", [[1, 1]], {"length": 2}, "repeated index"),
        ("real", ["a"], {}, "dtype <U1, expected numbers"),
        ("real", np.zeros(1, dtype=[("v", float)]), {}, "declare output_kind = 'record'"),
    ],
)
def test_each_kind_rejects_what_it_must_with_a_message(kind, raw, kw, message):
    with pytest.raises(OutputProblem) as err:
        conform(kind, np.asarray(raw), 1, 4, **kw)
    assert message in str(err.value)


def test_nullable_outputs_allow_none():
    assert np.isnan(conform("real", [np.nan, 1.0], 2, nullable=True)[0])
    assert conform("index", [-1, 3], 2, 4, nullable=True).tolist() == [-1, 3]
    ints = conform("integer", [[np.nan, 2.0]], 1, None, length=2, nullable=True)
    assert ints.dtype == float and np.isnan(ints[0, 0])


@pytest.mark.parametrize(
    ("kind", "raw", "bad"),
    [
        ("boolean", np.array([[0, 2]], np.uint8), "2"),
        ("boolean", np.array([[1, -1]], np.int8), "-1"),
        ("ternary", np.array([[1, 300]], np.int16), "300"),
        ("ternary", np.array([[0, 2**40]], np.uint64), str(2**40)),
        ("ternary", np.array([[-1.0, 0.5]]), "non-integer"),
    ],
)
def test_answers_outside_their_range_are_named_whatever_the_integer_type(kind, raw, bad):
    with pytest.raises(OutputProblem, match=f"returned {bad}"):
        conform(kind, raw, 1, 2, length="query")


def test_boolean_and_ternary_vectors_are_small_integers_and_scalars_stay_int64():
    assert conform("ternary", [[1, 0, -1]], 1, 3, length="query").dtype == np.int8
    assert conform("boolean", [True, False], 2).dtype == np.int64


def test_unordered_index_sets_are_sorted_and_ordered_ones_kept():
    raw = np.array([[3, 1, 2]])
    assert conform("index_set", raw, 1, 4, length=3, ordered=False).tolist() == [[1, 2, 3]]
    assert conform("index_set", raw, 1, 4, length=3).tolist() == [[3, 1, 2]]


def test_a_set_of_one_index_is_one_column():
    # top-1 (k = 1): nothing to order, and no axis 1 to sort along
    assert conform("index_set", np.array([3, 0, 2]), 3, 4, length=1).tolist() == [3, 0, 2]
    assert conform("index_set", np.array([3, 0]), 2, 4, length=1, ordered=False).tolist() == [3, 0]


def test_an_integer_dataset_domain_gets_integer_typical_records():
    class Categories:
        name, family, epsilon, delta = "c", "dataset", 1.0, 0.0
        domain, neighbours = (0, 4), "add_remove"

        def sample(self, query, n):
            return np.zeros(n)

    records = typical_query(check_adapter(Categories()))
    assert records.dtype.kind == "i" and records.min() == 0 and records.max() == 4


def test_records_are_checked_field_by_field():
    fields = (("index", OutputKind.INDEX, 1), ("value", OutputKind.REAL, 1))
    good = np.zeros(3, dtype=[("value", np.float32), ("index", np.int32)])
    good["index"] = [0, 1, 2]
    out = conform("record", good, 3, 3, fields=fields)
    assert out.dtype.names == ("index", "value") and out["index"].dtype == np.int64
    with pytest.raises(OutputProblem, match=r"missing \['value'\]; unexpected \['v'\]"):
        conform("record", np.zeros(3, dtype=[("index", int), ("v", float)]), 3, 3, fields=fields)
    with pytest.raises(OutputProblem, match="field 'index': returned index 3 outside"):
        bad = good.copy()
        bad["index"][0] = 3
        conform("record", bad, 3, 3, fields=fields)
    with pytest.raises(OutputProblem, match="expected a structured array"):
        conform("record", np.zeros(3), 3, 3, fields=fields)


def test_record_fields_may_hold_several_values():
    # top-k with the noisy values: k indices and k numbers per output
    adapter = vector(
        output_kind="record",
        fields={"top": ("index_set", 2), "values": ("real", 2), "rounds": "integer"},
        ordered=False,
    )
    spec = check_adapter(adapter)
    assert spec.output.label == "record(top: index_set[2], values: real[2], rounds: integer)"
    assert spec.output.width(5) == 5  # the values of all fields: memory is planned on it
    raw = np.zeros(3, dtype=[("top", np.int32, (2,)), ("values", float, (2,)), ("rounds", int)])
    raw["top"] = [[3, 1], [0, 4], [2, 1]]
    raw["values"] = [[1.5, 0.5], [2.0, 1.0], [0.0, -1.0]]
    out = spec.output.conform(raw, 3, 5)
    assert out.dtype["top"] == np.dtype((np.int64, (2,)))
    assert out["top"].tolist() == [[3, 1], [0, 4], [2, 1]]  # in a record, order pairs fields
    assert out["values"].tolist() == raw["values"].tolist()
    assert spec.output.empty(5).dtype == out.dtype
    with pytest.raises(OutputProblem, match=r"field 'values' has shape \(3,\), expected \(3, 2\)"):
        wrong = np.zeros(3, dtype=[("top", int, (2,)), ("values", float), ("rounds", int)])
        wrong["top"] = raw["top"]
        spec.output.conform(wrong, 3, 5)
    with pytest.raises(OutputProblem, match="field 'top': returned index 5 outside"):
        bad = raw.copy()
        bad["top"][0] = [5, 1]
        spec.output.conform(bad, 3, 5)
    # a field as long as the query: a sparse vector's answers beside the values it releases
    svt = OutputKindSpec(
        OutputKind.RECORD,
        fields=(("answers", OutputKind.TERNARY, "query"), ("values", OutputKind.REAL, "query")),
        nullable=True,
    )
    raw = np.zeros(2, dtype=[("answers", np.int64, (4,)), ("values", float, (4,))])
    raw["answers"] = [[0, 1, -1, -1], [0, 0, 0, 1]]
    raw["values"] = [[np.nan, 3.5, np.nan, np.nan], [np.nan] * 3 + [2.0]]
    out = svt.conform(raw, 2, 4)
    assert out.dtype["answers"] == np.dtype((np.int8, (4,))) and svt.width(4) == 8


def test_the_engine_names_the_adapter_and_the_call_and_draws_chunks_of_any_width():
    adapter = vector(output_kind="real", output_length="query", out=lambda q, n: np.zeros((n, 2)))
    spec = check_adapter(adapter)
    with pytest.raises(AdapterOutputError) as err:
        check_outputs(spec, np.zeros(5), 3, adapter.sample(np.zeros(5), 3))
    assert str(err.value).startswith(
        "adapter 'kinds.test': sample(query, n=3) returned shape (3, 2)"
    )
    adapter.out = lambda q, n: np.tile(np.asarray(q, float), (n, 1))
    out = draw(spec, np.arange(5.0), 10_000, 7)
    assert out.shape == (10_000, 5) and (out[:, 4] == 4).all()
    assert draw(spec, np.arange(5.0), 0, 7).shape == (0, 5)


class CappedLinks:
    """(customer 0..9, product 0..4) links; each customer keeps its 3 smallest products (a
    contribution bound); Laplace noise on the 5 product counts.  A new link of a customer with
    3 kept can push one out (one count down, another up: L1 2): correct with scale 2/eps,
    broken (true epsilon 2 for a claimed 1) with scale 1/eps."""

    input_kind, columns, domain = "dataset", 2, [(0, 9), (0, 4)]
    neighbours, output_kind, output_length, epsilon = "add_remove", "real", 5, 1.0

    def __init__(self, scale: float) -> None:
        self.scale, self.name = scale, f"capped_links(scale={scale:g})"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        links = np.asarray(query).reshape(-1, 2)
        kept: dict[int, list[int]] = {}
        for customer, product in links.tolist():
            kept[customer] = sorted([*kept.get(customer, []), product])[:3]
        counts = np.bincount([p for ps in kept.values() for p in ps], minlength=5)
        noisy = counts.astype(float) + self._rng.laplace(0.0, self.scale, size=(n, 5))
        return np.round(noisy * 1024) / 1024


def test_a_record_mixing_the_column_bounds_finds_a_swapped_contribution():
    # only a customer with 3 links already, given a smaller product, swaps a count: records at
    # one bound in every column add a new customer (L1 1) or a link that is not kept (0)
    from attacks import load_attacks
    from auditor.core.configs import AuditConfig
    from auditor.core.results import Verdict
    from auditor.engine.runner import run_audit

    adapters = [CappedLinks(1.0), CappedLinks(2.0)]
    broken, correct = run_audit(adapters, load_attacks(None), AuditConfig()).results
    assert broken.verdict is Verdict.VIOLATION and broken.epsilon_lower_bound > 1.3, broken.best
    # a record with its columns at different places: the bounds mixed, or one on an axis
    assert "the rest at the" in broken.best.trial, broken.best.trial
    assert correct.verdict is Verdict.NO_VIOLATION and correct.error is None, correct.best


class SecondMoments:
    """The 3 second moments x0^2, x1^2, x0 x1 summed over records in [-1, 1]^2 clipped to the
    unit disc, Gaussian noise, claimed 1-GDP under replace.  Two records on different axes,
    (1, 0) and (0, 1), move them by sqrt 2 (the most a replacement can): correct with sigma
    sqrt 2; broken (mu sqrt 2) with sigma 1, the add/remove figure.  Records at the corners
    or on the diagonal move them by less."""

    input_kind, columns, domain = "dataset", 2, [(-1.0, 1.0), (-1.0, 1.0)]
    neighbours, output_kind, output_length, claim = "replace", "real", 3, "gdp:mu=1"

    def __init__(self, sigma: float) -> None:
        self.sigma, self.name = sigma, f"second_moments(sigma={sigma:.3g})"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    @staticmethod
    def moments(query) -> np.ndarray:
        x = np.asarray(query, dtype=float).reshape(-1, 2)
        x = x / np.maximum(1.0, np.linalg.norm(x, axis=1))[:, None]
        return np.array([(x[:, 0] ** 2).sum(), (x[:, 1] ** 2).sum(), (x[:, 0] * x[:, 1]).sum()])

    def sample(self, query, n):
        noisy = self.moments(query) + self._rng.normal(0.0, self.sigma, size=(n, 3))
        return np.round(noisy * 2**20) / 2**20


def test_records_on_different_axes_find_a_covariance_calibrated_for_one_record():
    from attacks import load_attacks
    from attacks.neighbours import dataset_pairs
    from auditor.core.configs import AuditConfig
    from auditor.core.results import Verdict
    from auditor.core.spec import check_adapter
    from auditor.engine.runner import run_audit

    texts = [text for _, _, text in dataset_pairs(check_adapter(SecondMoments(1.0)))]
    assert (
        "one record with column 0 at its upper bound, the rest at the midpoint; replace its "
        "first record by one at column 1 at its upper bound, the rest at the midpoint" in texts
    )
    adapters = [SecondMoments(1.0), SecondMoments(2**0.5)]
    broken, correct = run_audit(adapters, load_attacks(None), AuditConfig(seed=0)).results
    assert broken.verdict is Verdict.VIOLATION, broken.best
    # on a pair that moves the moments by more than 1 (sigma): records on the axes (the
    # fixed pair, or one the climbs over datasets reach), not at the corners or the diagonal
    moved = SecondMoments.moments(broken.best.x) - SecondMoments.moments(broken.best.x_prime)
    assert np.linalg.norm(moved) > 1.0, broken.best.trial
    assert correct.verdict is Verdict.NO_VIOLATION and correct.error is None, correct.best


class SmallVariance:
    """The variance (ddof = 1) of at least 2 records in [0, 1], Laplace noise, claimed 1-DP
    under replace.  Its sensitivity is 1/m at m records, largest at the fewest (1/2): correct
    with scale 1/2; broken (true epsilon 2 at 2 records, 20/19 at 20) with scale 1/4, the
    ddof = 0 figure at 2 records (1/4) taken for ddof = 1."""

    input_kind, domain, min_records = "dataset", (0.0, 1.0), 2
    neighbours, output_kind, epsilon = "replace", "real", 1.0

    def __init__(self, scale: float) -> None:
        self.scale, self.name = scale, f"small_variance(scale={scale:g})"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        variance = float(np.var(np.clip(np.asarray(query, dtype=float), 0, 1), ddof=1))
        noisy = variance + self._rng.laplace(0.0, self.scale, n)
        return np.round(noisy * 2**20) / 2**20


def test_the_fewest_records_a_mechanism_accepts_are_a_dataset_of_their_own():
    from attacks import load_attacks
    from auditor.core.configs import AuditConfig
    from auditor.core.results import Verdict
    from auditor.engine.runner import run_audit

    adapters = [SmallVariance(0.25), SmallVariance(0.5)]
    broken, correct = run_audit(adapters, load_attacks(None), AuditConfig(seed=0)).results
    assert broken.verdict is Verdict.VIOLATION and broken.epsilon_lower_bound > 1.3, broken.best
    assert broken.best.trial.startswith("2 records at"), broken.best.trial
    assert correct.verdict is Verdict.NO_VIOLATION and correct.error is None, correct.best
