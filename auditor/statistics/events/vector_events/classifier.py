"""The classifier source: a logistic regression (and, outside quick proposals, gradient-boosted
trees) over the whole row; thresholds on its score are candidates."""

from __future__ import annotations

import inspect
import warnings

import numpy as np

from auditor.core.source import array_literal, literal
from auditor.core.trials import CertificationPlan
from auditor.statistics.events.classifier_events import (
    WEIGHTED_SUM_SOURCE,
    one_thread,
    weighted_sum,
)
from auditor.statistics.events.tree_scores import tree_code, tree_table
from auditor.statistics.events.vector_events.base import CandidateSet, Context
from auditor.statistics.events.vector_events.rows import as_matrix, column_stat, projection_code
from auditor.statistics.events.vector_events.scalar import threshold_candidates

#: training rows per side used to fit a classifier
MAX_FIT = 10_000

#: the boosted-tree classifier is fitted only for rows of at most this many columns
MAX_BOOSTED_COLUMNS = 64


class Score:
    """A fitted classifier's score of "produced on x" (larger: likelier on x)."""

    def __init__(
        self,
        model: object,
        mean: np.ndarray,
        scale: np.ndarray,
        nan_columns: np.ndarray,
        text: str,
    ) -> None:
        self.mean, self.scale, self.text = mean, scale, text
        self.nan_columns = nan_columns
        coef, intercept = getattr(model, "coef_", None), getattr(model, "intercept_", 0.0)
        #: a linear model's weights and intercept, summed here row by row (see weighted_sum)
        self.linear = (
            None if coef is None else (np.ravel(coef).astype(float), float(np.ravel(intercept)[0]))
        )
        #: kept only when it scores (a tree model): a linear score pickled to the workers then
        #: carries no scikit-learn object, and they need not import scikit-learn (a second each)
        self.model = model if self.linear is None else None
        #: a tree model's nodes, for the standalone source (scoring here stays scikit-learn's
        #: compiled walk, three times faster than numpy's; tree_sum adds up the same way)
        self.trees = None if self.linear is not None else tree_table(model)

    def __call__(self, y: np.ndarray) -> np.ndarray:
        z = _standardise(as_matrix(y), self.mean, self.scale, self.nan_columns)
        if self.linear is not None:
            return weighted_sum(z, *self.linear)
        # one thread: the trees' OpenMP, in worker processes side by side on a few cores,
        # made counting an event ten times slower than here
        with one_thread():
            return np.asarray(self.model.decision_function(z), dtype=float)  # type: ignore[attr-defined]

    def code_prelude(self) -> str | None:
        """Standalone source for the score of a linear or tree model (None for another)."""
        standardise = (
            f"MEAN = {array_literal(self.mean, 'float64')}\n"
            f"SCALE = {array_literal(self.scale, 'float64')}\n"
            f"NAN_COLUMNS = {array_literal(self.nan_columns, 'bool_')}\n"
            + _STANDARDISE_SOURCE
            + "\n\n"
        )
        if self.linear is not None:
            w, intercept = self.linear
            model = (
                f"W = {array_literal(w, 'float64')}\nINTERCEPT = {literal(intercept)}\n"
                + WEIGHTED_SUM_SOURCE
            )
            expression = "weighted_sum(z, W, INTERCEPT)"
        elif self.trees is not None:
            model, expression = tree_code(self.trees), "tree_sum(z, *TREES)"
        else:
            return None
        return projection_code(
            expression,
            "z = _standardise(as_matrix(y), MEAN, SCALE, NAN_COLUMNS)\n    ",
            constants=standardise + model,
        )


def _standardise(
    m: np.ndarray, mean: np.ndarray, scale: np.ndarray, nan_columns: np.ndarray
) -> np.ndarray:
    """Standardised columns (NaN as 0), plus a "no answer" indicator for each column that
    had NaN in training."""
    z = np.nan_to_num((m - mean) / scale, nan=0.0)
    if not nan_columns.any():
        return np.asarray(z)
    return np.column_stack([z, np.isnan(m[:, nan_columns]).astype(float)])


#: its source, read when this module is loaded (the file on disk may change later)
_STANDARDISE_SOURCE = inspect.getsource(_standardise)


def scores(build: tuple[np.ndarray, ...], plan: CertificationPlan) -> list[Score]:
    """Classifiers fitted on the build half (at most ``MAX_FIT`` rows per side)."""
    a, b = build[0][:MAX_FIT], build[1][:MAX_FIT]
    if min(len(a), len(b)) < 50:
        return []
    m = np.vstack([a, b])
    label = np.r_[np.ones(len(a)), np.zeros(len(b))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        nan_columns = np.isnan(m).any(axis=0)
        nan = bool(nan_columns.any())
        mean, scale = column_stat("mean", m, nan), column_stat("std", m, nan)
    mean, scale = np.nan_to_num(mean), np.where(np.nan_to_num(scale) > 0, scale, 1.0)
    z = _standardise(m, mean, scale, nan_columns)
    if np.ptp(z, axis=0).max(initial=0.0) == 0:
        return []
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression

    models: list[tuple[object, str]] = [(LogisticRegression(max_iter=300), "logistic regression")]
    if not plan.quick and m.shape[1] <= MAX_BOOSTED_COLUMNS:
        boosted = HistGradientBoostingClassifier(max_iter=50, early_stopping=False, random_state=0)
        models.append((boosted, "gradient-boosted trees"))
    scores = []
    for model, what in models:
        try:
            # one thread: several fits run side by side in worker processes
            with warnings.catch_warnings(), one_thread():
                warnings.simplefilter("ignore")
                model.fit(z, label)  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a degenerate fit proposes nothing
            continue
        text = f"{what} score of the whole output (fitted on {len(m):,} training outputs)"
        scores.append(Score(model, mean, scale, nan_columns, text))
    return scores


class ClassifierSource:
    """Thresholds on the scores of classifiers fitted on the build half (DP-Sniper's idea,
    without its probability floor), when the distinguisher asks for them."""

    def candidates(self, ctx: Context) -> list[CandidateSet]:
        if not ctx.classifier:
            return []
        build, sel = ctx.build, ctx.sel
        out: list[CandidateSet] = []
        for score in scores(ctx.matrices, ctx.plan):
            out += threshold_candidates(
                score,
                score.text,
                (build[0].tally(score), build[1].tally(score)),
                (sel[0].tally(score), sel[1].tally(score)),
                ctx.n_thresholds,
            )
        return out
