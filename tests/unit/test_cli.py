"""The command line as CI scripts and new users meet it: exit codes, files, one-line errors."""

import json
import textwrap

import pytest
from engine_fixtures import strip_timing

from dp_audit.cli import main

TEXTBOOK = textwrap.dedent(
    """
    from auditor.adapters.textbook import TextbookLaplace
    laplace = TextbookLaplace(epsilon=1.0, name="user.textbook_laplace")
    """
)
GOOD = textwrap.dedent(
    """
    from audit_fixtures import GeometricLaplace
    exact = GeometricLaplace(epsilon=1.0, name="user.exact")
    """
)
NEGATIVE = textwrap.dedent(
    """
    class Bad:
        name = "user.negative"
        family = "additive"
        epsilon = -1
        sensitivity = 1.0
        def sample(self, q, n):
            return [0.0] * n
    bad = Bad()
    """
)


@pytest.fixture
def write(tmp_path):
    def _write(name, text):
        path = tmp_path / name
        path.write_text(text)
        return path

    return _write


def run(tmp_path, *args):
    out = tmp_path / "out"
    code = main(["run", "--quiet", "--out", str(out), *args])
    report = (
        json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else None
    )
    return code, report


def test_textbook_laplace_is_a_certified_violation(tmp_path, write):
    f = write("textbook.py", TEXTBOOK)
    code, report = run(tmp_path, "--adapter", f"{f}:laplace", "--seed", "3")
    assert code == 1
    (result,) = report["results"]
    assert result["verdict"] == "violation"
    assert result["epsilon_lower_bound"] >= 5
    assert result["attack"] and result["event"] and result["queries"] and result["counts"]["n0"] > 0
    assert (tmp_path / "out" / "report.md").read_text().count("VIOLATION") >= 1


def test_exact_mechanism_passes(tmp_path, write):
    f = write("good.py", GOOD)
    code, report = run(tmp_path, "--adapter", f"{f}:exact", "--budget", "20000")
    assert code == 0
    assert report["results"][0]["verdict"] == "no_violation"


