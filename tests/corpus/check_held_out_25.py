# ruff: noqa: B023, B905, E741, SIM108
"""Exact true values of held-out set 25 (tests/corpus/held_out_mechanisms_25.py), and a sampling check.

Part 1 recomputes every twin's privacy loss from the algorithm as described in the set's
docstrings, without the adapters' sampling code: exact pmfs (mpmath at 40 digits) for the
integer and index outputs, the closed-form Gaussian privacy profile
delta(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu) (mu = the largest L2 shift over
sigma, found by enumerating neighbouring pairs, moves shorter than the sensitivity and off the
axes included) for the Gaussians, and the largest L1 shift for the Laplace vectors.  Noise
scales are recalibrated here (mpmath) from the description and compared with the adapters'.
Part 2 draws from each adapter, checks that seed() replays, and compares the outputs with the
exact law (chi-square; real outputs in 20 cells of equal exact probability).

Real outputs are rounded by the adapters to multiples of g = 2^-16: post-processing, so the
rounded mechanism's loss is at most the continuous one; and an optimal event of the
continuous pair (a half-space, or an orthant for Laplace) differs from a union of cells only
in a slab of width g sqrt(d) where the density is below the bound printed as `slab` (at most
1e-10 of delta here), so the values below are those of the rounded mechanisms to the digits
shown.

Run: python tests/corpus/check_held_out_25.py   (numpy, scipy, mpmath; about 30-60 s)
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
from mpmath import mp, mpf
from scipy import stats

mp.dps = 40
INF = math.inf
BOT = "bot"
GRID = 2.0**-16

RESULTS = []  # (name, claim text, truth text, value, worst pair, label)


def record(name, claim, text, value, worst, label):
    RESULTS.append((name, claim, text, value, worst, label))


# ------------------------------------------------------------------------------------------
# Exact hockey-stick tools on finite pmfs (dicts output -> mpf)
# ------------------------------------------------------------------------------------------


def delta_at(p, q, eps):
    e = mpmath.exp(mpf(eps))
    return sum((max(po - e * q.get(o, mpf(0)), mpf(0)) for o, po in p.items()), mpf(0))


def eps_at(p, q, delta):
    """Smallest eps >= 0 with delta_at(p, q, eps) <= delta (inf if none)."""
    rows = []
    for o, po in p.items():
        if po <= 0:
            continue
        qo = q.get(o, mpf(0))
        rows.append((INF if qo <= 0 else mpmath.log(po / qo), po, qo))
    rows.sort(key=lambda r: -r[0])
    best = mpf(0)
    pc, qc = mpf(0), mpf(0)
    delta = mpf(delta)
    for _lr, po, qo in rows:
        pc += po
        qc += qo
        if pc > delta:
            if qc <= 0:
                return INF
            best = max(best, mpmath.log((pc - delta) / qc))
    return best


def both_delta(p, q, eps):
    return max(delta_at(p, q, eps), delta_at(q, p, eps))


def both_eps(p, q, delta):
    a, b = eps_at(p, q, delta), eps_at(q, p, delta)
    return max(a, b)


def np_eps_at(P, Q, delta):
    """Vectorised eps at delta for rows of finite pmfs P, Q (float64, (N, k)), one direction."""
    with np.errstate(divide="ignore", invalid="ignore"):
        L = np.where(Q > 0, np.log(P / np.where(Q > 0, Q, 1)), np.inf)
        L = np.where(P > 0, L, -np.inf)
    o = np.argsort(-L, axis=1)
    Pc = np.cumsum(np.take_along_axis(P, o, 1), 1)
    Qc = np.cumsum(np.take_along_axis(Q, o, 1), 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        E = np.where(Pc > delta, np.log((Pc - delta) / Qc), -np.inf)
    E = np.where((Pc > delta) & (Qc <= 0), np.inf, E)
    return np.maximum(E.max(1), 0.0)


def np_delta_at(P, Q, eps):
    return np.maximum(P - math.exp(eps) * Q, 0).sum(1)


def dlap_trunc_pmf(rate, t):
    a = mpmath.exp(-mpf(rate))
    w = {k: a ** abs(k) for k in range(-t, t + 1)}
    z = sum(w.values())
    return {k: v / z for k, v in w.items()}


def dlap_pmf(rate, lim):
    a = mpmath.exp(-mpf(rate))
    c = (1 - a) / (1 + a)
    return {k: c * a ** abs(k) for k in range(-lim, lim + 1)}


def fmt_claim(eps, delta):
    return f"pure {eps:g}" if delta == 0 else f"({eps:g}, {delta:g})"


# ------------------------------------------------------------------------------------------
# Gaussian tools
# ------------------------------------------------------------------------------------------


def g_delta(eps, mu):
    eps, mu = mpf(eps), mpf(mu)
    return mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)


def g_eps(delta, mu):
    """eps at delta of the Gaussian pair with shift mu (in units of sigma)."""
    if g_delta(0, mu) <= delta:
        return mpf(0)
    lo, hi = mpf(0), mpf(1)
    while g_delta(hi, mu) > delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if g_delta(mid, mu) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def g_sigma(eps, delta, sens):
    """Analytic Gaussian sigma (Balle-Wang) recomputed in mpmath: the largest mu with
    delta(eps) <= delta, sigma = sens / mu."""
    lo, hi = mpf("1e-6"), mpf(1)
    while g_delta(eps, hi) <= delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if g_delta(eps, mid) <= delta:
            lo = mid
        else:
            hi = mid
    return mpf(sens) / lo


def slab_bound(eps, mu, sigma, d):
    """Probability mass (under either side) of a slab of width g sqrt(d) around the optimal
    half-space boundary of the Gaussian pair: width x the largest density there."""
    eps, mu = mpf(eps), mpf(mu)
    c = mu / 2 + eps / mu  # boundary in units of sigma from the left mean
    dens = max(mpmath.npdf(c), mpmath.npdf(c - mu)) / mpf(sigma)
    return mpf(GRID) * math.sqrt(d) * dens


def gauss_report(name, eps, delta, mu, sigma, d, worst, extra=""):
    e = g_eps(delta, mu)
    dl = g_delta(eps, mu)
    label = "broken" if e > eps * (1 + 1e-9) else "correct"
    slab = slab_bound(e, mu, sigma, d) / delta  # at the true eps, relative to delta
    text = (
        f"eps@delta {float(e):.5f}; delta@eps {mpmath.nstr(dl, 4)} ({float(dl / delta):.2f}x); "
        f"mu {float(mu):.5f}, sigma {float(sigma):.6g}; slab/delta {mpmath.nstr(slab, 2)}{extra}"
    )
    record(name, fmt_claim(eps, delta), text, float(e), worst, label)
    return e, dl


def approx_report(name, eps, delta, e, dl, worst_e, worst_d, extra=""):
    label = "broken" if (e == INF or e > eps * (1 + 1e-9)) else "correct"
    et = "inf" if e == INF else f"{float(e):.5f}"
    text = f"eps@delta {et}; delta@eps {mpmath.nstr(dl, 4)} ({float(dl / delta):.2f}x){extra}"
    worst = worst_e if worst_e == worst_d else f"eps: {worst_e}; delta: {worst_d}"
    record(name, fmt_claim(eps, delta), text, INF if e == INF else float(e), worst, label)


MOD = None

# ------------------------------------------------------------------------------------------
# 1. truncated_laplace_local
# ------------------------------------------------------------------------------------------

TLL = dict(eps=1.0, delta=1e-4, width=3)


def tll_T(broken):
    """Smallest T with P(Z >= T - reach + 1) <= delta (reach 3; the bug: 1)."""
    rate = mpf(TLL["eps"]) / TLL["width"]
    reach = 1 if broken else TLL["width"]
    t = reach
    while True:
        pmf = dlap_trunc_pmf(rate, t)
        if sum(v for k, v in pmf.items() if k >= t - reach + 1) <= TLL["delta"]:
            return t
        t += 1


def tll_pmf(v, t):
    rate = mpf(TLL["eps"]) / TLL["width"]
    return {v + k: p for k, p in dlap_trunc_pmf(rate, t).items()}


def adapter(name):
    return next(a for a in MOD.ADAPTERS if a.name == name)


def check_tll():
    for broken in (False, True):
        t = tll_T(broken)
        assert adapter(f"ho25.truncated_laplace_local.{'broken' if broken else 'correct'}")._t == t
        best_e, best_d = (mpf(-1), None), (mpf(-1), None)
        for v, w in itertools.combinations(range(4), 2):
            p, q = tll_pmf(v, t), tll_pmf(w, t)
            e, d = both_eps(p, q, TLL["delta"]), both_delta(p, q, TLL["eps"])
            if e > best_e[0]:
                best_e = (e, f"values {v} vs {w}")
            if d > best_d[0]:
                best_d = (d, f"values {v} vs {w}")
        name = f"ho25.truncated_laplace_local.{'broken' if broken else 'correct'}"
        approx_report(
            name, TLL["eps"], TLL["delta"], best_e[0], best_d[0], best_e[1], best_d[1], f"; T = {t}"
        )


# ------------------------------------------------------------------------------------------
# 2. union_threshold_histogram: per-bin pmfs, product over 6 bins by enumerated bin types
# ------------------------------------------------------------------------------------------

UTH = dict(eps=1.2, delta=1e-5, m=6)


def uth_tau(broken):
    rate = mpf(UTH["eps"]) / UTH["m"]
    a = mpmath.exp(-rate)
    per = mpf(UTH["delta"]) if broken else mpf(UTH["delta"]) / UTH["m"]
    k = 1
    while a**k / (1 + a) > per:
        k += 1
    return 1 + k


def uth_bin_pmf(c, tau, lim=400):
    """Output of one bin with true count c: the noisy count if c > 0 and it reaches tau, else
    none."""
    if c <= 0:
        return {BOT: mpf(1)}
    rate = mpf(UTH["eps"]) / UTH["m"]
    out = {BOT: mpf(0)}
    for z, pz in dlap_pmf(rate, lim).items():
        y = c + z
        if y >= tau:
            out[y] = pz
        else:
            out[BOT] += pz
    # mass beyond lim: below is none, above would be released (negligible at lim 400)
    return out


def bin_atoms(p, q):
    """Group a bin's outputs by their log ratio: arrays (p, q) per atom (float64)."""
    groups = {}
    for o in set(p) | set(q):
        po, qo = p.get(o, mpf(0)), q.get(o, mpf(0))
        if po <= 0 and qo <= 0:
            continue
        key = "inf" if qo <= 0 else ("-inf" if po <= 0 else mpmath.nstr(mpmath.log(po / qo), 12))
        a, b = groups.get(key, (mpf(0), mpf(0)))
        groups[key] = (a + po, b + qo)
    return np.array([[float(a), float(b)] for a, b in groups.values()])


