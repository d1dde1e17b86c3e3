"""Events carry standalone source (``Event.source``) that a reproducer runs without dp-audit:
it must give the same boolean array as the event itself on any outputs."""

from __future__ import annotations

import ast

import numpy as np
import pytest

from attacks.float_pair import AnyColumn
from attacks.laplace_models import candidate_models
from attacks.lsb_laplace import unreachable_event
from attacks.precision import GridTest
from attacks.selection_common import index_set_event
from auditor.core.source import enclosed
from auditor.core.trials import Event
from auditor.statistics.events.bit_events import CellUnion, cell_keys
from auditor.statistics.events.event_selection import (
    bottom_event,
    outcome_set_event,
    threshold_event,
)
from auditor.statistics.events.histogram_events import BinUnion

FORBIDDEN = {"dp_audit", "auditor", "attacks", "reports", "reference_mechanisms", "dp_params"}


def standalone(event: Event):
    """The event rebuilt from its source alone, in a fresh namespace."""
    source = event.source()
    assert source is not None, event.description
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            assert not {str(n).split(".")[0] for n in names} & FORBIDDEN, source
    namespace: dict = {}
    exec(compile(enclosed(source, "load"), "<event>", "exec"), namespace)
    return namespace["load"]()


def floats(rng: np.random.Generator, n: int = 4000) -> np.ndarray:
    """Laplace noise at 0 and at 1, with the awkward values mixed in."""
    y = np.concatenate([rng.laplace(0.0, 1.0, n // 2), 1.0 + rng.laplace(0.0, 1.0, n // 2)])
    y[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324]
    return y


@pytest.mark.parametrize(
    "make",
    [
        lambda: threshold_event(0.1 + 0.2, above=True),
        lambda: threshold_event(-1.5, above=False),
        lambda: bottom_event(),
        lambda: Event("cells", CellUnion(np.unique(cell_keys(np.array([0.3, 1.25, -0.7]))))),
        lambda: Event("bins", BinUnion(np.array([-1.0, 0.0, 0.5, 2.0]), np.array([0, 2, 4]))),
        lambda: GridTest(2.0**-53).event(),
        lambda: GridTest(2.0**-52, rescale=("mul", 1.0 / 3.0)).event(),
        lambda: GridTest(2.0**-50, rescale=("div", 3.0)).event(),
        lambda: unreachable_event(candidate_models(1.0, 1.0)[0], 1.0),
    ],
)
def test_float_event_sources_agree_with_the_events(make) -> None:
    event = make()
    y = floats(np.random.default_rng(1))
    assert np.array_equal(standalone(event)(y), event(y))


def test_the_lsb_source_separates_numpy_laplace_outputs_like_the_model() -> None:
    # outputs of numpy's Laplace at 0 are mostly impossible at 1: the source must say so too
    event = unreachable_event(candidate_models(1.0, 1.0)[0], 1.0)
    at_zero = np.random.default_rng(2).laplace(0.0, 1.0, 500)
    hits = standalone(event)(at_zero)
    assert np.array_equal(hits, event(at_zero)) and hits.mean() > 0.5


def test_discrete_event_sources_agree_with_the_events() -> None:
    ints = np.random.default_rng(3).integers(-3, 12, 1000)
    for event in (
        outcome_set_event(np.array([1, 4, 7])),
        outcome_set_event(np.array([0.5, 2.25])),
        index_set_event([7, 8, 9], 10),
    ):
        assert np.array_equal(standalone(event)(ints), event(ints))


def test_any_column_source_combines_the_coordinate_sources() -> None:
    event = Event(
        "any",
        AnyColumn([(0, GridTest(2.0**-53).event()), (2, threshold_event(1.0, above=True))]),
    )
    y = np.random.default_rng(4).laplace(0.0, 1.0, (300, 3))
    assert np.array_equal(standalone(event)(y), event(y))
    # a coordinate event without source: the whole event has none
    opaque = Event("opaque", lambda v: v > 0)
    assert Event("any", AnyColumn([(0, opaque)])).source() is None


def test_a_wrong_constant_is_caught() -> None:
    # the comparison has teeth: another grid's source disagrees on the same outputs
    y = floats(np.random.default_rng(5))
    assert not np.array_equal(
        standalone(GridTest(2.0**-52).event())(y), GridTest(2.0**-53).off_grid(y)
    )
