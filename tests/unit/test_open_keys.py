"""Open key sets (``output_kind = "keyed"``): each output is a mapping key -> value (or a frame)
whose keys vary; the encoding keeps which keys appeared (NaN: absent; the last column counts
released keys outside the declared ones), so "key k released" is an event like any other.

A partition selection written with its exact threshold passes; the same with its threshold off,
so that the added user's key appears with probability 0.036 (δ = 1e-5), is caught at a budget
of 20,000, also when that key is not one of the declared keys (it then shows only in the
"other keys" column).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from attacks import load_attacks
from auditor.core.configs import AuditConfig
from auditor.core.errors import AdapterContractError, AdapterOutputError
from auditor.core.kinds import OutputKind
from auditor.core.results import Verdict
from auditor.core.spec import check_adapter
from auditor.engine.runner import run_audit
from auditor.engine.sampling import draw

KEYS = [f"k{j}" for j in range(8)]


def threshold(epsilon: float, delta: float) -> int:
    """The least T with P[Z >= T - 1] = p^(T-1) / (1 + p) <= delta (Z two-sided geometric,
    p = e^-epsilon): a key held by one user is then released with probability <= delta."""
    p = math.exp(-epsilon)
    t = 1
    while p ** (t - 1) / (1 + p) > delta:
        t += 1
    return t


class PartitionSelection:
    """Counts of the keys present in the data (records: one user's key, 0..7) plus two-sided
    geometric noise of rate epsilon; a key is released, with its noisy count, when that count
    reaches the threshold.  (epsilon, delta)-DP at the exact threshold (13 for (1, 1e-5));
    ``offset`` lowers it (by 9: a lone user's key appears with probability e^-3 / 1.37)."""

    input_kind, domain, neighbours = "dataset", (0, 7), "add_remove"
    output_kind, value_kind = "keyed", "integer"

    def __init__(self, offset: int = 0, keys: list[str] = KEYS) -> None:
        self.epsilon, self.delta = 1.0, 1e-5
        self.threshold = threshold(self.epsilon, self.delta) - offset
        self.keys = keys
        self.name = f"test.partition_selection(T={self.threshold}, {len(keys)} keys)"
        self._rng = np.random.default_rng(0)

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n: int) -> list[dict[str, int]]:
        counts = np.bincount(np.asarray(query, dtype=np.int64), minlength=8)
        present = np.flatnonzero(counts)
        p = -math.expm1(-self.epsilon)
        shape = (n, len(present))
        noisy = counts[present] + self._rng.geometric(p, shape) - self._rng.geometric(p, shape)
        return [
            {KEYS[k]: int(v) for k, v in zip(present, row, strict=True) if v >= self.threshold}
            for row in noisy
        ]


class Fixed:
    """Hands back ``out`` whatever it is asked (the encoding's tests)."""

    input_kind, domain, neighbours, epsilon = "dataset", (0, 7), "add_remove", 1.0
    output_kind, name = "keyed", "test.fixed_keys"

    def __init__(self, out, **attrs) -> None:
        self.out = out
        self.keys = ["a", "b"]
        for name, value in attrs.items():
            setattr(self, name, value)

    def sample(self, query, n: int):
        return self.out


def test_the_threshold_is_the_least_with_a_lone_key_below_delta():
    assert threshold(1.0, 1e-5) == 13
    p = math.exp(-1.0)
    assert p**12 / (1 + p) <= 1e-5 < p**11 / (1 + p)


def test_an_open_key_output_is_a_nullable_vector_with_a_column_for_other_keys():
    spec = check_adapter(PartitionSelection())
    assert spec.kind_label == "dataset → keyed(integer)[8 keys + other]"
    assert spec.output.kind is OutputKind.INTEGER and spec.output.nullable
    assert spec.output.width(None) == 9 and spec.family is None
    out = draw(spec, np.array([0] * 30 + [3] * 40 + [5]), 2000, 0)
    assert out.shape == (2000, 9)
    assert not np.isnan(out[:, 0]).any() and not np.isnan(out[:, 3]).any()
    assert np.isnan(out[:, [1, 2, 4, 6, 7]]).all()  # keys nobody holds: never released
    assert np.isnan(out[:, 5]).all()  # one user: P = 4.5e-6 per output (2000: p < 0.01)
    assert (out[:, 8] == 0).all()
    assert abs(out[:, 0].mean() - 30) < 6 * math.sqrt(2 * p_var(1.0) / 2000)


def p_var(epsilon: float) -> float:
    """The variance of one geometric draw of success probability 1 - e^-epsilon."""
    q = math.exp(-epsilon)
    return q / (1 - q) ** 2


def test_mappings_and_frames_are_encoded_alike_and_undeclared_keys_are_counted():
    outputs = [{"a": 3, "z": 1}, {}, {"b": 2.5, "y": 0, "z": 4}]
    expected = [[3.0, np.nan, 1.0], [np.nan, np.nan, 0.0], [np.nan, 2.5, 2.0]]
    spec = check_adapter(Fixed(outputs))
    assert spec.output.kind is OutputKind.REAL  # value_kind defaults to real
    np.testing.assert_array_equal(draw(spec, np.array([1]), 3, 0), expected)
    frames = [pd.DataFrame({"key": list(o), "v": list(o.values())}) for o in outputs]
    framed = check_adapter(Fixed(frames, key_column="key", value_column="v"))
    np.testing.assert_array_equal(draw(framed, np.array([1]), 3, 0), expected)


@pytest.mark.parametrize(
    ("out", "attrs", "message"),
    [
        ([{"a": 1}, {"a": 2}], {}, "returned 2 outputs, expected 3"),
        (np.zeros((3, 3)), {}, "one mapping"),
        ({"a": 1}, {}, "expected a list of 3 outputs"),
        ([{"a": float("nan")}] * 3, {}, "must be finite"),
        ([{"a": "x"}] * 3, {}, "not a number"),
        ([{"a": 1.5}] * 3, {"value_kind": "integer"}, "non-integer"),
        ([pd.DataFrame({"key": ["a", "a"], "v": [1, 2]})] * 3, {"key_column": "key",
          "value_column": "v"}, "released key 'a' twice"),
        ([pd.DataFrame({"key": ["a"]})] * 3, {"key_column": "key", "value_column": "v"},
         "has no columns 'key' and 'v'"),
        ([pd.DataFrame({"key": ["a"]})] * 3, {}, "declare key_column and value_column"),
    ],
)  # fmt: skip
def test_a_malformed_output_is_an_error_naming_the_problem(out, attrs, message):
    spec = check_adapter(Fixed(out, **attrs))
    with pytest.raises(AdapterOutputError, match=message):
        draw(spec, np.array([1]), 3, 0)


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ({"keys": None}, "needs keys"),
        ({"keys": "ab"}, "needs keys"),
        ({"keys": []}, "1 to 4096 distinct keys"),
        ({"keys": ["a", "a"]}, "listed twice"),
        ({"keys": [["a"]]}, "hashable"),
        ({"value_kind": "index"}, "'real' or 'integer'"),
        ({"key_column": "key"}, "go together"),
    ],
)
def test_a_wrong_declaration_names_the_attribute(attrs, message):
    with pytest.raises(AdapterContractError, match="output_kind='keyed'") as info:
        check_adapter(Fixed([], **attrs))
    assert message in str(info.value)


