"""A gradient-boosted tree model's score as plain arrays, so a reproducer can compute it.

scikit-learn's ``HistGradientBoostingClassifier`` predicts from raw (unbinned) features: each
split sends a value left when it is ``<= threshold``, and a missing value the way the split
learnt; a row's score is the baseline plus its leaf values, tree by tree.  :func:`tree_table`
reads the fitted trees into one flat node table and :func:`tree_sum` walks it with numpy in
the same order of additions, so the score its standalone source recomputes is the model's
bit for bit (an event's threshold sits at a training score: a last-bit difference would move
outputs across it).  Tested against ``decision_function``.

Assumptions:
    Reads the fitted model's private ``_predictors`` and ``_baseline_prediction``
    (scikit-learn 1.4–1.6, as pinned); a model without them, or with a categorical split or
    more than one score per iteration, gives no table and its events no source.
"""

from __future__ import annotations

import inspect
from typing import NamedTuple

import numpy as np

from auditor.core.source import array_literal, literal


class TreeTable(NamedTuple):
    """All trees' nodes in one table (children as indices into it) and each tree's root."""

    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    left: np.ndarray
    right: np.ndarray
    leaf: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    baseline: float


def tree_table(model: object) -> TreeTable | None:
    """The fitted trees of a binary ``HistGradientBoostingClassifier``, or None."""
    predictors = getattr(model, "_predictors", None)
    baseline = np.ravel(getattr(model, "_baseline_prediction", np.empty(0)))
    if not predictors or baseline.size != 1 or any(len(p) != 1 for p in predictors):
        return None
    parts: dict[str, list[np.ndarray]] = {k: [] for k in TreeTable._fields[:-2]}
    roots, offset = [], 0
    for (predictor,) in predictors:
        nodes = getattr(predictor, "nodes", None)
        if nodes is None or nodes["is_categorical"].any():
            return None
        leaf = nodes["is_leaf"].astype(bool)
        parts["feature"].append(nodes["feature_idx"].astype(np.int64))
        parts["threshold"].append(nodes["num_threshold"].astype(np.float64))
        parts["missing_left"].append(nodes["missing_go_to_left"].astype(bool))
        # a leaf's children are unused (0): point them at the leaf itself
        own = np.arange(offset, offset + len(nodes), dtype=np.int64)
        parts["left"].append(np.where(leaf, own, nodes["left"].astype(np.int64) + offset))
        parts["right"].append(np.where(leaf, own, nodes["right"].astype(np.int64) + offset))
        parts["leaf"].append(leaf)
        parts["value"].append(nodes["value"].astype(np.float64))
        roots.append(offset)
        offset += len(nodes)
    joined = {k: np.concatenate(v) for k, v in parts.items()}
    return TreeTable(**joined, roots=np.array(roots, dtype=np.int64), baseline=float(baseline[0]))


def tree_sum(
    z: np.ndarray,
    feature: np.ndarray,
    threshold: np.ndarray,
    missing_left: np.ndarray,
    left: np.ndarray,
    right: np.ndarray,
    leaf: np.ndarray,
    value: np.ndarray,
    roots: np.ndarray,
    baseline: float,
) -> np.ndarray:
    """``baseline`` plus each tree's leaf value for every row of ``z``, added tree by tree
    (scikit-learn's order); a row goes left when its value is ``<= threshold``, or, missing,
    when the split sends missing values left."""
    total = np.full(len(z), float(baseline))
    for root in roots:
        node = np.full(len(z), root, dtype=np.int64)
        active = np.flatnonzero(~leaf[node])
        while active.size:
            at = node[active]
            x = z[active, feature[at]]
            go_left = np.where(np.isnan(x), missing_left[at], x <= threshold[at])
            node[active] = np.where(go_left, left[at], right[at])
            active = active[~leaf[node[active]]]
        total += value[node]
    return total


#: its source, read when this module is loaded (the file on disk may change later)
_TREE_SUM_SOURCE = inspect.getsource(tree_sum)


def tree_code(table: TreeTable) -> str:
    """Standalone source defining ``TREES`` and ``tree_sum`` (call ``tree_sum(z, *TREES)``)."""
    dtypes = {"threshold": "float64", "value": "float64", "missing_left": "bool_", "leaf": "bool_"}
    lines = [
        f"{name.upper()} = {array_literal(getattr(table, name), dtypes.get(name, 'int64'))}"
        for name in TreeTable._fields[:-1]
    ]
    names = ", ".join(name.upper() for name in TreeTable._fields[:-1])
    return (
        "\n".join(lines)
        + f"\nBASELINE = {literal(table.baseline)}\nTREES = ({names}, BASELINE)\n\n\n"
        + _TREE_SUM_SOURCE
    )
