"""Pair search: every neighbouring pattern of the input kind screened, the best certified.

For adapters outside the first release's additive and binary families — vector queries,
local inputs, datasets, any output kind — and for selection and dataset mechanisms, whose
worst pair is not known in advance.  One trial lists every pair of ``attacks.neighbours`` as
candidates; the certifier screens each on outputs of its own, keeps the one whose events
promise the largest bound, and certifies it on fresh outputs (see ``Trial.candidates``).  The
search costs screening samples, not alpha: the run's error budget holds one trial's events.

Events: ``VectorEvents`` (exact outcomes, projections, classifiers, support edges) for rows,
index sets and records; the scalar ``DataDrivenEvents`` for one number per output.

Assumptions:
    None about the implementation; only the declared input kind and neighbouring relation.

References:
    Ding et al., "Detecting Violations of Differential Privacy" (CCS 2018), section 5.1.
    Bichsel et al., "DP-Sniper" (S&P 2021).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from attacks.dataset_moves import DatasetMoves
from attacks.neighbours import (
    SMALL_DOMAIN,
    dataset_pairs,
    search_pairs,
    short_vector_pairs,
    size_pair,
    tie_pairs,
    vector_pairs,
)
from auditor.core.claims import Family
from auditor.core.kinds import InputKind, OutputKind
from auditor.core.spec import AdapterSpec
from auditor.core.trials import Distinguisher, Trial, probed_values
from auditor.statistics.events.event_selection import DataDrivenEvents
from auditor.statistics.events.vector_events import VectorEvents


def distinguisher_for(spec: AdapterSpec, query_length: int) -> Distinguisher:
    """Scalar events for one number per output, vector events for anything wider."""
    output = spec.output
    if output.kind is not OutputKind.RECORD and output.width(query_length) == 1:
        return DataDrivenEvents()
    membership = query_length if output.kind is OutputKind.INDEX_SET else 0
    return VectorEvents(membership=membership)


class PairSearchAttack:
    name = "pair-search"
    description = (
        "neighbouring pairs of the input kind screened systematically (vector patterns, local "
        "values, datasets); events learned on any output kind"
    )

    def applies_to(self, spec: AdapterSpec) -> bool:
        return spec.family in (None, Family.SELECTION, Family.DATASET)

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        # one seed for the random pairs: a resized trial lists the same ones
        seed = int(rng.integers(2**63))
        pairs = search_pairs(spec, np.random.default_rng(seed))
        if not pairs:
            return []
        # vector queries in no declared bounds: the base may move (see Trial.rebase)
        movable = spec.input.kind is InputKind.VECTOR and spec.input_bounds is None
        # datasets whose size is private: a size may join the pairs (see Trial.resize)
        sized = spec.input.kind is InputKind.DATASET and spec.neighbours == "add_remove"
        # datasets: climbs over them may add pairs (see Trial.explore)
        explore = DatasetMoves(spec, seed) if spec.input.kind is InputKind.DATASET else None
        # the ties of rounding and the random short moves stay candidates wherever the base
        # moves (drawn as search_pairs drew them)
        drawn = np.random.default_rng(seed)
        ties = tie_pairs(spec, drawn) + short_vector_pairs(spec, drawn) if movable else []
        trial = _trial(
            spec,
            pairs,
            partial(_rebased, spec, ties=ties) if movable else None,
            partial(_resized, spec, seed, explore) if sized else None,
            explore,
        )
        if spec.input.kind is InputKind.LOCAL:
            # a domain with too many pairs to screen: the values whose outputs stand apart
            # are paired too (see Trial.probe_values)
            assert spec.exact_domain is not None
            lo, hi = (int(v) for v in spec.exact_domain)
            if hi - lo + 1 > SMALL_DOMAIN:
                trial = replace(trial, probe_values=tuple(probed_values(lo, hi)))
        return [trial]


def _trial(
    spec: AdapterSpec,
    pairs: list[Any],
    rebase: Any = None,
    resize: Any = None,
    explore: DatasetMoves | None = None,
) -> Trial:
    x, x_prime, text = pairs[0]
    length = spec.query_length(x) or 1
    return Trial(
        x,
        x_prime,
        distinguisher_for(spec, length),
        text,
        candidates=tuple(pairs[1:]),
        rebase=rebase,
        resize=resize,
        explore=explore,
    )


def _rebased(
    spec: AdapterSpec,
    base_value: float,
    uniform: bool = False,
    spike: bool = False,
    ties: Sequence[Any] = (),
) -> Trial | None:
    """The vector patterns around base entries ``base_value`` (the first pair's x); with
    ``uniform``, only those that move every entry alike; with ``spike``, around the default
    base with its first entry raised by ``base_value`` instead; the ``ties`` after them
    (not with ``uniform``: those join a trial as candidates).  None if no pattern fits."""
    if spike:
        pairs = vector_pairs(spec, None, uniform, spike=base_value)
    else:
        pairs = vector_pairs(spec, base_value, uniform)
    if not uniform:
        pairs += ties
    return _trial(spec, pairs) if pairs else None


def _resized(spec: AdapterSpec, seed: int, explore: DatasetMoves | None, size: int) -> Trial:
    """The dataset pairs with ``size`` and ``size + 1`` midpoint records screened first."""
    pairs = dataset_pairs(spec, np.random.default_rng(seed))
    return _trial(spec, [size_pair(spec, size), *pairs], explore=explore)
