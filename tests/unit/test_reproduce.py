"""Reproducers: every violation of a run gets ``reproduce/<adapter>.py``, which runs without
dp-audit and prints the report's counts and bound, exiting 1 when the violation reproduces."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from dp_audit.cli import main

#: a user's adapter module that imports nothing of dp-audit: float Laplace (broken), a correct
#: discrete one, and a searchable one broken above a sensitivity of 16
USER_MODULE = """
import math
import numpy as np


class FloatLaplace:
    name = "user.float_laplace"
    family = "additive"
    epsilon, delta, sensitivity = 1.0, 0.0, 1.0

    def __init__(self):
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        return float(query) + self._rng.laplace(0.0, 1.0, n)


class CappedLaplace:
    name = "user.capped_laplace"
    family = "additive"
    integer_queries = True

    def __init__(self, epsilon=1.0, sensitivity=1):
        from auditor.core.space import Range  # only the search needs dp-audit, not sampling

        self.space = {"sensitivity": Range(1, 256, log=True, integer=True)}
        self.epsilon, self.delta, self.sensitivity = float(epsilon), 0.0, int(sensitivity)
        self._rng = np.random.default_rng()

    def with_parameters(self, **values):
        return CappedLaplace(**values)

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        p = -math.expm1(-self.epsilon / min(self.sensitivity, 16))
        return int(query) + self._rng.geometric(p, n) - self._rng.geometric(p, n)
