# ruff: noqa: B007, B023, B905, E501, E731, E741, SIM108, SIM300
"""Exact true values of held-out set 26 (tests/corpus/held_out_mechanisms_26.py), and a sampling check.

Part 1 recomputes each twin's privacy loss from the algorithm as described in the set's
docstrings.  Output laws are exact pmfs: mpmath at 40 digits for the small ones (the local
randomizers, the keep probabilities, the per-coordinate laws) and float64 products of those
for the exhaustive enumerations over neighbouring pairs (millions of pairs); the worst pair of
every enumeration is recomputed in mpmath and must agree to 1e-9.  Pairs are enumerated within
each adapter's relation: every L-inf / L1 move of whole counts inside the query bounds, moves
of 1/4 for the windowed exponential mechanism, moves of 1/16 (1/32 scalar) with every start
position within a rounding step for the randomized-rounding mechanisms (short moves and
moves crossing a step included), monotone and non-monotone moves of 1/2 for the noisy max.
Part 2 draws from each adapter, checks that seed() replays, and compares outputs with the
exact law (chi-square).

Run: python tests/corpus/check_held_out_26.py   (numpy, scipy, mpmath; about a minute)
"""

from __future__ import annotations

import importlib.util
import itertools
import math
from pathlib import Path

import mpmath
import numpy as np
from mpmath import mp, mpf
from scipy import stats

mp.dps = 40
INF = math.inf
RESULTS = []  # (name, claim, truth text, worst pair, label)


