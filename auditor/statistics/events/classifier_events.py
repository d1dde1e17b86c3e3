"""Classifier events (DP-Sniper style): threshold a logistic-regression score of the output.

A logistic regression (statsmodels ``Logit``) learns which of the two neighbours produced an
output from features of the value *and of its float64 representation* (exponent, the low
mantissa bits, the parity of the integer part).  The event is ``{score > t}`` or ``{score < t}``;
by Neyman-Pearson, a super-level set of a good estimate of the likelihood ratio is close to the
best event.  The model is fitted on one half of the training split; the thresholds are scored
(by ``event_selection``) on the other half, so that a threshold is not chosen on outputs the
model has memorised.

Unlike DP-Sniper, the threshold is *not* restricted to events of probability >= c (which caps
the reported epsilon at ln(1/c)): every threshold is scored by the bound it is predicted to
certify at the planned certification size and significance, and the candidates include
thresholds beyond every training output of one side, so an event that one neighbour never
produces is chosen when n is large enough to make it pay.

Assumptions:
    None about the implementation; outputs are numbers (NaN meaning ⊥).

References:
    Bichsel, Steffen, Bogunovic, Vechev, "DP-Sniper: Black-box discovery of differential
    privacy violations using classifiers" (IEEE S&P 2021), threshold attack on p(x | y).
"""

from __future__ import annotations

import contextlib
import inspect
import sys
import warnings
from typing import Any, cast

import numpy as np

from auditor.core.source import array_literal, event_code, literal
from auditor.core.trials import Event

#: low mantissa bits used as features
LOW_BITS = 8
#: at most this many training outputs per side are used to fit the model (keeps fits < 1 s)
MAX_FIT = 10_000
#: number of candidate thresholds scored on the selection half
N_THRESHOLDS = 256

FEATURE_NAMES = (
    "value",
    "|value|",
    "sign",
    "binary exponent",
    "integer-part parity",
    "is ⊥",
    *(f"mantissa bit {i}" for i in range(LOW_BITS)),
)


def float_features(y: np.ndarray) -> np.ndarray:
    """Features of each output: its value and its float64 bit pattern, shape (n, 14)."""
    y = np.asarray(y, dtype=np.float64)
    finite = np.isfinite(y)
    v = np.where(finite, y, 0.0)
    bits = v.view(np.uint64)
    _, exponent = np.frexp(v)
    low = (bits[:, None] >> np.arange(LOW_BITS, dtype=np.uint64)) & np.uint64(1)
    parity = np.mod(np.floor(np.clip(v, -(2.0**52), 2.0**52)), 2.0)
    cols = [v, np.abs(v), np.sign(v), exponent.astype(float), parity, (~finite).astype(float)]
    return np.column_stack([*cols, low.astype(float)])


def weighted_sum(z: np.ndarray, w: np.ndarray, intercept: float) -> np.ndarray:
    """``intercept + z @ w``, summed column by column: a matrix product (BLAS) rounds a row's
    sum differently depending on where the row falls in the array, which would make an event
    "score > t" with t at an output's score (thresholds are training scores) hold for some
    copies of that output and not for others."""
    total = np.full(len(z), float(intercept))
    for j in range(z.shape[1]):
        total += z[:, j] * w[j]
    return total


#: their sources, read when this module is loaded (the file on disk may change later)
_FLOAT_FEATURES_SOURCE = inspect.getsource(float_features)
WEIGHTED_SUM_SOURCE = inspect.getsource(weighted_sum)


class LogitScore:
    """``x · beta`` for standardised features: large means "more likely produced on x"."""

    def __init__(self, mean: np.ndarray, scale: np.ndarray, keep: np.ndarray, beta: np.ndarray):
        self.mean, self.scale, self.keep, self.beta = mean, scale, keep, beta

    def __call__(self, y: np.ndarray) -> np.ndarray:
        f = (float_features(y)[:, self.keep] - self.mean) / self.scale
        score: np.ndarray = np.nan_to_num(weighted_sum(f, self.beta[1:], self.beta[0]), nan=0.0)
        return score

    def code_prelude(self) -> str:
        """Standalone source defining ``score(y)``: this one (with ``float_features``)."""
        return (
            f"LOW_BITS = {LOW_BITS}\n"
            f"MEAN = {array_literal(self.mean, 'float64')}\n"
            f"SCALE = {array_literal(self.scale, 'float64')}\n"
            f"KEEP = {array_literal(self.keep, 'bool_')}\n"
            f"BETA = {array_literal(self.beta, 'float64')}\n\n\n"
            + _FLOAT_FEATURES_SOURCE
            + "\n\n"
            + WEIGHTED_SUM_SOURCE
            + "\n\ndef score(y):\n"
            "    f = (float_features(y)[:, KEEP] - MEAN) / SCALE\n"
            "    return np.nan_to_num(weighted_sum(f, BETA[1:], BETA[0]), nan=0.0)\n"
        )


#: threadpoolctl's ``ThreadpoolController`` (threadpoolctl has no type annotations), and the
#: number of imported modules when it was made
_CONTROLLER: dict[int, Any] = {}


