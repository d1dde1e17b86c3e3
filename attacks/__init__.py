"""Attack modules: each chooses neighbouring inputs and a way to find distinguishing events.

Attacks are registered here by name as ``module:attr`` strings and imported on demand.
"""

from __future__ import annotations

import importlib
from typing import Any

from auditor.errors import InvalidArgument

#: name -> "module:attr" of a zero-argument attack class
ATTACKS: dict[str, str] = {
    # white-box checks that need no sampling come first: a violation they find ends the
    # adapter's audit before any expensive sampling
    "truncated-addition": "attacks.truncated_addition:TruncatedAdditionAttack",
    "lsb-laplace": "attacks.lsb_laplace:LSBLaplaceAttack",
    "precision": "attacks.precision:PrecisionAttack",
    "zero-rounding": "attacks.zero_rounding:ZeroRoundingAttack",
    "black-box": "attacks.black_box:BlackBoxAttack",
    "selection-search": "attacks.selection_search:SelectionSearchAttack",
}


def available() -> list[str]:
    return list(ATTACKS)


def load_attacks(names: list[str] | tuple[str, ...] | None = None) -> list[Any]:
    """Instantiate the named attacks (all of them when ``names`` is None).

    Raises:
        InvalidArgument: a name is not registered; the message lists the known ones.
    """
    chosen = list(ATTACKS) if names is None else list(names)
    unknown = [n for n in chosen if n not in ATTACKS]
    if unknown:
        raise InvalidArgument(f"unknown attack {unknown[0]!r}; available: {', '.join(ATTACKS)}")
    attacks = []
    for name in chosen:
        module, _, attr = ATTACKS[name].partition(":")
        attacks.append(getattr(importlib.import_module(module), attr)())
    return attacks
