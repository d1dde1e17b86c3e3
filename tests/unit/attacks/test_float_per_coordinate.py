"""The floating-point attacks on vector outputs: each moved coordinate attacked alone, the event
"some coordinate is impossible at x'"."""

from __future__ import annotations

import numpy as np
import pytest

from attacks.lsb_laplace import LSBLaplaceAttack
from attacks.precision import PrecisionAttack
from auditor.adapters.base import SeededAdapter
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.core.spec import check_adapter
from auditor.engine.runner import run_audit


class FloatVectorLaplace(SeededAdapter):
    input_kind = "vector"
    output_kind = "real"
    output_length = "query"
    sensitivity = 1.0
    delta = 0.0
    epsilon = 1.0

    def __init__(self, norm, grid=None):
        super().__init__()
        self.norm, self.grid = norm, grid
        self.name = f"float_vector_laplace({norm}, grid={grid})"

    def sample(self, query, n):
        q = np.asarray(query, dtype=float)
        scale = (1.0 if self.norm == "l1" else len(q)) / self.epsilon
        out = q + self._rng.laplace(0, scale, size=(n, len(q)))
        return out if self.grid is None else np.round(out / self.grid) * self.grid


@pytest.mark.parametrize("norm", ["l1", "linf"])
def test_textbook_float_vector_laplace_is_certified_far_beyond_its_claim(norm):
    report = run_audit(
        [FloatVectorLaplace(norm)], [LSBLaplaceAttack()], AuditConfig(budget=20_000, seed=2)
    )
    (result,) = report.results
    assert result.verdict is Verdict.VIOLATION and result.epsilon_lower_bound > 3
    assert result.best.estimate.white_box and "coordinate" in result.best.estimate.event


def test_outputs_on_a_coarse_grid_give_the_float_attacks_nothing():
    adapter = FloatVectorLaplace("l1", grid=2.0**-6)
    report = run_audit(
        [adapter], [LSBLaplaceAttack(), PrecisionAttack()], AuditConfig(budget=20_000, seed=2)
    )
    (result,) = report.results
    assert result.verdict is Verdict.NO_VIOLATION and result.epsilon_lower_bound == 0


def test_only_per_coordinate_real_vectors_get_the_float_attacks():
    spec = check_adapter(FloatVectorLaplace("l1"))
    assert LSBLaplaceAttack().applies_to(spec) and PrecisionAttack().applies_to(spec)
    index = FloatVectorLaplace("l1")
    index.output_kind, index.output_length = "index", 1
    assert not LSBLaplaceAttack().applies_to(check_adapter(index))
