# ruff: noqa: E501, E731
"""Exact true values of held-out set 29 (tests/corpus/held_out_mechanisms_29.py), and a sampling check.

Independent of dp-audit: numpy, scipy, mpmath (50 digits), fractions and integers only.

Part 1 recomputes each twin's privacy loss from the algorithm as written in the set (rates,
thresholds, clamps and tail ratios are read from the adapters and checked against their
formulas).  For each CORRECT twin the claim is checked over the whole declared neighbour
relation: the argument for why the pairs checked cover it is beside each check, and where it
can be, the relation is enumerated on a small instance of the same structure.  For each BROKEN
twin a neighbouring pair and an output set whose probabilities violate the claim are given,
with the true value of the claim's parameter (eps for pure claims, inf where none holds; for
(eps, delta) claims delta at the claimed eps, and eps at the claimed delta: inf when the
one-sided mass alone exceeds delta).

Laws with infinite integer support are summed over a window of +-W steps around the answers;
the mass outside is below exp(-rate W) < 1e-25 everywhere here, which the tolerances absorb.

Part 2 draws 100,000 outputs per query (two queries per adapter, seeded), checks that seed()
replays, and compares the outputs with the exact law of Part 1 (chi-square on the pmf with
cells of expected count < 5 pooled; binomial tests on rare outputs); any p < 1e-4 fails.  The
same tests are then run on each adapter's TWIN's outputs, where they must reject (p < 1e-3
on at least one query): they can tell the twins apart.  It also prints, for each broken twin,
the expected counts of its stated event at 200,000 outputs per side (not an audit: one event
chosen knowing the answer).

Prints the tables; exits 1 if any label, true value or sampling check disagrees.
`--no-sampling` runs Part 1 alone.

Run: nice -n 19 python tests/corpus/check_held_out_29.py   (about 25 s of CPU; under a minute on
the loaded 2-core machine)

One file of about 1,000 lines, past the 600 the project aims at: its parts share the exact laws
and the failure list, and set 28's checker is laid out the same way.

Output as run (2026-12-08)
--------------------------

    | adapter | claim | truth (computed) | neighbouring pair; event | label (computed) | stated true value | check |
    |---|---|---|---|---|---|---|
    | ho29.user_partitions.correct | (2, 7.69e-05) | T 22; delta@eps 7.68176e-5 (0.9989x claim) worst split (4,) at prior counts (0,); eps@delta in [1.99988, 2.0] | D vs D + 4 copies of an absent key; event: that key released | correct | 2.0 | ok |
    | ho29.user_partitions.broken | (2, 7.69e-05) | T 19; delta@eps 0.000344273 (4.477x claim) worst split (4,) at prior counts (0,); eps@delta inf | D vs D + 4 copies of an absent key; event: that key released | broken | inf | ok |
    | ho29.stable_mode.correct | (1.5, 0.000101) | T 7; delta@eps 0.000100897 (0.999x claim): tie {1, 2} -> {1, 2, 2}, output 2 w.p. P(Z >= T - 1); eps@delta 1.49988 | {1, 2} vs {1, 2, 2}; event: output = 2 | correct | 1.5 | ok |
    | ho29.stable_mode.broken | (1.5, 0.000101) | T 6; delta@eps 0.000452188 (4.477x claim): tie {1, 2} -> {1, 2, 2}, output 2 w.p. P(Z >= T - 1); eps@delta inf | {1, 2} vs {1, 2, 2}; event: output = 2 | broken | inf | ok |
    | ho29.rr_clear.correct | (1.2, 0.0005) | q 0.0005; delta@eps 0.0005 (1.0x claim); RR part's loss 1.2; eps@delta 1.2 | v = 0 vs v = 1; event: output = 6 | correct | 1.2 | ok |
    | ho29.rr_clear.broken | (1.2, 0.0005) | q 0.003; delta@eps 0.003 (6.0x claim); RR part's loss 1.2; eps@delta inf | v = 0 vs v = 1; event: output = 6 | broken | inf | ok |
    | ho29.gap_argmax.correct | (2.4, 0.000173) | T 9, rate 1.2; delta@eps 0.000172816 (0.9989x claim): gap 2 -> 0 with the argmax moved; eps@delta 2.39977 | (1, 3, 0, 0, 0) vs (2, 2, 0, 0, 0); event: output = 1 | correct | 2.4 | ok |
    | ho29.gap_argmax.broken | (2.4, 0.000173) | T 8, rate 1.2; delta@eps 0.00057377 (3.317x claim): gap 2 -> 0 with the argmax moved; eps@delta inf | (1, 3, 0, 0, 0) vs (2, 2, 0, 0, 0); event: output = 1 | broken | inf | ok |
    | ho29.grid2d.correct | pure 1 | rate 0.25; largest L1 lattice move 4 (at |d1|, |d2| in (1/2, 1/sqrt2]) => eps 1.0; axis moves or both ends on the grid: 0.5; event both >= 1.0: 0.316 vs 0.1163 (ln 1.0) | (0.3, 0.3) -> (1.0, 1.0); event: both coordinates >= 1.0 | correct | 1.0 | ok |
    | ho29.grid2d.broken | pure 1 | rate 0.353553; largest L1 lattice move 4 (at |d1|, |d2| in (1/2, 1/sqrt2]) => eps 1.41421; axis moves or both ends on the grid: 0.707107; event both >= 1.0: 0.3451 vs 0.08391 (ln 1.4142) | (0.3, 0.3) -> (1.0, 1.0); event: both coordinates >= 1.0 | broken | 1.414213562373095 | ok |
    | ho29.log_buckets.correct | pure 0.8 | lower 2; largest bucket move 1 (starts in [1.25, 17.09]); from integer starts 1; eps 0.8; event output >= 2 at 2.3 vs 1.3 (buckets 2, 0): 0.69 vs 0.1393 | 1.3 -> 2.3 (broken) / 2.2 -> 3.2; event: output >= 2 / >= 3 | correct | 0.8 | ok |
    | ho29.log_buckets.broken | pure 0.8 | lower 6/5; largest bucket move 2 (starts in [1.25, 1.498]); from integer starts 1; eps 1.6; event output >= 2 at 2.3 vs 1.3 (buckets 2, 0): 0.69 vs 0.1393 | 1.3 -> 2.3 (broken) / 2.2 -> 3.2; event: output >= 2 / >= 3 | broken | 1.6 | ok |
    | ho29.capped_count.correct | pure 1 | core 4, tail ratio e^-1.0; no output exceeds eps; eps 1.0; o >= 45: 0.00493 vs 0.00181 (ln 1.0); o >= 46: 0.00181 vs 0.000667 (ln 1.0); o >= 47: 0.000667 vs 0.000245 (ln 1.0); o = 35: 0.00311 vs 0.00846 (ln 1.0) | 40 vs 39; event: output >= 47 | correct | 1.0 | ok |
    | ho29.capped_count.broken | pure 1 | core 4, tail ratio e^-0.5; 105 outputs in |o - 40| < 60 exceed eps (largest loss 27.53), the heaviest o = 35 of mass 0.00846 (loss 1.474); eps inf; o >= 45: 0.00493 vs 0.00181 (ln 1.0); o >= 46: 0.00299 vs 0.000667 (ln 1.5); o >= 47: 0.00181 vs 0.000245 (ln 2.0); o = 35: 0.00194 vs 0.00846 (ln 1.47) | 40 vs 39; event: output >= 47 | broken | inf | ok |
    | ho29.snapped_gauss.correct | gdp:mu=1 | sigma 1.25; largest snapped move 2 steps = 1.25 (in 0.603 of starts); mu 1.0; every LR test of the pair 1.25 vs 0 on the floored output: mu 1.0; event output >= 0.75: 0.6554 vs 0.2743 | 0.2 -> 1.2 (snapped 0 -> 1.25); event: output >= 0.75 | correct | 1.0 | ok |
    | ho29.snapped_gauss.broken | gdp:mu=1 | sigma 1.0; largest snapped move 2 steps = 1.25 (in 0.603 of starts); mu 1.25; every LR test of the pair 1.25 vs 0 on the floored output: mu 1.25; event output >= 0.75: 0.6915 vs 0.2266 | 0.2 -> 1.2 (snapped 0 -> 1.25); event: output >= 0.75 | broken | 1.25 | ok |

    sampling (100,000 per query, seed replay checked; 72 tests; smallest five p-values)
        0.02309  ho29.capped_count.correct  (x = 40, output >= 47)
        0.08995  ho29.log_buckets.correct  (x = 1.3 (bucket 1))
        0.09126  ho29.snapped_gauss.broken  (x = 17.9)
        0.1786  ho29.snapped_gauss.correct  (x = 1.2)
        0.1796  ho29.grid2d.correct  (coordinate 0 at index 0)
    power: each adapter's exact law against its twin's samples (smallest p-value)
        0  ho29.user_partitions.correct  (key k0 at count 23)
        0  ho29.user_partitions.broken  (key k0 at count 20)
        0  ho29.stable_mode.correct  (mode 2 gap 6)
        0  ho29.stable_mode.broken  (mode 2 gap 5)
        4.76e-310  ho29.rr_clear.correct  (v = 5)
        2.17e-75  ho29.rr_clear.broken  (clear rate v = 5)
        0  ho29.gap_argmax.correct  (argmax 2 gap 8)
        0  ho29.gap_argmax.broken  (argmax 2 gap 7)
        0  ho29.grid2d.correct  (coordinate 0 at index 0)
        0  ho29.grid2d.broken  (coordinate 0 at index 0)
        0  ho29.log_buckets.correct  (x = 1.3 (bucket 1))
        0  ho29.log_buckets.broken  (x = 1.3 (bucket 0))
        0  ho29.capped_count.correct  (x = 40)
        2.36e-44  ho29.capped_count.broken  (x = 40)
        0  ho29.snapped_gauss.correct  (x = 0.2)
        0  ho29.snapped_gauss.broken  (x = 0.2)

    expected counts of each broken twin's stated event at 200,000 outputs per side
        ho29.user_partitions.broken      4 copies of a new key: key released                68.9 vs      0.0   (one-sided; about 2,905 outputs per occurrence)
        ho29.stable_mode.broken          tie's neighbour: output = 2                        90.4 vs      0.0   (one-sided; about 2,211 outputs per occurrence)
        ho29.rr_clear.broken             v = 0 vs 1: output = 6                            600.0 vs      0.0   (one-sided; about 333 outputs per occurrence)
        ho29.gap_argmax.broken           (1,3,0,0,0) vs (2,2,0,0,0): output = 1            114.8 vs      0.0   (one-sided; about 1,743 outputs per occurrence)
        ho29.grid2d.broken               (1.0,1.0) vs (0.3,0.3): both >= 1.0             69026.3 vs  16781.5   (ln ratio 1.414; about 3 outputs per occurrence)
        ho29.log_buckets.broken          2.3 vs 1.3: output >= 2                        137994.9 vs  27860.7   (ln ratio 1.6; about 1 outputs per occurrence)
        ho29.capped_count.broken         40 vs 39: output >= 47                            362.4 vs     49.0   (ln ratio 2.0; about 552 outputs per occurrence)
        ho29.snapped_gauss.broken        1.2 vs 0.2: output >= 0.75                     138292.5 vs  45325.5   (mu bound 1.25; about 1 outputs per occurrence)

    all labels, true values and sampling checks agree
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path

import mpmath as mp
import numpy as np
from scipy import stats

mp.mp.dps = 50
HERE = Path(__file__).resolve().parent
FAILURES: list[str] = []
ROWS: list[tuple] = []


def load_set():
    spec = importlib.util.spec_from_file_location(
        "held_out_mechanisms_29", HERE / "held_out_mechanisms_29.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {a.name: a for a in module.ADAPTERS}


def expect(ok, what):
    if not ok:
        FAILURES.append(what)
    return ok


# ---------------------------------------------------------------------------------------------
# Exact discrete-Laplace arithmetic and divergences
# ---------------------------------------------------------------------------------------------


def dl_pmf(rate, z):
    p = mp.e ** (-mp.mpf(rate))
    return (1 - p) / (1 + p) * p ** abs(int(z))


def dl_ge(rate, m):
    """P(Z >= m), m an integer."""
    p = mp.e ** (-mp.mpf(rate))
    m = int(m)
    return p**m / (1 + p) if m >= 1 else 1 - p ** (1 - m) / (1 + p)


def hockey(P, Q, eps):
    """delta(eps) = sum_o max(0, P(o) - e^eps Q(o)) for laws given as dicts."""
    e = mp.e ** mp.mpf(eps)
    return mp.fsum(max(mp.mpf(0), P[o] - e * Q.get(o, 0)) for o in P)


def one_sided(P, Q):
    return mp.fsum(P[o] for o in P if Q.get(o, 0) == 0)


def eps_at_delta(pairs, delta):
    """Least eps with hockey(P, Q, eps) <= delta over all (P, Q) in pairs (both orders given)."""
    if max(one_sided(P, Q) for P, Q in pairs) > delta:
        return mp.inf
    lo, hi = mp.mpf(0), mp.mpf(50)
    for _ in range(120):
        mid = (lo + hi) / 2
        if max(hockey(P, Q, mid) for P, Q in pairs) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def max_loss(P, Q):
    """sup_o ln(P(o) / Q(o)) over outputs P gives positive mass."""
    out = mp.mpf("-inf")
    for o, v in P.items():
        if v == 0:
            continue
        q = Q.get(o, 0)
        out = max(out, mp.inf if q == 0 else mp.log(v / q))
    return out


def record(a, truth, pair, computed_broken, computed_value, tol=1e-6):
    """One table row; checks the label and the stated true value."""
    label = "broken" if computed_broken else "correct"
    ok = expect(computed_broken == a.broken, f"{a.name}: label computed {label}")
    if mp.isinf(computed_value) or math.isinf(a.true_value):
        ok &= expect(
            mp.isinf(computed_value) and math.isinf(a.true_value),
            f"{a.name}: true value {computed_value} vs stated {a.true_value}",
        )
    else:
        ok &= expect(
            abs(float(computed_value) - a.true_value) <= tol * max(1, abs(a.true_value)),
            f"{a.name}: true value {computed_value} vs stated {a.true_value}",
        )
    if hasattr(a, "claim"):
        claim = a.claim
    elif getattr(a, "delta", 0):
        claim = f"({a.epsilon:g}, {a.delta:g})"
    else:
        claim = f"pure {a.epsilon:g}"
    ROWS.append((a.name, claim, truth, pair, label, a.true_value, "ok" if ok else "MISMATCH"))


def f(x, d=6):
    return "inf" if mp.isinf(x) else mp.nstr(x, d)


# ---------------------------------------------------------------------------------------------
# 1. user_partitions
# ---------------------------------------------------------------------------------------------


def key_law(rate, T, c, W=140):
    """One key's output law at count c: 'absent', or its noisy count v >= T."""
    if c == 0:
        return {"absent": mp.mpf(1)}
    law = {"absent": 1 - dl_ge(rate, T - c)}
    for v in range(T, T + c + W):
        law[v] = dl_pmf(rate, v - c)
    return law


