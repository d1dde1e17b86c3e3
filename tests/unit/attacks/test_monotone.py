"""Monotone vector neighbours (``monotone = True``): counting queries move all the same way.

Report-noisy-max with Laplace noise of scale Δ/ε is ε-DP on such queries (Dwork & Roth 2014,
Claim 3.9) and about 2ε-DP when one query may go up while another goes down.  Declared
monotone, its audit may only use pairs that move every entry alike.
"""

from __future__ import annotations

import numpy as np
import pytest

from attacks import load_attacks
from attacks.neighbours import are_neighbours, vector_pairs
from auditor.core.configs import AuditConfig
from auditor.core.errors import AdapterContractError
from auditor.core.results import Verdict
from auditor.core.spec import check_adapter
from auditor.engine.runner import run_audit


class LaplaceNoisyMax:
    """argmax of the utilities plus Laplace(Δ/ε) noise: ε-DP only on monotone neighbours."""

    family, epsilon, delta, sensitivity = "selection", 1.0, 0.0, 1.0

    def __init__(self, monotone: bool) -> None:
        self.monotone = monotone
        self.name = f"test.noisy_max_scale_1({'monotone' if monotone else 'any move'})"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, utilities, n):
        u = np.asarray(utilities, dtype=float)
        noisy = u + self._rng.laplace(0.0, self.sensitivity / self.epsilon, (n, len(u)))
        return np.argmax(noisy, axis=1)


def test_monotone_pairs_move_every_entry_the_same_way():
    spec = check_adapter(LaplaceNoisyMax(monotone=True))
    pairs = vector_pairs(spec)
    assert pairs and len(pairs) < len(vector_pairs(check_adapter(LaplaceNoisyMax(False))))
    for x, x_prime, text in pairs:
        step = np.asarray(x_prime) - np.asarray(x)
        assert (step >= 0).all() or (step <= 0).all(), text
        assert are_neighbours(spec, x, x_prime)
    assert not are_neighbours(spec, np.zeros(3), np.array([1.0, 0.0, -1.0]))
    assert spec.kind_label == "selection (monotone)"


def test_monotone_is_refused_outside_vector_queries():
    class Scalar:
        name, family, epsilon, sensitivity, monotone = "test.scalar", "additive", 1.0, 1.0, True

        def sample(self, q, n):
            return np.zeros(n)

    with pytest.raises(AdapterContractError, match="monotone"):
        check_adapter(Scalar())


@pytest.mark.parametrize("monotone", [True, False])
def test_noisy_max_at_scale_one_over_epsilon_is_private_only_on_monotone_neighbours(monotone):
    adapter = LaplaceNoisyMax(monotone)
    report = run_audit([adapter], load_attacks(None), AuditConfig(budget=50_000, seed=0))
    (r,) = report.results
    assert r.error is None
    if monotone:
        assert r.verdict is Verdict.NO_VIOLATION
        assert all(adapter_step_is_monotone(f.x, f.x_prime) for f in r.findings)
    else:  # one up and the rest down: close to 2 epsilon
        assert r.verdict is Verdict.VIOLATION


def adapter_step_is_monotone(x, x_prime) -> bool:
    step = np.asarray(x_prime, dtype=float) - np.asarray(x, dtype=float)
    return bool((step >= 0).all() or (step <= 0).all())
