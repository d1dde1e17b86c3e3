"""The base search: a threshold far from the start is found (to within a move), and a start
already in the middle, a flat response or outputs that vary on their own keep the start."""

from __future__ import annotations

import numpy as np
import pytest

from auditor.engine.search_units.base import BASE_DOUBLINGS, BASE_PROBE, Response, response_bases


def prober(draw, seed=0, fail=lambda base: False):
    """A probe that draws ``BASE_PROBE`` outputs of ``draw(rng, base, n)`` (start: base 0) and
    records the bases asked for."""
    rng = np.random.default_rng(seed)
    asked: list[float | None] = []

    def probe(base):
        asked.append(base)
        b = 0.0 if base is None else base
        return None if fail(b) else draw(rng, b, BASE_PROBE)

    return probe, asked


def svt(threshold, halting):
    """10 answers against one noisy threshold: 1 above, 0 below, -1 after the first 1."""

    def draw(rng, base, n):
        rho = rng.laplace(0, 20.0, size=(n, 1))
        above = base + rng.laplace(0, 40.0, size=(n, 10)) >= threshold + rho
        out = above.astype(np.int8)
        if halting:
            fired = np.cumsum(above, axis=1)
            out[np.concatenate([np.zeros((n, 1), bool), fired[:, :-1] >= 1], axis=1)] = -1
        return out

    return draw


@pytest.mark.parametrize("halting", [False, True])
@pytest.mark.parametrize("threshold", [50.0, -300.0, 5000.0])
def test_a_far_threshold_is_found_within_a_few_moves(threshold, halting):
    probe, asked = prober(svt(threshold, halting))
    base = response_bases(probe, step=1.0).middle
    assert base is not None
    # the first answer is 1 with probability 1/2 at the threshold; 256 outputs per probe
    # place it to within a few of the noise's scales (20 and 40)
    assert abs(base - threshold) < 25, base
    assert len(asked) <= 2 * BASE_DOUBLINGS + 1 + 24


@pytest.mark.parametrize("threshold", [0.5, -3.0])
def test_a_start_near_the_threshold_stays(threshold):
    probe, _ = prober(svt(threshold, halting=True))
    assert response_bases(probe, step=1.0).middle is None


def test_a_threshold_without_query_noise_is_found_when_every_start_output_is_one():
    # every answer at 0 is 0, on both inputs: nothing to tell apart there
    def draw(rng, base, n):
        return (base >= 500.0 + rng.laplace(0, 20.0, size=(n, 1))).repeat(10, axis=1)

    probe, _ = prober(draw)
    base = response_bases(probe, step=1.0).middle
    assert base is not None and abs(base - 500.0) < 15, base


def test_a_response_that_does_not_move_with_the_base_keeps_the_start():
    # report noisy max on equal queries: the index does not depend on where they sit
    def draw(rng, base, n):
        return (base + rng.laplace(0, 20.0, size=(n, 5))).argmax(axis=1)

    probe, asked = prober(draw)
    assert response_bases(probe, step=1.0).middle is None
    assert len(asked) == 2 * BASE_DOUBLINGS + 1  # every scale probed, both ways


def test_outputs_that_vary_on_their_own_are_not_probed():
    probe, asked = prober(lambda rng, base, n: base + rng.laplace(0, 1.0, size=(n, 3)))
    assert response_bases(probe, step=1.0).middle is None
    assert asked == [None]


def test_a_response_that_never_saturates_keeps_the_start():
    # a coarse noisy count: outputs repeat at the start, but move with the base without end
    # (and the adapter refuses negative bases, so the probed range is one-sided)
    probe, _ = prober(
        lambda rng, base, n: np.round(base + rng.laplace(0, 0.3, size=(n, 1))),
        fail=lambda base: base < 0,
    )
    assert response_bases(probe, step=1.0).middle is None


def test_an_adapter_failing_far_out_stops_the_probes_there():
    probe, asked = prober(svt(80.0, halting=False), fail=lambda base: abs(base) > 1000)
    base = response_bases(probe, step=1.0).middle
    assert base is not None and abs(base - 80.0) < 25, base
    assert sum(1 for b in asked if b is not None and abs(b) > 1000) <= 2  # one per side


def test_an_index_that_is_none_below_a_threshold_is_probed_at_the_threshold():
    """The first of 8 queries above a threshold of 10 without threshold noise, -1 if none is:
    -1 far below, 0 far above, and up to 7 in between, so the index's mean is no level (it
    rises past its high end near the threshold and led the search 14 below the start)."""

    def draw(rng, base, n):
        above = base + rng.laplace(0, 4.0, size=(n, 8)) >= 10.0
        return np.where(above.any(axis=1), np.argmax(above, axis=1), -1)

    probe, _ = prober(draw)
    base = response_bases(probe, step=1.0).middle
    # the middle: "none" (all 8 below) as often as "the first one" (above), at 6.09
    assert base is not None and 4.0 < base < 8.5, base


def test_the_ends_of_the_response_are_found_besides_its_middle():
    # one answer, 1 when base + Lap(4) >= 100: level 1/4, 1/2 and 3/4 at 100 -/+ 4 ln 2
    def draw(rng, base, n):
        return (base + rng.laplace(0, 4.0, size=(n, 1)) >= 100.0).astype(np.int8)

    probe, _ = prober(draw)
    response = response_bases(probe, step=0.5)
    assert response.middle is not None and abs(response.middle - 100) < 2
    low, high = sorted(response.ends)
    assert abs(low - (100 - 4 * np.log(2))) < 2 and abs(high - (100 + 4 * np.log(2))) < 2


def test_outputs_that_never_change_give_no_middle_and_no_ends():
    probe, _ = prober(lambda rng, base, n: np.zeros((n, 3), dtype=np.int8))
    assert response_bases(probe, step=1.0) == Response(None, ())


def test_a_none_below_a_threshold_is_found_when_the_other_end_varies():
    """ "None" (-1) below a threshold of 5 and one of 8 indices at random above it: only the
    low end holds one value, which the high end never shows (the first release required both
    ends to hold one, and kept the start, where every output is "none" on both inputs)."""

    def draw(rng, base, n):
        pick = rng.integers(0, 8, size=n)
        return np.where(base >= 5.0, pick, -1)

    probe, _ = prober(draw)
    response = response_bases(probe, step=1.0)
    assert response.middle is not None and 4.0 <= response.middle <= 6.0, response


def test_one_end_that_holds_a_value_the_other_also_shows_is_no_response():
    # "none" at both ends (sometimes above): no level to read
    def draw(rng, base, n):
        pick = rng.integers(-1, 8, size=n)
        return np.where(base >= 5.0, pick, -1)

    probe, _ = prober(draw)
    assert response_bases(probe, step=1.0).middle is None


def test_a_response_alike_both_ways_is_read_from_the_start_out():
    # a bit on the queries' range, probed with the first entry raised (or lowered): the range
    # grows either way, so the two far ends agree and only the start tells them apart
    def range_bit(rng, base, n):
        return abs(base) + rng.laplace(0.0, 1.0, size=n) > 40.0

    probe, _ = prober(range_bit)
    response = response_bases(probe, step=1.0)
    assert response.responds and response.middle is not None
    assert abs(abs(response.middle) - 40.0) < 3.0, response


def test_nothing_responding_says_so():
    probe, _ = prober(lambda rng, base, n: np.zeros(n, dtype=bool))
    assert response_bases(probe, step=1.0) == Response()
    assert not Response().responds
