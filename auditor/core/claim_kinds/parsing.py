"""Claims from the command line (``gdp:mu=1``, ``rdp:2=0.5,4=1.2``) and from whatever a user
passes (object, text or dict); the forms each kind accepts are its registry entry's."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from auditor.core.claim_kinds.base import Claim, KeyedForm, TableForm
from auditor.core.claim_kinds.registry import REGISTRY, lookup
from auditor.core.claim_kinds.serialisation import claim_from_dict
from auditor.core.errors import InvalidArgument

CLAIM_SYNTAX = "claim forms (kind is case-insensitive; keys eps|epsilon, delta, mu, rho):\n" + (
    "\n".join(entry.syntax for entry in REGISTRY.values())
)

#: keys written in short
_KEY_ALIASES = {"eps": "epsilon"}


def _parse_error(text: str, what: str) -> InvalidArgument:
    return InvalidArgument(f"claim {text!r}: {what}\n{CLAIM_SYNTAX}")


def _parse_number(text: str, key: str, raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise _parse_error(text, f"{key}={raw!r} is not a number") from None


def _parse_table(text: str, kind: str, form: TableForm, pairs: list[tuple[str, str]]) -> Claim:
    """A claim given as key=value points (``rdp``, ``profile``, ``fdp``)."""
    if not pairs:
        raise _parse_error(text, f"{kind} needs {form.key}={form.value} pairs")
    table: dict[float, float] = {}
    for key, raw in pairs:
        point = _parse_number(text, form.key, key)
        value = _parse_number(text, key, raw)
        if not (math.isfinite(point) and form.key_ok(point)):
            raise _parse_error(text, f"{form.key} {key!r} must be {form.key_rule}")
        if not (math.isfinite(value) and form.value_ok(value)):
            raise _parse_error(text, f"{form.value}({key})={raw!r} must be {form.value_rule}")
        if point in table:
            raise _parse_error(text, f"{form.key} {key!r} appears twice")
        table[point] = value
    try:
        return form.build(table)
    except InvalidArgument as exc:
        raise _parse_error(text, str(exc)) from None


def _parse_keyed(text: str, kind: str, form: KeyedForm, pairs: list[tuple[str, str]]) -> Claim:
    """A claim given by named keys (``pure``, ``approx``, ``gdp``, ``zcdp``)."""
    values: dict[str, float] = {}
    for key, raw in pairs:
        canon = _KEY_ALIASES.get(key.lower(), key.lower())
        if canon not in form.needed:
            raise _parse_error(text, f"{kind} takes no key {key!r}")
        if canon in values:
            raise _parse_error(text, f"{key!r} is given twice")
        values[canon] = _parse_number(text, key, raw)
    missing = [k for k in form.needed if k not in values and k not in form.optional]
    if missing:
        raise _parse_error(text, f"{kind} needs {', '.join(missing)}")
    try:
        return form.build(values)
    except InvalidArgument as exc:
        raise _parse_error(text, str(exc)) from None


def parse_claim(text: str) -> Claim:
    """A claim from its command-line form (see ``CLAIM_SYNTAX``).

    Raises:
        InvalidArgument: unknown kind, missing/unknown/repeated key, a value that is not a
            number or out of range; the message lists the accepted forms.
    """
    if not isinstance(text, str):
        raise InvalidArgument(f"claim={text!r} must be a string\n{CLAIM_SYNTAX}")
    head, sep, rest = text.strip().partition(":")
    if not sep:
        raise _parse_error(text, "expected kind:key=value,...")
    items = [part.strip() for part in rest.split(",")] if rest.strip() else []
    pairs: list[tuple[str, str]] = []
    for item in items:
        key, eq, raw = item.partition("=")
        if not eq or not key.strip() or not raw.strip():
            raise _parse_error(text, f"{item!r} is not key=value")
        pairs.append((key.strip(), raw.strip()))
    entry = lookup(head.strip())
    if entry is None:
        raise _parse_error(text, f"unknown kind {head.strip()!r}")
    if isinstance(entry.form, TableForm):
        return _parse_table(text, entry.name, entry.form, pairs)
    return _parse_keyed(text, entry.name, entry.form, pairs)


def as_claim(claim: Any) -> Claim:
    """A claim given as an object of any kind, its command-line text or its dict.

    Raises:
        InvalidArgument: text or a dict that does not parse, or anything else.
    """
    if isinstance(claim, str):
        return parse_claim(claim)
    if isinstance(claim, Mapping):
        return claim_from_dict(claim)
    if isinstance(claim, Claim):
        return claim
    raise InvalidArgument(
        f"claim={claim!r} must be a claim (PrivacyClaim, GaussianDP, ZeroConcentratedDP, "
        f"RenyiDP, PrivacyProfile, TradeOffDP), its dict or its text\n{CLAIM_SYNTAX}"
    )
