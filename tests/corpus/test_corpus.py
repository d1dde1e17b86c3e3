"""The held-out corpus: every set audited at the default budget (seed 0) keeps its labels.

A correct mechanism called broken, an error, or a broken one that was found and no longer is
fails the test.  A known miss (``expect = "no_violation"`` with a ``reason`` in labels.toml)
is an ``xfail``; when the run finds it the test shows XPASS, not a failure: good news, to be
locked in by setting ``expect = "violation"``.  Each audit's false-violation probability is at
most alpha = 0.05 family-wise, but with the seed fixed every verdict is deterministic: the
labels record what this seed gives (tests/README.md).

The fast tests at the end (not marked) check the data: every adapter labelled once, its claim
as labelled, every set scheduled, and each CI run within its budget.
"""

from __future__ import annotations

from functools import cache

import pytest
from corpus_sets import (
    LABELS,
    VERDICTS,
    Label,
    labels,
    load_set,
    schedule,
    select,
    set_id,
    stems,
)

from attacks import load_attacks
from auditor.core.configs import AuditConfig, EngineConfig
from auditor.core.results import Verdict
from auditor.core.spec import check_adapter
from auditor.engine.runner import run_audit

#: minutes of corpus one CI run may take (measured on 2 cores: tests/corpus/schedule.toml)
CI_MINUTES = 20.0


class KnownMiss(AssertionError):
    """A known miss stayed missed: the only failure its ``xfail`` accepts."""


@cache
def _audit(stem: str) -> dict[str, tuple[Verdict, str | None]] | Exception:
    try:
        report = run_audit(
            load_set(stem), load_attacks(None), AuditConfig(seed=0), engine=EngineConfig()
        )
    except Exception as exc:  # kept, so the set's other tests fail at once instead of re-running
        return exc
    return {r.adapter: (r.verdict, r.error) for r in report.results}


def audited(stem: str) -> dict[str, tuple[Verdict, str | None]]:
    """The set's adapters audited together at the default budget, seed 0: name → verdict."""
    result = _audit(stem)
    if isinstance(result, Exception):
        raise result
    return result


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One test per adapter of the selected sets (``--corpus``), known misses as xfail."""
    if "record" not in metafunc.fixturenames:
        return
    config = metafunc.config
    try:
        chosen = select(config.getoption("corpus"), config.getoption("corpus_share"), schedule())
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    params = []
    for stem in chosen:
        for name, record in labels()[stem].items():
            marks = []
            if record.known_miss:
                marks.append(
                    pytest.mark.xfail(raises=KnownMiss, strict=False, reason=record.reason)
                )
            params.append(
                pytest.param(stem, name, record, id=f"{set_id(stem)}-{name}", marks=marks)
            )
    metafunc.parametrize(("stem", "name", "record"), params)


@pytest.mark.corpus
def test_held_out_adapter_keeps_its_label(stem: str, name: str, record: Label) -> None:
    verdicts = audited(stem)
    assert set(verdicts) == set(labels()[stem]), "labels.toml and the set's ADAPTERS differ"
    verdict, error = verdicts[name]
    assert verdict is not Verdict.ERROR, error
    if record.label == "correct":
        assert verdict is Verdict.NO_VIOLATION, "a correct mechanism was called broken"
    elif verdict is not Verdict.VIOLATION:
        if record.known_miss:
            raise KnownMiss(record.reason)
        pytest.fail("a broken mechanism the default run found is no longer found")


# --- the data (fast, in the default run) ------------------------------------------------------


def test_every_set_module_has_labels_and_a_place_in_the_schedule() -> None:
    assert set(labels()) == set(stems())
    assert set(schedule()["sets"]) == set(stems())


@pytest.mark.parametrize("stem", stems(), ids=set_id)
def test_labels_name_every_adapter_once_with_its_claim(stem: str) -> None:
    adapters = load_set(stem)
    names = [a.name for a in adapters]
    assert len(set(names)) == len(names), "two adapters share a name"
    table = labels()[stem]
    assert set(table) == set(names)
    for adapter in adapters:
        record = table[adapter.name]
        assert record.label in LABELS and record.expect in VERDICTS, record
        assert record.claim == check_adapter(adapter).claim.describe(), adapter.name
        if record.label == "correct":
            assert record.expect == "no_violation", adapter.name
        assert bool(record.reason) == record.known_miss, f"{adapter.name}: reason iff known miss"
        if hasattr(adapter, "broken"):  # sets 2 and 6 on say it themselves
            assert bool(adapter.broken) == (record.label == "broken"), adapter.name


def test_every_ci_run_audits_the_core_and_one_share_within_its_minutes() -> None:
    plan = schedule()
    shares = plan["shares"]
    for share in range(shares):
        chosen = select("ci", share, plan)
        minutes = round(sum(plan["sets"][stem]["minutes"] for stem in chosen), 1)  # tenths
        assert minutes <= CI_MINUTES, (share, minutes)
    runs = {entry["run"] for entry in plan["sets"].values()}
    assert runs <= {"core", *range(shares)}, runs
    assert set().union(*(select("ci", k, plan) for k in range(shares))) == set(stems())


def test_a_run_chooses_sets_by_number_and_refuses_unknown_ones() -> None:
    runs = {"held_out_mechanisms": 0, "held_out_mechanisms_9": "core", "held_out_mechanisms_10": 1}
    plan = {"shares": 2, "sets": {stem: {"run": run} for stem, run in runs.items()}}
    assert select("9,1", None, plan) == ["held_out_mechanisms", "held_out_mechanisms_9"]
    assert select("ci", 3, plan) == ["held_out_mechanisms_9", "held_out_mechanisms_10"]
    assert select("core", None, plan) == ["held_out_mechanisms_9"]
    for bad in ("2", "ci", "x"):
        with pytest.raises(ValueError):
            select(bad, None, plan)
