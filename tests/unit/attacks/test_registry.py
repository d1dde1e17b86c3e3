"""The attack registry: default attacks, opt-in attacks, and what `dp-audit list` shows."""

import pytest

from attacks import ATTACKS, DEFAULT_ATTACKS, OPT_IN, available, default_attacks, load_attacks
from auditor.core.errors import InvalidArgument
from dp_audit.cli import main


def test_defaults_exclude_opt_in_attacks():
    names = [a.name for a in load_attacks(None)]
    assert names == DEFAULT_ATTACKS == default_attacks()
    assert "timing" in OPT_IN and "timing" not in names
    assert {"black-box", "sensitivity"} <= set(names)
    assert set(available()) == set(ATTACKS) == set(names) | set(OPT_IN)


def test_opt_in_attack_loads_by_name():
    (timing,) = load_attacks(["timing"])
    assert timing.name == "timing"


def test_every_registered_attack_loads_under_its_own_name():
    assert [a.name for a in load_attacks(available())] == available()


def test_unknown_attack_is_rejected_with_the_known_names():
    with pytest.raises(InvalidArgument, match="unknown attack 'nope'.*timing"):
        load_attacks(["nope"])


def test_list_shows_opt_in_attacks_marked(capsys, monkeypatch):
    # no library adapters: this test is about the attack listing
    monkeypatch.setattr("dp_audit.loading.load_builtins", lambda opt_in=False: [])
    monkeypatch.setattr("dp_audit.loading.load_entry_point_adapters", lambda: [])
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    timing = [line for line in out.splitlines() if line.strip().startswith("timing ")]
    assert len(timing) == 1 and "opt-in" in timing[0]
    sensitivity = [line for line in out.splitlines() if line.strip().startswith("sensitivity ")]
    assert len(sensitivity) == 1 and "opt-in" not in sensitivity[0]
