"""Vector events: discrete parts of rows, float cells of coordinates, standalone sources."""

from __future__ import annotations

import warnings

import numpy as np

from auditor.core.trials import CertificationPlan, Event
from auditor.statistics.clopper_pearson import epsilon_lower_bound
from auditor.statistics.events.vector_events import (
    Linear,
    Reduce,
    RowKey,
    Score,
    VectorEvents,
    as_matrix,
    discrete_parts,
)
from auditor.statistics.events.vector_events.rows import _Rows

PLAN = CertificationPlan(n=40_000, alpha=0.05 / 16, epsilon=0.5, delta=0.0)


def mixed_rows(rng: np.random.Generator, n: int, together: float) -> np.ndarray:
    """A real column of wide noise (NaN a third of the time) beside two answers in {0, 1}.

    Each answer is a fair bit under either input; only how often the two agree differs, so
    no single column, sum, extreme or mean difference tells the inputs apart.
    """
    values = rng.normal(0.0, 1e3, n)
    values[rng.random(n) < 1 / 3] = np.nan
    a = rng.integers(0, 2, n)
    b = np.where(rng.random(n) < together, a, 1 - a)
    return np.column_stack([values, a, b]).astype(float)


def test_the_discrete_parts_are_the_integer_columns_the_answered_pattern_and_both() -> None:
    rows = mixed_rows(np.random.default_rng(0), 500, 0.5)
    parts = {(tuple(p.integral), tuple(p.answered)) for p in discrete_parts(rows)}
    assert parts == {((1, 2), ()), ((), (0,)), ((1, 2), (0,))}
    whole = np.column_stack([rows[:, 1], rows[:, 2]])
    assert discrete_parts(whole) == []  # a discrete row is counted whole already
    assert discrete_parts(np.random.default_rng(1).normal(size=(50, 3))) == []


def test_a_leak_in_the_joint_answers_beside_real_values_is_found_and_certifies() -> None:
    rng = np.random.default_rng(3)
    x, x_prime = mixed_rows(rng, 20_000, 0.5), mixed_rows(rng, 20_000, 0.75)
    events = VectorEvents(classifier=False).propose(x, x_prime, PLAN)
    assert "discrete part" in events[0].description
    fresh, fresh_prime = mixed_rows(rng, PLAN.n, 0.5), mixed_rows(rng, PLAN.n, 0.75)
    k, k_prime = (int(np.count_nonzero(events[0](y))) for y in (fresh, fresh_prime))
    bound = max(
        epsilon_lower_bound(k, PLAN.n, k_prime, PLAN.n, PLAN.alpha),
        epsilon_lower_bound(k_prime, PLAN.n, k, PLAN.n, PLAN.alpha),
    )
    # the answers disagree with probability 0.5 against 0.25: a true ratio of ln 2
    assert 0.55 < bound < np.log(2.0)


def test_without_a_discrete_leak_the_discrete_part_certifies_nothing() -> None:
    rng = np.random.default_rng(4)
    x, x_prime = mixed_rows(rng, 20_000, 0.5), mixed_rows(rng, 20_000, 0.5)
    events = VectorEvents(classifier=False).propose(x, x_prime, PLAN)
    fresh, fresh_prime = mixed_rows(rng, PLAN.n, 0.5), mixed_rows(rng, PLAN.n, 0.5)
    for event in events:
        k, k_prime = (int(np.count_nonzero(event(y))) for y in (fresh, fresh_prime))
        assert epsilon_lower_bound(k, PLAN.n, k_prime, PLAN.n, PLAN.alpha) == 0.0
        assert epsilon_lower_bound(k_prime, PLAN.n, k, PLAN.n, PLAN.alpha) == 0.0


def interval_quantiles(rng: np.random.Generator, n: int, split: bool) -> np.ndarray:
    """A uniform point of an interval drawn as ``random() * width + start`` (as diffprivlib's
    quantiles do), beside wide Gaussian noise.  With ``split`` the interval is [0, 50] or
    [50, 100], else [0, 100]: only the float bits of the first coordinate tell them apart
    for certain (a value below 2 from [0, 50] has bits [0, 100] never produces)."""
    u = rng.random(n)
    if split:
        low = rng.random(n) < 0.5
        first = np.where(low, u * 50.0, u * 50.0 + 50.0)
    else:
        first = u * 100.0
    return np.column_stack([first, rng.normal(0.0, 100.0, n)])


