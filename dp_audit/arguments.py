"""argparse converters shared by the ``dp-audit`` command line and the pytest plugin.

Each raises ``argparse.ArgumentTypeError`` quoting the bad value, which both front ends turn
into a one-line usage error.  Light to import: the pytest plugin loads it in every test run.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

#: the smallest budget the runner accepts (``auditor.core.configs.MIN_BUDGET``, not imported:
#: this module stays light)
MIN_BUDGET = 100


def _integral_float(text: str) -> int | None:
    """``1e8`` and ``2.5e6`` as whole numbers; None for anything else."""
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value) or value != int(value):
        return None
    return int(value)


def _real(text: str, expected: str) -> float:
    """``float(text)``, or the usage error ``expected <expected>, got '<text>'``."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None


def whole_number(text: str) -> int:
    """A whole number >= 0; scientific notation such as ``1e6`` is accepted when integral."""
    value: int | None
    try:
        value = int(text)
    except ValueError:
        value = _integral_float(text)
        if value is None:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def budget(text: str) -> int:
    """A sample budget: a whole number >= ``MIN_BUDGET``."""
    try:
        value = whole_number(text)
    except argparse.ArgumentTypeError:
        if text.strip().startswith("-"):  # a number, but not a budget: say what one is
            raise argparse.ArgumentTypeError(
                f"expected a budget >= {MIN_BUDGET}, got {text!r}"
            ) from None
        raise
    if value < MIN_BUDGET:
        raise argparse.ArgumentTypeError(f"expected a budget >= {MIN_BUDGET}, got {text!r}")
    return value


def probability(text: str) -> float:
    """A number strictly between 0 and 1 (a significance level)."""
    value = _real(text, "a number in (0, 1)")
    if not (0.0 < value < 1.0):
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return value


def workers(text: str) -> int:
    from auditor.core.configs import MAX_WORKERS

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of workers, got {text!r}"
        ) from None
    if not 1 <= value <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"expected 1 to {MAX_WORKERS} workers, got {text!r}")
    return value


def seconds(text: str) -> float:
    from auditor.core.configs import MAX_TIMEOUT

    value = _real(text, "a number of seconds")
    if not math.isfinite(value) or not 0 < value <= MAX_TIMEOUT:
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds in (0, {MAX_TIMEOUT:g}], got {text!r}"
        )
    return value


def futility(text: str) -> float:
    from auditor.core.configs import MAX_FUTILITY

    expected = f"a number in [0, {MAX_FUTILITY:g}) (0 turns the check off)"
    value = _real(text, expected)
    if not 0.0 <= value < MAX_FUTILITY:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def claim(text: str) -> Any:
    from auditor.core.claim_kinds import parse_claim
    from auditor.core.errors import InvalidArgument

    try:
        return parse_claim(text)
    except InvalidArgument as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: converters of the run options a project may set in [tool.dp-audit] (by destination)


def positive(text: str) -> int:
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def folder(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder, got an empty path")
    return Path(text)


def configurations(text: str) -> int:
    from auditor.engine.parameter_search import MAX_CONFIGURATIONS

    value = positive(text)
    if value > MAX_CONFIGURATIONS:
        raise argparse.ArgumentTypeError(
            f"expected at most {MAX_CONFIGURATIONS:,} configurations (each is an audit of its "
            f"own), got {text!r}"
        )
    return value


def non_negative_float(text: str) -> float:
    value = _real(text, "a number >= 0")
    if not (value >= 0.0) or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a finite number >= 0, got {text!r}")
    return value