_LOSS_CACHE: dict = {}


def loss_dist(P, Q):
    """The privacy-loss distribution ln(P/Q) under P, grouped (inf where Q = 0); cached."""
    key = (id(P), id(Q))
    if key in _LOSS_CACHE:
        return _LOSS_CACHE[key][0]
    out = _loss_dist(P, Q)
    _LOSS_CACHE[key] = (out, P, Q)  # keep P, Q alive so their ids stay unique
    return out


def _loss_dist(P, Q):
    out: dict = {}
    for o, v in P.items():
        if v == 0:
            continue
        q = Q.get(o, 0)
        ell = mp.inf if q == 0 else mp.log(v / q)
        k = "inf" if q == 0 else mp.nstr(ell, 30)
        out[k] = (ell, out.get(k, (ell, 0))[1] + v)
    return out


def product_delta(factors, eps):
    """delta(eps) of a product of independent laws: E_P[(1 - e^(eps - L))_+], L the summed loss."""
    total = {"0": (mp.mpf(0), mp.mpf(1))}
    for P, Q in factors:
        d = loss_dist(P, Q)
        new: dict = {}
        for _, (l1, m1) in total.items():
            for _, (l2, m2) in d.items():
                ell = l1 + l2
                k = "inf" if mp.isinf(ell) else mp.nstr(ell, 25)
                new[k] = (ell, new.get(k, (ell, 0))[1] + m1 * m2)
        total = new
    e = mp.mpf(eps)
    return mp.fsum(
        m if mp.isinf(ell) else m * max(mp.mpf(0), 1 - mp.e ** (e - ell))
        for ell, m in total.values()
    )