def product_eps_delta(atoms_list, eps, delta):
    P = np.array([1.0])
    Q = np.array([1.0])
    for at in atoms_list:
        P = np.outer(P, at[:, 0]).ravel()
        Q = np.outer(Q, at[:, 1]).ravel()
    e = max(np_eps_at(P[None], Q[None], delta)[0], np_eps_at(Q[None], P[None], delta)[0])
    d = max(np_delta_at(P[None], Q[None], eps)[0], np_delta_at(Q[None], P[None], eps)[0])
    return e, d


def check_uth():
    m = UTH["m"]
    for broken in (False, True):
        tau = uth_tau(broken)
        assert (
            adapter(f"ho25.union_threshold_histogram.{'broken' if broken else 'correct'}")._tau
            == tau
        )
        # bin types: count c -> c + 1 (and the reverse, covered by both directions) for c in
        # 0, 1, 2 and tau - 4 .. tau + 2, a count far above tau (plain discrete Laplace), and
        # an unchanged bin (no effect: omitted from the product)
        cs = [0, 1, 2] + list(range(tau - 4, tau + 3)) + [tau + 300]
        types = {c: bin_atoms(uth_bin_pmf(c, tau), uth_bin_pmf(c + 1, tau)) for c in cs}
        best_e, best_d = (-1.0, None), (-1.0, None)
        # every multiset of at most 2 distinct types over the m bins, some bins unchanged
        for c1, c2 in itertools.combinations_with_replacement(cs, 2):
            for k1 in range(0, m + 1):
                for k2 in range(0, m + 1 - k1):
                    if k1 + k2 == 0 or (c1 == c2 and k2 > 0):
                        continue
                    atoms = [types[c1]] * k1 + [types[c2]] * k2
                    e, d = product_eps_delta(atoms, UTH["eps"], UTH["delta"])
                    parts = [f"{k} bins {c} -> {c + 1}" for k, c in ((k1, c1), (k2, c2)) if k]
                    desc = ", ".join(parts)
                    if e > best_e[0]:
                        best_e = (e, desc)
                    if d > best_d[0]:
                        best_d = (d, desc)
        # the exact one-sided mass: all m bins 0 -> 1, released w.p. p = P(Z >= tau - 1) each
        rate = mpf(UTH["eps"]) / m
        a = mpmath.exp(-rate)
        p = a ** (tau - 1) / (1 + a)
        one_sided = 1 - (1 - p) ** m
        assert abs(float(one_sided) - best_d[0]) < 1e-9 * max(best_d[0], 1e-30) + 1e-15, (
            one_sided,
            best_d,
        )
        name = f"ho25.union_threshold_histogram.{'broken' if broken else 'correct'}"
        e = INF if best_e[0] == INF else mpf(best_e[0])
        approx_report(
            name, UTH["eps"], UTH["delta"], e, one_sided, best_e[1], best_d[1], f"; tau = {tau}"
        )


