"""Real reports for the renderer tests: one run of the auditor over four small adapters.

The run is seeded, so every renderer test sees the same report: a violation certified by the
LSB attack (textbook Laplace), a violation by the black-box attack (randomized response
weaker than claimed), an adapter that raises (error) and a correct mechanism with a hostile
name (no violation).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from attacks import load_attacks
from auditor.adapters.textbook import TextbookLaplace
from auditor.core.configs import AuditConfig
from auditor.engine.runner import run_audit

HOSTILE_NAME = "<script>alert(1)</script>"


class Geometric:
    """Two-sided geometric noise at epsilon 0.5 on integers, claiming 1.0: private, with room."""

    family = "additive"
    epsilon, delta, sensitivity = 1.0, 0.0, 1.0
    integer_queries = True

    def __init__(self, name: str = HOSTILE_NAME) -> None:
        self.name = name
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query: Any, n: int) -> np.ndarray:
        q = 1 - np.exp(-0.5)
        return int(query) + self._rng.geometric(q, n) - self._rng.geometric(q, n)


class WeakResponse:
    """Randomized response keeping the bit with probability 0.9 (epsilon ln 9) but claiming 0.5."""

    family = "binary"
    epsilon, delta = 0.5, 0.0

    def __init__(self, name: str = "rr.too-weak") -> None:
        self.name = name
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query: Any, n: int) -> np.ndarray:
        keep = self._rng.random(n) < 0.9
        return np.where(keep, int(query), 1 - int(query)).astype(np.int64)


class Raises:
    name = "broken.raises"
    family = "binary"
    epsilon, delta = 1.0, 0.0

    def sample(self, query: Any, n: int) -> np.ndarray:
        raise RuntimeError("boom")


def make_report(seed: int = 3, budget: int = 20_000) -> dict[str, Any]:
    adapters = [TextbookLaplace(), WeakResponse(), Raises(), Geometric()]
    config = AuditConfig(budget=budget, seed=seed)
    report = run_audit(adapters, load_attacks(), config, skipped=["python-dp: not installed"])
    return report.to_dict()


@pytest.fixture(scope="session")
def report_dict() -> dict[str, Any]:
    data = make_report()
    verdicts = {r["adapter"]: r["verdict"] for r in data["results"]}
    # the fixture is only useful if it covers every verdict; fail loudly if the auditor changes
    assert verdicts == {
        "textbook.laplace(eps=1)": "violation",
        "rr.too-weak": "violation",
        "broken.raises": "error",
        HOSTILE_NAME: "no_violation",
    }, verdicts
    return data


@pytest.fixture(scope="session")
def html_page(report_dict: dict[str, Any]) -> str:
    from reports.html import render_html

    return render_html(report_dict)