def least_T(rate, delta, k):
    """Least T with max over splits of k records over new keys of P(some released) <= delta."""
    T = 1
    while True:
        worst = max(
            1 - mp.fprod(1 - dl_ge(rate, T - c) for c in split)
            for n in range(1, k + 1)
            for split in partitions(n)
        )
        if worst <= delta:
            return T, worst
        T += 1


def partitions(n, most=None):
    most = n if most is None else most
    if n == 0:
        yield ()
        return
    for a in range(min(n, most), 0, -1):
        for rest in partitions(n - a, a):
            yield (a,) + rest


def check_user_partitions(adapters):
    # Why these pairs cover the relation.  One user adds (or removes) up to 4 records, a_i to
    # key i; keys the user does not touch have the same law on both sides and drop out of the
    # hockey-stick of the product.  So a pair is a split (a_i) of at most 4 records with the
    # prior counts c_i of the touched keys.  The scan below takes every split and c_i in
    # {0, 1, 2, 3, T-6, ..., T+3} (the release decision moves only near T; far above T a key
    # is a plain discrete Laplace shifted by a_i, whose loss is rate * a_i whatever c_i), both
    # directions.  Analytically: outputs releasing a new key have mass 0 on the other side;
    # the rest of the law is a product of eps-DP count releases (rate eps/4, L1 move <= 4),
    # so delta(eps) = P(some new key released), largest when all 4 records are new: 1 - prod
    # (1 - P(Z >= T - a_i)), maximal for the split (4,).
    for a in adapters:
        rate, T, eps, delta = a.epsilon / 4, a.threshold, a.epsilon, a.delta
        T_right, worst_right = least_T(rate, delta, 4)
        T_one = least_T(rate, delta, 1)[0]
        expect(
            (T_one if a.broken else T_right) == T,
            f"{a.name}: threshold {T}, formula {(T_one if a.broken else T_right)}",
        )
        cs = sorted({0, 1, 2, 3} | set(range(max(1, T - 6), T + 4)))
        laws = {
            (s, c): (key_law(rate, T, c + s), key_law(rate, T, c)) for s in range(1, 5) for c in cs
        }
        worst, arg = mp.mpf(0), None
        for n in range(1, 5):
            for split in partitions(n):
                seen = set()
                for order in itertools.product(cs, repeat=len(split)):
                    touched = tuple(sorted(zip(split, order, strict=True)))
                    if touched in seen:
                        continue
                    seen.add(touched)
                    facs = [laws[t] for t in touched]
                    for fac in (facs, [(Q, P) for P, Q in facs]):
                        d = product_delta(fac, eps)
                        if d > worst:
                            worst, arg = d, (split, order)
        one = dl_ge(rate, T - 4)  # 4 copies of a new key: released w.p. P(Z >= T - 4)
        expect(abs(worst - one) < mp.mpf(10) ** -30, f"{a.name}: scan worst {worst} vs (4,) {one}")
        broken = worst > delta
        if broken:
            value = mp.inf  # the one-sided mass exceeds delta at every eps
        else:
            # eps at delta lies in [lb, eps]: lb from the pure pair of 4 records on a key far
            # above T (a discrete Laplace shifted by 4, loss exactly eps on half its mass).
            P, Q = key_law(rate, 1, 40 + 4), key_law(rate, 1, 40)
            lb = eps_at_delta([(P, Q), (Q, P)], delta)
            value = mp.mpf(eps)
        truth = (
            f"T {T}; delta@eps {f(worst)} ({f(worst / delta, 4)}x claim) worst split {arg[0]} at prior counts {arg[1]}; eps@delta "
            + ("inf" if broken else f"in [{f(lb)}, {eps}]")
        )
        record(
            a, truth, "D vs D + 4 copies of an absent key; event: that key released", broken, value
        )


