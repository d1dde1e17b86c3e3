"""Renyi divergence from cell counts, from below: sound against the exact cell laws, as tight
as a generic optimiser over the same confidence box, and stronger than one event where it
should be (a Gaussian pair's divergence spreads over the whole output)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, special, stats

from auditor.core.claim_kinds import RenyiDP, ZeroConcentratedDP
from auditor.statistics.clopper_pearson import cp_lower, cp_upper
from auditor.statistics.events.cell_chains import (
    CELL_COUNTS,
    Above,
    CellChain,
    certify_chain,
    chain_bound,
    propose_chain,
)
from auditor.statistics.events.event_selection import threshold_event
from auditor.statistics.renyi_cells import (
    ZCDP_ORDERS,
    cell_box,
    closest_pair,
    renyi_lower_bounds,
    renyi_plug_in,
    zcdp_lower_bound,
)

ORDERS = 1.0 + np.geomspace(1e-3, 1e3, 61)


def _gaussian_cells(mu: float, cuts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    return np.diff(stats.norm.cdf(edges - mu)), np.diff(stats.norm.cdf(edges))


def _divergences(p: np.ndarray, q: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """max of both orders of D_a between two cell laws, exactly (in logs)."""

    def one(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        o = orders[:, None]
        return special.logsumexp(o * np.log(a) + (1 - o) * np.log(b), axis=1) / (orders - 1)

    return np.maximum(one(p, q), one(q, p))


@pytest.mark.parametrize(("mu", "k", "n"), [(0.5, 6, 2000), (1.0, 3, 500), (2.0, 8, 1000)])
def test_the_bound_stays_below_the_cells_true_divergence(mu, k, n):
    # at alpha = 0.3 at most 30 % of the draws may overshoot at any order; the box is far
    # more conservative than that, so none do
    rng = np.random.default_rng(int(mu * 10) + k)
    p, q = _gaussian_cells(mu, np.linspace(-2.0, 2.0 + mu, k - 1))
    true = _divergences(p, q, ORDERS)
    over = 0
    for _ in range(60):
        b = renyi_lower_bounds(rng.multinomial(n, p), rng.multinomial(n, q), n, n, 0.3, ORDERS)
        over += bool((b > true * (1 + 1e-12)).any())
    assert over <= 0.3 * 60 / 2


def test_the_bound_is_the_box_minimum_a_generic_optimiser_finds():
    rng = np.random.default_rng(3)
    for _ in range(12):
        k, n = int(rng.integers(2, 6)), int(rng.integers(200, 3000))
        c0 = rng.multinomial(n, rng.dirichlet(np.ones(k)))
        c1 = rng.multinomial(n, rng.dirichlet(np.ones(k)))
        each = 0.01 / (4 * k)
        box0, box1 = cell_box(c0, n, each), cell_box(c1, n, each)
        lo, hi = np.r_[box0[0], box1[0]], np.r_[box0[1], box1[1]]
        for a in (1.5, 2.0):
            ours = renyi_lower_bounds(c0, c1, n, n, 0.01, np.array([a]))[0]

            # each order's minimum over the box, by SLSQP (a feasible point: from above); the
            # bound may reach the larger of the two, never more
            reachable = []
            for order in (0, 1):

                def g(z, a=a, k=k, order=order):
                    p, q = (z[:k], z[k:]) if order == 0 else (z[k:], z[:k])
                    return np.sum(p**a * q ** (1 - a))

                res = optimize.minimize(
                    g,
                    np.clip(np.r_[c0, c1] / n, np.maximum(lo, 1e-12), hi),
                    method="SLSQP",
                    bounds=list(zip(np.maximum(lo, 1e-12), hi, strict=True)),
                    constraints=[
                        {"type": "eq", "fun": lambda z, k=k: z[:k].sum() - 1},
                        {"type": "eq", "fun": lambda z, k=k: z[k:].sum() - 1},
                    ],
                    options={"ftol": 1e-15, "maxiter": 1000},
                )
                z = res.x
                if abs(z[:k].sum() - 1) < 1e-9 and abs(z[k:].sum() - 1) < 1e-9:
                    reachable.append(max(np.log(g(np.clip(z, lo, hi))) / (a - 1), 0.0))
            if len(reachable) == 2:
                assert ours <= max(reachable) + 1e-7
                assert ours >= max(reachable) - 1e-3  # and tight


def test_the_pair_it_bounds_at_lies_in_the_box():
    box0 = (np.array([0.1, 0.2, 0.3]), np.array([0.3, 0.4, 0.5]))
    box1 = (np.array([0.0, 0.3, 0.2]), np.array([0.2, 0.6, 0.5]))
    p, q = closest_pair(box0, box1)
    for z, (lo, hi) in ((p, box0), (q, box1)):
        assert z.sum() == pytest.approx(1.0) and (z >= lo).all() and (z <= hi).all()
    # boxes that overlap hold a common law: nothing is shown
    assert renyi_lower_bounds([30, 40, 30], [31, 39, 30], 100, 100, 0.05, ORDERS).max() == 0.0


def test_cells_certify_more_of_a_gaussians_rho_than_its_best_event():
    # N(1, 1) against N(0, 1): rho = 0.5.  One threshold event keeps about 2/pi of it; eight
    # cells keep most of it, at the same alpha and outputs
    n, alpha, mu = 200_000, 0.01, 1.0
    rng = np.random.default_rng(0)
    x, x_prime = rng.normal(mu, 1.0, n), rng.normal(0.0, 1.0, n)
    cuts = stats.norm.ppf(np.arange(1, 8) / 8) + mu / 2
    c0 = np.bincount(np.searchsorted(cuts, x), minlength=8)
    c1 = np.bincount(np.searchsorted(cuts, x_prime), minlength=8)
    cells = zcdp_lower_bound(c0, c1, n, n, alpha)
    claim = ZeroConcentratedDP(0.5)
    one_event = 0.0
    for t in np.linspace(-1.0, 3.0, 41):
        k0, k1 = int((x > t).sum()), int((x_prime > t).sum())
        one_event = max(
            one_event, claim.certified(cp_lower(k0, n, alpha / 2), cp_upper(k1, n, alpha / 2))
        )
    # (the thresholds here are even chosen on the counts they are certified on)
    assert 0.8 * 0.5 < cells <= 0.5
    assert one_event < 0.75 * 0.5 and cells > one_event + 0.04


def test_the_plug_in_is_the_divergence_of_the_proportions():
    p, q = np.array([0.2, 0.3, 0.5]), np.array([0.4, 0.4, 0.2])
    n = 10**9
    got = renyi_plug_in(p * n, q * n, n, n, ZCDP_ORDERS[:5])
    assert got == pytest.approx(_divergences(p, q, ZCDP_ORDERS[:5]), rel=1e-6)


def test_cell_counts_and_their_checks():
    with pytest.raises(ValueError, match="summing to 10"):
        cell_box([3, 3], 10, 0.01)
    with pytest.raises(ValueError, match="same cells"):
        renyi_lower_bounds([5, 5], [3, 3, 4], 10, 10, 0.05, ORDERS)
    with pytest.raises(ValueError, match="orders"):
        renyi_lower_bounds([5, 5], [3, 7], 10, 10, 0.05, [1.0])


def _chain(cuts: list[float]) -> CellChain:
    def score(y: np.ndarray) -> np.ndarray:
        return np.asarray(y, dtype=float)

    events = tuple(threshold_event(c, True) for c in cuts)
    return CellChain("the output", tuple(cuts), events, score)


def test_a_chain_counts_its_cells_from_nested_events_with_nan_in_the_first():
    chain = _chain([0.0, 1.0])
    y = np.array([np.nan, -1.0, 0.5, 0.5, 2.0])
    above = np.array([np.count_nonzero(e(y)) for e in chain.events])
    assert chain.cells(above, len(y)).tolist() == [2, 2, 1]
    with pytest.raises(ValueError, match="nested"):
        chain.cells(np.array([1, 3]), 5)
    cut = chain.cut_event(0, above=False)
    assert cut(y).tolist() == [True, True, False, False, False] and cut.source() is None
    assert isinstance(cut.predicate, Above)


def test_a_chain_certificate_states_epsilon_from_the_same_box():
    chain = _chain([0.0, 1.0, 2.0])
    on_x, on_x_prime = np.array([100, 300, 300, 300]), np.array([400, 300, 200, 100])
    claim = ZeroConcentratedDP(0.01)
    result = certify_chain(chain, claim, on_x, on_x_prime, 1000, 0.05, 1e-6)
    assert result.bound == chain_bound(claim, on_x, on_x_prime, 1000, 1000, 0.05) > 0.0
    # the best cut: the top cell on x against x' (300 vs 100) or the bottom on x' (400 vs 100)
    assert result.epsilon > 0.0 and result.epsilon < np.log(4.0)


def test_a_chain_is_proposed_for_renyi_claims_only_and_along_a_threshold_events_score():
    rng = np.random.default_rng(1)
    x, x_prime = rng.normal(1.0, 1.0, 20_000), rng.normal(0.0, 1.0, 20_000)
    events = [threshold_event(0.5, True)]
    chain = propose_chain(events, x, x_prime, 200_000, 0.01, ZeroConcentratedDP(0.5))
    assert chain is not None and chain.k >= 3 and list(chain.cuts) == sorted(chain.cuts)
    from auditor.core.claims import PrivacyClaim

    assert propose_chain(events, x, x_prime, 200_000, 0.01, PrivacyClaim(1.0)) is None
    assert propose_chain([], x, x_prime, 200_000, 0.01, ZeroConcentratedDP(0.5)) is None


def _sampled_gaussian_rdp(order: int, q: float, sigma: float) -> float:
    """RDP of the Poisson-sampled Gaussian of sensitivity 1 at an integer order (Mironov, Talwar
    & Zhang 2019): ln sum_k C(a, k) (1 - q)^(a - k) q^k exp((k^2 - k) / (2 sigma^2)) / (a - 1)."""
    k = np.arange(order + 1)
    terms = (
        special.gammaln(order + 1)
        - special.gammaln(k + 1)
        - special.gammaln(order - k + 1)
        + (order - k) * np.log1p(-q)
        + k * np.log(q)
        + (k * k - k) / (2 * sigma**2)
    )
    return float(special.logsumexp(terms) / (order - 1))


def test_cells_thinning_into_the_tail_keep_high_orders_that_equal_cells_lump():
    """A Poisson-sampled Gaussian (q = 1/2, shift 1.5 sigma) against its unsampled neighbour,
    audited against an RDP curve that is the truth halved: most of the excess sits at orders
    3-8, in the far upper tail of the likelihood ratio, which equal-mass cells lump into one.
    The chain proposed on training outputs (tail layouts among the candidates) certifies more on
    fresh outputs than the best equal-mass layout does on the same outputs."""
    rng = np.random.default_rng(5)
    q, shift = 0.5, 1.5

    def draw(sampled: bool, n: int) -> np.ndarray:
        moved = rng.random(n) < q if sampled else np.zeros(n, dtype=bool)
        return rng.normal(0.0, 1.0, n) + shift * moved

    orders = (2, 3, 4, 5, 6, 8, 12, 16, 32)
    truth = {a: _sampled_gaussian_rdp(a, q, 1.0 / shift) for a in orders}
    claim = RenyiDP({a: e / 2 for a, e in truth.items()})
    events = [threshold_event(0.5, True)]
    chain = propose_chain(events, draw(True, 50_000), draw(False, 50_000), 150_000, 0.01, claim)
    assert chain is not None
    on_x, on_x_prime = draw(True, 150_000), draw(False, 150_000)

    def certified(cuts: np.ndarray) -> float:
        edges = np.concatenate([[-np.inf], cuts, [np.inf]])
        c0, c1 = np.histogram(on_x, edges)[0], np.histogram(on_x_prime, edges)[0]
        return chain_bound(claim, c0, c1, 150_000, 150_000, 0.01)

    pooled = np.concatenate([on_x, on_x_prime])
    equal = max(certified(np.quantile(pooled, np.arange(1, k) / k)) for k in CELL_COUNTS)
    tail_mass = float(np.mean(pooled > chain.cuts[-1]))
    assert tail_mass < 1 / max(CELL_COUNTS)  # its top cell is thinner than any equal cell
    assert certified(np.array(chain.cuts)) > 1.03 * equal
    assert certified(np.array(chain.cuts)) < 2.0  # the truth: sound