# ------------------------------------------------------------------------------------------
# 3. unknown_domain_top1: exhaustive over 3 counts in 0..45, every L-inf move
# ------------------------------------------------------------------------------------------

UDT = dict(eps=1.0, delta=1e-5, m=3, K=45)


def udt_tau(broken):
    if broken:
        return 1 + math.log(UDT["m"] / UDT["delta"]) / UDT["eps"]
    return 1 + 2 * math.log(UDT["m"] / UDT["delta"]) / UDT["eps"]


def udt_probs(X, tau):
    eps = UDT["eps"]
    w = np.where(X > 0, np.exp(eps * (X - tau) / 2), 0.0)
    Z = 1.0 + w.sum(1)
    return np.concatenate([w / Z[:, None], (1 / Z)[:, None]], 1)


def udt_pmf_exact(x, tau):
    eps = mpf(UDT["eps"])
    w = [mpmath.exp(eps * (c - mpf(tau)) / 2) if c > 0 else mpf(0) for c in x]
    z = 1 + sum(w)
    out = {i: wi / z for i, wi in enumerate(w) if wi > 0}
    out[-1] = 1 / z
    return out


def check_udt():
    K = UDT["K"]
    g = np.arange(K + 1)
    X = np.array(list(itertools.product(g, g, g)))
    for broken in (False, True):
        tau = udt_tau(broken)
        got = adapter(f"ho25.unknown_domain_top1.{'broken' if broken else 'correct'}")._tau
        assert abs(got - tau) < 1e-12, (got, tau)
        best_e, best_d = (-1.0, None), (-1.0, None)
        for mv in itertools.product((-1, 0, 1), repeat=3):
            if mv == (0, 0, 0):
                continue
            Y = X + np.array(mv)
            ok = ((Y >= 0) & (Y <= K)).all(1)
            P, Q = udt_probs(X[ok], tau), udt_probs(Y[ok], tau)
            e = np_eps_at(P, Q, UDT["delta"])  # the reverse move covers the other direction
            d = np_delta_at(P, Q, UDT["eps"])
            i, j = int(e.argmax()), int(d.argmax())
            if e[i] > best_e[0]:
                best_e = (e[i], (tuple(X[ok][i]), tuple(Y[ok][i])))
            if d[j] > best_d[0]:
                best_d = (d[j], (tuple(X[ok][j]), tuple(Y[ok][j])))
        # exact (mpmath) recomputation at the two worst pairs
        xe, ye = best_e[1]
        xd, yd = best_d[1]
        pe, qe = udt_pmf_exact(xe, tau), udt_pmf_exact(ye, tau)
        pd, qd = udt_pmf_exact(xd, tau), udt_pmf_exact(yd, tau)
        e = eps_at(pe, qe, UDT["delta"])
        d = delta_at(pd, qd, UDT["eps"])
        assert e == INF or abs(float(e) - best_e[0]) < 1e-7, (e, best_e)
        assert abs(float(d) - best_d[0]) < 1e-9 * float(d) + 1e-16, (d, best_d)

        def show(pair):
            return f"{tuple(int(v) for v in pair[0])} -> {tuple(int(v) for v in pair[1])}"

        name = f"ho25.unknown_domain_top1.{'broken' if broken else 'correct'}"
        approx_report(
            name,
            UDT["eps"],
            UDT["delta"],
            e,
            d,
            show(best_e[1]),
            show(best_d[1]),
            f"; tau = {tau:.4f}; counts 0..{K}",
        )