# ---------------------------------------------------------------------------------------------
# 2. stable_mode
# ---------------------------------------------------------------------------------------------


def mode_gap(counts):
    mode = int(np.argmax(counts))
    s = sorted(counts, reverse=True)
    return mode, s[0] - s[1]


def mode_law(rate, T, mode, g):
    return {mode: dl_ge(rate, T - g), "none": 1 - dl_ge(rate, T - g)}


def check_stable_mode(adapters):
    # The law depends on the data only through (mode, gap).  Enumerate every multiset of 1..7
    # records over 4 values (the structure does not depend on the alphabet's size) and every
    # record added: the gap moves by at most 1, and the mode changes only where the two gaps
    # sum to at most 1 (a tie and its neighbour; a three-way tie gives 0 and 0).
    shapes = set()
    for size in range(1, 8):
        for ms in itertools.combinations_with_replacement(range(4), size):
            c = np.bincount(ms, minlength=4)
            m0, g0 = mode_gap(c)
            for r in range(4):
                c2 = c.copy()
                c2[r] += 1
                m1, g1 = mode_gap(c2)
                shapes.add((m0 == m1, g0, g1))
    expect(all(abs(g0 - g1) <= 1 for _, g0, g1 in shapes), "stable_mode: gap moved by more than 1")
    diff_shapes = {(g0, g1) for same, g0, g1 in shapes if not same}
    expect(all(g0 + g1 <= 1 for g0, g1 in diff_shapes), "stable_mode: mode changed away from a tie")
    expect(
        (0, 0) in diff_shapes and (1, 0) in diff_shapes and (0, 1) in diff_shapes,
        "stable_mode: expected shapes missing",
    )
    for a in adapters:
        rate, T, eps, delta = a.epsilon, a.threshold, a.epsilon, a.delta
        expect(
            (_least(rate, delta, 0) if a.broken else _least(rate, delta, 1)) == T,
            f"{a.name}: threshold",
        )
        pairs = []
        # same mode, gap g vs g + 1 (beyond T + 30 the laws only converge)
        for g in range(0, T + 30):
            P, Q = mode_law(rate, T, 0, g), mode_law(rate, T, 0, g + 1)
            pairs += [(P, Q), (Q, P)]
        for g0, g1 in diff_shapes:  # the mode moved: a tie and its neighbour (gap 0 or 1)
            P, Q = mode_law(rate, T, 0, g0), mode_law(rate, T, 1, g1)
            pairs += [(P, Q), (Q, P)]
        d = max(hockey(P_, Q_, eps) for P_, Q_ in pairs)
        mass = dl_ge(rate, T - 1)
        expect(abs(d - mass) < mp.mpf(10) ** -40, f"{a.name}: delta {d} vs one-sided {mass}")
        broken = d > delta
        value = eps_at_delta(pairs, delta)
        if not broken:
            expect(value <= eps, f"{a.name}: eps at delta above claim")
            lb, value = value, mp.mpf(eps)
        truth = (
            f"T {T}; delta@eps {f(d)} ({f(d / delta, 4)}x claim): tie {{1, 2}} -> {{1, 2, 2}}, output 2 w.p. P(Z >= T - 1); eps@delta "
            + ("inf" if broken else f(lb))
        )
        record(a, truth, "{1, 2} vs {1, 2, 2}; event: output = 2", broken, value)


def _least(rate, delta, move):
    t = 1
    while dl_ge(rate, t - move) > delta:
        t += 1
    return t


# ---------------------------------------------------------------------------------------------
# 3. rr_clear
# ---------------------------------------------------------------------------------------------


def rr_law(eps, q, v, k=6):
    e = mp.e ** mp.mpf(eps)
    law = {o: (1 - q) * (e if o == v else 1) / (e + k - 1) for o in range(k)}
    law[v + k] = mp.mpf(q)
    return law


def check_rr_clear(adapters):
    # Local: every pair of values is a neighbouring pair; all 30 ordered pairs are checked.
    for a in adapters:
        q = mp.mpf(a.clear_rate)
        expect(
            abs(q - (6 * mp.mpf(a.delta) if a.broken else mp.mpf(a.delta))) < 1e-15,
            f"{a.name}: clear rate",
        )
        pairs = [
            (rr_law(a.epsilon, q, v), rr_law(a.epsilon, q, w))
            for v in range(6)
            for w in range(6)
            if v != w
        ]
        d = max(hockey(P, Q, a.epsilon) for P, Q in pairs)
        expect(abs(d - q) < mp.mpf(10) ** -40, f"{a.name}: delta {d} vs q {q}")
        broken = d > mp.mpf(a.delta) * (1 + mp.mpf(10) ** -12)
        value = eps_at_delta(pairs, mp.mpf(a.delta))
        pure = max(max_loss({o: P[o] for o in range(6)}, Q) for P, Q in pairs)
        truth = f"q {f(q)}; delta@eps {f(d)} ({f(d / a.delta, 4)}x claim); RR part's loss {f(pure)}; eps@delta {f(value)}"
        record(a, truth, "v = 0 vs v = 1; event: output = 6", broken, value)


# ---------------------------------------------------------------------------------------------
# 4. gap_argmax
# ---------------------------------------------------------------------------------------------


def argmax_law(rate, T, i, g):
    return {i: dl_ge(rate, T - g), -1: 1 - dl_ge(rate, T - g)}


