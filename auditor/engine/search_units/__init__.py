"""Finding the pair to certify, apart from certifying it: search units that spend no alpha.

Each unit (:class:`SearchUnit`) takes a trial and a :class:`Prober` (seeded outputs) and
returns the trial with its pair moved or with further candidate pairs; the certifier
(``auditor.engine.certify``) runs the probing units in ``PROBING_UNITS`` order, plans the
trial's stages for the pairs they leave, then screening (:class:`PairChoice`) picks one pair
among the candidates.  Only then does anything spend alpha.
"""

from __future__ import annotations

from auditor.engine.search_units.base import BaseSearch
from auditor.engine.search_units.datasets import DatasetSearch
from auditor.engine.search_units.prober import Prober, SearchUnit
from auditor.engine.search_units.screening import THIN_SCREEN, PairChoice, edge_pairs
from auditor.engine.search_units.size import SizeSearch
from auditor.engine.search_units.values import ValueSearch

#: the units that probe before the stages are planned, in the order they run: each sees the
#: trial the one before left (a moved base is then resized, and so on)
PROBING_UNITS: tuple[SearchUnit, ...] = (BaseSearch(), SizeSearch(), DatasetSearch(), ValueSearch())

__all__ = [
    "PROBING_UNITS",
    "THIN_SCREEN",
    "BaseSearch",
    "DatasetSearch",
    "PairChoice",
    "Prober",
    "SearchUnit",
    "SizeSearch",
    "ValueSearch",
    "edge_pairs",
]