def test_same_seed_same_report_apart_from_timings(tmp_path, write):
    f = write("textbook.py", TEXTBOOK)

    reports = []
    for i in range(2):
        out = tmp_path / f"o{i}"
        main(
            [
                "run",
                "--quiet",
                "--out",
                str(out),
                "--adapter",
                f"{f}:laplace",
                "--seed",
                "11",
                "--budget",
                "20000",
            ]
        )
        reports.append(strip_timing(json.loads((out / "report.json").read_text())))
    assert reports[0] == reports[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--adapter", "nosuch:thing"], "cannot import module 'nosuch'"),
        (["run", "--budget", "ten"], "budget"),
        (["run", "--alpha", "1.5"], "alpha"),
        (["run", "--attack", "nope"], "unknown attack 'nope'"),
        (["frobnicate"], "invalid choice"),
        (["report", "no/such/report.json"], "cannot read"),
        (
            ["run", "--adapter", "textbook.laplace"],
            "did you mean 'textbook.laplace(eps=1)', 'textbook.laplace_inverse_cdf(eps=1)'",
        ),
        (["run", "--adapter", "nosuch.*"], "no built-in adapter or entry point is named"),
        (["run", "--budget", "-5"], "expected a budget >= 100, got '-5'"),
        (["run", "--budget", "50"], "expected a budget >= 100, got '50'"),
        (
            ["run", "--adapter", "my_mechanism.py"],
            "names its adapter too: 'my_mechanism.py:adapter'",
        ),
    ],
)
def test_usage_errors_exit_2_with_one_line(capsys, args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default --out is relative: never the repository's
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_misspelled_name_is_not_blamed_on_a_missing_library(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", "--adapter", "textbok.laplace(eps=1)"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'textbook.laplace(eps=1)'" in err and "not available" not in err


def test_a_claim_syntax_error_keeps_its_table_as_lines(capsys):
    assert main(["run", "--claim", "foo:bar=1"]) == 2
    err = capsys.readouterr().err
    assert "unknown kind 'foo'" in err and "\\x0a" not in err
    assert "\n  pure:eps=1" in err and "Traceback" not in err


def test_negative_epsilon_adapter_is_an_error_verdict(tmp_path, write, capsys):
    f = write("neg.py", NEGATIVE)
    code, report = run(tmp_path, "--adapter", f"{f}:bad")
    assert code == 2
    (result,) = report["results"]
    assert result["verdict"] == "error" and "epsilon" in result["error"]


def test_builtins_are_chosen_by_name_or_wildcard_and_loaded_by_their_group(tmp_path):
    code, report = run(
        tmp_path,
        "--adapter",
        "textbook.laplace(eps=1)",
        "--adapter",
        "reference.discrete_laplace*",
        "--adapter",
        "textbook.laplace*",  # names textbook.laplace(eps=1) again: audited once
        "--attack",
        "lsb-laplace",
        "--budget",
        "5000",
    )
    names = [r["adapter"] for r in report["results"]]
    assert names == [
        "textbook.laplace(eps=1)",
        "reference.discrete_laplace",
        "textbook.laplace_inverse_cdf(eps=1)",
    ]
    verdicts = {r["adapter"]: r["verdict"] for r in report["results"]}
    assert verdicts["textbook.laplace(eps=1)"] == "violation" and code == 1
    assert all(not r["notes"] for r in report["results"])  # sampled in workers, by target


def test_list_shows_builtins_and_attacks(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "textbook.laplace" in out and "lsb-laplace" in out and "black-box" in out


def test_report_command_renders_markdown(tmp_path, write):
    f = write("textbook.py", TEXTBOOK)
    run(tmp_path, "--adapter", f"{f}:laplace", "--budget", "5000")
    target = tmp_path / "again.md"
    assert (
        main(
            [
                "report",
                str(tmp_path / "out" / "report.json"),
                "--format",
                "md",
                "--output",
                str(target),
            ]
        )
        == 0
    )
    assert "dp-audit report" in target.read_text()


def test_no_early_stop_spends_the_budget_for_a_stronger_bound(tmp_path, write):
    f = write("textbook.py", TEXTBOOK)
    _, early = run(
        tmp_path, "--adapter", f"{f}:laplace", "--attack", "lsb-laplace", "--budget", "100000"
    )
    _, full = run(
        tmp_path,
        "--adapter",
        f"{f}:laplace",
        "--attack",
        "lsb-laplace",
        "--budget",
        "100000",
        "--no-early-stop",
    )
    assert full["results"][0]["samples"] > early["results"][0]["samples"]
    assert (
        full["results"][0]["epsilon_lower_bound"] > early["results"][0]["epsilon_lower_bound"] + 2
    )


def test_log_output_has_one_verdict_line_per_adapter(tmp_path, write, capsys):
    f = write("textbook.py", TEXTBOOK)
    main(["run", "--out", str(tmp_path / "o"), "--adapter", f"{f}:laplace", "--budget", "5000"])
    err = capsys.readouterr().err
    assert err.count("user.textbook_laplace: epsilon") == 1


SLOW = textwrap.dedent(
    """
    import time
    import numpy as np
    from audit_fixtures import GeometricLaplace

    class Slow(GeometricLaplace):
        def sample(self, q, n):
            time.sleep(0.02)
            return super().sample(q, n)

    slow = Slow(epsilon=1.0, name="user.slow")
    """
)


def test_a_log_hears_from_a_run_that_prints_nothing_for_a_while(
    tmp_path, write, capsys, monkeypatch
):
    """Outside a terminal there is no bar: a long first adapter still shows signs of life."""
    monkeypatch.setattr("dp_audit.progress.LOG_INTERVAL", 0.2)
    f = write("slow.py", SLOW)
    main(["run", "--out", str(tmp_path / "o"), "--adapter", f"{f}:slow", "--budget", "5000"])
    err = capsys.readouterr().err
    assert "besides screening); last sampled: user.slow" in err
    assert err.count("user.slow: epsilon") == 1


def test_a_closed_pipe_is_not_a_traceback():
    """``dp-audit list | head -1``: the reader is gone before dp-audit writes."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "dp_audit", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0
    assert "Traceback" not in err and "BrokenPipe" not in err, err


CHECKED = textwrap.dedent(
    """
    import sys
    import numpy as np
    from audit_fixtures import GeometricLaplace

    class Wide:
        family = "additive"
        epsilon = 1.0
        sensitivity = 1.0
        def __init__(self, name):
            self.name = name
        def sample(self, q, n):
            return np.zeros((n, 2))

    class Exits(Wide):
        def sample(self, q, n):
            sys.exit(0)

    ADAPTERS = [GeometricLaplace(epsilon=1.0, name="user.exact"), Wide("user.wide"),
                Exits("user.exits")]
    """
)


def test_check_names_what_is_wrong_with_each_adapter_without_an_audit(tmp_path, write, capsys):
    f = write("checked.py", CHECKED)
    code = main(["check", "--adapter", f"{f}:ADAPTERS", "--workers", "1"])
    out = capsys.readouterr().out
    assert code == 2
    lines = {line.split()[1].rstrip(":"): line for line in out.splitlines() if "  " in line}
    assert lines["user.exact"].startswith("ok") and "1000 outputs" in lines["user.exact"]
    assert lines["user.wide"].startswith("error") and "shape (1000, 2)" in lines["user.wide"]
    assert lines["user.exits"].startswith("error") and "SystemExit" in lines["user.exits"]
    assert "1 of 3 adapters follow the contract" in out


def test_check_of_good_adapters_exits_0(tmp_path, write, capsys):
    f = write("good.py", GOOD)
    assert main(["check", "--adapter", f"{f}:exact", "--workers", "1"]) == 0
    assert capsys.readouterr().out.startswith("ok")


def test_check_prints_the_claim_of_an_adapter_that_declares_only_claim(tmp_path, write, capsys):
    f = write(
        "zcdp.py",
        GOOD.replace("exact = GeometricLaplace(epsilon=1.0,", "exact = GeometricLaplace(")
        + "del exact.epsilon\nexact.claim = 'zcdp:rho=0.5'\n",
    )
    assert main(["check", "--adapter", f"{f}:exact", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok") and "0.5-zCDP" in out and "eps=" not in out


def test_check_reports_a_target_with_no_adapter_and_checks_the_others(tmp_path, write, capsys):
    f = write("good.py", GOOD)
    bad = write("bad.py", "nothing = 3\n")
    code = main(
        ["check", "--adapter", f"{bad}:nothing", "--adapter", f"{f}:exact", "--workers", "1"]
    )
    out = capsys.readouterr().out
    assert code == 2
    assert out.startswith("error") and "holds no adapter" in out.splitlines()[0]
    assert "\nok " in out and "1 target(s) could not be loaded" in out


def test_version_prints_the_installed_version_and_exits_0(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"dp-audit {version('dp-audit')}"
