"""bench/calibration_default.py: its computed claims are true (and tight), and its JSON-lines
file resumes and summarises as documented."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.special import logsumexp

from auditor.core.claim_kinds import GaussianDP
from auditor.statistics.clopper_pearson import cp_upper
from bench import calibration_default as cd


def _discrete_laplace_pair(t: float, width: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """P(z) proportional to e^{-t|z|} on [-width, width] and the same shifted by one."""
    z = np.arange(-width, width + 1)
    p = np.exp(-t * np.abs(z))
    q = np.exp(-t * np.abs(z - 1))
    return p / p.sum(), q / q.sum()


def test_two_point_delta_is_the_discrete_laplace_pairs_exact_delta() -> None:
    p, q = _discrete_laplace_pair(1.0)
    for e in (0.0, 0.1, 0.5, 0.9, 1.0, 1.5):
        exact = float(np.maximum(p - math.exp(e) * q, 0.0).sum())
        assert cd.two_point_delta(e, 1.0) == pytest.approx(exact, abs=1e-12)


def test_gdp_claim_holds_by_the_projects_own_curve_and_is_tight() -> None:
    mu = cd.gdp_mu(1.0)
    grid = np.linspace(0.0, 1.2, 601)
    claimed = GaussianDP(mu)
    assert all(claimed.delta_for_epsilon(e) >= cd.two_point_delta(e, 1.0) for e in grid)
    smaller = GaussianDP(mu * (1 - 1e-3))  # 0.1 % less: no longer true at some eps
    assert any(smaller.delta_for_epsilon(e) < cd.two_point_delta(e, 1.0) for e in grid)


def test_rdp_claim_is_the_exact_renyi_divergence_raised() -> None:
    adapter = next(m for m in cd.MECHANISMS if m.name == "discrete_laplace.rdp").adapter()
    lp, lq = (np.log(x) for x in _discrete_laplace_pair(1.0))
    for order, claimed in adapter.claim.to_dict()["table"]:
        exact = float(logsumexp(order * lp + (1 - order) * lq)) / (order - 1)
        assert claimed >= exact
        assert claimed == pytest.approx(exact, rel=1e-8)


def test_profile_claim_is_the_discrete_gaussians_exact_delta() -> None:
    adapter = next(m for m in cd.MECHANISMS if m.name == "discrete_gaussian.profile").adapter()
    z = np.arange(-400, 401)
    p = np.exp(-(z**2) / (2 * float(adapter.sigma2)))
    q = np.exp(-((z - 1) ** 2) / (2 * float(adapter.sigma2)))
    p, q = p / p.sum(), q / q.sum()
    for e, claimed in adapter.claim.to_dict()["table"]:
        exact = float(np.maximum(p - math.exp(e) * q, 0.0).sum())
        assert claimed >= exact - 1e-15
        assert claimed == pytest.approx(exact, rel=1e-6, abs=1e-29)


def test_resume_skips_recorded_audits_and_ignores_a_torn_line(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    record = {"index": 4, "adapter": "randomized_response", "claim_kind": "pure"}
    path.write_text(json.dumps(record) + "\n" + '{"index": 27, "adap')
    assert cd.done_indices(path) == {4}
    assert [r["index"] for r in cd.read(path)] == [4]


def test_summary_counts_false_violations_with_the_clopper_pearson_limit() -> None:
    def record(i: int, verdict: str) -> dict[str, object]:
        claim = {"epsilon": 1.0, "delta": 0.0}
        name = "randomized_response"
        return {"index": i, "adapter": name, "claim_kind": "pure", "claim": claim,
                "verdict": verdict, "bound": 1.2 if verdict == "violation" else 0.9,
                "seconds": 1.0}  # fmt: skip

    records = [record(i, "violation" if i == 3 else "no_violation") for i in range(40)]
    table = cd.summary(records)
    overall = next(row for row in table if row.startswith("| **all** "))
    cells = [c.strip() for c in overall.strip("|").split("|")]
    assert cells[4:8] == ["40", "0", "1", f"{cp_upper(1, 40, 0.05):.4f}"]
    assert cells[8] == "1.200"


def test_a_default_audit_of_randomized_response_is_recorded() -> None:
    record = cd.audit(4)  # index 4: randomized response at eps 1, seed 4; about a second
    assert record["adapter"] == "randomized_response"
    assert record["seed"] == 4 and record["verdict"] == "no_violation"
    assert 0.5 < record["bound"] <= 1.0  # tight claim: the bound comes close, never above
