"""OpenDP Context / Polars adapters: the claim is OpenDP's own accounting, outputs are the
frames OpenDP releases (an open key set), and the two misconfigurations are caught on one
user added while the correct grouped count is not (skipped without polars or opendp).

OpenDP's noise cannot be seeded; the statistical checks state their false-failure odds.
"""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest

pytest.importorskip("polars")
pytest.importorskip("opendp")

import opendp.prelude as dp  # noqa: E402
import polars as pl  # noqa: E402

from attacks import load_attacks  # noqa: E402
from auditor.adapters import opendp_context_adapters as odc  # noqa: E402
from auditor.core.configs import AuditConfig  # noqa: E402
from auditor.core.results import Verdict  # noqa: E402
from auditor.core.spec import check_adapter  # noqa: E402
from auditor.engine.runner import run_audit  # noqa: E402
from auditor.engine.sampling import draw  # noqa: E402

N = 400


@pytest.fixture(scope="module")
def adapters():
    correct, public, rows = odc.builtin_adapters()
    return correct, public, rows


def test_names_kinds_and_the_claim_read_from_opendp(adapters):
    correct, public, rows = adapters
    assert [a.name for a in adapters] == [
        "opendp_context.count",
        "opendp_context.count(public_keys=True)",
        "opendp_context.count(rows with user ids)",
    ]
    spec = check_adapter(correct)
    assert spec.kind_label == "dataset → keyed(integer)[4 keys + other]"
    assert not spec.vectorised and not spec.seedable
    # the claim is OpenDP's accounting of the resolved query, as a user would read it
    dp.enable_features("contrib")
    context = dp.Context.compositor(
        data=pl.LazyFrame({"region": ["north"]}),
        privacy_unit=dp.unit_of(contributions=1),
        privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-5),
        split_evenly_over=1,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        query = context.query().group_by("region").agg(dp.len())
    assert (correct.epsilon, correct.delta) == query.resolve().map(1)
    assert correct.epsilon <= 1.0 and 0 < correct.delta <= 1e-5
    threshold = query.summarize()["threshold"][0]
    assert f"threshold {threshold}" in correct.description
    assert (public.epsilon, public.delta) == (correct.epsilon, 0.0)  # public keys: no delta
    assert (rows.epsilon, rows.delta) == (correct.epsilon, correct.delta)
    assert check_adapter(rows).user_column == 0


def test_outputs_are_the_released_regions_and_their_noisy_counts(adapters):
    correct, public, _ = adapters
    data = np.array([0] * 40 + [2])  # 40 users in the north, one in the east
    out = draw(check_adapter(correct), data, N, 0)
    assert out.shape == (N, 5)
    assert not np.isnan(out[:, 0]).any()  # 40 against a threshold of 12: P(miss) ~ e^-28
    # integer Laplace of scale 1: the mean of N within 6 standard errors (p < 1e-8)
    assert abs(out[:, 0].mean() - 40) < 6 * math.sqrt(2 * math.e / (math.e - 1) ** 2 / N)
    # east (one user) shows with probability 4.5e-6 per output: p < 0.002 over N
    assert np.isnan(out[:, 1:4]).all() and (out[:, 4] == 0).all()
    # with the keys declared public, a region is released exactly when the data holds it
    shown = draw(check_adapter(public), data, N, 0)
    assert not np.isnan(shown[:, [0, 2]]).any() and np.isnan(shown[:, [1, 3]]).all()


def test_the_adapter_pickles_and_a_release_through_the_context_looks_alike(adapters):
    correct = pickle.loads(pickle.dumps(adapters[0]))
    frame = correct.sample(np.array([0] * 30), 1)[0]
    assert frame.columns == ["region", "len"] and frame["region"].to_list() == ["north"]
    # the same query released the way a user does: one context, one query, release()
    context = dp.Context.compositor(
        data=correct._frame(np.array([0] * 30)),
        privacy_unit=dp.unit_of(contributions=1),
        privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-5),
        split_evenly_over=1,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        released = context.query().group_by("region").agg(dp.len()).release().collect()
    assert released.schema == frame.schema and released["region"].to_list() == ["north"]
    with pytest.raises(ValueError, match="region"):
        correct.sample(np.array([0.5]), 1)


@pytest.mark.parametrize(
    ("index", "broken"),
    [(0, False), (1, True), (2, True)],
    ids=["correct", "public_keys", "rows_as_users"],
)
def test_misconfigurations_are_caught_and_the_correct_count_is_not(adapters, index, broken):
    """Pair search at a budget of 4,000 (seed 0): a lone user's region appears with
    probability 1 against 0 under public keys, and a user of 32 rows moves the count by 32 at
    scale 1 when rows are the privacy unit.  OpenDP's noise is not seeded: alpha = 0.001
    bounds the correct count's false failure (a violation certified at 250 of 250 outputs
    against 0 of 250 still reaches about 3 there)."""
    config = AuditConfig(budget=4000, seed=0, alpha=0.001)
    report = run_audit([adapters[index]], load_attacks(["pair-search"]), config)
    (result,) = report.results
    assert result.error is None, result.to_dict()
    expected = Verdict.VIOLATION if broken else Verdict.NO_VIOLATION
    assert result.verdict is expected, result.to_dict()
