"""The white-box estimator: epsilon from exact probabilities, finite in JSON."""

from __future__ import annotations

import json
import math

import pytest

from auditor.core.errors import InvalidArgument
from auditor.statistics.exact import (
    SMALLEST_POSITIVE,
    WHITE_BOX_ESTIMATOR,
    exact_epsilon,
    exact_estimate,
)


def test_finite_ratio():
    eps, unbounded = exact_epsilon(0.5, 0.25)
    assert eps == pytest.approx(math.log(2)) and not unbounded


def test_delta_is_subtracted_and_never_negative():
    assert exact_epsilon(0.5, 0.25, delta=0.25)[0] == pytest.approx(0.0)
    assert exact_epsilon(0.1, 0.5) == (0.0, False)
    assert exact_epsilon(1e-9, 0.0, delta=1e-9) == (0.0, False)


def test_zero_denominator_is_unbounded_with_a_finite_stand_in():
    eps, unbounded = exact_epsilon(2e-13, 0.0)
    assert unbounded
    assert math.isfinite(eps)
    assert eps == pytest.approx(math.log(2e-13) - math.log(SMALLEST_POSITIVE))
    assert eps > 700


def test_bad_probabilities_raise():
    with pytest.raises(InvalidArgument, match="p0"):
        exact_epsilon(1.5, 0.1)
    with pytest.raises(InvalidArgument, match="delta"):
        exact_epsilon(0.5, 0.1, delta=1.0)


def test_estimate_is_white_box_and_json_safe():
    est = exact_estimate(0.3, 0.0, 0.0, "output == 1")
    assert est.white_box and est.unbounded and est.estimator == WHITE_BOX_ESTIMATOR
    assert est.alpha == 0.0 and est.counts.n0 == 0
    json.dumps(est.to_dict(), allow_nan=False)
