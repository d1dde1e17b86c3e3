"""How a worker process loads adapters from a target: once per target and run, not per adapter."""

from __future__ import annotations

import textwrap

import pytest

from auditor.core.spec import check_adapter
from auditor.core.targets import load_target
from auditor.engine.backends import worker
from auditor.engine.backends.worker import AdapterSource, fingerprint

TARGET_FILE = """
    from pathlib import Path

    from bench.correct_mechanisms import DiscreteLaplace

    with open(Path(__file__).with_name("loads.txt"), "a") as log:  # one line per import
        log.write("loaded\\n")

    ADAPTERS = [DiscreteLaplace(1.0, name="test.first"), DiscreteLaplace(1.0, name="test.second")]
"""


@pytest.fixture
def target(tmp_path, monkeypatch):
    """A file target with two adapters that logs each time it is imported; a fresh worker."""
    (tmp_path / "two.py").write_text(textwrap.dedent(TARGET_FILE))
    monkeypatch.setattr(worker, "_SPECS", {})
    monkeypatch.setattr(worker, "_TARGETS", {}, raising=False)
    return f"{tmp_path / 'two.py'}:ADAPTERS", tmp_path / "loads.txt"


def _sources(target: str) -> dict[str, AdapterSource]:
    specs = [check_adapter(a) for a in load_target(target)]
    return {s.name: AdapterSource("target", target, s.name, fingerprint(s)) for s in specs}


def test_a_target_naming_two_adapters_is_imported_once_for_both(target):
    path, log = target
    sources = _sources(path)
    log.unlink()  # the main process's own import above
    for name, source in sources.items():
        spec, fresh = worker.load(name, source)
        assert fresh and spec.name == name
    assert log.read_text().splitlines() == ["loaded"]


def test_a_new_run_of_a_long_lived_worker_imports_the_target_afresh(target):
    """Under Dask a key ends in its run's tag; an edited target must be read again."""
    path, log = target
    sources = _sources(path)
    log.unlink()
    worker.load("test.first [run1]", sources["test.first"])
    worker.load("test.second [run1]", sources["test.second"])
    worker.load("test.first [run2]", sources["test.first"])
    assert log.read_text().splitlines() == ["loaded", "loaded"]