def test_exact_threshold_passes_and_a_low_one_is_caught_even_outside_the_declared_keys():
    """Budget 20,000, seed 0.  The low threshold's leak is a key one side never releases
    (probability 0.036 against 0), certified above 4 for a claim of 1; with keys k4..k7
    declared, the added user's key (the lower bound, k0) is counted only in the last column."""
    adapters = [
        PartitionSelection(),
        PartitionSelection(offset=9),
        PartitionSelection(offset=9, keys=KEYS[4:]),
    ]
    report = run_audit(adapters, load_attacks(None), AuditConfig(budget=20_000, seed=0))
    correct, low, low_undeclared = report.results
    assert correct.verdict is Verdict.NO_VIOLATION and correct.error is None, correct.to_dict()
    for broken in (low, low_undeclared):
        assert broken.verdict is Verdict.VIOLATION, broken.to_dict()
        assert broken.epsilon_lower_bound > 2, broken.to_dict()


class Standalone(Fixed):
    """An open-key adapter with its own standalone source, as a reproducer copies it."""

    def reproducer_source(self) -> str:
        return "def sample(query, n):\n    return [{'a': 2, 'q': 1}] * n\n"


def test_a_reproducer_encodes_open_key_outputs_as_the_audit_did():
    from dp_audit.reproduce import mechanism_source

    source = mechanism_source(Standalone([]), None)
    scope: dict = {"np": np}
    exec(compile(source, "reproducer", "exec"), scope)  # noqa: S102 - the script's own code
    np.testing.assert_array_equal(scope["sample"](None, 2), [[2.0, np.nan, 1.0]] * 2)
    assert "encode_keyed(_sample_keyed(query, n)" in mechanism_source(Fixed([]), "m:a")