def check_gap_argmax(adapters):
    # The law depends on the utilities only through (argmax, gap).  Enumerate every vector in
    # {0..3}^5 and every linf move in {-1, 0, 1}^5 staying in {0..3} (the structure is
    # translation invariant, and entries far below the top two do not matter): the gap moves
    # by at most 2, and where the argmax changes, g + g' <= 2.
    u = np.array(list(itertools.product(range(4), repeat=5)))
    moves = np.array(list(itertools.product((-1, 0, 1), repeat=5)))
    v = (u[:, None, :] + moves[None, :, :]).reshape(-1, 5)
    u = np.repeat(u, len(moves), axis=0)
    keep = (v >= 0).all(1) & (v <= 3).all(1)
    u, v = u[keep], v[keep]
    su, sv = np.sort(u, 1), np.sort(v, 1)
    gu, gv = su[:, -1] - su[:, -2], sv[:, -1] - sv[:, -2]
    same = np.argmax(u, 1) == np.argmax(v, 1)
    expect(int(np.abs(gu - gv).max()) == 2, "gap_argmax: gap moves not up to 2")
    expect(int((gu + gv)[~same].max()) == 2, "gap_argmax: g + g' over 2 where the argmax changes")
    diff_shapes = {(int(x), int(y)) for x, y in zip(gu[~same], gv[~same], strict=True)}
    for a in adapters:
        rate, T, eps, delta = a.epsilon / 2, a.threshold, a.epsilon, a.delta
        expect(
            (_least(rate, delta, 1) if a.broken else _least(rate, delta, 2)) == T,
            f"{a.name}: threshold",
        )
        pairs = []
        for g in range(0, 48):  # same argmax, gaps g and g + 1 or g + 2 (bounds 0..40)
            for h in (g + 1, g + 2):
                P, Q = argmax_law(rate, T, 0, g), argmax_law(rate, T, 0, h)
                pairs += [(P, Q), (Q, P)]
        for g, h in diff_shapes:  # argmax 0 -> 1
            P, Q = argmax_law(rate, T, 0, g), argmax_law(rate, T, 1, h)
            pairs += [(P, Q), (Q, P)]
        d = max(hockey(P, Q, eps) for P, Q in pairs)
        mass = dl_ge(rate, T - 2)
        expect(abs(d - mass) < mp.mpf(10) ** -40, f"{a.name}: delta {d} vs P(Z >= T - 2) {mass}")
        broken = d > delta
        value = eps_at_delta(pairs, delta)
        if not broken:
            lb, value = value, mp.mpf(eps)
        truth = (
            f"T {T}, rate {rate}; delta@eps {f(d)} ({f(d / delta, 4)}x claim): gap 2 -> 0 with the argmax moved; eps@delta "
            + ("inf" if broken else f(lb))
        )
        record(a, truth, "(1, 3, 0, 0, 0) vs (2, 2, 0, 0, 0); event: output = 1", broken, value)


# ---------------------------------------------------------------------------------------------
# 5. grid2d
# ---------------------------------------------------------------------------------------------


def check_grid2d(adapters):
    # Pure eps of a product of discrete Laplaces shifted by lattice moves (s1, s2) is
    # rate * (|s1| + |s2|) exactly (attained beyond both centres).  A coordinate at grid
    # offset f in [0, 1) (in steps of 0.5) moved by d moves by floor(f + 2d) - floor(f), at most
    # ceil(2 |d|) in size; offsets are independent per coordinate, so the largest L1 move is
    # max over the l2 ball of S(d1) + S(d2), S(d) = max over f of the shift.  Enumerated on
    # rationals: f in k/64, d in j/64.
    fs = [Fraction(k, 64) for k in range(64)]
    S = {}
    for j in range(-64, 65):
        d = Fraction(j, 64)
        S[d] = max(abs(math.floor(x + 2 * d) - math.floor(x)) for x in fs)
    best = max((S[d1] + S[d2], d1, d2) for d1 in S for d2 in S if d1 * d1 + d2 * d2 <= 1)
    expect(best[0] == 4, f"grid2d: largest lattice move {best[0]}")
    # moves along one axis, and pairs with both ends on the 0.5 grid (d_i in multiples of 1/2):
    axis = max(S[d] for d in S)
    on_grid = max(abs(a) + abs(b) for a in range(-2, 3) for b in range(-2, 3) if a * a + b * b <= 4)
    axis_or_grid = max(axis, on_grid)
    expect(axis_or_grid == 2, f"grid2d: axis / on-grid lattice move {axis_or_grid}")
    # the stated pair as the adapter computes it, on doubles
    x, y = np.array([0.3, 0.3]), np.array([1.0, 1.0])
    expect(
        float(np.sum((y - x) ** 2)) <= 1.0, "grid2d: the stated pair is not within l2 distance 1"
    )
    shift = np.floor(y / 0.5) - np.floor(x / 0.5)
    expect(list(shift) == [2, 2], "grid2d: stated pair's shift")
    for a in adapters:
        rate = mp.mpf(a.rate)
        expect(
            abs(
                rate
                - (
                    mp.mpf(a.epsilon) * mp.mpf("0.5") / mp.sqrt(2)
                    if a.broken
                    else mp.mpf(a.epsilon) / 4
                )
            )
            < 1e-15,
            f"{a.name}: rate",
        )
        value = 4 * rate
        hi, lo = dl_ge(rate, 0) ** 2, dl_ge(rate, 2) ** 2  # event both coordinates >= 1.0
        aligned = axis_or_grid * rate  # pairs along an axis or with both ends on the grid
        truth = f"rate {f(rate)}; largest L1 lattice move 4 (at |d1|, |d2| in (1/2, 1/sqrt2]) => eps {f(value)}; axis moves or both ends on the grid: {f(aligned)}; event both >= 1.0: {f(hi, 4)} vs {f(lo, 4)} (ln {f(mp.log(hi / lo), 5)})"
        record(
            a,
            truth,
            "(0.3, 0.3) -> (1.0, 1.0); event: both coordinates >= 1.0",
            value > a.epsilon + 1e-12,
            value,
        )


# ---------------------------------------------------------------------------------------------
# 6. log_buckets
# ---------------------------------------------------------------------------------------------


EDGES = [Fraction(3**j, 2**j) for j in range(1, 9)]


def bucket(y, lower):
    y = min(max(y, lower), Fraction(20))
    return sum(1 for e in EDGES if e <= y)


def check_log_buckets(adapters):
    # The bucket index is monotone in x, so the largest move for |x - x'| <= 1 is at a move of
    # exactly 1: max over x of bucket(x + 1) - bucket(x), enumerated on x in k/400 over [0, 19],
    # plus every edge and the points just below edges (exact rationals).  Loss = rate * shift.
    for a in adapters:
        lower = Fraction(a.lower).limit_denominator(10)
        expect(lower == (Fraction(6, 5) if a.broken else Fraction(2)), f"{a.name}: lower clamp")
        xs = {Fraction(k, 400) for k in range(0, 19 * 400 + 1)}
        xs |= {e - 1 for e in EDGES} | {e - 1 - Fraction(1, 10**9) for e in EDGES} | set(EDGES)
        shifts = [(bucket(x + 1, lower) - bucket(x, lower), x) for x in xs if 0 <= x <= 19]
        top = max(shifts)
        integer_top = max(s for s, x in shifts if x.denominator == 1)
        value = mp.mpf(a.epsilon) * top[0]
        rate = mp.mpf(a.epsilon)
        ev = (dl_ge(rate, 0), dl_ge(rate, 2))
        region = [x for s, x in shifts if s == top[0]]
        truth = f"lower {lower}; largest bucket move {top[0]} (starts in [{float(min(region)):.4g}, {float(max(region)):.4g}]); from integer starts {integer_top}; eps {f(value)}; event output >= 2 at 2.3 vs 1.3 (buckets 2, 0): {f(ev[0], 4)} vs {f(ev[1], 4)}"
        record(
            a,
            truth,
            "1.3 -> 2.3 (broken) / 2.2 -> 3.2; event: output >= 2 / >= 3",
            value > a.epsilon + 1e-12,
            value,
        )


