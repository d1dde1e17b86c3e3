"""Every registered claim kind answers the Claim protocol and round-trips through the command
line and report.json's dicts, so that a new kind is its own module and one registry line.

The examples are the kind's own lines of ``CLAIM_SYNTAX`` (``ClaimKind.syntax``): a kind that
documents no form, or a form that does not parse, fails here.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from auditor.core.claim_kinds import (
    CLAIM_SYNTAX,
    REGISTRY,
    Claim,
    ClaimKind,
    as_claim,
    claim_from_dict,
    claim_to_dict,
    is_point,
    kind_of,
    parse_claim,
)
from auditor.core.claims import exceeds
from auditor.core.errors import InvalidArgument


def examples(entry: ClaimKind) -> list[str]:
    """The command-line forms in the kind's syntax lines that name the kind itself."""
    names = {entry.name, *entry.aliases}
    out = []
    for line in entry.syntax.splitlines():
        words = line.split()
        if (
            line.startswith("  ")
            and words
            and ":" in words[0]
            and words[0].partition(":")[0].lower() in names
        ):
            out.append(words[0])
    return out


KINDS = sorted(REGISTRY)


def test_the_registry_names_each_kind_by_its_own_name() -> None:
    assert KINDS, "no claim kind is registered"
    for name, entry in REGISTRY.items():
        assert entry.name == name
        assert entry.keys >= {"kind"}
        assert entry.syntax in CLAIM_SYNTAX


@pytest.mark.parametrize("name", KINDS)
def test_every_kind_documents_a_form_that_parses_to_itself(name: str) -> None:
    entry = REGISTRY[name]
    forms = examples(entry)
    assert forms, f"{name}: its syntax lines show no {name}:... form"
    for text in forms:
        claim = parse_claim(text)
        assert claim.kind == name
        assert isinstance(claim, entry.cls)
        assert kind_of(claim) is entry
        assert is_point(claim) is entry.point


@pytest.mark.parametrize("name", KINDS)
def test_every_kind_round_trips_through_its_dict_and_json(name: str) -> None:
    entry = REGISTRY[name]
    for text in examples(entry):
        claim = parse_claim(text)
        d = claim_to_dict(claim)
        assert d["kind"] == name
        assert set(d) <= entry.keys
        back = claim_from_dict(json.loads(json.dumps(d)))
        assert back == claim
        assert claim_to_dict(back) == d
        assert as_claim(d) == claim == as_claim(text)


@pytest.mark.parametrize("name", KINDS)
def test_every_kind_rejects_keys_it_does_not_know(name: str) -> None:
    claim = parse_claim(examples(REGISTRY[name])[0])
    with pytest.raises(InvalidArgument, match="unknown keys"):
        claim_from_dict({**claim_to_dict(claim), "no_such_key": 1})


@pytest.mark.parametrize("name", KINDS)
def test_every_kind_answers_the_protocol(name: str) -> None:
    entry = REGISTRY[name]
    claim = parse_claim(examples(entry)[0])
    assert isinstance(claim, Claim)
    assert claim.parameter == entry.parameter
    assert isinstance(claim.describe(), str) and claim.describe()
    f = claim.tradeoff(np.linspace(0.0, 1.0, 11))
    assert f.shape == (11,) and np.all((f >= 0.0) & (f <= 1.0))
    assert 0.0 <= claim.delta_for_epsilon(claim.epsilon) <= 1.0
    assert claim.epsilon_for_delta(0.5) >= 0.0
    assert math.isfinite(claim.epsilon) and 0.0 <= claim.delta < 1.0
    # a corner far below every curve refutes the claim; the diagonal refutes none
    for p0_lo, p1_hi in ((0.999, 1e-6), (0.5, 0.5), (0.6, 0.4)):
        bound = claim.certified(p0_lo, p1_hi)
        assert bound >= 0.0
        assert claim.violated(p0_lo, p1_hi) == exceeds(bound, claim.value)
    assert claim.certified(0.5, 0.5) == 0.0
    assert claim.violated(0.999, 1e-6)
    assert claim.with_value(claim.value * 2).value == claim.value * 2