def test_the_example_in_systems_analytics_runs_and_says_what_the_page_says():
    """The page's table: T=13 no violation (0.663), T=4 a violation (4.35), budget 20,000,
    seed 0 (every draw seeded: the numbers replay exactly)."""
    import contextlib
    import io
    import re
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "systems-analytics.md"
    (block,) = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block, "systems-analytics.md", "exec"), {"__name__": "__main__"})  # noqa: S102
    exact, low = (line.split() for line in printed.getvalue().splitlines())
    assert exact[1:] == ["no_violation", "0.663"], exact
    assert low[1:] == ["violation", "4.35"], low


#: the low threshold as a user's module that imports nothing of dp-audit
USER_MODULE = """
import math
import numpy as np


class LowThreshold:
    name = "user.low_threshold"
    input_kind, domain, neighbours = "dataset", (0, 3), "add_remove"
    output_kind, value_kind, keys = "keyed", "integer", ["a", "b", "c", "d"]
    epsilon, delta = 1.0, 1e-5

    def __init__(self):
        self._rng = np.random.default_rng()

    def seed(self, entropy):
        self._rng = np.random.default_rng(entropy)

    def sample(self, query, n):
        counts = np.bincount(np.asarray(query, dtype=np.int64), minlength=4)
        present = np.flatnonzero(counts)
        p, shape = -math.expm1(-self.epsilon), (n, len(present))
        noisy = counts[present] + self._rng.geometric(p, shape) - self._rng.geometric(p, shape)
        return [{self.keys[k]: int(v) for k, v in zip(present, row) if v >= 4} for row in noisy]
"""


def test_an_open_key_finding_reproduces_without_dp_audit(tmp_path):
    """The script encodes the mappings as the audit did and replays the seeded draws: the
    same counts, and NaN ("not released") is not taken for a non-integer."""
    import json
    import subprocess
    import sys
    import sysconfig

    from dp_audit.cli import main

    module = tmp_path / "user_keys.py"
    module.write_text(USER_MODULE)
    out = tmp_path / "report"
    code = main(["run", "--adapter", f"{module}:LowThreshold", "--budget", "20000",
                 "--out", str(out), "--quiet", "--workers", "1"])  # fmt: skip
    assert code == 1
    (result,) = json.loads((out / "report.json").read_text())["results"]
    script = out / "reproduce" / "user.low_threshold.py"
    site = sysconfig.get_paths()["purelib"]
    isolated = (
        f"import sys, runpy; sys.path.append({site!r}); "
        "import importlib.util as u; assert u.find_spec('auditor') is None; "
        f"runpy.run_path({str(script)!r}, run_name='__main__')"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", isolated],
        capture_output=True, text=True, cwd=script.parent, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    c = result["counts"]
    assert f"x : {c['k0']} of {c['n0']} outputs in the event" in done.stdout
    assert "VIOLATION REPRODUCED" in done.stdout
