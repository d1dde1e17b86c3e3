"""Attack modules: each chooses neighbouring inputs and a way to find distinguishing events.

Attacks are registered here by name as ``module:attr`` strings and imported on demand.
Some attacks are opt-in (``OPT_IN``): they run only when asked for by name
(``dp-audit run --attack timing``), because they measure something other than outputs or make
assumptions the default audit should not.  ``load_attacks(None)`` returns the defaults.
"""

from __future__ import annotations

import importlib
from typing import Any

from auditor.core.errors import InvalidArgument

#: name -> "module:attr" of a zero-argument attack class
ATTACKS: dict[str, str] = {
    # white-box checks that need no sampling come first: a violation they find ends the
    # adapter's audit before any expensive sampling
    "truncated-addition": "attacks.truncated_addition:TruncatedAdditionAttack",
    "lsb-laplace": "attacks.lsb_laplace:LSBLaplaceAttack",
    "precision": "attacks.precision:PrecisionAttack",
    "zero-rounding": "attacks.zero_rounding:ZeroRoundingAttack",
    # dataset: their white-box probe checks (when offered) are free and run first
    "sensitivity": "attacks.sensitivity:SensitivityAttack",
    "noiseless-search": "attacks.noiseless_search:NoiselessSearchAttack",
    "black-box": "attacks.black_box:BlackBoxAttack",
    "selection-search": "attacks.selection_search:SelectionSearchAttack",
    "pair-search": "attacks.pair_search:PairSearchAttack",
    "one-sided": "attacks.one_sided:OneSidedAttack",
    "timing": "attacks.timing:TimingAttack",
}

#: attacks that run only when named explicitly, with the reason shown by ``dp-audit list``
OPT_IN: dict[str, str] = {
    "timing": "measures call durations; noisy and machine-dependent",
}


def default_attacks() -> list[str]:
    """The attacks a run uses when none are named: every registered one that is not opt-in."""
    return [name for name in ATTACKS if name not in OPT_IN]


#: the attack list of ``dp-audit run`` without ``--attack`` (computed at import)
DEFAULT_ATTACKS: list[str] = default_attacks()


def available() -> list[str]:
    """Every registered attack name, opt-in ones included."""
    return list(ATTACKS)


def load_attacks(names: list[str] | tuple[str, ...] | None = None) -> list[Any]:
    """Instantiate the named attacks (the defaults, i.e. all but ``OPT_IN``, when ``names`` is None).

    Raises:
        InvalidArgument: a name is not registered; the message lists the known ones.
    """
    chosen = default_attacks() if names is None else list(names)
    unknown = [n for n in chosen if n not in ATTACKS]
    if unknown:
        raise InvalidArgument(f"unknown attack {unknown[0]!r}; available: {', '.join(ATTACKS)}")
    attacks = []
    for name in chosen:
        module, _, attr = ATTACKS[name].partition(":")
        attacks.append(getattr(importlib.import_module(module), attr)())
    return attacks