"""


def run_isolated(script: Path) -> subprocess.CompletedProcess[str]:
    """Run ``script`` with the interpreter's libraries but without dp-audit importable
    (``-I -S``: no editable-install hook; site-packages added by hand)."""
    site = sysconfig.get_paths()["purelib"]
    code = (
        f"import sys, runpy; sys.path.append({site!r}); "
        "import importlib.util as u; assert u.find_spec('auditor') is None; "
        f"runpy.run_path({str(script)!r}, run_name='__main__')"
    )
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", code],
        capture_output=True,
        text=True,
        cwd=script.parent,
        timeout=300,
    )


@pytest.fixture()
def user_module(tmp_path: Path) -> Path:
    path = tmp_path / "user_mechanisms.py"
    path.write_text(USER_MODULE)
    return path


def test_a_violation_reproduces_without_dp_audit_with_the_reported_counts(
    user_module: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    code = main(["run", "--adapter", f"{user_module}:FloatLaplace", "--budget", "20000",
                 "--out", str(out), "--quiet", "--workers", "1"])  # fmt: skip
    assert code == 1
    (result,) = json.loads((out / "report.json").read_text())["results"]
    script = out / "reproduce" / "user.float_laplace.py"
    done = run_isolated(script)
    assert done.returncode == 1, done.stdout + done.stderr
    c = result["counts"]
    assert f"x : {c['k0']} of {c['n0']} outputs in the event" in done.stdout
    assert f"x': {c['k1']} of {c['n1']} outputs in the event" in done.stdout
    assert f"epsilon >= {result['epsilon_lower_bound']:.6g}" in done.stdout
    assert "VIOLATION REPRODUCED" in done.stdout

    # on demand, the same script
    again = tmp_path / "again.py"
    report = out / "report.json"
    assert main(["reproduce", str(report), "user.float_laplace", "--output", str(again)]) == 0
    assert again.read_text() == script.read_text()


def test_a_conditional_bound_reproduces_from_the_counts_of_poisson_sized_samples(
    user_module: Path, tmp_path: Path
) -> None:
    """``--conditional-test``, fixed-n, a pure epsilon claim: the bound is the conditional
    test's, the script redraws the recorded calls (the sizes drawn) and recomputes it without
    dp-audit."""
    out = tmp_path / "report"
    code = main(["run", "--adapter", f"{user_module}:FloatLaplace", "--budget", "20000",
                 "--no-early-stop", "--conditional-test", "--out", str(out), "--quiet",
                 "--workers", "1"])  # fmt: skip
    assert code == 1
    (result,) = json.loads((out / "report.json").read_text())["results"]
    assert result["estimator"] == "poisson-conditional"
    c, mean = result["counts"], result["poisson_mean"]
    assert c["n0"] != c["n1"] and max(abs(c["n0"] - mean), abs(c["n1"] - mean)) < 6 * mean**0.5
    done = run_isolated(out / "reproduce" / "user.float_laplace.py")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"x : {c['k0']} of {c['n0']} outputs in the event" in done.stdout
    assert f"epsilon >= {result['epsilon_lower_bound']:.6g}" in done.stdout
    assert "conditional test" in (out / "report.md").read_text()


def test_a_script_with_a_wrong_event_does_not_claim_a_reproduction(
    user_module: Path, tmp_path: Path
) -> None:
    # the script decides from its own counts: an event that never fires reproduces nothing
    out = tmp_path / "report"
    main(["run", "--adapter", f"{user_module}:FloatLaplace", "--budget", "20000",
          "--out", str(out), "--quiet", "--workers", "1"])  # fmt: skip
    script = out / "reproduce" / "user.float_laplace.py"
    text = script.read_text().replace("EVENT = _load_event()", "EVENT = lambda x: x != x")
    broken = tmp_path / "broken.py"
    broken.write_text(text)
    done = run_isolated(broken)
    assert done.returncode == 0 and "not reproduced" in done.stdout, done.stdout + done.stderr


def test_a_searched_configuration_reproduces(user_module: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    code = main(["run", "--adapter", f"{user_module}:CappedLaplace", "--search",
                 "--configurations", "8", "--finalists", "1", "--budget", "20000",
                 "--out", str(out), "--quiet", "--workers", "1"])  # fmt: skip
    assert code == 1
    (result,) = json.loads((out / "report.json").read_text())["results"]
    assert result["configuration"]["parameters"]["sensitivity"] > 16
    (script,) = (out / "reproduce").glob("*.py")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert done.returncode == 1, done.stdout + done.stderr
    c = result["counts"]
    assert f"x : {c['k0']} of {c['n0']} outputs in the event" in done.stdout


def test_reproduce_names_what_is_wrong(user_module: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "report"
    main(["run", "--adapter", f"{user_module}:FloatLaplace", "--budget", "20000",
          "--out", str(out), "--quiet", "--workers", "1"])  # fmt: skip
    capsys.readouterr()
    assert main(["reproduce", str(out / "report.json"), "no.such.adapter"]) == 2
    err = capsys.readouterr().err
    assert "no adapter named 'no.such.adapter'" in err and "user.float_laplace" in err
    assert "Traceback" not in err


def test_a_script_that_would_not_compile_is_refused() -> None:
    # status 1 means "reproduced": a broken script must never be written, since Python exits
    # 1 on a syntax error before the script can say otherwise
    from reports.reproducer import NotReproducible, render_reproducer

    result = {
        "adapter": "a", "verdict": "violation", "claim": {"epsilon": 1.0, "delta": 0.0},
        "counts": {"n0": 1, "k0": 1, "n1": 1, "k1": 0}, "alpha": 0.01, "alpha_split": 0.5,
        "epsilon_lower_bound": 2.0, "event": "e", "attack": "x",
        "replay": {"event_code": "def event(x):\n    return x >", "calls": [[[1, 2]], [[1, 3]]],
                   "queries": ["0.0", "1.0"]},
    }  # fmt: skip
    with pytest.raises(NotReproducible, match="does not compile"):
        render_reproducer(result, "def sample(query, n):\n    return [query] * n\n")
    result["replay"]["event_code"] = "import numpy as np\n\ndef event(x):\n    return x > 0\n"
    assert "EVENT = _load_event()" in render_reproducer(result, "def sample(q, n):\n    pass\n")


#: a dataset sum that clamps to [-8, 4] but declares sensitivity 4 (its true one is 8), with
#: the noiseless probe; FIXED clamps to [-4, 4], where 4 is right
SENSITIVITY_MODULE = """
import numpy as np

LOW = -8


class UnderDeclaredSum:
    name = "user.under_declared_sum"
    input_kind, output_kind = "dataset", "integer"
    neighbours, domain = "add_remove", (-8.0, 4.0)
    epsilon, delta, sensitivity = 1.0, 0.0, 4

    def __init__(self):
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def release_without_noise(self, query):
        return int(np.clip(np.floor(np.asarray(query, float)), LOW, 4).astype(np.int64).sum())

    def sample(self, query, n):
        a = np.exp(-self.epsilon / self.sensitivity)
        noise = self._rng.geometric(1 - a, n) - self._rng.geometric(1 - a, n)
        return self.release_without_noise(query) + noise