def load_set():
    path = Path(__file__).resolve().parent / "held_out_mechanisms_26.py"
    spec = importlib.util.spec_from_file_location("held_out_mechanisms_26", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MOD = load_set()
BY = {a.name: a for a in MOD.ADAPTERS}


def record(name, claim, text, worst, label):
    RESULTS.append((name, claim, text, worst, label))


def fmt_claim(a):
    if getattr(a, "delta", 0):
        return f"({a.epsilon:g}, {a.delta:g})"
    return f"pure {a.epsilon:g}"


# ------------------------------------------------------------------------------------------
# Hockey-stick tools
# ------------------------------------------------------------------------------------------


def delta_at(p, q, eps):
    """Exact (mpmath) delta(eps) of dicts output -> probability."""
    e = mpmath.exp(mpf(eps))
    return sum((max(po - e * q.get(o, mpf(0)), mpf(0)) for o, po in p.items()), mpf(0))


def eps_at(p, q, delta):
    rows = []
    for o, po in p.items():
        if po <= 0:
            continue
        qo = q.get(o, mpf(0))
        rows.append((INF if qo <= 0 else mpmath.log(po / qo), po, qo))
    rows.sort(key=lambda r: -r[0])
    best, pc, qc, delta = mpf(0), mpf(0), mpf(0), mpf(delta)
    for _lr, po, qo in rows:
        pc += po
        qc += qo
        if pc > delta:
            if qc <= 0:
                return INF
            best = max(best, mpmath.log((pc - delta) / qc))
    return best


def np_delta(P, Q, eps):
    """Rows of pmfs (N, K): delta(eps) of P against Q, per row."""
    return np.maximum(P - math.exp(eps) * Q, 0.0).sum(axis=1)


def np_eps(P, Q, delta):
    """Per row: smallest eps >= 0 with delta_P||Q(eps) <= delta (inf if none)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.where(P > 0, np.log(P) - np.log(Q), -np.inf)
    order = np.argsort(-lr, axis=1)
    Ps = np.take_along_axis(P, order, 1).cumsum(1)
    Qs = np.take_along_axis(Q, order, 1).cumsum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(Ps > delta, np.where(Qs > 0, np.log((Ps - delta) / Qs), np.inf), -np.inf)
    return np.maximum(v.max(axis=1), 0.0)


def both(P, Q, f, arg):
    return np.maximum(f(P, Q, arg), f(Q, P, arg))


def ceil_to(x, digits=5):
    s = 10**digits
    return math.ceil(x * s - 1e-9) / s


# ------------------------------------------------------------------------------------------
# 1. exceed_bits_truncated
# ------------------------------------------------------------------------------------------


def ebt_bitq(broken, T, rate):
    """q[s] = P(bit = 1) = P(noise >= s) for s = tau - c in -T-2..T+2 (mpmath)."""
    a = mpmath.exp(-mpf(rate))
    S = list(range(-T - 2, T + 3))
    if broken:  # dlap clipped to [-T, T]: P(clip(Z) >= s)

        def tail(s):  # P(Z >= s) of the untruncated discrete Laplace
            if s <= 0:
                return 1 - a ** (-s + 1) / (1 + a) if s <= 0 else None
            return a**s / (1 + a)

        q = [mpf(1) if s <= -T else (mpf(0) if s > T else tail(s)) for s in S]
    else:
        norm = 1 + 2 * sum(a**j for j in range(1, T + 1))
        q = [sum((a ** abs(z) for z in range(max(s, -T), T + 1)), mpf(0)) / norm for s in S]
    return S, q


def ebt_tables(broken, T, rate):
    S, q = ebt_bitq(broken, T, rate)
    qf = np.array([float(x) for x in q])
    P = np.stack([1 - qf[1:], qf[1:]], 1)  # at s (count c)
    Q = np.stack([1 - qf[:-1], qf[:-1]], 1)  # at s - 1 (count c + 1)
    types_a = np.concatenate([P, Q, P])
    types_b = np.concatenate([Q, P, P])
    desc = (
        [f"c={20 - s}->{21 - s}" for s in S[1:]]
        + [f"c={21 - s}->{20 - s}" for s in S[1:]]
        + [f"c={20 - s} same" for s in S[1:]]
    )
    return types_a, types_b, desc, (S, q)


def ebt_joint(A, B, idx):
    n = len(idx)
    Pm, Qm = np.ones((n, 1)), np.ones((n, 1))
    for j in range(idx.shape[1]):
        Pm = (Pm[:, :, None] * A[idx[:, j]][:, None, :]).reshape(n, -1)
        Qm = (Qm[:, :, None] * B[idx[:, j]][:, None, :]).reshape(n, -1)
    return Pm, Qm


def ebt_scan(broken, eps, delta):
    a = BY["ho26.exceed_bits_truncated.correct"]
    A, B, desc, _ = ebt_tables(broken, a.T, a.rate)
    idx = np.array(list(itertools.product(range(len(A)), repeat=3)))
    best_e, best_d, we, wd = 0.0, 0.0, None, None
    for ch in np.array_split(idx, 40):
        Pm, Qm = ebt_joint(A, B, ch)
        e = np_eps(Pm, Qm, delta)  # pairs come in both orders via the types
        d = np_delta(Pm, Qm, eps)
        i, j = int(np.argmax(e)), int(np.argmax(d))
        if e[i] > best_e:
            best_e, we = float(e[i]), tuple(ch[i])
        if d[j] > best_d:
            best_d, wd = float(d[j]), tuple(ch[j])
    return best_e, best_d, we, wd, desc


def ebt_exact(broken, combo):
    a = BY["ho26.exceed_bits_truncated.correct"]
    S, q = ebt_bitq(broken, a.T, a.rate)
    n = len(S) - 1
    pa = [(1 - q[i + 1], q[i + 1]) for i in range(n)]
    pb = [(1 - q[i], q[i]) for i in range(n)]
    A, B = pa + pb + pa, pb + pa + pa
    p, r = {}, {}
    for bits in itertools.product((0, 1), repeat=3):
        p[bits] = mpmath.fprod(A[c][b] for c, b in zip(combo, bits))
        r[bits] = mpmath.fprod(B[c][b] for c, b in zip(combo, bits))
    return p, r


def check_ebt():
    a = BY["ho26.exceed_bits_truncated.correct"]
    eps, delta = a.epsilon, a.delta
    e_c, d_c, we, wd, desc = ebt_scan(False, eps, delta)
    p, r = ebt_exact(False, we)
    e_c_exact = float(eps_at(p, r, delta))
    assert abs(e_c_exact - e_c) < 1e-9, (e_c_exact, e_c)
    p, r = ebt_exact(False, wd)
    d_c_exact = float(delta_at(p, r, eps))
    assert abs(d_c_exact - d_c) < 1e-12
    assert ceil_to(e_c) == eps, f"exceed_bits claim should be {ceil_to(e_c)}"
    assert d_c <= delta
    e_b, d_b, we_b, wd_b, _ = ebt_scan(True, eps, delta)
    p, r = ebt_exact(True, wd_b)
    d_b_exact = float(delta_at(p, r, eps))
    assert abs(d_b_exact - d_b) < 1e-12
    assert 3 <= d_b / delta <= 10, d_b / delta
    w = lambda c: "; ".join(desc[i] for i in c)
    record(
        a.name,
        fmt_claim(a),
        f"eps@delta {e_c:.5f}; delta@eps {d_c:.4g} ({d_c / delta:.2f}x)",
        f"eps: {w(we)}; delta: {w(wd)}",
        "correct",
    )
    b = BY["ho26.exceed_bits_truncated.broken"]
    record(
        b.name,
        fmt_claim(b),
        f"eps@delta {e_b:.5f}; delta@eps {d_b:.4g} ({d_b / delta:.2f}x)",
        f"delta: {w(wd_b)}",
        "broken",
    )
    return {a.name: e_c, b.name: e_b}


# ------------------------------------------------------------------------------------------
# 2. top2_release_test
# ------------------------------------------------------------------------------------------


def t2_tau(broken):
    a = BY["ho26.top2_release_test.correct"]
    r = mpf(a.eps0) / 2
    am = mpmath.exp(-r)
    k = 1
    while am**k / (1 + am) > a.delta:
        k += 1
    return k if broken else k + 2


def t2_release(tau, g):
    """P(g + Z >= tau) for Z discrete Laplace of rate eps/2 (mpmath)."""
    a = BY["ho26.top2_release_test.correct"]
    am = mpmath.exp(-mpf(a.eps0) / 2)
    k = tau - g
    if k >= 1:
        return am**k / (1 + am)
    return 1 - am ** (1 - k) / (1 + am)


SETS2 = list(itertools.combinations(range(4), 2))


def t2_state(X):
    order = np.argsort(-X, axis=1, kind="stable")
    xs = np.take_along_axis(X, order, 1)
    g = xs[:, 1] - xs[:, 2]
    top = np.sort(order[:, :2], axis=1)
    sid = top[:, 0] * 4 + top[:, 1]
    return g, sid


def t2_scan(broken, eps, delta, hi=16):
    tau = t2_tau(broken)
    rel = {g: float(t2_release(tau, g)) for g in range(0, hi + 2)}
    relv = np.array([rel[g] for g in range(hi + 2)])
    base = np.array(list(itertools.product(range(hi + 1), repeat=4)))
    moves = np.array(list(itertools.product((-1, 0, 1), repeat=4)))
    g0, s0 = t2_state(base)
    best_e, best_d, we, wd = 0.0, 0.0, None, None
    for mv in moves:
        Y = base + mv
        ok = (Y >= 0).all(1) & (Y <= hi).all(1)
        X, Y2 = base[ok], Y[ok]
        ga, sa = g0[ok], s0[ok]
        gb, sb = t2_state(Y2)
        ra, rb = relv[ga], relv[gb]
        same = sa == sb
        # outputs: [set_a, set_b (if different), none]
        P = np.stack([ra, np.zeros_like(ra), 1 - ra], 1)
        Q = np.stack([np.where(same, rb, 0.0), np.where(same, 0.0, rb), 1 - rb], 1)
        e = both(P, Q, np_eps, delta)
        d = both(P, Q, np_delta, eps)
        i, j = int(np.argmax(e)), int(np.argmax(d))
        if e[i] > best_e:
            best_e, we = float(e[i]), (tuple(int(t) for t in X[i]), tuple(int(t) for t in Y2[i]))
        if d[j] > best_d:
            best_d, wd = float(d[j]), (tuple(int(t) for t in X[j]), tuple(int(t) for t in Y2[j]))
    return best_e, best_d, we, wd, tau


def t2_pmf(x, tau):
    X = np.array([x], dtype=float)
    g, s = t2_state(X)
    r = t2_release(tau, int(g[0]))
    return {int(s[0]): r, -1: 1 - r}


def check_t2():
    a = BY["ho26.top2_release_test.correct"]
    eps, delta = a.epsilon, a.delta
    out = {}
    for br in (False, True):
        e, d, we, wd, tau = t2_scan(br, eps, delta)
        adp = BY[f"ho26.top2_release_test.{'broken' if br else 'correct'}"]
        assert adp._tau == tau
        p, q = t2_pmf(wd[0], tau), t2_pmf(wd[1], tau)
        dx = float(max(delta_at(p, q, eps), delta_at(q, p, eps)))
        assert abs(dx - d) < 1e-12
        if br:
            assert 3 <= d / delta <= 10 and e == INF
        else:
            p, q = t2_pmf(we[0], tau), t2_pmf(we[1], tau)
            ex = float(max(eps_at(p, q, delta), eps_at(q, p, delta)))
            assert abs(ex - e) < 1e-9 and d <= delta and ceil_to(e) == eps, (ex, e, ceil_to(e))
        record(
            adp.name,
            fmt_claim(adp),
            f"eps@delta {e:.5f}; delta@eps {d:.4g} ({d / delta:.2f}x); tau = {tau}",
            f"eps: {we[0]} -> {we[1]}; delta: {wd[0]} -> {wd[1]}",
            "broken" if br else "correct",
        )
        out[adp.name] = e
    return out


# ------------------------------------------------------------------------------------------
# 3. windowed_exponential
# ------------------------------------------------------------------------------------------


def we_W(broken):
    a = BY["ho26.windowed_exponential.correct"]
    w = mpmath.ceil(4 * 2 / mpf(a.eps0) * mpmath.log(2 / mpf(a.delta0))) / 4
    return float(w if broken else w + 2)


def we_probs(U, W, rate):
    m = U.max(axis=1, keepdims=True)
    w = np.where(U >= m - W, np.exp(rate * (U - m)), 0.0)
    return w / w.sum(axis=1, keepdims=True)


def we_pmf_exact(u, W, rate):
    m = max(u)
    w = [mpmath.exp(mpf(rate) * (mpf(x) - m)) if x >= m - W else mpf(0) for x in u]
    s = sum(w)
    return {i: wi / s for i, wi in enumerate(w)}


def we_scan(broken, eps, delta):
    a = BY["ho26.windowed_exponential.correct"]
    W, rate = we_W(broken), a.eps0 / 2
    L = we_W(False) + 3
    grid = np.arange(-4 * L, 4 * L + 1) / 4
    b1, b2 = np.meshgrid(grid, grid, indexing="ij")
    base = np.stack([np.zeros(b1.size), b1.ravel(), b2.ravel()], 1)
    moves = np.array(list(itertools.product(np.arange(-4, 5) / 4, repeat=3)))
    P0 = we_probs(base, W, rate)
    best_e, best_d, we, wd = 0.0, 0.0, None, None
    for mv in moves:
        Y = base + mv
        Q = we_probs(Y, W, rate)
        e = np_eps(P0, Q, delta)  # both directions: the move -mv is also enumerated from Y
        d = np_delta(P0, Q, eps)
        i, j = int(np.argmax(e)), int(np.argmax(d))
        if e[i] > best_e:
            best_e, we = float(e[i]), (tuple(base[i]), tuple(Y[i]))
        if d[j] > best_d:
            best_d, wd = float(d[j]), (tuple(base[j]), tuple(Y[j]))
    return best_e, best_d, we, wd, W


def check_we():
    a = BY["ho26.windowed_exponential.correct"]
    eps, delta = a.epsilon, a.delta
    out = {}
    for br in (False, True):
        adp = BY[f"ho26.windowed_exponential.{'broken' if br else 'correct'}"]
        e, d, we, wd, W = we_scan(br, eps, delta)
        assert abs(adp._w - W) < 1e-12
        rate = a.eps0 / 2
        p, q = we_pmf_exact(wd[0], W, rate), we_pmf_exact(wd[1], W, rate)
        assert abs(float(delta_at(p, q, eps)) - d) < 1e-12
        p, q = we_pmf_exact(we[0], W, rate), we_pmf_exact(we[1], W, rate)
        ex = float(eps_at(p, q, delta))
        assert (ex == INF and e == INF) or abs(ex - e) < 1e-9, (ex, e)
        if br:
            assert 3 <= d / delta <= 10, d / delta
        else:
            assert ceil_to(e) == eps, f"windowed claim should be {ceil_to(e)}"
            assert d <= delta
        fu = lambda t: "(" + ", ".join(f"{x:g}" for x in t) + ")"
        record(
            adp.name,
            fmt_claim(adp),
            f"eps@delta {e:.5f}; delta@eps {d:.4g} ({d / delta:.2f}x); W = {W:g}; grid 1/4",
            f"eps: {fu(we[0])} -> {fu(we[1])}; delta: {fu(wd[0])} -> {fu(wd[1])}",
            "broken" if br else "correct",
        )
        out[adp.name] = e
    return out


# ------------------------------------------------------------------------------------------
# 4. local_windowed_geometric
# ------------------------------------------------------------------------------------------


def lwg_pmf(v, t, rate):
    a = mpmath.exp(-mpf(rate))
    c = (1 - a) / (1 + a)
    p = {v + z: c * a ** abs(z) for z in range(-t, t + 1)}
    p["none"] = 1 - sum(p.values())
    return p


def check_lwg():
    a = BY["ho26.local_windowed_geometric.correct"]
    eps, delta = a.epsilon, a.delta
    out = {}
    t = a._t
    assert _dl(eps, t) <= delta < _dl(eps, t - 1)
    for br in (False, True):
        adp = BY[f"ho26.local_windowed_geometric.{'broken' if br else 'correct'}"]
        tt = t - 1 if br else t
        p0, p1 = lwg_pmf(0, tt, eps), lwg_pmf(1, tt, eps)
        e = float(max(eps_at(p0, p1, delta), eps_at(p1, p0, delta)))
        d = float(max(delta_at(p0, p1, eps), delta_at(p1, p0, eps)))
        if br:
            assert e == INF and 3 <= d / delta <= 10
        else:
            assert ceil_to(e) >= eps - 1e-5 and d <= delta and e <= eps
        record(
            adp.name,
            fmt_claim(adp),
            f"eps@delta {e:.5f}; delta@eps {d:.4g} ({d / delta:.2f}x); window |Z| <= {tt}",
            "values 0 vs 1",
            "broken" if br else "correct",
        )
        out[adp.name] = e
    return out


def _dl(rate, k):
    a = mpmath.exp(-mpf(rate))
    return (1 - a) / (1 + a) * a**k


# ------------------------------------------------------------------------------------------
# 5-7. randomized rounding + discrete Laplace
# ------------------------------------------------------------------------------------------


def rr_pmf(x, rate, lo, hi):
    """Exact (mpmath) pmf on lo..hi of floor(x) + Bern(frac x) + Z; x a Fraction-like float."""
    a = mpmath.exp(-mpf(rate))
    c = (1 - a) / (1 + a)
    fl = math.floor(x)
    f = mpf(x) - fl
    return {
        k: (1 - f) * c * a ** abs(k - fl) + f * c * a ** abs(k - fl - 1) for k in range(lo, hi + 1)
    }


def rr_loss_table(rate, step):
    """L[m] = max over start f in [0, 1) (grid `step`) and outputs of log P_x / P_{x+m}, for
    m = j * step, j = 0..1/step (float64 from exact-shape pmfs on a window where the tails'
    ratio is already constant)."""
    a = math.exp(-rate)
    ks = np.arange(-12, 14)
    n = int(round(1 / step))
    fs = np.arange(n) * step

    def pmf(x):
        fl = np.floor(x)
        f = x - fl
        return (1 - f)[:, None] * a ** np.abs(ks[None, :] - fl[:, None]) + f[:, None] * a ** np.abs(
            ks[None, :] - fl[:, None] - 1
        )

    L = np.zeros(n + 1)
    arg = [None] * (n + 1)
    for j in range(n + 1):
        m = j * step
        best = -np.inf
        for sgn in (1, -1):
            P, Q = pmf(fs), pmf(fs + sgn * m)
            lr = np.log(P) - np.log(Q)
            i = np.unravel_index(np.argmax(lr), lr.shape)
            if lr[i] > best:
                best, arg[j] = float(lr[i]), (float(fs[i[0]]), sgn * m)
        L[j] = best
    return L, arg


def check_rr_family():
    out = {}
    # 5: L1, d = 4
    step = 1 / 16
    for br in (False, True):
        adp = BY[f"ho26.spread_rounded_geometric.{'broken' if br else 'correct'}"]
        r = adp._rate
        L, arg = rr_loss_table(r, step)
        ana = np.log1p(np.arange(L.size) * step * math.expm1(r))
        assert np.allclose(L, ana, atol=1e-12), "per-coordinate loss is ln(1 + m (e^r - 1))"
        n = L.size - 1
        best, bm = -1.0, None
        for js in itertools.product(range(n + 1), repeat=4):
            if sum(js) <= n:
                v = sum(L[j] for j in js)
                if v > best:
                    best, bm = v, js
        ana_best = 4 * math.log1p(math.expm1(r) / 4)
        assert abs(best - ana_best) < 1e-12
        # exact (mpmath) at the worst move from the start of a step
        x = [0.0] * 4
        y = [j * step for j in bm]
        ex = sum(
            max(
                mpmath.log(q / p)
                for p, q in zip(rr_pmf(xi, r, -15, 15).values(), rr_pmf(yi, r, -15, 15).values())
            )
            for xi, yi in zip(x, y)
        )
        assert abs(float(ex) - best) < 1e-9
        e = best
        if br:
            assert e >= 1.3 * adp.epsilon
        else:
            assert abs(e - adp.epsilon) < 1e-12
        record(
            adp.name,
            fmt_claim(adp),
            f"eps {e:.5f}; rate {r:.5f}; axis move of 1: {r:.5f}",
            f"x -> x + {tuple(float(t) for t in y)} (starts of steps)",
            "broken" if br else "correct",
        )
        out[adp.name] = e
    # 6: scalar, step 2 (a move of 1 is half a step)
    step = 1 / 32
    for br in (False, True):
        adp = BY[f"ho26.coarse_rounded_geometric.{'broken' if br else 'correct'}"]
        r = adp._rate
        L, arg = rr_loss_table(r, step)
        e = float(L[: int(round(0.5 / step)) + 1].max())
        j = int(np.argmax(L[: int(round(0.5 / step)) + 1]))
        ana = math.log1p(math.expm1(r) / 2)
        assert abs(e - ana) < 1e-12
        ex = max(
            mpmath.log(q / p)
            for p, q in zip(rr_pmf(0.0, r, -15, 15).values(), rr_pmf(0.5, r, -15, 15).values())
        )
        assert abs(float(ex) - e) < 1e-9
        if br:
            assert e >= 1.3 * adp.epsilon
        else:
            assert abs(e - adp.epsilon) < 1e-12
        f0, m0 = arg[j]
        record(
            adp.name,
            fmt_claim(adp),
            f"eps {e:.5f}; rate {r:.5f} per step of 2",
            f"x = {2 * f0:g} -> {2 * (f0 + m0):g} (a move of 1, half a step)",
            "broken" if br else "correct",
        )
        out[adp.name] = e
    # 7: L2, d = 3
    step = 1 / 64
    for br in (False, True):
        adp = BY[f"ho26.l2_rounded_geometric.{'broken' if br else 'correct'}"]
        r = adp._rate
        L, _ = rr_loss_table(r, step)
        ana = np.log1p(np.arange(L.size) * step * math.expm1(r))
        assert np.allclose(L, ana, atol=1e-12)
        n = L.size - 1
        best = -1.0
        for js in itertools.product(range(n + 1), repeat=3):
            if sum(j * j for j in js) <= n * n:
                best = max(best, sum(L[j] for j in js))
        s = math.sqrt(3)
        e = 3 * math.log1p(
            math.expm1(r) / s
        )  # concave: the optimum of sum ln(1 + c m_i) on the sphere is m_i = 1/sqrt(3)
        assert best <= e + 1e-12 and best > e - 0.01
        m = 1 / s
        ex = 3 * max(
            mpmath.log(q / p)
            for p, q in zip(rr_pmf(0.0, r, -15, 15).values(), rr_pmf(m, r, -15, 15).values())
        )
        assert abs(float(ex) - e) < 1e-9
        if br:
            assert e > adp.epsilon * 1.1
        else:
            assert abs(e - adp.epsilon) < 1e-12
        record(
            adp.name,
            fmt_claim(adp),
            f"eps {e:.5f} (grid 1/64: {best:.5f}); rate {r:.5f}; axis move of 1: {r:.5f}",
            "x -> x + (1, 1, 1)/sqrt(3) (starts of steps)",
            "broken" if br else "correct",
        )
        out[adp.name] = e
    return out


# ------------------------------------------------------------------------------------------
# 8. vector_partition_selection
# ------------------------------------------------------------------------------------------


def ps_keep(eps, delta, broken, nmax=60):
    e, dl = mpmath.exp(mpf(eps)), mpf(delta)
    p = [mpf(0)]
    for _ in range(nmax):
        prev = p[-1]
        up = e * (prev + dl) if broken else e * prev + dl
        p.append(min(mpf(1), up, 1 - (1 - prev - dl) / e))
    return p


def check_ps():
    out = {}
    for br in (False, True):
        adp = BY[f"ho26.vector_partition_selection.{'broken' if br else 'correct'}"]
        eps, delta = adp.epsilon, adp.delta
        p = ps_keep(eps, delta, br)
        assert max(abs(float(x) - y) for x, y in zip(p, adp._p[: len(p)])) < 1e-12
        # L1 move of 1 between whole counts: one partition c -> c + 1, the others unchanged
        best_e, best_d, we, wd = mpf(0), mpf(0), None, None
        for c in range(0, adp.query_bounds[1]):
            A = {1: p[c], 0: 1 - p[c]}
            B = {1: p[c + 1], 0: 1 - p[c + 1]}
            e = max(eps_at(A, B, delta), eps_at(B, A, delta))
            d = max(delta_at(A, B, eps), delta_at(B, A, eps))
            if e > best_e:
                best_e, we = e, c
            if d > best_d:
                best_d, wd = d, c
        e, d = float(best_e), float(best_d)
        if br:
            assert 3 <= d / delta <= 10
        else:
            assert abs(e - eps) < 1e-9 and abs(d - delta) < 1e-15
        n1 = next(i for i, x in enumerate(p) if x >= 1)
        record(
            adp.name,
            fmt_claim(adp),
            f"eps@delta {e:.5f}; delta@eps {d:.4g} ({d / delta:.2f}x); kept surely from {n1} users",
            f"eps: count {we} -> {we + 1}; delta: {wd} -> {wd + 1}",
            "broken" if br else "correct",
        )
        out[adp.name] = e
    return out


# ------------------------------------------------------------------------------------------
# 9. monotone_max_with_none
# ------------------------------------------------------------------------------------------


def mm_probs(U, tau, eps):
    S = np.concatenate([U, np.full((U.shape[0], 1), tau)], 1) * eps
    S = S - S.max(1, keepdims=True)
    w = np.exp(S)
    return w / w.sum(1, keepdims=True)


def mm_pmf_exact(u, tau, eps):
    w = [mpmath.exp(mpf(eps) * mpf(x)) for x in list(u) + [tau]]
    s = sum(w)
    return {i: wi / s for i, wi in enumerate(w)}


def check_mm():
    out = {}
    a = BY["ho26.monotone_max_with_none.correct"]
    eps, tau = a.epsilon, a.tau
    lo, hi = a.query_bounds
    base = np.array(list(itertools.product(range(lo, hi + 1), repeat=4)), dtype=float)
    P0 = mm_probs(base, tau, eps)
    lp0 = np.log(P0)
    for br in (False, True):
        adp = BY[f"ho26.monotone_max_with_none.{'broken' if br else 'correct'}"]
        if br:
            moves = np.array(list(itertools.product((-1, 0, 1), repeat=4)), dtype=float)
        else:
            halves = np.arange(0, 3) / 2
            moves = np.array(list(itertools.product(halves, repeat=4)), dtype=float)
            moves = np.concatenate([moves, -moves])
        best, arg = -1.0, None
        for mv in moves:
            Y = base + mv
            ok = (Y >= lo).all(1) & (Y <= hi).all(1)
            lr = np.abs(lp0[ok] - np.log(mm_probs(Y[ok], tau, eps)))
            i = np.unravel_index(np.argmax(lr), lr.shape)
            if lr[i] > best:
                best, arg = float(lr[i]), (tuple(base[ok][i[0]]), tuple(Y[ok][i[0]]), int(i[1]))
        p, q = mm_pmf_exact(arg[0], tau, eps), mm_pmf_exact(arg[1], tau, eps)
        ex = float(max(abs(mpmath.log(p[k] / q[k])) for k in p))
        assert abs(ex - best) < 1e-9
        if br:
            assert best >= 1.3 * eps and best <= 2 * eps
        else:
            assert best <= eps and best > eps - 1e-3
        fu = lambda t: "(" + ", ".join(f"{x:g}" for x in t) + ")"
        outc = "none" if arg[2] == 4 else f"index {arg[2]}"
        record(
            adp.name,
            fmt_claim(adp),
            f"eps {best:.5f} (sup within bounds 0..20; {2 if br else 1} as they widen)",
            f"{fu(arg[0])} -> {fu(arg[1])}, {outc}",
            "broken" if br else "correct",
        )
        out[adp.name] = best
    return out


# ------------------------------------------------------------------------------------------
# 10. repeated_rr_with_reveal
# ------------------------------------------------------------------------------------------


def rrr_pmf(v, broken, eps, delta, k=4, reports=4):
    e = mpmath.exp(mpf(eps) / reports)
    t = e / (e + k - 1)
    o = (1 - t) / (k - 1)
    dl = mpf(delta)
    reveal = 1 - (1 - dl) ** reports if broken else dl
    p = {}
    for out in itertools.product(range(k), repeat=reports):
        p[out] = (1 - reveal) * mpmath.fprod(t if x == v else o for x in out)
    p[(v + k,) * reports] = reveal
    return p


def check_rrr():
    out = {}
    for br in (False, True):
        adp = BY[f"ho26.repeated_rr_with_reveal.{'broken' if br else 'correct'}"]
        eps, delta = adp.epsilon, adp.delta
        pm = [rrr_pmf(v, br, eps, delta) for v in range(4)]
        e = max(float(eps_at(pm[i], pm[j], delta)) for i in range(4) for j in range(4) if i != j)
        d = max(float(delta_at(pm[i], pm[j], eps)) for i in range(4) for j in range(4) if i != j)
        if br:
            assert e == INF and 3 <= d / delta <= 10
        else:
            assert abs(e - eps) < 1e-9 and abs(d - delta) < 1e-15
        record(
            adp.name,
            fmt_claim(adp),
            f"eps@delta {e:.5f}; delta@eps {d:.4g} ({d / delta:.2f}x)",
            "any two values (all pairs alike)",
            "broken" if br else "correct",
        )
        out[adp.name] = e
    return out


# ------------------------------------------------------------------------------------------
# Part 2: sampling
# ------------------------------------------------------------------------------------------


def chi2(samples, pmf, min_expected=5):
    """samples: list of hashable outputs; pmf: dict output -> probability."""
    n = len(samples)
    keys = sorted(pmf, key=str)
    vals, counts = np.unique(np.array([str(x) for x in samples]), return_counts=True)
    obs = dict(zip(vals.tolist(), counts.tolist()))
    extra = set(obs) - {str(k) for k in keys}
    assert not extra, f"outputs outside the exact support: {sorted(extra)[:5]}"
    e_cells, o_cells, e_acc, o_acc = [], [], 0.0, 0
    for k in keys:
        e_acc += float(pmf[k]) * n
        o_acc += obs.get(str(k), 0)
        if e_acc >= min_expected:
            e_cells.append(e_acc)
            o_cells.append(o_acc)
            e_acc, o_acc = 0.0, 0
    if e_cells:
        e_cells[-1] += e_acc
        o_cells[-1] += o_acc
    if len(e_cells) < 2:
        return 1.0
    e = np.array(e_cells)
    return float(stats.chisquare(o_cells, e * n / e.sum()).pvalue)


def sampling_checks():
    n = 40000
    pv = []

    def draw(name, query):
        a = BY[name]
        ent = 2600 + len(pv)
        a.seed(ent)
        o = np.asarray(a.sample(query, n))
        a.seed(ent)
        again = np.asarray(a.sample(query, n))
        assert np.array_equal(o, again, equal_nan=True), f"{name}: seed does not replay"
        assert o.shape[0] == n
        return o

    for br in (False, True):
        tag = "broken" if br else "correct"
        # 1: bits, per coordinate marginal
        nm = f"ho26.exceed_bits_truncated.{tag}"
        a = BY[nm]
        S, q = ebt_bitq(br, a.T, a.rate)
        qd = dict(zip(S, q))
        query = np.array([a.tau - a.T, a.tau, a.tau + 3])
        o = draw(nm, query)
        for j in range(3):
            s = int(a.tau - query[j])
            pv.append(
                (chi2(o[:, j].astype(int).tolist(), {1: qd[s], 0: 1 - qd[s]}), nm, f"bit {j}")
            )
        # 2: top-2
        nm = f"ho26.top2_release_test.{tag}"
        tau = t2_tau(br)
        for x in ([5, 9, 3, 1], [7, 7, 0, 0]):
            o = draw(nm, np.array(x))
            g, s = t2_state(np.array([x], dtype=float))
            top = sorted(SETS2[[a_ * 4 + b_ for a_, b_ in SETS2].index(int(s[0]))])
            r = t2_release(tau, int(g[0]))
            pv.append(
                (chi2([tuple(t) for t in o.tolist()], {tuple(top): r, (-1, -1): 1 - r}), nm, str(x))
            )
        # 3: windowed EM
        nm = f"ho26.windowed_exponential.{tag}"
        W = we_W(br)
        for u in ([0.0, -1.0, -W], [0.0, -3.5, -W - 0.25]):
            o = draw(nm, np.array(u))
            pv.append((chi2(o.tolist(), we_pmf_exact(u, W, 0.75)), nm, str(u)))
        # 4: local windowed
        nm = f"ho26.local_windowed_geometric.{tag}"
        t = BY[nm]._t - (1 if br else 0)
        for v in (0, 1):
            o = draw(nm, v)
            ol = ["none" if np.isnan(x) else int(x) for x in o.tolist()]
            pv.append((chi2(ol, lwg_pmf(v, t, BY[nm].epsilon)), nm, f"value {v}"))
        # 5-7: randomized rounding
        for nmb, x in (
            ("spread_rounded_geometric", [0.25, 1.5, -2.75, 0.0]),
            ("l2_rounded_geometric", [0.3, -1.6, 2.0]),
        ):
            nm = f"ho26.{nmb}.{tag}"
            o = draw(nm, np.array(x))
            for j, xj in enumerate(x):
                pmf = rr_pmf(xj, BY[nm]._rate, -60, 60)
                pv.append((chi2(o[:, j].tolist(), pmf), nm, f"coordinate {j}"))
        nm = f"ho26.coarse_rounded_geometric.{tag}"
        for x in (0.0, 1.0, 3.3):
            o = draw(nm, x)
            pmf = {2 * k: v for k, v in rr_pmf(x / 2, BY[nm]._rate, -40, 40).items()}
            pv.append((chi2(o.tolist(), pmf), nm, f"x {x}"))
        # 8: partition selection
        nm = f"ho26.vector_partition_selection.{tag}"
        p = ps_keep(BY[nm].epsilon, BY[nm].delta, br)
        c = [0, 3, 6, 8]
        o = draw(nm, np.array(c))
        for j in range(4):
            pv.append(
                (
                    chi2(o[:, j].astype(int).tolist(), {1: p[c[j]], 0: 1 - p[c[j]]}),
                    nm,
                    f"count {c[j]}",
                )
            )
        # 9: monotone max with none
        nm = f"ho26.monotone_max_with_none.{tag}"
        for u in ([10, 9, 8, 11], [0, 0, 0, 0]):
            o = draw(nm, np.array(u, dtype=float))
            pm = mm_pmf_exact(u, 10.0, 1.0)
            pmf = {(-1 if k == 4 else k): v for k, v in pm.items()}
            pv.append((chi2(o.tolist(), pmf), nm, str(u)))
        # 10: repeated RR with reveal (whole outputs, 4097 cells)
        nm = f"ho26.repeated_rr_with_reveal.{tag}"
        o = draw(nm, 2)
        pmf = rrr_pmf(2, br, BY[nm].epsilon, BY[nm].delta)
        pv.append((chi2([tuple(t) for t in o.tolist()], pmf), nm, "value 2"))
        big = BY[nm]
        big.seed(7)
        ob = big.sample(1, 400000)
        rate = float(np.mean(ob[:, 0] == 5))
        want = float(1 - (1 - mpf(big.delta)) ** 4 if br else big.delta)
        z = (rate - want) / math.sqrt(want / 400000)
        pv.append((float(2 * stats.norm.sf(abs(z))), nm, "reveal rate (400k)"))
    return pv


def main():
    import time

    t0 = time.time()
    truth = {}
    for f in (
        check_ebt,
        check_t2,
        check_we,
        check_lwg,
        check_rr_family,
        check_ps,
        check_mm,
        check_rrr,
    ):
        truth.update(f())
        print(f"  {f.__name__} done ({time.time() - t0:.0f} s)", flush=True)
    print("\n| mechanism | claim | truth | worst pair | label |\n|---|---|---|---|---|")
    for name, claim, text, worst, label in RESULTS:
        print(f"| {name} | {claim} | {text} | {worst} | {label} |")
    for name, claim, text, worst, label in RESULTS:
        a = BY[name]
        assert a.broken == (label == "broken"), name
    for name, v in truth.items():
        tv = MOD.TRUE_VALUES[name]
        if v == INF or tv == INF:
            assert v == tv, (name, v, tv)
        else:
            assert abs(round(v, 5) - tv) < 2e-5, (name, v, tv)
    assert set(truth) == set(MOD.TRUE_VALUES) == set(BY)
    pv = sampling_checks()
    worst = sorted(pv)[:5]
    print("\nsampling (40,000 per query; chi-square p-values, smallest five of", len(pv), ")")
    for p, nm, what in worst:
        print(f"    {p:.4f}  {nm}  ({what})")
    assert min(p for p, _, _ in pv) > 1e-4, "a sampler disagrees with its exact law"
    print("\nall labels agree with the exact values")


if __name__ == "__main__":
    main()
