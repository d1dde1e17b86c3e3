"""Float-representation cell events: model-free detection of least-significant-bit leaks."""

from __future__ import annotations

import numpy as np

from attacks.black_box import BlackBoxAttack
from auditor.adapters.textbook import TextbookLaplace
from auditor.core.configs import AuditConfig
from auditor.engine.runner import run_audit
from auditor.statistics.events.bit_events import (
    CellUnion,
    bit_cell_events,
    cell_keys,
    describe_cell,
)


def test_cell_keys_separate_sign_binade_and_last_bits() -> None:
    y = np.array([0.3, np.nextafter(0.3, 1.0), -0.3, 0.6, np.nan, np.inf])
    k = cell_keys(y)
    assert k[0] != k[1]  # last bit differs
    assert k[0] & ~3 == k[1] & ~3  # same sign and binade
    assert k[2] != k[0] and k[3] != k[0]
    assert k[4] == -1 and k[5] == -1
    assert describe_cell(int(k[0])).startswith("[0.25, 0.5) with last bits")
    assert describe_cell(int(k[2])).startswith("(-0.5, -0.25]")


def test_integer_or_grid_outputs_give_no_cell_events() -> None:
    rng = np.random.default_rng(0)
    assert bit_cell_events(rng.integers(0, 9, 100).astype(float), rng.integers(0, 9, 100)) == []
    grid = np.round(rng.normal(size=500) * 2**20) / 2**20
    assert bit_cell_events(grid, grid + 1) == []


def test_cell_union_finds_the_porous_float_laplace() -> None:
    # 0 + Lap vs 1 + Lap in doubles: some cells are reachable only from 0 (Mironov 2012)
    rng = np.random.default_rng(1)
    a, b = rng.laplace(0, 1, 20_000), 1.0 + rng.laplace(0, 1, 20_000)
    events = bit_cell_events(a[:10_000], b[:10_000])
    assert events and all(isinstance(e.predicate, CellUnion) for e in events)
    fresh_a, fresh_b = rng.laplace(0, 1, 20_000), 1.0 + rng.laplace(0, 1, 20_000)
    one_sided = [e for e in events if e(fresh_a).mean() > 0.2 and e(fresh_b).sum() == 0]
    assert one_sided  # mass > 0.2 on x, never on x': epsilon is infinite


def test_black_box_audit_catches_textbook_laplace_without_a_sampler_model() -> None:
    report = run_audit(
        [TextbookLaplace(1.0)], [BlackBoxAttack()], AuditConfig(budget=20_000, seed=1)
    )
    r = report.results[0]
    assert r.verdict.value == "violation" and r.epsilon_lower_bound > 3.0
    assert not r.best.estimate.white_box
