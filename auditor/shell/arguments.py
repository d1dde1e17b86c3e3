"""argparse converters shared by the ``dp-audit`` command line and the pytest plugin.

Each raises ``argparse.ArgumentTypeError`` quoting the bad value, which both front ends turn
into a one-line usage error.  Light to import: the pytest plugin loads it in every test run.
"""

from __future__ import annotations

import argparse
import math

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
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}") from None
    if not (0.0 < value < 1.0):
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}")
    return value
