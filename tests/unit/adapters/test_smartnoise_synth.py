"""SmartNoise Synth adapters: the contract (kinds, claim, the output vector of cell counts),
and audits of single pairs that catch a category shown only when a record holds it (slow:
each output is a whole fit; skipped without the ``synth`` extra).

SmartNoise's noise (OpenDP) cannot be seeded, so checks on outputs are statistical; each
states its false-failure probability.  Every output is a whole fit and sample: MWEM takes
about 0.1 to 0.4 s, MST about 3 to 6 s, so the audits are marked slow.
"""

from __future__ import annotations

import importlib.util
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from auditor.adapters import smartnoise_synth_adapters as ss
from auditor.core.configs import AuditConfig
from auditor.core.results import Verdict
from auditor.core.spec import check_adapter
from auditor.core.trials import Trial
from auditor.engine.runner import run_audit
from auditor.statistics.events.vector_events import VectorEvents

HAVE_SNSYNTH = importlib.util.find_spec("snsynth") is not None
needs_synth = pytest.mark.skipif(
    not HAVE_SNSYNTH, reason="smartnoise-synth not installed: pip install 'dp-audit[synth]'"
)

#: 20 records in cells (0, 0) and (1, 1); the neighbour adds one record in (2, 1), the only
#: one with a = 2 (the top of the declared categories)
BASE = np.array([[0, 0], [1, 1]] * 10)
EDGE = np.array([[2, 1]])


class OnePair:
    """An attack of one trial, ``x`` and ``x`` plus one record, events learned on the outputs
    as pair search learns them: keeps a default-run audit to a few hundred fits."""

    name = "one-pair"
    description = "x and x plus one record"

    def __init__(self, x: np.ndarray, record: np.ndarray) -> None:
        self.x, self.x_prime = x, np.vstack([x, record])

    def applies_to(self, spec: object) -> bool:
        return True

    def trials(self, spec: object, rng: np.random.Generator) -> list[Trial]:
        return [Trial(self.x, self.x_prime, VectorEvents(), "one record added")]


def audit(adapter: object, budget: int, alpha: float = 0.05, pair: OnePair | None = None) -> object:
    config = AuditConfig(budget=budget, seed=0, alpha=alpha)
    (result,) = run_audit([adapter], [pair or OnePair(BASE, EDGE)], config).results
    return result


def test_importing_the_module_imports_no_smartnoise():
    code = (
        "import sys, auditor.adapters.builtin, auditor.adapters.smartnoise_synth_adapters\n"
        "print(sorted(m for m in ('snsynth', 'snsql', 'opendp', 'mbi', 'torch') "
        "if m in sys.modules))"
    )
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.strip() == "[]"


def test_without_the_library_the_target_raises_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "snsynth", None)
    with pytest.raises(ImportError):
        ss.builtin_adapters()
    from auditor.adapters.builtin import OPT_IN_TARGETS

    extras = {t: extra for t, _, extra in OPT_IN_TARGETS}
    assert extras["auditor.adapters.smartnoise_synth_adapters:builtin_adapters"] == "synth"


def test_arguments_are_checked():
    for bad in (
        {"synth": "ctgan"},
        {"categories": "public"},
        {"epsilon": 0.0},
        {"synth": "mst", "delta": 0.0},
        {"rows": 0},
    ):
        with pytest.raises(ValueError):
            ss.SynthMarginals(**bad)


@needs_synth
def test_names_kinds_and_the_claim_passed_to_the_synthesizer():
    adapters = {a.name: a for a in ss.builtin_adapters()}
    assert list(adapters) == [
        "smartnoise_synth.mst",
        "smartnoise_synth.mst(categories_from_data)",
        "smartnoise_synth.mwem",
    ]
    for a in adapters.values():
        spec = check_adapter(a)
        assert spec.kind_label == "dataset(2 columns) → integer[6]"
        assert not spec.vectorised and not spec.seedable and a.library == "smartnoise-synth"
    mst, mwem = adapters["smartnoise_synth.mst"], adapters["smartnoise_synth.mwem"]
    assert (mst.epsilon, mst.delta, mst.options) == (1.0, 1e-5, {"delta": 1e-5})
    assert (mwem.epsilon, mwem.delta, mwem.options) == (1.0, 0.0, {"iterations": 10})
    assert [a.correct for a in adapters.values()] == [True, False, False]