# ------------------------------------------------------------------------------------------
# Gaussians: 4, 5, 6, 8, 10
# ------------------------------------------------------------------------------------------


def check_linf_gaussian(mod):
    eps, delta, m = 1.0, 1e-5, 4
    # L2 shift: every move with |s_i| <= 1; enumerate s in {-1, -1/2, ..., 1}^4 (1/4 steps)
    steps = [Fraction(k, 4) for k in range(-4, 5)]
    best = max(sum(float(v) ** 2 for v in s) for s in itertools.product(steps, repeat=m))
    l2 = math.sqrt(best)
    assert abs(l2 - 2.0) < 1e-12
    for broken in (False, True):
        sigma = g_sigma(eps, delta, 1.0 if broken else 2.0)
        name = f"ho25.linf_vector_gaussian.{'broken' if broken else 'correct'}"
        check_sigma(mod, name, sigma)
        gauss_report(
            name, eps, delta, mpf(l2) / sigma, sigma, m, "x -> x + (1, 1, 1, 1) (L2 shift 2)"
        )


def check_moments(mod):
    eps, delta = 1.0, 1e-6
    # shift of (count, sum, sum of squares) for one added record v in [0, 1] (1/64 grid)
    vals = [Fraction(k, 64) for k in range(65)]
    sq = max((1 + v * v + v**4, v) for v in vals)
    l2 = math.sqrt(sq[0])
    assert sq[1] == 1
    for broken in (False, True):
        base = g_sigma(eps, delta, 1.0)
        sigma = base if broken else base * mpmath.sqrt(3)
        name = f"ho25.moments_gaussian.{'broken' if broken else 'correct'}"
        check_sigma(mod, name, sigma)
        gauss_report(
            name, eps, delta, mpf(l2) / sigma, sigma, 3, "add a record at 1: shift (1, 1, 1)"
        )


def trimmed(xs):
    s = sorted(xs)
    return sum(s[1:-1], Fraction(0)) / (len(s) - 2)


def check_trimmed(mod):
    eps, delta = 0.5, 1e-6
    # exhaustive: n = 3, 4, 5 records on a grid of 10/8, every replacement of one record
    grid = [Fraction(10 * k, 8) for k in range(9)]
    for n in (3, 4, 5):
        best = Fraction(0)
        for xs in itertools.combinations_with_replacement(grid, n):
            t0 = trimmed(xs)
            for i in range(n):
                for v in grid:
                    ys = list(xs)
                    ys[i] = v
                    best = max(best, abs(trimmed(ys) - t0))
        assert best == Fraction(10, n - 2), (n, best)
    for broken in (False, True):
        name = f"ho25.trimmed_mean_gaussian.{'broken' if broken else 'correct'}"
        worst = None
        for n in range(3, 41):
            sens_true = mpf(10) / (n - 2)
            sigma = g_sigma(eps, delta, mpf(10) / (n if broken else n - 2))
            mu = sens_true / sigma
            if worst is None or mu > worst[0] * (1 + mpf("1e-12")):
                worst = (mu, n, sigma)
        mu, n, sigma = worst
        a = next(x for x in mod.ADAPTERS if x.name == name)
        got = a._sigma(n)
        assert abs(got - float(sigma)) < 1e-9 * float(sigma), (name, got, sigma)
        zeros = ", ".join(["0"] * (n - 1))
        gauss_report(
            name,
            eps,
            delta,
            mu,
            sigma,
            1,
            f"n = {n}: ({zeros}, 10) -> one 0 replaced by 10",
            f"; sensitivity {10 / (n - 2):g} at n = {n}",
        )


def check_clipped_sum(mod):
    eps, delta = 2.0, 1e-6
    steps = [Fraction(k, 8) for k in range(-8, 9)]
    for broken in (False, True):
        best = (Fraction(-1), None)
        for r in itertools.product(steps, repeat=3):
            nrm2 = sum(v * v for v in r)
            if broken:
                c2 = nrm2  # per-coordinate clip to [-1, 1] keeps the record
            else:
                c2 = min(nrm2, Fraction(1))  # scaled into the unit ball
            if c2 > best[0]:
                best = (c2, r)
        l2 = mpmath.sqrt(mpf(best[0].numerator) / best[0].denominator)
        sigma = g_sigma(eps, delta, 1.0)
        name = f"ho25.clipped_vector_sum_gaussian.{'broken' if broken else 'correct'}"
        check_sigma(mod, name, sigma)
        rec = tuple(str(v) for v in best[1])
        gauss_report(
            name,
            eps,
            delta,
            l2 / sigma,
            sigma,
            3,
            f"add the record ({', '.join(rec)}): L2 shift {float(l2):.4f}",
        )


