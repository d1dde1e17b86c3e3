"""Assertions shared by the adapter tests."""

from __future__ import annotations

import math

import numpy as np


def assert_additive(x, n, centre, sd, *, dtype=np.float64, sd_tolerance=0.2):
    """``n`` outputs of the right dtype, centred on ``centre`` with standard deviation ``sd``.

    The mean check allows 6 standard errors (false failure below 2e-9 for these noise laws);
    the spread check allows ``sd_tolerance`` relative error.
    """
    assert isinstance(x, np.ndarray) and x.shape == (n,) and x.dtype == dtype
    assert abs(x.mean() - centre) < 6 * sd / math.sqrt(n)
    assert abs(x.std() / sd - 1) < sd_tolerance