# ---------------------------------------------------------------------------------------------
# 7. capped_count
# ---------------------------------------------------------------------------------------------


def capped_pmf(rate, tail_rate, z, core):
    """The cached sampler's noise law: |z| <= core as the discrete Laplace, beyond z = +-(core + G)."""
    if abs(z) <= core:
        return dl_pmf(rate, z)
    pt = mp.e ** (-mp.mpf(tail_rate))
    s = abs(z) - core
    return dl_ge(rate, core + 1) * (1 - pt) * pt ** (s - 1)


def check_capped_count(adapters):
    # Inputs 0..39 use the plain discrete Laplace (neighbours: loss exactly rate).  The only
    # other pairs are 40 vs 39.
    for a in adapters:
        rate, tr, core = mp.mpf(a.epsilon), mp.mpf(a.tail_rate), a.core
        expect(abs(tr - (rate / 2 if a.broken else rate)) < 1e-15, f"{a.name}: tail rate")
        W = 200
        P40 = {40 + z: capped_pmf(rate, tr, z, core) for z in range(-W, W + 1)}
        P39 = {39 + z: dl_pmf(rate, z) for z in range(-W, W + 1)}
        expect(
            abs(mp.fsum(P40.values()) - 1) < mp.mpf(10) ** -25,
            f"{a.name}: pmf sums to {mp.fsum(P40.values())}",
        )
        common = [o for o in P40 if o in P39 and abs(o - 40) < 60]
        over = []  # outputs whose loss exceeds eps, with the mass of the side they favour
        for o in common:
            ell = mp.log(P40[o] / P39[o])
            if abs(ell) > rate + mp.mpf(10) ** -30:
                over.append((o, ell, P40[o] if ell > 0 else P39[o]))
        worst = max(abs(ell) for _, ell, _ in over) if over else rate
        top = 40 + core + 1  # first output of the upper tail
        if a.broken:
            value = mp.inf  # loss at top + j grows as about 1 + j/2 without bound
            grows = [mp.log(P40[top + j] / P39[top + j]) for j in (0, 10, 40)]
            expect(grows[0] < grows[1] < grows[2] and grows[2] > 10, f"{a.name}: no tail growth")
            heavy = max(m for _, _, m in over)
            expect(heavy <= mp.mpf("0.02"), f"{a.name}: an output of mass {heavy} shows the loss")
        else:
            value = rate
            expect(not over, f"{a.name}: outputs with loss above eps")
            expect(
                all(abs(P40[o] - dl_pmf(rate, o - 40)) < mp.mpf(10) ** -45 for o in P40),
                f"{a.name}: cached sampler is not the discrete Laplace",
            )
        ev = [
            (
                top + j,
                mp.fsum(v for o, v in P40.items() if o >= top + j),
                mp.fsum(v for o, v in P39.items() if o >= top + j),
            )
            for j in (0, 1, 2)
        ]
        evs = "; ".join(
            f"o >= {t}: {f(p, 3)} vs {f(q, 3)} (ln {f(mp.log(p / q), 3)})" for t, p, q in ev
        )
        low = 40 - core - 1
        lows = f"o = {low}: {f(P40[low], 3)} vs {f(P39[low], 3)} (ln {f(mp.log(P39[low] / P40[low]), 3)})"
        if over:
            most = max(over, key=lambda t: t[2])
            overs = f"{len(over)} outputs in |o - 40| < 60 exceed eps (largest loss {f(worst, 4)}), the heaviest o = {most[0]} of mass {f(most[2], 3)} (loss {f(abs(most[1]), 4)})"
        else:
            overs = "no output exceeds eps"
        truth = f"core {core}, tail ratio e^-{f(tr, 3)}; {overs}; eps {f(value)}; {evs}; {lows}"
        record(a, truth, f"40 vs 39; event: output >= {top + 2}", value > a.epsilon + 1e-12, value)


# ---------------------------------------------------------------------------------------------
# 8. snapped_gauss
# ---------------------------------------------------------------------------------------------


def snap_index(x):
    """The adapter's grid index, on exact rationals: floor(x / (5/8) + 1/2)."""
    return math.floor(x / Fraction(5, 8) + Fraction(1, 2))


def snapped_pmf(y, sigma, lo=-60, hi=60):
    """Law of floor(4 (y + sigma N)) / 4, as a dict over the integers m = 4 * output."""
    s = mp.mpf(sigma)
    return {
        m: mp.ncdf((mp.mpf(m + 1) / 4 - y) / s) - mp.ncdf((mp.mpf(m) / 4 - y) / s)
        for m in range(lo, hi)
    }


def probit(p):
    return mp.sqrt(2) * mp.erfinv(2 * p - 1)


def gdp_of_pair(P, Q):
    """Largest mu that a deterministic likelihood-ratio test of P against Q refutes: the
    trade-off curve of two discrete laws is the polygon through these tests' (alpha, beta), and
    G_mu is convex, so the polygon lies above G_mu iff every vertex does."""
    order = sorted(P, key=lambda o: P[o] / Q[o] if Q[o] > 0 else mp.inf, reverse=True)
    a = b = mp.mpf(0)  # alpha = Q(reject), 1 - beta = P(reject)
    best = mp.mpf(0)
    for o in order[:-1]:
        a += Q[o]
        b += P[o]
        if 0 < a < 1 and 0 < b < 1:
            best = max(best, probit(b) - probit(a))
    return best


def check_snapped_gauss(adapters):
    # The index is monotone in x, so the largest index move over |x - x'| <= 1 is at moves of
    # exactly 1; enumerated on x in k/1000 over [0, 29] (exact), and again in doubles as the
    # adapter computes it.  A snapped move of s steps is a Gaussian shift of 0.625 s: exactly
    # (0.625 s / sigma)-GDP, kept by the flooring (post-processing), and attained by every
    # threshold event of the floored output (a threshold test on the Gaussian itself).
    xs = [Fraction(k, 1000) for k in range(0, 29001)]
    shift = max(snap_index(x + 1) - snap_index(x) for x in xs)
    shift_f = max(
        math.floor((x + 1) / 0.625 + 0.5) - math.floor(x / 0.625 + 0.5)
        for x in (k / 1000 for k in range(0, 29001))
    )
    expect(shift == 2 and shift_f == 2, f"snapped_gauss: largest index move {shift} / {shift_f}")
    share = sum(1 for x in xs if snap_index(x + 1) - snap_index(x) == 2) / len(xs)
    for a in adapters:
        sigma = mp.mpf(a.sigma)
        expect(abs(sigma - (1 if a.broken else mp.mpf("1.25"))) < 1e-15, f"{a.name}: sigma")
        value = mp.mpf("1.25") / sigma
        P, Q = snapped_pmf(mp.mpf("1.25"), sigma), snapped_pmf(0, sigma)
        mu_events = gdp_of_pair(P, Q)
        expect(abs(mu_events - value) < 1e-12, f"{a.name}: threshold events give mu {mu_events}")
        p0, p1 = (
            mp.ncdf((mp.mpf("1.25") - mp.mpf("0.75")) / sigma),
            mp.ncdf(-mp.mpf("0.75") / sigma),
        )
        truth = (
            f"sigma {f(sigma)}; largest snapped move 2 steps = 1.25 (in {share:.3f} of starts); mu {f(value)}; "
            f"every LR test of the pair 1.25 vs 0 on the floored output: mu {f(mu_events, 8)}; "
            f"event output >= 0.75: {f(p0, 4)} vs {f(p1, 4)}"
        )
        record(
            a,
            truth,
            "0.2 -> 1.2 (snapped 0 -> 1.25); event: output >= 0.75",
            value > a.mu + 1e-12,
            value,
        )


