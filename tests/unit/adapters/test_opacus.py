"""Opacus noise-step adapters: contract, claim, noise, the float32 finding and the grid
control (skipped without opacus, the `opacus` extra)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from auditor.core.claim_kinds import GaussianDP
from auditor.core.spec import check_adapter

pytest.importorskip("opacus")

from auditor.adapters import opacus_adapters as op  # noqa: E402


def test_provenance_kinds_and_claim():
    from importlib.metadata import version

    plain, secure = op.builtin_adapters()
    assert (plain.name, secure.name) == ("opacus.noise_step", "opacus.noise_step.secure")
    for a in (plain, secure):
        spec = check_adapter(a)
        assert a.library == "opacus" and a.library_version == version("opacus")
        assert spec.vectorised and spec.seedable and a.description
        assert spec.kind_label == "vector(l2) → real[query]"
        assert a.claim == GaussianDP(1.0) and a.sensitivity == 1.0
    tight = op.NoiseStep(noise_multiplier=2.0, max_grad_norm=0.5)
    assert tight.claim == GaussianDP(0.5) and tight.sensitivity == 0.5
    with pytest.raises(ValueError, match="noise_multiplier"):
        op.NoiseStep(noise_multiplier=0.0)


@pytest.mark.parametrize("secure", [False, True])
def test_the_noise_is_float32_gaussian_of_std_sigma_times_the_clip_norm(secure):
    a = op.NoiseStep(noise_multiplier=1.5, max_grad_norm=2.0, secure_mode=secure, d=4)
    a.seed(5)
    query = np.array([0.5, -1.0, 3.0, 0.0])
    out = a.sample(query, 40_000)
    assert out.dtype == np.float32 and out.shape == (40_000, 4)
    noise = out.astype(np.float64) - query
    # 6 standard errors: mean se 3/200, sd se 3/283
    np.testing.assert_allclose(noise.mean(axis=0), 0.0, atol=6 * 3.0 / 200)
    np.testing.assert_allclose(noise.std(axis=0), 3.0, atol=6 * 3.0 / 283)
    a.seed(5)
    assert np.array_equal(a.sample(query, 40_000), out)  # seeded: the same draws
    assert pickle.loads(pickle.dumps(a)).name == a.name


def test_the_float32_sum_is_on_a_coarser_grid_next_to_a_larger_gradient():
    """The finding's mechanism (docs/findings/2026-opacus-noise-step.md): below 0.5, outputs
    at gradient 1 are multiples of 2^-24, at gradient 0 half of those in [0.25, 0.5) are not."""
    a = op.NoiseStep(d=1)
    a.seed(1)
    at_zero, at_one = (a.sample(np.array([g]), 50_000).astype(np.float64)[:, 0] for g in (0, 1))

    def off_grid(y):
        return (y > 0) & (y < 0.5) & (np.mod(y, 2.0**-24) != 0)

    assert off_grid(at_zero).sum() > 1000 and off_grid(at_one).sum() == 0