def one_thread() -> contextlib.AbstractContextManager[object]:
    """Limit BLAS and OpenMP to one thread during a fit: the design is tiny (~15 columns) and on a
    loaded machine multi-threaded BLAS made each fit 20x slower.  The controller scans the
    loaded libraries (~30 ms), so it is made again only after an import, which may have loaded
    one (scikit-learn's OpenMP, scipy's BLAS): one made before them would not limit them."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - threadpoolctl is a declared dependency
        return contextlib.nullcontext()
    imported = len(sys.modules)
    if imported not in _CONTROLLER:
        _CONTROLLER.clear()
        _CONTROLLER[imported] = ThreadpoolController()
    return cast(contextlib.AbstractContextManager[object], _CONTROLLER[imported].limit(limits=1))


def fit_score(a: np.ndarray, b: np.ndarray) -> LogitScore | None:
    """Fit a logistic regression of "came from x" on the features; None if it cannot be fitted."""
    # heavy import, only when a classifier is asked for (Logit alone: not statsmodels.api)
    from statsmodels.discrete.discrete_model import Logit

    fa, fb = float_features(a), float_features(b)
    f = np.vstack([fa, fb])
    mean, scale = f.mean(axis=0), f.std(axis=0)
    keep = np.isfinite(scale) & (scale > 0) & np.isfinite(mean)
    if not keep.any():
        return None
    z = (f[:, keep] - mean[keep]) / scale[keep]
    z = np.clip(z, -1e6, 1e6)
    design = np.column_stack([np.ones(len(z)), z])
    label = np.r_[np.ones(len(fa)), np.zeros(len(fb))]
    beta = None
    with warnings.catch_warnings(), one_thread():
        warnings.simplefilter("ignore")
        for method in ("newton", "lbfgs"):
            try:
                beta = Logit(label, design).fit(disp=0, method=method, maxiter=50).params
                break
            except Exception:  # noqa: BLE001 - singular designs etc.: try the next, else no event
                continue
    if beta is None:
        return None
    beta = np.asarray(beta, dtype=float)
    if not np.isfinite(beta).all():
        return None
    return LogitScore(mean[keep], scale[keep], keep, beta)


class ScoreThreshold:
    """Predicate ``score(y) > t`` (``above``) or ``score(y) < t``."""

    def __init__(self, score: LogitScore, t: float, above: bool) -> None:
        self.score, self.t, self.above = score, t, above

    def __call__(self, y: np.ndarray) -> np.ndarray:
        s = self.score(y)
        return s > self.t if self.above else s < self.t

    def code(self) -> str:
        """Standalone source (``Event.source``)."""
        op = ">" if self.above else "<"
        return event_code(f"score(x) {op} {literal(self.t)}", self.score.code_prelude())


def classifier_events(
    a: np.ndarray, b: np.ndarray, sel_a: np.ndarray, sel_b: np.ndarray
) -> tuple[list[Event], np.ndarray, np.ndarray]:
    """Threshold events on a logistic score, with their counts on the selection half.

    The model is fitted on ``a`` (outputs on x) and ``b`` (on x'); candidate thresholds are
    quantiles of the fitted scores plus the two extremes "above every x' score" and "below
    every x score" (events one side never produced: no ln(1/c) cap).  Returns the events and
    how many of ``sel_a`` / ``sel_b`` fall in each, computed with one scoring pass.
    """
    empty: tuple[list[Event], np.ndarray, np.ndarray] = (
        [],
        np.zeros(0, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
    )
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if min(len(a), len(b)) < 50 or min(len(sel_a), len(sel_b)) == 0:
        return empty
    fa, fb = a[:MAX_FIT], b[:MAX_FIT]
    score = fit_score(fa, fb)
    if score is None:
        return empty
    ta, tb = score(fa), score(fb)
    cuts = np.quantile(np.concatenate([ta, tb]), np.linspace(0, 1, N_THRESHOLDS + 1))
    extra = [np.nextafter(tb.max(), np.inf), np.nextafter(ta.min(), -np.inf)]
    cuts = np.unique(np.concatenate([cuts, extra]))
    used = f"model fitted on {len(fa) + len(fb):,} training outputs"
    sa, sb = np.sort(score(sel_a)), np.sort(score(sel_b))
    events: list[Event] = []
    counts_a, counts_b = [], []
    for above in (True, False):
        op = ">" if above else "<"
        for t in cuts:
            text = f"logistic score of the output's value and float bits {op} {t:.6g} ({used})"
            events.append(Event(text, ScoreThreshold(score, float(t), above)))
        if above:
            counts_a.append(len(sa) - np.searchsorted(sa, cuts, side="right"))
            counts_b.append(len(sb) - np.searchsorted(sb, cuts, side="right"))
        else:
            counts_a.append(np.searchsorted(sa, cuts, side="left"))
            counts_b.append(np.searchsorted(sb, cuts, side="left"))
    return events, np.concatenate(counts_a), np.concatenate(counts_b)