# ---------------------------------------------------------------------------------------------
# Part 2: sampling
# ---------------------------------------------------------------------------------------------


def chi2_p(samples, pmf):
    """Chi-square of integer samples against an exact pmf (dict); cells of expected < 5 pooled."""
    n = len(samples)
    vals, counts = np.unique(samples, return_counts=True)
    obs = dict(zip(vals.tolist(), counts.tolist(), strict=True))
    keys = sorted(pmf, key=lambda k: (isinstance(k, str), k))
    exp_cells, obs_cells, pool_e, pool_o = [], [], 0.0, 0
    for k in keys:
        e = float(pmf[k]) * n
        if e >= 5:
            exp_cells.append(e)
            obs_cells.append(obs.pop(k, 0))
        else:
            pool_e += e
            pool_o += obs.pop(k, 0)
    pool_o += sum(obs.values())  # anything outside the pmf's keys
    exp_cells.append(max(pool_e, 1e-12))
    obs_cells.append(pool_o)
    if pool_e < 1e-9 and pool_o > 0:
        return 0.0
    exp_cells, obs_cells = np.array(exp_cells), np.array(obs_cells)
    stat = float(np.sum((obs_cells - exp_cells) ** 2 / exp_cells))
    return float(stats.chi2.sf(stat, len(exp_cells) - 1))


def binom_p(k, n, p):
    return float(stats.binomtest(int(k), n, float(p)).pvalue)


def twin_name(name):
    return (
        name.replace(".correct", ".broken")
        if name.endswith(".correct")
        else name.replace(".broken", ".correct")
    )


def sampling_checks(A, n=100_000, swap=False):
    """Tests each adapter's outputs against its exact law; with swap=True, its twin's outputs
    against it (these tests must reject: they can tell the twins apart)."""
    results = []

    counter = iter(range(10**6))

    def run(law_adapter, q, tests):
        a = A[twin_name(law_adapter.name)] if swap else law_adapter
        a.seed(12345)
        s1 = a.sample(q, 200)
        a.seed(12345)
        s2 = a.sample(q, 200)
        same = (
            s1 == s2
            if isinstance(s1, list)
            else np.array_equal(np.asarray(s1), np.asarray(s2), equal_nan=True)
        )
        expect(same, f"{a.name}: seed does not replay")
        a.seed(2029 + next(counter))  # a fresh stream per query
        s = a.sample(q, n)
        for what, p in tests(s):
            results.append((p, law_adapter.name, what))

    for a in (A["ho29.user_partitions.correct"], A["ho29.user_partitions.broken"]):
        rate, T = a.epsilon / 4, a.threshold
        for q, key, c in (
            (np.array([3] * (T - 2) + [5] * 4 + [1]), 3, T - 2),
            (np.array([0] * (T + 1) + [6]), 0, T + 1),
        ):
            law = key_law(rate, T, c, W=60)

            def tests(s, key=key, law=law, c=c):
                col = np.array([o.get(f"k{key}", -(10**6)) for o in s])
                pmf = {(-(10**6) if k == "absent" else k): v for k, v in law.items()}
                other = sum(1 for o in s if set(o) - {f"k{j}" for j in range(8)})
                return [
                    (f"key k{key} at count {c}", chi2_p(col, pmf)),
                    ("no unknown key", 1.0 if other == 0 else 0.0),
                ]

            run(a, q, tests)
    for a in (A["ho29.stable_mode.correct"], A["ho29.stable_mode.broken"]):
        T = a.threshold
        for q, mode, g in (
            (np.array([2] * (T + 1) + [4] * 2), 2, T - 1),
            (np.array([7, 7, 3, 3]), 3, 0),
        ):

            def tests(s, mode=mode, g=g, T=T, a=a):
                rel = ~np.isnan(s)
                ok = bool(np.all(s[rel] == mode))
                return [
                    (f"mode {mode} gap {g}", binom_p(rel.sum(), n, dl_ge(a.epsilon, T - g))),
                    ("released value is the mode", 1.0 if ok else 0.0),
                ]

            run(a, q, tests)
    for a in (A["ho29.rr_clear.correct"], A["ho29.rr_clear.broken"]):
        for v in (0, 5):
            law = rr_law(a.epsilon, mp.mpf(a.clear_rate), v)
            run(
                a,
                v,
                lambda s, law=law, v=v: [
                    (f"v = {v}", chi2_p(s, law)),
                    (f"clear rate v = {v}", binom_p((s == v + 6).sum(), n, law[v + 6])),
                ],
            )
    for a in (A["ho29.gap_argmax.correct"], A["ho29.gap_argmax.broken"]):
        rate, T = a.epsilon / 2, a.threshold
        for q, i, g in (
            (np.array([4, 0, 4 + T - 1, 2, 1]), 2, T - 1),
            (np.array([5, 6, 1, 0, 9]), 4, 3),
        ):
            run(
                a,
                q,
                lambda s, i=i, g=g, rate=rate, T=T: [
                    (f"argmax {i} gap {g}", chi2_p(s, argmax_law(rate, T, i, g)))
                ],
            )
    for a in (A["ho29.grid2d.correct"], A["ho29.grid2d.broken"]):
        for q in (np.array([0.3, -1.2]), np.array([7.74, 0.0])):
            idx = np.floor(q / 0.5).astype(int)

            def tests(s, idx=idx, a=a):
                out = []
                for j in range(2):
                    k = np.rint(s[:, j] / 0.5).astype(int)
                    out.append(
                        (
                            f"coordinate {j} at index {idx[j]}",
                            chi2_p(k, {z + idx[j]: dl_pmf(a.rate, z) for z in range(-80, 81)}),
                        )
                    )
                    out.append(
                        (
                            f"coordinate {j} on the 0.5 grid",
                            1.0 if np.all(k * 0.5 == s[:, j]) else 0.0,
                        )
                    )
                both = ((s[:, 0] >= (idx[0] + 1) * 0.5) & (s[:, 1] >= (idx[1] + 1) * 0.5)).sum()
                out.append(
                    ("joint: both above their index + 1", binom_p(both, n, dl_ge(a.rate, 1) ** 2))
                )
                return out

            run(a, q, tests)
    for a in (A["ho29.log_buckets.correct"], A["ho29.log_buckets.broken"]):
        for q in (1.3, 2.3, 12.0):
            b = bucket(Fraction(q).limit_denominator(100), Fraction(a.lower).limit_denominator(10))
            run(
                a,
                q,
                lambda s, b=b, a=a, q=q: [
                    (
                        f"x = {q} (bucket {b})",
                        chi2_p(s, {z + b: dl_pmf(a.epsilon, z) for z in range(-100, 101)}),
                    )
                ],
            )
    for a in (A["ho29.capped_count.correct"], A["ho29.capped_count.broken"]):
        tr = a.tail_rate
        run(
            a,
            40,
            lambda s, a=a, tr=tr: [
                (
                    "x = 40",
                    chi2_p(
                        s, {40 + z: capped_pmf(a.epsilon, tr, z, a.core) for z in range(-150, 151)}
                    ),
                ),
                (
                    "x = 40, output >= 47",
                    binom_p(
                        (s >= 47).sum(),
                        n,
                        mp.fsum(capped_pmf(a.epsilon, tr, z, a.core) for z in range(7, 300)),
                    ),
                ),
            ],
        )
        run(
            a,
            39,
            lambda s, a=a: [
                ("x = 39", chi2_p(s, {39 + z: dl_pmf(a.epsilon, z) for z in range(-150, 151)}))
            ],
        )
    for a in (A["ho29.snapped_gauss.correct"], A["ho29.snapped_gauss.broken"]):
        for q in (0.2, 1.2, 17.9):
            y = snap_index(Fraction(q).limit_denominator(100)) * mp.mpf("0.625")
            law = snapped_pmf(y, a.sigma, lo=int(4 * y) - 60, hi=int(4 * y) + 60)
            run(
                a,
                q,
                lambda s, law=law, q=q: [
                    (f"x = {q}", chi2_p(np.rint(s * 4).astype(int), law)),
                    ("on the 0.25 grid", 1.0 if np.all(np.rint(s * 4) / 4 == s) else 0.0),
                ],
            )
    return results


