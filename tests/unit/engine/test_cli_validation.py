"""Every execution option of ``dp-audit run`` is validated: one line on stderr, exit 2."""

from __future__ import annotations

import pytest

from dp_audit.cli import main


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--workers", "0"], "--workers"),
        (["--workers", "two"], "--workers"),
        (["--workers", "1.5"], "--workers"),
        (["--workers", "100000"], "--workers"),
        (["--timeout", "0"], "--timeout"),
        (["--timeout", "-2"], "--timeout"),
        (["--timeout", "nan"], "--timeout"),
        (["--timeout", "inf"], "--timeout"),
        (["--timeout", "soon"], "--timeout"),
        (["--backend", "threads"], "--backend"),
        (["--scheduler", "tcp://127.0.0.1:1"], "needs --backend dask"),
        (["--budget", "50"], "expected a budget >= 100, got '50'"),
        (["--budget", "1e2.5"], "--budget"),
        (["--budget", "-5"], "--budget"),
        (["--alpha", "0"], "--alpha"),
        (["--alpha", "1.5"], "--alpha"),
        (["--alpha", "nan"], "--alpha"),
        (["--seed", "-1"], "--seed"),
        (["--seed", "x"], "--seed"),
    ],
)
def test_bad_run_options_are_one_line_and_exit_2(capsys, tmp_path, args, fragment):
    code = main(["run", "--quiet", "--out", str(tmp_path / "out"), *args])
    err = capsys.readouterr().err
    assert code == 2
    assert fragment in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_out_must_not_be_a_file(capsys, tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("x")
    assert main(["run", "--quiet", "--out", str(target)]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_budget_accepts_scientific_notation_for_whole_numbers(tmp_path):
    code = main(
        [
            "run",
            "--quiet",
            "--backend",
            "inline",
            "--adapter",
            "auditor.adapters.textbook:builtin_adapters",
            "--attack",
            "lsb-laplace",
            "--budget",
            "2e3",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    assert code in (0, 1)
    assert (tmp_path / "out" / "report.json").exists()


def test_quiet_leaves_the_calling_process_s_warnings_as_they_were(tmp_path, monkeypatch):
    # --quiet silences warnings for the run (here and in workers); a process that calls main
    # and goes on (a test suite, a notebook) must get its own settings back
    import os
    import warnings

    monkeypatch.delenv("PYTHONWARNINGS", raising=False)
    filters = list(warnings.filters)
    target = tmp_path / "file.txt"
    target.write_text("x")
    assert main(["run", "--quiet", "--out", str(target)]) == 2
    assert "PYTHONWARNINGS" not in os.environ
    assert warnings.filters == filters
