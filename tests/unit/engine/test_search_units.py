"""Finding the pair spends no alpha (issue #51): every search unit runs on a prober alone.

The certifier here is a stand-in whose alpha-spending and counting methods fail the test when
called; the search stage of a trial (``TrialStages.search``: the probing units, planning,
screening) must finish without calling any of them, leave the alpha ledger as it was and
still draw outputs and move or choose the pair.
"""

from __future__ import annotations

import ast
import dataclasses
import pathlib

import numpy as np
import pytest
from attack_fixtures import DataCategories

import auditor.engine.search_units as search_units
from attacks.pair_search import PairSearchAttack
from auditor.adapters.base import SeededAdapter
from auditor.core.configs import AuditConfig
from auditor.core.spec import check_adapter
from auditor.engine.certify import Certifier
from auditor.engine.search_units import (
    PROBING_UNITS,
    BaseSearch,
    DatasetSearch,
    PairChoice,
    Prober,
    SizeSearch,
    ValueSearch,
)
from auditor.engine.trial_stages import TrialStages, run_trial

#: the certifier's methods that spend alpha, count towards a bound or draw outside a prober
GUARDED = (
    "_test_alphas",
    "_splits",
    "_predicted",
    "_conditional",
    "_best",
    "_best_delta",
    "_chain_candidate",
    "_optimistic_bound",
    "_with_power",
    "_send",
    "_collect",
    "_draw_counts",
    "_draw_pair",
    "_draw",
    "poisson_size",
    "calls",
)
ALPHA = 1e-3


class Guarded(Certifier):
    """A certifier whose alpha and counting methods fail the test (``called`` names them)."""

    called: list[str]


def _fails(name: str):
    def method(self, *args, **kwargs):
        self.called.append(name)
        raise AssertionError(f"a search unit called Certifier.{name}")

    return method


for _name in GUARDED:
    setattr(Guarded, _name, _fails(_name))


class Answers(SeededAdapter):
    """Sparse-vector answers with a threshold at 500, far from the default base of 0."""

    name, epsilon, delta = "far.svt", 0.1, 0.0
    input_kind, norm, sensitivity, query_length = "vector", "linf", 1.0, 10
    output_kind, output_length = "boolean", "query"

    def sample(self, query, n):
        rho = self._rng.laplace(0, 20.0, size=(n, 1))
        return (np.asarray(query, dtype=float) >= 500.0 + rho).astype(np.int8)


class LocalBits(SeededAdapter):
    """One-hot randomized response over 64 values: more than screening pairs exhaustively."""

    name, epsilon, delta = "rr.onehot", 1.0, 0.0
    input_kind, domain, output_kind, output_length = "local", (0, 63), "boolean", 64

    def sample(self, query, n):
        onehot = np.zeros(64, dtype=np.int8)
        onehot[int(query)] = 1
        return np.where(self._rng.random((n, 64)) >= 0.6, 1 - onehot, onehot)


def _search(adapter, budget: int = 20_000):
    spec = check_adapter(adapter)
    attack = PairSearchAttack()
    (trial,) = attack.trials(spec, np.random.default_rng(0))
    certifier = Guarded(spec, AuditConfig(budget=budget, seed=3), ALPHA, lambda n: None)
    certifier.called = []
    stages = TrialStages(certifier, attack, 0, trial)
    applied = [type(u) for u in PROBING_UNITS if u.applies(trial)]
    stages.search()
    return certifier, stages, trial, applied


@pytest.mark.parametrize(
    ("adapter", "units"),
    [
        (Answers(), [BaseSearch]),
        (LocalBits(), [ValueSearch]),
        (DataCategories(), [SizeSearch, DatasetSearch]),
    ],
    ids=["vector", "local", "dataset"],
)
def test_the_search_draws_and_chooses_a_pair_without_spending_alpha(adapter, units) -> None:
    certifier, stages, start, applied = _search(adapter)
    assert applied == units
    assert certifier.called == []
    # the alpha ledger is as it was: nothing certified, nothing cut, no delta bound
    assert certifier.alpha_test == ALPHA
    assert stages.best is None and stages.delta is None and stages.first is None
    assert certifier.short == []
    # the search did its job: outputs were drawn and one pair was chosen among candidates
    assert certifier.samples > 0
    assert stages.schedule.screened > 1
    assert stages.trial.candidates == () and "chosen among" in stages.trial.description
    assert stages.trial is not start


def test_the_guard_fails_once_the_trial_goes_on_to_certification() -> None:
    # the stand-in is not vacuous: the stages after the search spend alpha through it
    spec = check_adapter(Answers())
    attack = PairSearchAttack()
    (trial,) = attack.trials(spec, np.random.default_rng(0))
    certifier = Guarded(spec, AuditConfig(budget=20_000, seed=3), ALPHA, lambda n: None)
    certifier.called = []
    with pytest.raises(AssertionError, match="a search unit called"):
        run_trial(certifier, attack, 0, trial)
    # the search ran first and drew through its prober; the training draw is guarded
    assert certifier.samples > 0
    assert certifier.called == ["_draw_pair"]


def test_the_units_see_no_alpha_and_never_the_certifier() -> None:
    """What a unit receives holds no alpha, and no unit's module reads the certifier or the
    bounds' statistics (the import contract in pyproject.toml holds the same)."""
    assert not [f.name for f in dataclasses.fields(Prober) if "alpha" in f.name]
    imported = set()
    for path in pathlib.Path(search_units.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
    assert "auditor.engine.search_units.prober" in imported  # the walk reads the imports
    assert not [m for m in imported if m.endswith((".certify", ".clopper_pearson", ".power"))]


def test_pair_choice_applies_only_to_several_screened_pairs() -> None:
    (trial,) = PairSearchAttack().trials(check_adapter(Answers()), np.random.default_rng(0))
    plan = None
    assert PairChoice(4, ((4, 500), (2, 500)), (), 0, plan).applies(trial)  # type: ignore[arg-type]
    assert not PairChoice(1, (), (), 0, plan).applies(trial)  # type: ignore[arg-type]