def check_local_gaussian(mod):
    eps, delta = 2.0, 1e-6
    for broken in (False, True):
        sigma = g_sigma(eps, delta, 4.5 if broken else 9)
        name = f"ho25.local_gaussian.{'broken' if broken else 'correct'}"
        check_sigma(mod, name, sigma)
        gauss_report(name, eps, delta, mpf(9) / sigma, sigma, 1, "values 0 vs 9")


def check_sigma(mod, name, sigma):
    a = next(x for x in mod.ADAPTERS if x.name == name)
    assert abs(a._sigma - float(sigma)) < 1e-9 * float(sigma), (name, a._sigma, sigma)
    if name.endswith(".correct"):
        assert a._sigma >= float(sigma) * (1 - 1e-12)


# ------------------------------------------------------------------------------------------
# Laplace: 7, 9 (pure eps = largest L1 shift / scale)
# ------------------------------------------------------------------------------------------


def check_l2_laplace(mod):
    eps, m = 1.0, 4
    # L1 norm of moves with L2 norm <= 1: enumerate the sphere's grid points s = k/8 with
    # |s|_2 <= 1 (exact), plus Cauchy-Schwarz: sup |s|_1 = sqrt(m) at (1/2, 1/2, 1/2, 1/2)
    steps = [Fraction(k, 8) for k in range(-8, 9)]
    best = max(
        (sum(abs(v) for v in s), s)
        for s in itertools.product(steps, repeat=m)
        if sum(v * v for v in s) <= 1
    )
    assert best[0] == 2
    for broken in (False, True):
        scale = 1.0 if broken else 2.0
        name = f"ho25.l2_vector_laplace.{'broken' if broken else 'correct'}"
        a = next(x for x in mod.ADAPTERS if x.name == name)
        assert a._scale == scale
        value = float(best[0]) / scale
        label = "broken" if value > eps * (1 + 1e-12) else "correct"
        axis = 1.0 / scale
        record(
            name,
            fmt_claim(eps, 0),
            f"eps {value:.5f} = L1 shift 2 / scale {scale:g}; an axis move of 1 gives {axis:g}",
            value,
            "x -> x + (1/2, 1/2, 1/2, 1/2)",
            label,
        )


def soft_weights(x, broken):
    """The soft histogram of one record as the description states (exact fractions)."""
    if broken:
        i = round(x)  # Python's round is half to even, as np.rint
    else:
        i = math.floor(x)
    f = x - i
    w = [Fraction(0)] * 5
    w[min(i, 4)] += 1 - f
    w[min(i + 1, 4)] += f
    return w


def check_soft_histogram(mod):
    eps = 1.0
    for broken in (False, True):
        best = (Fraction(-1), None)
        for k in range(0, 257):
            x = Fraction(k, 64)
            l1 = sum(abs(v) for v in soft_weights(x, broken))
            if l1 > best[0]:
                best = (l1, x)
        name = f"ho25.soft_histogram_laplace.{'broken' if broken else 'correct'}"
        a = next(y for y in mod.ADAPTERS if y.name == name)
        for k in range(0, 257):  # the adapter's weights agree with the description
            x = Fraction(k, 64)
            w = a.weights(np.array([float(x)]))
            assert np.allclose(w, [float(v) for v in soft_weights(x, broken)], atol=0), (x, w)
        value = float(best[0]) * eps
        label = "broken" if value > eps * (1 + 1e-12) else "correct"
        record(
            name,
            fmt_claim(eps, 0),
            f"eps {value:.5f} (largest L1 weight of one record {best[0]})",
            value,
            f"add a record {best[1]}",
            label,
        )


# ------------------------------------------------------------------------------------------
# 11. permute_and_flip: exhaustive over 3 utilities on a grid of 1/4 in [0, 6], every L-inf
# move on the same grid (fractional moves and opposite directions included)
# ------------------------------------------------------------------------------------------

PERMS = list(itertools.permutations(range(3)))


def pf_probs(U, rate):
    p = np.exp(rate * (U - U.max(1, keepdims=True)))
    out = np.zeros_like(U)
    for perm in PERMS:
        surv = np.ones(U.shape[0])
        for c in perm:
            out[:, c] += surv * p[:, c] / len(PERMS)
            surv = surv * (1 - p[:, c])
    return out


def pf_pmf_exact(u, rate):
    u = [mpf(v) for v in u]
    top = max(u)
    p = [mpmath.exp(mpf(rate) * (v - top)) for v in u]
    out = {i: mpf(0) for i in range(3)}
    for perm in PERMS:
        surv = mpf(1)
        for c in perm:
            out[c] += surv * p[c] / len(PERMS)
            surv *= 1 - p[c]
    return out