def test_a_float_leak_in_a_coordinate_of_no_query_is_certified_far_above_the_claim() -> None:
    rng = np.random.default_rng(5)
    x, x_prime = interval_quantiles(rng, 20_000, True), interval_quantiles(rng, 20_000, False)
    events = VectorEvents(classifier=False).propose(x, x_prime, PLAN)
    assert "float cell of coordinate 0" in events[0].description
    fresh, fresh_prime = (
        interval_quantiles(rng, PLAN.n, True),
        interval_quantiles(rng, PLAN.n, False),
    )
    k, k_prime = (int(np.count_nonzero(events[0](y))) for y in (fresh, fresh_prime))
    bound = max(
        epsilon_lower_bound(k, PLAN.n, k_prime, PLAN.n, PLAN.alpha),
        epsilon_lower_bound(k_prime, PLAN.n, k, PLAN.n, PLAN.alpha),
    )
    # the values alone differ by nothing (both uniform on [0, 100]): the bound is the bits'
    assert min(k, k_prime) == 0 and bound > 3.0


def test_a_float_cell_event_writes_standalone_source_that_counts_the_same() -> None:
    rng = np.random.default_rng(6)
    x, x_prime = interval_quantiles(rng, 20_000, True), interval_quantiles(rng, 20_000, False)
    (event, *_) = VectorEvents(classifier=False).propose(x, x_prime, PLAN)
    source = event.source()
    assert source is not None and "auditor" not in source
    scope: dict = {}
    exec(compile(source, "event", "exec"), scope)  # noqa: S102 - the reproducer's own code
    fresh = np.vstack([interval_quantiles(rng, 5_000, True), interval_quantiles(rng, 5_000, False)])
    fresh[::97, 0] = np.nan  # no answer
    np.testing.assert_array_equal(scope["event"](fresh), event(fresh))
    assert event(fresh).any() and not event(fresh).all()


def _kind(event: Event) -> str:
    inner = getattr(event.predicate, "projection", getattr(event.predicate, "key", None))
    inner = getattr(inner, "projection", inner)  # a projection's outcome key
    steps = " of increments" if getattr(inner, "increments", False) else ""
    return f"{type(event.predicate).__name__} on {type(inner).__name__}{steps}"


