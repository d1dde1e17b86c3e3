"""Fuzzing the output contract: whatever an adapter returns, the harness either accepts it as a
well-formed batch for the family or raises ``AdapterOutputError`` — never another exception.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from auditor.core.errors import AdapterOutputError
from auditor.core.spec import check_adapter
from auditor.engine.sampling import check_outputs


class Stub:
    epsilon, delta, sensitivity = 1.0, 0.0, 1.0
    domain, neighbours = (0.0, 1.0), "replace"

    def __init__(self, family):
        self.family, self.name = family, f"fuzz.{family}"

    def sample(self, query, n):  # never called: check_outputs gets the raw value directly
        raise AssertionError


DTYPES = st.one_of(
    hnp.integer_dtypes(),
    hnp.unsigned_integer_dtypes(),
    hnp.floating_dtypes(),
    hnp.boolean_dtypes(),
    hnp.complex_number_dtypes(),
    st.just(np.dtype(object)),
    hnp.unicode_string_dtypes(),
)
RAW = st.one_of(
    hnp.arrays(DTYPES, hnp.array_shapes(min_dims=0, max_dims=3, max_side=6)),
    st.lists(
        st.one_of(
            st.floats(allow_nan=True), st.integers(-(2**70), 2**70), st.text(max_size=2), st.none()
        ),
        max_size=6,
    ),
    st.none(),
    st.text(max_size=5),
)
QUERIES = {"additive": 0.0, "selection": np.zeros(3), "binary": 1, "dataset": np.zeros(4)}


@pytest.mark.parametrize("family", sorted(QUERIES))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=RAW, n=st.integers(1, 6))
def test_any_return_value_is_accepted_or_a_clear_output_error(family, raw, n):
    spec = check_adapter(Stub(family))
    try:
        out = check_outputs(spec, QUERIES[family], n, raw)
    except AdapterOutputError as exc:
        assert "fuzz." in str(exc) and "\n" not in str(exc)
        return
    assert isinstance(out, np.ndarray) and out.shape == (n,)
    if family == "dataset":
        assert not np.isinf(out).any()
    else:
        assert np.isfinite(out.astype(float)).all()
    if family == "selection":
        assert out.min() >= 0 and out.max() < 3
    if family == "binary":
        assert set(np.unique(out).tolist()) <= {0, 1}