def check_pf(mod):
    eps = 1.0
    g = np.arange(0, 6 + 1e-9, 0.25)
    X = np.array(list(itertools.product(g, g, g)))
    moves = np.arange(-1, 1 + 1e-9, 0.25)
    for broken in (False, True):
        rate = eps if broken else eps / 2
        name = f"ho25.permute_and_flip.{'broken' if broken else 'correct'}"
        assert adapter(name)._rate == rate
        best = (-1.0, None)
        for s in itertools.product(moves, repeat=3):
            if not any(s):
                continue
            Y = X + np.array(s)
            L = np.abs(np.log(pf_probs(X, rate) / pf_probs(Y, rate))).max(1)
            i = int(L.argmax())
            if L[i] > best[0]:
                best = (L[i], (X[i], Y[i]))
        x, y = best[1]
        p, q = pf_pmf_exact(x, rate), pf_pmf_exact(y, rate)
        value = max(abs(mpmath.log(p[o] / q[o])) for o in range(3))
        assert abs(float(value) - best[0]) < 1e-9
        label = "broken" if value > eps * (1 + 1e-9) else "correct"
        pair = f"{tuple(float(v) for v in x)} -> {tuple(float(v) for v in y)}"
        record(
            name,
            fmt_claim(eps, 0),
            f"eps {float(value):.5f} (rate {rate:g}; utilities 0..6 and moves on a 1/4 grid)",
            float(value),
            pair,
            label,
        )


# ------------------------------------------------------------------------------------------
# 12. present_keys_above_threshold: exhaustive over 3 counts in 0..56, every L-inf move
# ------------------------------------------------------------------------------------------

SVT = dict(eps=1.0, claim=0.71, delta=1e-4, m=3, K=56, L=90)  # eps: the noise calibration


def dlap_cdf_np(t, rate):
    """P(nu <= t) for the discrete Laplace of `rate` (float64, t an integer array)."""
    a = math.exp(-rate)
    t = np.asarray(t, dtype=float)
    return np.where(t >= 0, 1 - a ** (t + 1) / (1 + a), a ** (-t) / (1 + a))


def svt_tau(broken):
    eps, delta, m = mpf(SVT["eps"]), mpf(SVT["delta"]), SVT["m"]
    a, b = mpmath.exp(-eps / 4), mpmath.exp(-eps / 2)
    if broken:
        k = 1
        while a**k / (1 + a) > delta:
            k += 1
        return 1 + k
    cb = (1 - b) / (1 + b)

    def diff_tail(k):  # P(nu - rho >= k), exact sum over rho (tails beyond 400 below 1e-80)
        tot = mpf(0)
        for r in range(-400, 401):
            t = k + r
            tail = a**t / (1 + a) if t >= 1 else 1 - a ** (1 - t) / (1 + a)
            tot += cb * b ** abs(r) * tail
        return tot

    k = 1
    while diff_tail(k) > delta / m:
        k += 1
    return 1 + k


def svt_probs(X, tau):
    """Output pmf (keys 0, 1, 2, none) for rows of counts X (float64; rho summed over
    |rho| <= L, whose outside mass is below 1e-19)."""
    eps, L = SVT["eps"], SVT["L"]
    rho = np.arange(-L, L + 1)
    b = math.exp(-eps / 2)
    w = (1 - b) / (1 + b) * b ** np.abs(rho)
    c = np.arange(int(X.max()) + 1)[:, None]
    F = dlap_cdf_np(tau + rho[None, :] - c - 1, eps / 4)  # P(count c does not fire | rho)
    F[0, :] = 1.0  # absent keys are not asked
    out = np.empty((X.shape[0], 4))
    surv = np.ones((X.shape[0], rho.size))
    for i in range(3):
        Fi = F[X[:, i]]
        out[:, i] = (surv * (1 - Fi)) @ w
        surv *= Fi
    out[:, 3] = surv @ w
    return out


def svt_pmf_exact(x, tau):
    eps = mpf(SVT["eps"])
    a, b = mpmath.exp(-eps / 4), mpmath.exp(-eps / 2)
    cb = (1 - b) / (1 + b)

    def cdf(t):
        return 1 - a ** (t + 1) / (1 + a) if t >= 0 else a ** (-t) / (1 + a)

    out = {0: mpf(0), 1: mpf(0), 2: mpf(0), -1: mpf(0)}
    for r in range(-200, 201):
        wr = cb * b ** abs(r)
        surv = wr
        for i, c in enumerate(x):
            f = mpf(1) if c <= 0 else cdf(tau + r - c - 1)
            out[i] += surv * (1 - f)
            surv *= f
        out[-1] += surv
    return out


def check_svt(mod):
    K = SVT["K"]
    g = np.arange(K + 1)
    X = np.array(list(itertools.product(g, g, g)))
    for broken in (False, True):
        tau = svt_tau(broken)
        name = f"ho25.present_keys_above_threshold.{'broken' if broken else 'correct'}"
        assert adapter(name)._tau == tau
        PX = svt_probs(X, tau)
        assert np.allclose(PX.sum(1), 1.0, atol=1e-12)
        best_e, best_d = (-1.0, None), (-1.0, None)
        for mv in itertools.product((-1, 0, 1), repeat=3):
            if not any(mv):
                continue
            Y = X + np.array(mv)
            ok = ((Y >= 0) & (Y <= K)).all(1)
            yi = Y[ok, 0] * (K + 1) ** 2 + Y[ok, 1] * (K + 1) + Y[ok, 2]
            P, Q = PX[ok], PX[yi]
            e = np_eps_at(P, Q, SVT["delta"])
            d = np_delta_at(P, Q, SVT["claim"])
            i, j = int(e.argmax()), int(d.argmax())
            if e[i] > best_e[0]:
                best_e = (e[i], (tuple(X[ok][i]), tuple(Y[ok][i])))
            if d[j] > best_d[0]:
                best_d = (d[j], (tuple(X[ok][j]), tuple(Y[ok][j])))
        pe, qe = svt_pmf_exact(best_e[1][0], tau), svt_pmf_exact(best_e[1][1], tau)
        pd, qd = svt_pmf_exact(best_d[1][0], tau), svt_pmf_exact(best_d[1][1], tau)
        e = eps_at(pe, qe, SVT["delta"])
        d = delta_at(pd, qd, SVT["claim"])
        assert e == INF or abs(float(e) - best_e[0]) < 1e-7, (e, best_e)
        assert abs(float(d) - best_d[0]) < 1e-8 * float(d) + 1e-16, (d, best_d)

        def show(pair):
            return f"{tuple(int(v) for v in pair[0])} -> {tuple(int(v) for v in pair[1])}"

        approx_report(
            name,
            SVT["claim"],
            SVT["delta"],
            e,
            d,
            show(best_e[1]),
            show(best_d[1]),
            f"; tau = {tau}; noise for eps 1; counts 0..{K}",
        )