"""


def test_a_white_box_sensitivity_finding_gets_a_script_that_calls_the_probe(
    tmp_path: Path,
) -> None:
    module = tmp_path / "sums.py"
    module.write_text(SENSITIVITY_MODULE)
    out = tmp_path / "report"
    code = main(["run", "--adapter", f"{module}:UnderDeclaredSum", "--attack", "sensitivity",
                 "--out", str(out), "--quiet", "--workers", "1"])  # fmt: skip
    assert code == 1
    (result,) = json.loads((out / "report.json").read_text())["results"]
    assert result["estimator"] == "white-box-sensitivity"
    assert result["replay"]["probe"] == {"declared": "4", "difference": "8"}
    script = out / "reproduce" / "user.under_declared_sum.py"
    assert result["reproducer"] == "reproduce/user.under_declared_sum.py"
    assert "reproduce/user.under_declared_sum.py" in (out / "report.md").read_text()
    done = run_isolated(script)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "difference 8 (report: 8); declared sensitivity 4" in done.stdout
    assert "VIOLATION REPRODUCED" in done.stdout

    # the maintainer's fix (clamp to [-4, 4]) makes the same script pass; the edit keeps the
    # file's size and may fall in the same second as the first run, whose cached bytecode
    # Python would then still trust: drop it, as any later edit would
    module.write_text(SENSITIVITY_MODULE.replace("LOW = -8", "LOW = -4"))
    shutil.rmtree(tmp_path / "__pycache__", ignore_errors=True)
    done = run_isolated(script)
    assert done.returncode == 0 and "not reproduced" in done.stdout, done.stdout + done.stderr


def test_the_reports_name_a_script_only_when_one_was_written(tmp_path: Path, capsys) -> None:
    # a claim kind the scripts cannot recompute: the violation stands, no script, no pointer
    module = tmp_path / "rdp.py"
    module.write_text(USER_MODULE.replace(
        '    family = "additive"\n    epsilon, delta, sensitivity = 1.0, 0.0, 1.0',
        '    family = "additive"\n    claim = "rdp:2=0.01"\n    sensitivity = 1.0',
    ))  # fmt: skip
    out = tmp_path / "report"
    code = main(["run", "--adapter", f"{module}:FloatLaplace", "--budget", "20000",
                 "--out", str(out), "--workers", "1"])  # fmt: skip
    captured = capsys.readouterr()
    printed = captured.out + captured.err
    (result,) = json.loads((out / "report.json").read_text())["results"]
    assert code == 1 and result["verdict"] == "violation", printed
    assert "no reproducer: user.float_laplace" in printed
    assert "reproducer" not in result and not (out / "reproduce").exists()
    assert "reproduce:" not in (out / "report.md").read_text()
    assert "python reproduce/" not in (out / "report.html").read_text()


HISTOGRAM_MODULE = """
import numpy as np


class EdgeEndsHistogram:
    # how many of 10 nodes have degree 0, 1, 2 or more; declared for one end of an edge only
    input_kind, output_kind, output_length = "dataset", "integer", 3
    columns, domain, neighbours = 2, [(0, 9), (0, 9)], "add_remove"
    epsilon, sensitivity, norm = 1.0, 2, "l1"
    name = "user.edge_ends_histogram"

    def __init__(self):
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def release_without_noise(self, query):
        edges = np.asarray(query, dtype=np.int64).reshape(-1, 2)
        degree = np.bincount(edges.ravel(), minlength=10)
        return np.bincount(np.minimum(degree, 2), minlength=3)

    def sample(self, query, n):
        noise = self._rng.laplace(0.0, self.sensitivity / self.epsilon, (n, 3))
        return self.release_without_noise(query) + np.round(noise).astype(np.int64)
"""


def test_a_vector_sensitivity_finding_reproduces_in_its_norm(tmp_path: Path) -> None:
    module = tmp_path / "histograms.py"
    module.write_text(HISTOGRAM_MODULE)
    out = tmp_path / "report"
    code = main(["run", "--adapter", f"{module}:EdgeEndsHistogram", "--attack",
                 "noiseless-search", "--out", str(out), "--quiet", "--workers", "1"])  # fmt: skip
    assert code == 1
    (result,) = json.loads((out / "report.json").read_text())["results"]
    assert result["estimator"] == "white-box-sensitivity"
    assert result["replay"]["probe"] == {"declared": "2", "difference": "4", "norm": "l1"}
    done = run_isolated(out / "reproduce" / "user.edge_ends_histogram.py")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "difference 4 in l1 (report: 4); declared sensitivity 2" in done.stdout
    assert "VIOLATION REPRODUCED" in done.stdout
