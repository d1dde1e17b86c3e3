"""The texts and numbers every claim kind gives, held against a snapshot taken before the
kinds shared their code (issue 51): describe, to_dict, parsing and constructor errors, the
registry entries and the curve numerics must stay byte-identical.

Regenerate only on purpose: ``python tests/unit/test_claim_texts.py > tests/unit/claim_kinds_golden.json``.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from auditor.core.claim_kinds import (
    CLAIM_SYNTAX,
    REGISTRY,
    GaussianDP,
    PrivacyProfile,
    RenyiDP,
    TradeOffDP,
    ZeroConcentratedDP,
    claim_from_dict,
    claim_to_dict,
    parse_claim,
)
from auditor.core.claims import PrivacyClaim
from auditor.core.errors import InvalidArgument

GOLDEN = Path(__file__).with_name("claim_kinds_golden.json")


def f_curve(a):
    return np.maximum(0.0, 1.0 - np.asarray(a) - 0.2) ** 1.5


claims = {
    "gdp1": lambda: GaussianDP(1.0),
    "gdp2": lambda: GaussianDP(0.5, 1e-5),
    "zcdp1": lambda: ZeroConcentratedDP(0.25),
    "zcdp2": lambda: ZeroConcentratedDP(2, 1e-7),
    "rdp1": lambda: RenyiDP({2: 0.5, 4: 1.2}),
    "rdp2": lambda: RenyiDP({2: 0.5, 4: math.inf, 8: 3.0}, name="x", scale=2),
    "rdp3": lambda: RenyiDP(lambda a: a * 0.125, name="gauss"),
    "rdp4": lambda: RenyiDP(lambda a: a * 0.125),
    "prof1": lambda: PrivacyProfile({0.5: 1e-3, 1: 1e-5}),
    "prof2": lambda: PrivacyProfile(lambda e: math.exp(-3 * e) * 0.1, name="p", scale=1.5),
    "prof3": lambda: PrivacyProfile(lambda e: math.exp(-3 * e) * 0.1),
    "fdp1": lambda: TradeOffDP({0.01: 0.9, 0.1: 0.6}),
    "fdp2": lambda: TradeOffDP(f_curve, name="g", scale=0.5),
    "fdp3": lambda: TradeOffDP(f_curve),
    "pure": lambda: PrivacyClaim(1.0),
    "approx": lambda: PrivacyClaim(1.0, 1e-5),
}


def snapshot() -> dict[str, Any]:
    out: dict[str, Any] = {"syntax": CLAIM_SYNTAX}
    for key, make in claims.items():
        c = make()
        row = {
            "describe": c.describe(),
            "dict": json.dumps(claim_to_dict(c)),
            "repr_kind": c.kind,
            "parameter": c.parameter,
            "value": repr(c.value),
            "epsilon": repr(c.epsilon),
            "delta": repr(c.delta),
            "tradeoff": repr(np.asarray(c.tradeoff([0.0, 1e-6, 0.01, 0.3, 0.9, 1.0])).tolist()),
        }
        for d in (1e-9, 1e-5, 0.01, 0.5):
            row[f"eps@{d}"] = repr(c.epsilon_for_delta(d))
        for e in (0.0, 0.3, 1.0, 5.0):
            row[f"delta@{e}"] = repr(c.delta_for_epsilon(e))
        for p0, p1 in ((0.6, 0.1), (0.9, 0.01), (0.5, 0.5), (1.0, 0.2), (0.3, 0.0), (0.999, 1e-4)):
            row[f"cert@{p0},{p1}"] = repr(c.certified(p0, p1))
            row[f"viol@{p0},{p1}"] = repr(c.violated(p0, p1))
        row["with_value"] = json.dumps(claim_to_dict(c.with_value(0.7)))
        row["roundtrip"] = json.dumps(claim_to_dict(claim_from_dict(claim_to_dict(c))))
        out[key] = row

    def err(fn):
        try:
            r = fn()
        except InvalidArgument as exc:
            return "InvalidArgument: " + str(exc)
        except Exception as exc:
            return type(exc).__name__ + ": " + str(exc)
        return "ok " + json.dumps(claim_to_dict(r))

    texts = [
        "gdp:mu=-1",
        "gdp:mu=x",
        "gdp",
        "gdp:",
        "gdp:mu=1,delta=1e-5",
        "zcdp:rho=0",
        "zcdp:rho=1,delta=2",
        "zcdp:rho=1,foo=2",
        "zcdp:rho=1,rho=2",
        "GDP:mu=2",
        "rdp:1=0.5",
        "rdp:2=-1",
        "rdp:",
        "rdp:2=0.5,2=1",
        "rdp:2=0.5,4=1.2",
        "profile:0.5=2",
        "profile:-1=0.1",
        "profile:0.5=1e-3,1=1e-5",
        "fdp:0.5=0.9",
        "fdp:2=0.1",
        "fdp:0.01=0.9,0.1=0.6",
        "pure:eps=1,delta=1e-5",
        "dp:eps=1",
        "approx:eps=1",
        "approx:eps=1,delta=1e-5",
        "bogus:x=1",
        "mu=1",
        "gdp:mu",
        "rdp:x=1",
        "rdp:2=inf",
        "fdp:0.5=nan",
    ]
    for t in texts:
        out["parse " + t] = err(lambda t=t: parse_claim(t))
    ctors = {
        "GaussianDP(-1)": lambda: GaussianDP(-1),
        "GaussianDP(1,2)": lambda: GaussianDP(1, 2.0),
        "GaussianDP(True)": lambda: GaussianDP(True),
        "zcdp('a')": lambda: ZeroConcentratedDP("a"),
        "zcdp(inf)": lambda: ZeroConcentratedDP(math.inf),
        "zcdp(1,0)": lambda: ZeroConcentratedDP(1, 0.0),
        "rdp({})": lambda: RenyiDP({}),
        "rdp(0.5)": lambda: RenyiDP({0.5: 1}),
        "rdp(neg)": lambda: RenyiDP({2: -1}),
        "rdp(name)": lambda: RenyiDP({2: 1}, name=3),
        "rdp(scale)": lambda: RenyiDP({2: 1}, scale=0),
        "rdp(bad pair)": lambda: RenyiDP([(2, 1, 3)]),
        "rdp(raise)": lambda: RenyiDP(lambda a: 1 / 0),
        "prof(2)": lambda: PrivacyProfile({1: 2}),
        "prof(neg)": lambda: PrivacyProfile({-1: 0.1}),
        "prof(name)": lambda: PrivacyProfile({1: 0.1}, name=None),
        "prof(scale)": lambda: PrivacyProfile({1: 0.1}, scale=-1),
        "prof(call)": lambda: PrivacyProfile(lambda e: "x"),
        "prof(dup)": lambda: PrivacyProfile([(1, 0.1), (1, 0.2)]),
        "fdp(bad)": lambda: TradeOffDP({0.5: 0.9}),
        "fdp(name)": lambda: TradeOffDP({0.5: 0.1}, name=1),
        "fdp(scale)": lambda: TradeOffDP({0.5: 0.1}, scale=math.nan),
        "fdp({})": lambda: TradeOffDP({}),
    }
    for k, fn in ctors.items():
        out["ctor " + k] = err(fn)
    dicts = [
        {"kind": "gdp"},
        {"kind": "gdp", "mu": 1, "x": 2},
        {"kind": "zcdp", "rho": -1},
        {"kind": "rdp", "table": "x"},
        {"kind": "rdp"},
        {"kind": "profile", "table": [[1, 0.1]], "name": 4},
        {"kind": "fdp", "table": 3},
        {"kind": "pure", "epsilon": 1, "delta": 0.1},
        {"kind": "nope"},
        {"epsilon": 1},
        {"kind": "approx", "epsilon": 1, "delta": 1e-6},
        {"kind": "gdp", "mu": 1, "report_delta": 1e-3},
    ]
    for d in dicts:
        out["dict " + json.dumps(d)] = err(lambda d=d: claim_from_dict(d))
    for name, entry in REGISTRY.items():
        out["entry " + name] = repr(
            (
                entry.name,
                entry.parameter,
                sorted(entry.keys),
                entry.syntax,
                entry.aliases,
                entry.point,
                entry.scaling,
                entry.cls.__name__,
                type(entry.form).__name__,
                getattr(entry.form, "needed", None),
                getattr(entry.form, "optional", None),
                getattr(entry.form, "key", None),
                getattr(entry.form, "value", None),
                getattr(entry.form, "key_rule", None),
                getattr(entry.form, "value_rule", None),
            )
        )
    return out


_SNAPSHOT = snapshot()
_GOLDEN = json.loads(GOLDEN.read_text())


def test_the_same_entries() -> None:
    assert sorted(_SNAPSHOT) == sorted(_GOLDEN)


@pytest.mark.parametrize("key", sorted(_GOLDEN))
def test_text_unchanged(key: str) -> None:
    assert _SNAPSHOT.get(key) == _GOLDEN[key]


if __name__ == "__main__":
    json.dump(snapshot(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