# ------------------------------------------------------------------------------------------
# Sampling checks
# ------------------------------------------------------------------------------------------


def load_set():
    path = Path(__file__).resolve().parent / "held_out_mechanisms_25.py"
    spec = importlib.util.spec_from_file_location("held_out_mechanisms_25", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def chi2_discrete(samples, pmf, min_expected=5):
    n = len(samples)
    keys = sorted(pmf, key=lambda k: (isinstance(k, str), k if not isinstance(k, str) else 0))
    vals, counts = np.unique(samples, return_counts=True)
    obs = dict(zip(vals.tolist(), counts.tolist()))
    extra = set(obs) - set(pmf)
    assert not extra, f"outputs outside the exact support: {sorted(extra)[:5]}"
    e_cells, o_cells, e_acc, o_acc = [], [], 0.0, 0
    for k in keys:
        e_acc += float(pmf[k]) * n
        o_acc += obs.get(k, 0)
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


def chi2_continuous(samples, dist, cells=20):
    """Chi-square of real outputs in `cells` cells of equal exact probability (dist: a frozen
    scipy distribution of the unrounded output; the 2^-16 rounding moves each cut by < 1e-5)."""
    cuts = dist.ppf(np.arange(1, cells) / cells)
    idx = np.searchsorted(cuts, samples)
    obs = np.bincount(idx, minlength=cells)
    return float(stats.chisquare(obs, np.full(cells, len(samples) / cells)).pvalue)


def sampling_checks(mod):
    by = {a.name: a for a in mod.ADAPTERS}
    n = 40000
    pvals = []

    def draw(name, query):
        a = by[name]
        entropy = 2500 + len(pvals)
        a.seed(entropy)
        out = np.asarray(a.sample(query, n))
        a.seed(entropy)
        again = np.asarray(a.sample(query, n))
        assert np.array_equal(out, again, equal_nan=True), f"{name}: seed does not replay"
        assert out.shape[0] == n
        return out

    for br in (False, True):
        tag = "broken" if br else "correct"
        # 1
        t = tll_T(br)
        for v in (0, 3):
            out = draw(f"ho25.truncated_laplace_local.{tag}", v)
            pvals.append(
                (
                    chi2_discrete(out.tolist(), tll_pmf(v, t)),
                    f"ho25.truncated_laplace_local.{tag}",
                    f"value {v}",
                )
            )
        # 2
        tau = uth_tau(br)
        q = np.array([0, 1, tau - 2, tau, tau + 5, 200])
        out = draw(f"ho25.union_threshold_histogram.{tag}", q)
        for j in range(6):
            col = np.where(np.isnan(out[:, j]), -(10**6), out[:, j]).astype(np.int64).tolist()
            pmf = {(-(10**6) if k == BOT else k): v for k, v in uth_bin_pmf(int(q[j]), tau).items()}
            pvals.append(
                (
                    chi2_discrete(col, pmf),
                    f"ho25.union_threshold_histogram.{tag}",
                    f"bin count {q[j]}",
                )
            )
        # 3
        tau = udt_tau(br)
        for q in ([0, 1, 2], [tau, tau - 2, 0], [30, 31, 35]):
            qi = [int(round(v)) for v in q]
            out = draw(f"ho25.unknown_domain_top1.{tag}", qi)
            pvals.append(
                (
                    chi2_discrete(out.tolist(), udt_pmf_exact(qi, tau)),
                    f"ho25.unknown_domain_top1.{tag}",
                    f"counts {tuple(qi)}",
                )
            )
        # Gaussians and Laplace (scales recomputed here, not read from the adapters)
        s4 = float(g_sigma(1.0, 1e-5, 1.0 if br else 2.0))
        out = draw(f"ho25.linf_vector_gaussian.{tag}", [0.0, 1.5, -2.25, 7.0])
        for j, mu in enumerate([0.0, 1.5, -2.25, 7.0]):
            pvals.append(
                (
                    chi2_continuous(out[:, j], stats.norm(mu, s4)),
                    f"ho25.linf_vector_gaussian.{tag}",
                    f"coordinate {j}",
                )
            )
        base = float(g_sigma(1.0, 1e-6, 1.0))
        s5 = base if br else base * math.sqrt(3)
        data = np.array([0.25, 0.5, 1.0, 0.0, 0.75])
        out = draw(f"ho25.moments_gaussian.{tag}", data)
        for j, mu in enumerate([5.0, 2.5, 0.0625 + 0.25 + 1 + 0.5625]):
            pvals.append(
                (
                    chi2_continuous(out[:, j], stats.norm(mu, s5)),
                    f"ho25.moments_gaussian.{tag}",
                    f"column {j}",
                )
            )
        data = np.array([0.0, 3.0, 10.0, 4.0])
        out = draw(f"ho25.trimmed_mean_gaussian.{tag}", data)
        s6 = float(g_sigma(0.5, 1e-6, 10.0 / (4 if br else 2)))
        pvals.append(
            (
                chi2_continuous(out, stats.norm(3.5, s6)),
                f"ho25.trimmed_mean_gaussian.{tag}",
                "n = 4",
            )
        )
        out = draw(f"ho25.l2_vector_laplace.{tag}", [0.0, 0.5, 1.0, -3.0])
        for j, mu in enumerate([0.0, 0.5, 1.0, -3.0]):
            pvals.append(
                (
                    chi2_continuous(out[:, j], stats.laplace(mu, 1.0 if br else 2.0)),
                    f"ho25.l2_vector_laplace.{tag}",
                    f"coordinate {j}",
                )
            )
        s8 = float(g_sigma(2.0, 1e-6, 1.0))
        data = np.array([[1.0, 1.0, 1.0], [0.0, -0.5, 0.25]])
        total = np.array([0.0, -0.5, 0.25]) + (
            np.array([1.0, 1.0, 1.0]) if br else np.ones(3) / math.sqrt(3)
        )
        out = draw(f"ho25.clipped_vector_sum_gaussian.{tag}", data)
        for j in range(3):
            pvals.append(
                (
                    chi2_continuous(out[:, j], stats.norm(total[j], s8)),
                    f"ho25.clipped_vector_sum_gaussian.{tag}",
                    f"column {j}",
                )
            )
        data = [1.5, 0.75, 3.0]
        hist = np.zeros(5)
        for x in data:
            hist += np.array([float(v) for v in soft_weights(Fraction(x), br)])
        out = draw(f"ho25.soft_histogram_laplace.{tag}", np.array(data))
        for j in range(5):
            pvals.append(
                (
                    chi2_continuous(out[:, j], stats.laplace(hist[j], 1.0)),
                    f"ho25.soft_histogram_laplace.{tag}",
                    f"bin {j}",
                )
            )
        s10 = float(g_sigma(2.0, 1e-6, 4.5 if br else 9.0))
        for v in (0, 9):
            out = draw(f"ho25.local_gaussian.{tag}", v)
            pvals.append(
                (
                    chi2_continuous(out, stats.norm(v, s10)),
                    f"ho25.local_gaussian.{tag}",
                    f"value {v}",
                )
            )
        for u in ([0.0, 4.0, 0.0], [-1.0, 3.0, 1.0], [2.5, 2.5, 0.25]):
            out = draw(f"ho25.permute_and_flip.{tag}", u)
            pvals.append(
                (
                    chi2_discrete(out.tolist(), pf_pmf_exact(u, 1.0 if br else 0.5)),
                    f"ho25.permute_and_flip.{tag}",
                    f"utilities {tuple(u)}",
                )
            )
        tau = svt_tau(br)
        for q in ([1, 1, 1], [tau - 3, 0, tau + 2], [tau + 1, tau - 1, tau]):
            out = draw(f"ho25.present_keys_above_threshold.{tag}", q)
            pvals.append(
                (
                    chi2_discrete(out.tolist(), svt_pmf_exact(q, tau)),
                    f"ho25.present_keys_above_threshold.{tag}",
                    f"counts {tuple(q)}",
                )
            )
    return pvals


def main():
    global MOD
    mod = MOD = load_set()
    check_tll()
    check_uth()
    check_udt()
    check_linf_gaussian(mod)
    check_moments(mod)
    check_trimmed(mod)
    check_l2_laplace(mod)
    check_clipped_sum(mod)
    check_soft_histogram(mod)
    check_local_gaussian(mod)
    check_pf(mod)
    check_svt(mod)
    order = [a.name for a in mod.ADAPTERS]
    RESULTS.sort(key=lambda r: order.index(r[0]))
    labels = {a.name: ("broken" if a.broken else "correct") for a in mod.ADAPTERS}
    print("| mechanism | claim | truth | worst pair | label |")
    print("|---|---|---|---|---|")
    bad = []
    for name, claim, text, value, worst, label in RESULTS:
        print(f"| {name} | {claim} | {text} | {worst} | {label} |")
        if labels.get(name) != label:
            bad.append((name, labels.get(name), label))
        tv = mod.TRUE_VALUES.get(name)
        if tv is None or not (tv == value or (math.isfinite(value) and abs(tv - value) < 1e-4)):
            bad.append((name, "TRUE_VALUES", tv, value))
    assert len(RESULTS) == len(mod.ADAPTERS), (len(RESULTS), len(mod.ADAPTERS))
    names = {a.name for a in mod.ADAPTERS}
    assert names == {r[0] for r in RESULTS}
    assert all(a.broken == a.name.endswith(".broken") for a in mod.ADAPTERS)
    if "--no-sampling" not in sys.argv:
        pvals = sampling_checks(mod)
        ps = sorted(pvals)
        print(f"\nsampling: {len(pvals)} chi-square tests at 40,000 outputs; smallest p-values:")
        for pv, name, what in ps[:4]:
            print(f"  {pv:.4f}  {name}  ({what})")
        if ps[0][0] < 1e-4:
            print("\nSAMPLING MISMATCH")
            sys.exit(1)
    if bad:
        print("\nDISAGREEMENTS:", bad)
        sys.exit(1)
    print("\nall labels agree with the exact values")


if __name__ == "__main__":
    main()