def test_every_vector_event_writes_standalone_source_that_counts_the_same():
    """Thresholds and outcomes of every projection, whole rows, discrete parts and both
    classifiers (linear and trees): the source a reproducer runs decides each output as the event does (NaN
    included), so a violation they certify can be reproduced without dp-audit."""
    rng = np.random.default_rng(7)

    def mixed(shift: float, n: int) -> np.ndarray:
        values = rng.laplace(0.0, 1.0, (n, 3)) + shift
        values[rng.random((n, 3)) < 0.1] = np.nan
        return np.column_stack([values, rng.integers(0, 3, (n, 2))])

    def index_sets(n: int, bias: bool) -> np.ndarray:
        rows = rng.integers(0, 4, (n, 3))
        if bias:
            rows[: n // 8] = 1
        return rows

    cases = [
        (VectorEvents(), mixed(0.0, 3000), mixed(0.3, 3000), mixed(0.1, 4000)),
        (
            VectorEvents(membership=4),
            index_sets(3000, False),
            index_sets(3000, True),
            index_sets(4000, True),
        ),
    ]
    written: set[str] = set()
    trees = 0
    for events, x, x_prime, fresh in cases:
        build = (_Rows(as_matrix(x)), _Rows(as_matrix(x_prime)))
        for candidates in events._candidates((x, x_prime), build, build, PLAN):
            ka, make = candidates.on_x, candidates.event
            for i in sorted({0, len(ka) // 2, len(ka) - 1}):
                event = make(i)
                source = event.source()
                assert source is not None and "auditor" not in source, event.description
                trees += "gradient-boosted" in event.description
                scope: dict = {}
                exec(compile(source, "event", "exec"), scope)  # noqa: S102 - the reproducer's
                np.testing.assert_array_equal(scope["event"](fresh), event(fresh))
                written.add(_kind(event))
    expected = {
        "Threshold on Column",
        "Threshold on Reduce",
        "Threshold on Linear",
        "Threshold on Score",
        "Threshold on Membership",
        "Threshold on AboveMedian",
        "Threshold on Toward",
        "KeyIn on AboveMedian",
        "Threshold on AboveMedian of increments",
        "KeyIn on AboveMedian of increments",
        "KeyIn on Column",
        "KeyIn on Reduce",
        "KeyIn on FloatCell",
        "KeyIn on DiscretePart",
        "KeyIn on RowKey",
        "Threshold on Within",
    }
    assert expected <= written and trees


def test_the_tree_table_scores_every_row_as_the_fitted_model_does() -> None:
    """The reproducer walks the boosted trees with numpy (tree_sum); it must add up the same
    leaves in the same order as scikit-learn, missing values and ties with a split included."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    from auditor.statistics.events.tree_scores import tree_sum, tree_table

    rng = np.random.default_rng(3)
    x = rng.normal(size=(4000, 6))
    x[rng.random(x.shape) < 0.1] = np.nan
    label = (np.nan_to_num(x[:, 0]) + np.isnan(x[:, 1]) + rng.normal(size=4000) > 0.5).astype(int)
    model = HistGradientBoostingClassifier(max_iter=30, early_stopping=False, random_state=0)
    model.fit(x, label)
    table = tree_table(model)
    assert table is not None and len(table.roots) == 30
    fresh = np.vstack([rng.normal(size=(20_000, 6)), x])  # the training rows sit on thresholds
    fresh[rng.random(fresh.shape) < 0.1] = np.nan
    np.testing.assert_array_equal(tree_sum(fresh, *table), model.decision_function(fresh))
    assert not np.array_equal(
        tree_sum(fresh, *table._replace(baseline=0.0)), model.decision_function(fresh)
    )


def test_a_linear_score_is_the_same_for_every_copy_of_an_output_wherever_it_falls():
    """Scores are summed column by column: a matrix product rounds a row's sum differently
    depending on its position (seen with OpenBLAS for 12 and 21 columns), and a threshold at
    a training score would then split the copies of one output between in and out."""
    from sklearn.linear_model import LogisticRegression

    for p in (12, 21):
        for seed in range(5):
            rng = np.random.default_rng(seed)
            row = rng.normal(size=(1, p)) * 10.0 ** rng.integers(-8, 8, (1, p))
            copies = np.repeat(row, 1001, axis=0)
            w = rng.normal(size=p)
            linear = Linear(w, np.zeros(p), np.ones(p), "test")
            assert len(np.unique(linear(copies))) == 1
            with warnings.catch_warnings():  # scipy deprecates an option sklearn still sets
                warnings.simplefilter("ignore", DeprecationWarning)
                model = LogisticRegression().fit(rng.normal(size=(40, p)), np.arange(40) % 2)
            model.coef_ = w[None, :]
            score = Score(model, np.zeros(p), np.ones(p), np.zeros(p, dtype=bool), "test")
            assert len(np.unique(score(copies))) == 1


def test_a_linear_score_reaches_the_workers_without_scikit_learn(tmp_path):
    """Its weights are all it scores with: the pickle the workers load carries no fitted
    scikit-learn model, so unpickling it does not import scikit-learn (a second per worker)."""
    import pickle
    import subprocess
    import sys

    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    z = rng.normal(size=(200, 3))
    model = LogisticRegression().fit(z, (z[:, 0] > 0).astype(int))
    score = Score(model, np.zeros(3), np.ones(3), np.zeros(3, dtype=bool), "test")
    (tmp_path / "score.pickle").write_bytes(pickle.dumps(score))
    check = (
        "import pickle, sys, numpy as np\n"
        f"score = pickle.loads(open({str(tmp_path / 'score.pickle')!r}, 'rb').read())\n"
        "print(score(np.eye(3)).round(6).tolist(), 'sklearn' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert out.stdout.split("]")[-1].strip() == "False"
    assert out.stdout.split("]")[0] + "]" == str(score(np.eye(3)).round(6).tolist())


def test_one_thread_also_limits_libraries_loaded_after_its_first_use():
    """The boosted trees' OpenMP is loaded by importing scikit-learn, often after a first fit
    (a scalar classifier) made the controller: unlimited, their fits competed with the
    sampling workers for the cores."""
    import subprocess
    import sys

    check = (
        "from auditor.statistics.events.classifier_events import one_thread\n"
        "from threadpoolctl import threadpool_info\n"
        "with one_thread(): pass\n"
        "from sklearn.ensemble import HistGradientBoostingClassifier\n"
        "with one_thread():\n"
        "    print(sorted({(i['user_api'], i['num_threads']) for i in threadpool_info()}))"
    )
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[('blas', 1), ('openmp', 1)]"


def biased_bits(rng: np.random.Generator, n: int, favour: bool) -> np.ndarray:
    """24 fair bits but for 6 (a RAPPOR report of a value whose Bloom bits sit there): 3 are
    1 with probability 0.55 and 3 with 0.45 under x, the reverse under x'."""
    rates = np.full(24, 0.5)
    rates[[2, 9, 15]] = 0.55 if favour else 0.45
    rates[[4, 11, 20]] = 0.45 if favour else 0.55
    return (rng.random((n, 24)) < rates).astype(np.int8)


def test_a_leak_in_a_few_bits_of_a_wide_bit_vector_is_ranked_on_those_bits_exactly():
    """2^24 rows are too many to rank whole; ranking the outcomes of the bits whose means
    differ visibly finds the corner where all six favour x (true ratio 6 ln(11/9) = 1.204),
    where the noise of 18 fair bits keeps thresholds on sums and on the mean direction lower
    (0.947 at best here)."""
    rng = np.random.default_rng(9)
    plan = CertificationPlan(n=60_000, alpha=0.05 / 16, epsilon=0.5, delta=0.0)
    x, x_prime = biased_bits(rng, 20_000, True), biased_bits(rng, 20_000, False)
    events = VectorEvents(classifier=False).propose(x, x_prime, plan)
    fresh = biased_bits(rng, plan.n, True), biased_bits(rng, plan.n, False)
    bounds = {}
    for event in events:
        k, k_prime = (int(np.count_nonzero(event(y))) for y in fresh)
        bounds[event.description] = max(
            epsilon_lower_bound(k, plan.n, k_prime, plan.n, plan.alpha),
            epsilon_lower_bound(k_prime, plan.n, k, plan.n, plan.alpha),
        )
    best = max(bounds, key=bounds.__getitem__)
    assert "6 most different coordinates" in best
    assert 0.95 < bounds[best] < 6 * np.log(0.55 / 0.45)


def test_fair_bits_on_both_sides_certify_nothing():
    rng = np.random.default_rng(10)
    plan = CertificationPlan(n=60_000, alpha=0.05 / 64, epsilon=0.5, delta=0.0)
    fair = [(rng.random((20_000, 24)) < 0.5).astype(np.int8) for _ in range(2)]
    events = VectorEvents(classifier=False, max_events=64).propose(*fair, plan)
    assert any("most different coordinates" in e.description for e in events)
    fresh = [(rng.random((plan.n, 24)) < 0.5).astype(np.int8) for _ in range(2)]
    for event in events:
        k, k_prime = (int(np.count_nonzero(event(y))) for y in fresh)
        assert epsilon_lower_bound(k, plan.n, k_prime, plan.n, plan.alpha) == 0.0
        assert epsilon_lower_bound(k_prime, plan.n, k, plan.n, plan.alpha) == 0.0


def test_row_keys_tell_every_answer_pattern_and_bit_vector_apart():
    """Small integers as floats differ only in their top bits; keys that merely weighted the
    raw bits kept 12 bits of them (59,049 ternary patterns fell on 1,761 keys), merging
    unrelated outcomes into one event and describing it by one of them."""
    import itertools

    ternary = np.array(list(itertools.product([-1, 0, 1], repeat=10)), dtype=float)
    bits = np.array(list(itertools.product([0, 1], repeat=16)), dtype=np.int8)
    signed = np.array([[0.0, 1.0], [-0.0, 1.0], [np.nan, 2.0], [-np.nan, 2.0]])
    assert len(np.unique(RowKey()(ternary))) == len(ternary)
    assert len(np.unique(RowKey()(bits))) == len(bits)
    keys = RowKey()(signed)  # -0.0 is 0.0, and every NaN is one "no answer"
    assert keys[0] == keys[1] and keys[2] == keys[3] and keys[0] != keys[2]


def strongest(
    events: list[Event], fresh: tuple[np.ndarray, np.ndarray], plan: CertificationPlan
) -> tuple[float, str]:
    """The largest bound any of ``events`` certifies on ``fresh`` outputs of x and x' (either
    direction, at the plan's n and alpha), and that event's description."""
    bounds = []
    for event in events:
        k, k_prime = (int(np.count_nonzero(event(y))) for y in fresh)
        bound = max(
            epsilon_lower_bound(k, plan.n, k_prime, plan.n, plan.alpha),
            epsilon_lower_bound(k_prime, plan.n, k, plan.n, plan.alpha),
        )
        bounds.append((bound, event.description))
    return max(bounds)


def test_laplace_noise_on_many_coordinates_is_told_apart_by_a_sign_count_not_a_sum():
    """20 coordinates, each shifted by 1 under Laplace noise of scale 20 (a correct 1-DP vector
    release, on a grid: no float effects).  The likelihood ratio is about a count of entries
    above the middle; a sum lets one far-out entry outweigh the rest.  Measured on seeds 1-3:
    0.34-0.40 with the count against 0.20-0.23 for the best sum or mean-direction event."""
    rng = np.random.default_rng(2)

    def rows(n: int, shift: float) -> np.ndarray:
        return np.round(rng.laplace(shift, 20.0, (n, 20)) * 64) / 64

    plan = CertificationPlan(n=60_000, alpha=0.05 / 16, epsilon=1.0, delta=0.0)
    events = VectorEvents(classifier=False).propose(rows(20_000, 0.0), rows(20_000, 1.0), plan)
    bound, description = strongest(events, (rows(plan.n, 0.0), rows(plan.n, 1.0)), plan)
    assert "above their column's median" in description
    assert 0.3 < bound < 1.0


def test_prefix_sums_are_told_apart_by_a_sign_count_of_their_increments():
    """Prefix sums of ten answers each under Laplace noise of scale 10, every answer up by 1
    (the testers' PrefixSum at 0.1 per answer, on a grid): the true loss is 1.0, spread over
    the increments, which the released sums mix.  Each increment's sign relative to its
    middle follows the likelihood ratio; no coordinate, sum or count of raw entries does.
    Measured on seeds 1-4: 0.56-0.64 with the increments' count, 0.32-0.40 without it."""
    rng = np.random.default_rng(4)

    def rows(n: int, shift: float) -> np.ndarray:
        return np.round(np.cumsum(rng.laplace(shift, 10.0, (n, 10)), axis=1) * 64) / 64

    plan = CertificationPlan(n=100_000, alpha=0.05 / 16, epsilon=0.1, delta=0.0)
    events = VectorEvents(classifier=False).propose(rows(20_000, 0.0), rows(20_000, 1.0), plan)
    bound, description = strongest(events, (rows(plan.n, 0.0), rows(plan.n, 1.0)), plan)
    assert "increments" in description
    assert 0.5 < bound < 1.0


def test_float_cells_both_inputs_reach_are_not_events():
    """On outputs with no float artefact (a 2^-6 grid) a cell is a coarse value bin that both
    inputs reach; hundreds of such bins let sampling noise choose the events (a correct
    20-coordinate Laplace certified 0.0001 at 10^7 outputs, against 0.03 without them)."""
    rng = np.random.default_rng(13)

    def rows(n: int, shift: float) -> np.ndarray:
        return np.round(rng.laplace(shift, 200.0, (n, 20)) * 64) / 64

    plan = CertificationPlan(n=10**7, alpha=0.05 / 64, epsilon=0.1, delta=0.0)
    events = VectorEvents(classifier=False).propose(rows(40_000, 0.0), rows(40_000, 1.0), plan)
    assert events and not any("float cell" in e.description for e in events)


def _same_values(tally, every: np.ndarray) -> None:
    """A tally stands for exactly the values of every row (in some order)."""
    expanded = tally.values if tally.counts is None else np.repeat(tally.values, tally.counts)
    if tally.counts is None:  # one per row: in row order
        np.testing.assert_array_equal(expanded, every)
    np.testing.assert_array_equal(np.sort(expanded), np.sort(every))


def test_repeated_integer_rows_are_projected_once_per_distinct_row_to_the_same_values():
    """Proposals on answer patterns compute each projection, key and score once per distinct
    row, tallied with how many rows it stands for; real rows go through whole."""
    rng = np.random.default_rng(11)
    patterns = rng.integers(-1, 2, (40, 10)).astype(float)
    patterns[::7, 3] = np.nan
    repeated = patterns[rng.integers(0, 40, 50_000)]
    real = rng.laplace(0.0, 1.0, (5_000, 4))
    seen: list[int] = []

    def spy(f):
        def g(m: np.ndarray) -> np.ndarray:
            seen.append(len(m))
            return f(m)

        return g

    # 10 fair bits: 1,024 patterns, most of them (about 880) already in the first 4,096 rows
    bits = rng.integers(0, 2, (100_000, 10)).astype(float)
    for rows, called_on in ((repeated, 40), (bits, 1_024), (real, 5_000)):
        wrapped = _Rows(rows)
        for f in (Reduce("sum"), Reduce("argmax"), RowKey(rows.shape[1])):
            seen.clear()
            _same_values(wrapped.tally(spy(f)), f(rows))
            assert len(seen) == 1 and seen[0] <= called_on  # once per distinct pattern


def test_compact_rows_are_made_floats_a_chunk_at_a_time_with_the_same_values(monkeypatch):
    """int8 answers are held as drawn: a row-wise function sees at most ``FLOAT_VALUES``
    values at once (distinct or not), ``sample`` is the first rows, and the values are those
    of the whole float matrix."""
    import auditor.statistics.events.vector_events.rows as rows_module

    monkeypatch.setattr(rows_module, "FLOAT_VALUES", 2_000)
    rng = np.random.default_rng(12)
    wide = rng.integers(0, 2, (30_000, 20)).astype(np.int8)  # mostly distinct: chunked
    patterns = rng.integers(-1, 2, (30, 10)).astype(np.int8)
    repeated = patterns[rng.integers(0, 30, 30_000)]  # repeats: once per distinct row
    for rows in (wide, repeated):
        wrapped = _Rows(rows)
        width = rows.shape[1]
        assert wrapped.sample.dtype == float and len(wrapped.sample) == 2_000 // width
        np.testing.assert_array_equal(wrapped.sample, rows[: 2_000 // width])
        np.testing.assert_array_equal(wrapped.at(np.array([5, 29_999])), rows[[5, 29_999]])
        seen: list[int] = []

        def sums(m: np.ndarray, seen: list[int] = seen) -> np.ndarray:
            assert m.dtype == float
            seen.append(m.size)
            return m.sum(axis=1)

        _same_values(wrapped.tally(sums), rows.sum(axis=1))
        assert max(seen) <= 2_000
        key = RowKey(width)
        _same_values(wrapped.tally(key), key(rows.astype(float)))


def test_candidates_on_tallies_are_those_on_every_row():
    """Thresholds (the same quantiles, bit for bit) and outcome unions counted on distinct
    values with their row counts are those counted on every row's value."""
    from auditor.statistics.events.vector_events import value_keys
    from auditor.statistics.events.vector_events.counting import Tally, _quantiles
    from auditor.statistics.events.vector_events.scalar import (
        outcome_candidates,
        threshold_candidates,
    )

    rng = np.random.default_rng(13)
    q = np.linspace(0, 1, 129)

    def tallies(n_distinct: int, scale: float) -> tuple[Tally, Tally]:
        values = np.unique(np.round(rng.normal(0, scale, n_distinct) * 8) / 8)
        if n_distinct > 3:
            values[0] = np.nan  # an unanswered row counts in neither direction
        counts = rng.integers(1, 500, len(values))
        return Tally(values, counts), Tally(np.repeat(values, counts))

    for n_distinct, scale in ((1, 1.0), (2, 1.0), (7, 0.3), (40, 3.0), (300, 10.0)):
        for _ in range(3):
            (ta, ea), (tb, eb), (sa, xa), (sb, xb) = (tallies(n_distinct, scale) for _ in range(4))
            finite = ea.values[np.isfinite(ea.values)]
            if finite.size:
                np.testing.assert_array_equal(
                    _quantiles(Tally(ta.values[np.isfinite(ta.values)],
                                      ta.counts[np.isfinite(ta.values)]), q),
                    np.quantile(finite, q),
                )  # fmt: skip
            on_tally = threshold_candidates(Reduce("sum"), "s", (ta, tb), (sa, sb), 128)
            on_rows = threshold_candidates(Reduce("sum"), "s", (ea, eb), (xa, xb), 128)
            assert len(on_tally) == len(on_rows)
            for c, c2 in zip(on_tally, on_rows, strict=True):
                np.testing.assert_array_equal(c.on_x, c2.on_x)
                np.testing.assert_array_equal(c.on_x_prime, c2.on_x_prime)
                assert [c.event(i).description for i in range(len(c))] == [
                    c2.event(i).description for i in range(len(c2))
                ]
            keys = (ta.apply(value_keys), tb.apply(value_keys))
            sel = (sa.apply(value_keys), sb.apply(value_keys))
            every = (ea.apply(value_keys), eb.apply(value_keys))
            every_sel = (xa.apply(value_keys), xb.apply(value_keys))
            got = outcome_candidates(value_keys, str, keys, sel)
            want = outcome_candidates(value_keys, str, every, every_sel)
            assert len(got) == len(want)
            for c, c2 in zip(got, want, strict=True):
                np.testing.assert_array_equal(c.on_x, c2.on_x)
                np.testing.assert_array_equal(c.on_x_prime, c2.on_x_prime)

    # a side whose every selection row is unanswered (NaN) counts in no event
    ta, _ = tallies(40, 3.0)
    silent = Tally(np.array([np.nan]), np.array([250]))
    for sel in ((silent, ta), (ta, silent)):
        on_tally = threshold_candidates(Reduce("sum"), "s", (ta, ta), sel, 128)
        on_rows = threshold_candidates(
            Reduce("sum"),
            "s",
            (ta, ta),
            tuple(Tally(np.repeat(t.values, t.counts)) for t in sel),
            128,
        )
        for c, c2 in zip(on_tally, on_rows, strict=True):
            np.testing.assert_array_equal(c.on_x, c2.on_x)
            np.testing.assert_array_equal(c.on_x_prime, c2.on_x_prime)
            assert not (c.on_x if sel[0] is silent else c.on_x_prime).any()


def test_medians_of_repeated_rows_are_numpys_on_every_row():
    """Column medians (of the rows and of their increments) counted on the distinct rows are
    numpy's on every row, NaN aside; small integers packed into exact keys (int8 answers,
    bits) give the distinct rows that keyed floats give."""
    from auditor.statistics.events.vector_events import row_increments
    from auditor.statistics.events.vector_events.summaries import column_medians

    rng = np.random.default_rng(14)
    for trial in range(12):
        width = int(rng.integers(1, 9))
        patterns = rng.integers(-1, 3, (int(rng.integers(2, 60)), width)).astype(np.int8)
        if trial % 3 == 0:  # floats with unanswered entries: keyed, not packed
            patterns = patterns.astype(float)
            patterns[rng.random(patterns.shape) < 0.2] = np.nan
            patterns[::5] = np.nan
        a, b = (patterns[rng.integers(0, len(patterns), n)] for n in (3_000, 3_301))
        rows = (_Rows(a), _Rows(b))
        assert all(r.sample_distinct() is not None for r in rows)
        pooled = np.vstack([rows[0].sample, rows[1].sample])
        for f in (lambda m: m, row_increments):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column
                want = np.nanmedian(f(pooled), axis=0)
            np.testing.assert_array_equal(column_medians(rows, pooled, f), want)
    answers = rng.integers(-1, 2, (30, 10)).astype(np.int8)[rng.integers(0, 30, 5_000)]
    for packed in (answers, rng.integers(0, 2, (5_000, 7)).astype(bool)):
        keyed = _Rows(packed).sample_distinct()
        floats = _Rows(packed.astype(float)).sample_distinct()
        assert keyed is not None and floats is not None
        order = [np.lexsort(d[0].T) for d in (keyed, floats)]
        np.testing.assert_array_equal(keyed[0][order[0]], floats[0][order[1]])
        np.testing.assert_array_equal(keyed[1][order[0]], floats[1][order[1]])


def released_rarely(rng: np.random.Generator, n: int, shift: float, rate: float) -> np.ndarray:
    """Two noisy answers (Laplace, scale 2, on a 2^-10 grid) beside an entry released (else
    NaN) with probability ``rate``: a stability histogram's bin that only one input has."""
    m = np.full((n, 3), np.nan)
    m[:, 1:] = rng.laplace(shift, 2.0, (n, 2))
    hit = rng.random(n) < rate
    m[hit, 0] = 10 + rng.laplace(0.0, 2.0, int(hit.sum()))
    return np.round(m * 1024) / 1024


def test_an_event_one_input_never_produces_keeps_a_slot_under_a_delta_claim() -> None:
    """Under (1, 1e-3) the answers' honest events (loss up to 1) out-rank the rare release at
    this size; yet only the release (probability 3e-3, never under x') can show delta
    exceeded.  It must be among the proposals."""
    for seed in (6, 7):
        rng = np.random.default_rng(seed)
        a, b = released_rarely(rng, 8000, 1.0, 3e-3), released_rarely(rng, 8000, 0.0, 0.0)
        plan = CertificationPlan(n=1_000_000, alpha=1e-4, epsilon=1.0, delta=1e-3)
        events = VectorEvents().propose(a, b, plan)
        assert len(events) == VectorEvents.max_events
        counts = [(int(e.predicate(a).sum()), int(e.predicate(b).sum())) for e in events]
        assert any(k0 >= 10 and k1 == 0 for k0, k1 in counts), counts


def test_composed_laplace_answers_moving_both_ways_are_caught_in_the_box_beyond_both_means():
    """Four Laplace answers of 0.25 each (1-DP together), their queries moved (-1, -1, +1, +1):
    every entry's loss adds up only on the outputs where all four speak for the same side.
    The box beyond each median in its mean's direction certifies near the composed 1; the
    mechanism with each answer at 0.4 (1.6 in all) is shown above its claim of 1 there."""
    s = np.array([-1.0, -1.0, 1.0, 1.0])
    plan = CertificationPlan(n=150_000, alpha=1e-5, epsilon=1.0, delta=0.0)

    def bound(scale: float, seed: int) -> tuple[float, str]:
        rng = np.random.default_rng(seed)

        def draw(shift: object, n: int) -> np.ndarray:  # on a grid: no float-cell leak
            return np.round(rng.laplace(shift, scale, (n, 4)) * 1024) / 1024

        events = VectorEvents(classifier=False).propose(draw(0, 20_000), draw(s, 20_000), plan)
        fresh, fresh_prime = draw(0, plan.n), draw(s, plan.n)
        found = []
        for event in events:
            k, k_prime = (int(np.count_nonzero(event(y))) for y in (fresh, fresh_prime))
            found += [
                (epsilon_lower_bound(k, plan.n, k_prime, plan.n, plan.alpha), event.description),
                (epsilon_lower_bound(k_prime, plan.n, k, plan.n, plan.alpha), event.description),
            ]
        return max(found)

    tight, text = bound(4.0, 0)
    assert 0.75 < tight < 1.0 and "moved entries (0, 1, 2, 3)" in text, (tight, text)
    broken, text = bound(2.5, 1)
    assert broken > 1.1 and "moved entries" in text, (broken, text)


def test_a_value_that_leaks_within_one_index_only_is_caught_in_that_index_s_cell():
    """A noisy max that releases its gap: on x' the gap moves up when index 0 wins and down
    when index 1 wins, so neither the index (fair on both), nor the gap over all rows (its
    mixture symmetric on both sides), nor a sum shows much; the cell "index 1 and gap below t"
    holds the whole ratio (Laplace of scale 1 moved by 1: up to e^1)."""
    plan = CertificationPlan(n=100_000, alpha=1e-4, epsilon=0.5, delta=0.0)
    rng = np.random.default_rng(11)

    def draw(shift: float, n: int) -> np.ndarray:
        index = rng.integers(0, 2, n)
        gap = rng.laplace(np.where(index == 0, shift, -shift), 1.0)
        return np.column_stack([index, np.round(gap * 1024) / 1024])

    events = VectorEvents(classifier=False).propose(draw(0.0, 20_000), draw(1.0, 20_000), plan)
    assert "is (0) and its" in events[0].description or "is (1) and its" in events[0].description
    fresh, fresh_prime = draw(0.0, plan.n), draw(1.0, plan.n)
    k, k_prime = (int(np.count_nonzero(events[0](y))) for y in (fresh, fresh_prime))
    bound = max(
        epsilon_lower_bound(k, plan.n, k_prime, plan.n, plan.alpha),
        epsilon_lower_bound(k_prime, plan.n, k, plan.n, plan.alpha),
    )
    assert 0.7 < bound < 1.0, (bound, events[0].description)
