"""PipelineDP adapters: output contract, claims, counts and private partition selection
(skipped without pipeline-dp).

PipelineDP's noise comes from python-dp and cannot be seeded: each bound is >= 6 standard
errors wide, so a correct adapter fails a given check with probability < 1e-8.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from auditor.core.spec import check_adapter
from auditor.engine.sampling import draw

pytest.importorskip("pipeline_dp")

from auditor.adapters import pipeline_dp_adapters as pdp  # noqa: E402

N = 2000


def test_provenance_and_kinds():
    from importlib.metadata import version

    public, private, per_user = pdp.builtin_adapters()
    assert (
        check_adapter(per_user).kind_label == "dataset(2 columns) → real[5] (user ids in column 0)"
    )
    assert per_user.name == "pipeline_dp.count_public_partitions(max_partitions_contributed=2)"
    for a in (public, private):
        spec = check_adapter(a)
        assert a.library == "pipeline-dp" and a.library_version == version("pipeline-dp")
        assert not spec.vectorised and not spec.seedable and a.description
        assert a.neighbours == "add_remove" and a.domain == (0, 4)
    assert check_adapter(public).kind_label == "dataset → real[5]"
    assert check_adapter(private).kind_label == "dataset → keyed(real)[5 keys + other]"
    assert (public.epsilon, public.delta) == (1.0, 0.0)
    assert (private.epsilon, private.delta) == (1.0, 1e-5)
    assert public.name == "pipeline_dp.count_public_partitions"
    assert private.name == "pipeline_dp.count_private_partitions"


def test_public_partitions_count_every_key():
    a = pdp.CountPerPartition(epsilon=1.0, partitions=4)
    data = np.array([0, 0, 0, 1, 3, 3])
    x = draw(check_adapter(a), data, N, 0)
    assert x.shape == (N, 4) and not np.isnan(x).any()
    # Laplace(1) per count (L1 sensitivity 1 with one partition per privacy unit): sd sqrt 2
    assert np.all(np.abs(x.mean(axis=0) - [3, 1, 0, 2]) < 6 * math.sqrt(2) / math.sqrt(N))


def test_private_partitions_drop_small_keys():
    a = pdp.CountPerPartition(epsilon=1.0, delta=1e-5, partitions=3, public_partitions=False)
    data = np.array([0] * 200 + [1])
    raw = a.sample(data, 3)  # what PipelineDP returns: the keys released and their counts
    assert len(raw) == 3 and all(set(r) <= {0, 1, 2} and 0 in r for r in raw)
    x = draw(check_adapter(a), data, N, 0)
    assert x.shape == (N, 4)  # keys 0, 1, 2 and the count of other keys released
    assert not np.isnan(x[:, 0]).any() and np.isnan(x[:, 2]).all()  # no user: never released
    assert (x[:, 3] == 0).all()
    assert np.isnan(x[:, 1]).mean() > 0.99  # one user: released with probability <= delta-ish
    assert abs(np.nanmean(x[:, 0]) - 200) < 6 * 2 * math.sqrt(2) / math.sqrt(N)


def test_arguments_and_records():
    with pytest.raises(ValueError, match="delta"):
        pdp.CountPerPartition(public_partitions=False)  # private selection needs delta > 0
    a = pdp.CountPerPartition(partitions=3)
    with pytest.raises(ValueError, match="partition keys"):
        a.sample(np.array([0, 3]), 1)
    with pytest.raises(ValueError):
        a.sample(np.array([0.5]), 1)
    assert pickle.loads(pickle.dumps(a)).sample(np.array([1]), 2).shape == (2, 3)


def test_privacy_ids_are_bounded_by_pipeline_dp_itself():
    a = pdp.CountPerPartition(epsilon=1.0, partitions=4, max_partitions_contributed=2)
    # user 7 holds 3 rows in each of the 4 keys; users 1 and 2 one row in key 0
    data = np.array([[7, k] for k in range(4) for _ in range(3)] + [[1, 0], [2, 0]])
    x = draw(check_adapter(a), data, N, 0)
    assert x.shape == (N, 4)
    # at most 2 keys and one row per key for user 7: its 2 of the 4 keys, chosen at random;
    # Laplace of scale 2 per count (sd 2 sqrt 2)
    total = x.sum(axis=1).mean()
    assert abs(total - 4) < 6 * 2 * math.sqrt(2) * 2 / math.sqrt(N)
    assert abs(x[:, 0].mean() - 2.5) < 6 * 2 * math.sqrt(2) / math.sqrt(N)
    with pytest.raises(ValueError, match="partition keys"):
        a.sample(np.array([[1, 4]]), 1)