def power_rows(A, n=200_000):
    """Expected counts of each broken twin's stated event at n outputs per side."""
    rows = []
    a = A["ho29.user_partitions.broken"]
    rows.append(
        (a.name, "4 copies of a new key: key released", dl_ge(a.epsilon / 4, a.threshold - 4), 0)
    )
    a = A["ho29.stable_mode.broken"]
    rows.append((a.name, "tie's neighbour: output = 2", dl_ge(a.epsilon, a.threshold - 1), 0))
    a = A["ho29.rr_clear.broken"]
    rows.append((a.name, "v = 0 vs 1: output = 6", mp.mpf(a.clear_rate), 0))
    a = A["ho29.gap_argmax.broken"]
    rows.append(
        (a.name, "(1,3,0,0,0) vs (2,2,0,0,0): output = 1", dl_ge(a.epsilon / 2, a.threshold - 2), 0)
    )
    a = A["ho29.grid2d.broken"]
    rows.append(
        (
            a.name,
            "(1.0,1.0) vs (0.3,0.3): both >= 1.0",
            dl_ge(a.rate, 0) ** 2,
            dl_ge(a.rate, 2) ** 2,
        )
    )
    a = A["ho29.log_buckets.broken"]
    rows.append((a.name, "2.3 vs 1.3: output >= 2", dl_ge(a.epsilon, 0), dl_ge(a.epsilon, 2)))
    a = A["ho29.capped_count.broken"]
    p = mp.fsum(capped_pmf(a.epsilon, a.tail_rate, z, a.core) for z in range(7, 300))
    rows.append((a.name, "40 vs 39: output >= 47", p, dl_ge(a.epsilon, 8)))
    a = A["ho29.snapped_gauss.broken"]
    rows.append(
        (a.name, "1.2 vs 0.2: output >= 0.75", mp.ncdf(0.5 / a.sigma), mp.ncdf(-0.75 / a.sigma))
    )
    print(f"\nexpected counts of each broken twin's stated event at {n:,} outputs per side")
    for name, ev, p, q in rows:
        if q == 0:
            ratio = "one-sided"
        elif "snapped_gauss" in name:
            ratio = f"mu bound {f(probit(p) - probit(q), 4)}"
        else:
            ratio = f"ln ratio {f(mp.log(p / q), 4)}"
        print(
            f"    {name:32s} {ev:44s} {float(p) * n:10.1f} vs {float(q) * n:8.1f}   ({ratio}; about {float(1 / p):,.0f} outputs per occurrence)"
        )


def main():
    A = load_set()
    by = lambda m: [A[f"ho29.{m}.correct"], A[f"ho29.{m}.broken"]]
    check_user_partitions(by("user_partitions"))
    check_stable_mode(by("stable_mode"))
    check_rr_clear(by("rr_clear"))
    check_gap_argmax(by("gap_argmax"))
    check_grid2d(by("grid2d"))
    check_log_buckets(by("log_buckets"))
    check_capped_count(by("capped_count"))
    check_snapped_gauss(by("snapped_gauss"))
    print(
        "| adapter | claim | truth (computed) | neighbouring pair; event | label (computed) | stated true value | check |"
    )
    print("|---|---|---|---|---|---|---|")
    for row in ROWS:
        print("| " + " | ".join(str(c) for c in row) + " |")
    if "--no-sampling" not in sys.argv:
        results = sampling_checks(A)
        results.sort()
        print(
            f"\nsampling (100,000 per query, seed replay checked; {len(results)} tests; smallest five p-values)"
        )
        for p, name, what in results[:5]:
            print(f"    {p:.4g}  {name}  ({what})")
        bad = [r for r in results if r[0] < 1e-4]
        for p, name, what in bad:
            FAILURES.append(f"{name}: sampling test {what} p = {p:.3g}")
        swapped = sampling_checks(A, swap=True)
        print("power: each adapter's exact law against its twin's samples (smallest p-value)")
        for name in A:
            p, what = min((p, what) for p, nm, what in swapped if nm == name)
            print(f"    {p:.3g}  {name}  ({what})")
            expect(p < 1e-3, f"{name}: the sampling tests do not tell it from its twin")
        power_rows(A)
    if FAILURES:
        print("\nFAILURES:")
        for line in FAILURES:
            print("   ", line)
        sys.exit(1)
    skipped = " (sampling skipped)" if "--no-sampling" in sys.argv else ""
    print(f"\nall labels, true values and sampling checks agree{skipped}")


if __name__ == "__main__":
    main()