@needs_synth
def test_the_output_counts_the_synthetic_rows_of_each_cell():
    a = ss.SynthMarginals("mwem", rows=40)
    out = a.sample(BASE, 3)
    assert out.shape == (3, 6) and out.dtype == np.int64
    assert np.all(out.sum(axis=1) == 40) and np.all(out >= 0)
    # the transformer fitted on the public frame knows every category, nothing else
    table = a.transformer()
    assert table.cardinality == [3, 2]
    with pytest.raises(ValueError, match="column 0"):
        a.sample(np.array([[3, 0]]), 1)
    with pytest.raises(ValueError, match="shape"):
        a.sample(np.array([1, 0]), 1)
    assert pickle.loads(pickle.dumps(a)).sample(BASE, 1).shape == (1, 6)


@needs_synth
def test_categories_read_from_the_data_show_only_those_present():
    # with a = 2 absent from the rows, a LabelTransformer fitted on them has no label for it:
    # no synthetic row can hold a = 2 (cells 4 and 5), whatever the noise (deterministic).
    # MST, whose domain is the transformer's cardinality (MWEM's is the data's range anyway)
    inferred = ss.SynthMarginals("mst", categories="data")
    out = inferred.sample(BASE, 2)
    assert np.all(out[:, 4:] == 0) and np.all(out.sum(axis=1) == 50)


@needs_synth
@pytest.mark.slow
def test_mwem_reads_each_columns_range_from_the_data_and_is_caught():
    # MWEM sizes its histogram from the min and max of each column of the (transformed) rows,
    # even when the transformer declares 3 categories of a: without the record (2, 1) no
    # synthetic row has a = 2, with it 5 to 9 % of rows do (measured: 91 and 51 of 1,000),
    # so an output of 50 rows holds one with probability above 0.9.  At 300 outputs a side
    # a miss needs roughly fewer than 1 in 8 of the x' side's outputs to show it.  600 fits:
    # passed in 57 s and in 5 min (cores loaded by other jobs); at a budget of 100 it
    # found no violation.
    mwem = ss.SynthMarginals("mwem")
    found = audit(mwem, 300)
    assert found.verdict is Verdict.VIOLATION, found.to_dict()
    assert found.epsilon_lower_bound > mwem.epsilon


#: the pair the one-sided attack certified on MST with categories from the data (docs)
LONE = np.array([[1, 0]])
LOW = np.array([[0, 0]])


@needs_synth
@pytest.mark.slow
def test_mst_categories_from_the_data_are_caught():
    # with one record (1, 0) the categories read from the data are a = 1 and b = 0 only, so
    # no synthetic row can fall in (0, 0); with (0, 0) added, 42 of 75 outputs held one in
    # `dp-audit run --attack one-sided --budget 100` (docs/systems-synth.md).  A miss needs
    # roughly fewer than 1 in 3 here.  About 200 MST fits: passed in 494 s on loaded cores.
    broken = ss.SynthMarginals("mst", categories="data")
    found = audit(broken, 100, pair=OnePair(LONE, LOW))
    assert found.verdict is Verdict.VIOLATION, found.to_dict()
    assert found.epsilon_lower_bound > broken.epsilon


@needs_synth
@pytest.mark.slow
def test_mst_with_declared_categories_is_not_flagged_on_that_pair():
    # declared categories: MST is private as claimed on this pair (its domain does not move),
    # so it is flagged with probability at most alpha = 1e-3.  About 200 MST fits: passed in
    # 534 s on loaded cores.
    fine = audit(ss.SynthMarginals("mst"), 100, alpha=1e-3, pair=OnePair(LONE, LOW))
    assert fine.verdict is Verdict.NO_VIOLATION and fine.error is None, fine.to_dict()
