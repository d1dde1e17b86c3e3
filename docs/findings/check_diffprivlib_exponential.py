#!/usr/bin/env python3
"""Independent check: diffprivlib.mechanisms.Exponential gives probability exactly 0, on one
utility vector, to candidates that have positive probability on a neighbouring one.

Standalone: uses only the Python standard library, numpy, scipy and diffprivlib.  It does
NOT import anything from dp-audit (no auditor, attacks, reports, reference_mechanisms).

Claim: epsilon = 1 (pure DP), sensitivity = 1, 10 candidates, higher utility preferred.
Neighbouring utility vectors (every entry moves by exactly 1 <= sensitivity):
    u  = [-1, -73, -73, ..., -73]
    u' = [ 0, -74, -74, ..., -74]
Ideal exponential mechanism: P[i] proportional to exp(epsilon * u_i / (2 * sensitivity)),
so P_u[i] ~ 2.3e-16 and P_u'[i] ~ 8.5e-17 for i >= 1: tiny, but positive, ratio e^1.

diffprivlib 0.6.6 (mechanisms/exponential.py, Exponential._find_probabilities and randomise):
    p = exp(scale * (u - max(u))); p /= p.sum(); cumulative = np.cumsum(p)
    rand = rng.random(); return first i with rand <= cumulative[i]
Near 1.0 the cumulative sum absorbs increments below half an ulp (2^-53 below 1, 2^-52 above),
and rng.random() only returns multiples of 2^-53 in [0, 1).  The selection is a deterministic,
non-decreasing function of the single uniform rand, so its exact output distribution follows
from evaluating randomise() on the top grid values of rand (everything below them selects 0).
The script does this by handing randomise() a secrets.SystemRandom subclass whose random()
returns the chosen grid value (diffprivlib accepts any SystemRandom instance as random_state).

Premise (stated, and checked for the grid part on 100,000 draws of each generator): both
generators diffprivlib uses -- numpy.random.RandomState.random() (seeded runs) and
secrets.SystemRandom.random() (the default, random_state=None) -- return k * 2^-53 with k
uniform on {0, ..., 2^53 - 1}.

Exit status: 1 if the exact output distribution violates the claim on some event
(P_u[S] > e^epsilon * P_u'[S]), else 0.  A sampling run with the seeded generator is also
reported, with its one-sided Clopper-Pearson bound (level a = 1e-6 per side): the violating
event has probability ~5.6e-16, far too small to be seen by sampling.
"""

from __future__ import annotations

import math
import secrets
import sys
from fractions import Fraction

import diffprivlib
import numpy as np
import scipy
from diffprivlib.mechanisms import Exponential
from scipy.stats import beta

EPSILON, SENSITIVITY = 1.0, 1.0
U = [-1.0] + [-73.0] * 9
U_PRIME = [0.0] + [-74.0] * 9
S = (7, 8, 9)  # the event: "the selected candidate is 7, 8 or 9"
S_TEXT = "{7, 8, 9}"
TOP = 64  # grid values of rand evaluated explicitly (the rest select candidate 0)
GRID = 2**53
A = 1e-6
N_SAMPLES = 100_000


class ScriptedUniform(secrets.SystemRandom):
    """A SystemRandom whose random() returns a value set by the caller."""

    value = 0.0

    def random(self) -> float:  # noqa: D401
        return self.value


def mechanism(utility, random_state=None) -> Exponential:
    return Exponential(
        epsilon=EPSILON, sensitivity=SENSITIVITY, utility=list(utility), random_state=random_state
    )


def exact_distribution(utility) -> dict[int, Fraction]:
    """Exact P[randomise() = i] under rand = k * 2^-53, k uniform on [0, 2^53)."""
    rng = ScriptedUniform()
    mech = mechanism(utility, rng)
    cumulative = np.asarray(mech._probabilities)
    assert np.all(np.diff(cumulative) >= 0), "cumulative probabilities must be non-decreasing"
    counts: dict[int, int] = {}
    for k in range(GRID - TOP, GRID):
        rng.value = k / GRID  # exact: k < 2^53
        i = mech.randomise()
        counts[i] = counts.get(i, 0) + 1
    # every k < GRID - TOP gives a rand no larger, hence (monotone) an index no larger:
    rng.value = (GRID - TOP) / GRID
    assert mech.randomise() == 0 and rng.value <= cumulative[0]
    counts[0] = counts.get(0, 0) + (GRID - TOP)
    return {i: Fraction(c, GRID) for i, c in sorted(counts.items())}


def ideal_probabilities(utility) -> list[float]:
    scale = EPSILON / (2 * SENSITIVITY)
    top = max(utility)
    logw = [scale * (u - top) for u in utility]
    log_z = math.log(sum(math.exp(w) for w in logw))
    return [math.exp(w - log_z) for w in logw]


def check_generators() -> None:
    rs = np.random.RandomState(0).random(N_SAMPLES)
    sr = np.array([secrets.SystemRandom().random() for _ in range(N_SAMPLES)])
    for name, v in (("RandomState.random()", rs), ("secrets.SystemRandom().random()", sr)):
        q = v * 2.0**53
        print(
            f"  {name}: {N_SAMPLES} draws, all k * 2^-53 with 0 <= k < 2^53: "
            f"{bool(np.all(q == np.floor(q)) and np.all((v >= 0) & (v < 1)))}"
        )


def main() -> int:
    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}, "
        f"diffprivlib {diffprivlib.__version__}"
    )
    print(f"Exponential(epsilon={EPSILON}, sensitivity={SENSITIVITY}), claim: {EPSILON}-DP")
    print(
        f"u  = {U[:2]} + {U[2:3]} x 8\nu' = {U_PRIME[:2]} + {U_PRIME[2:3]} x 8"
        f"   (max |u_i - u'_i| = {max(abs(a - b) for a, b in zip(U, U_PRIME, strict=True))})"
    )
    print("uniform generators:")
    check_generators()

    results = {}
    for name, utility in (("u", U), ("u'", U_PRIME)):
        cumulative = np.asarray(mechanism(utility)._probabilities)
        library = np.diff(cumulative, prepend=0.0)
        ideal = ideal_probabilities(utility)
        exact = exact_distribution(utility)
        results[name] = exact
        print(f"\n== utility {name}")
        print(
            "  cumulative probabilities (library):",
            " ".join(float(c).hex() for c in cumulative[5:]),
            "(entries 5..9)",
        )
        print("  candidate:             " + "".join(f"{i:>11d}" for i in range(5, 10)))
        print("  ideal P (real arith.): " + "".join(f"{ideal[i]:11.3e}" for i in range(5, 10)))
        print("  library's P (diff):    " + "".join(f"{library[i]:11.3e}" for i in range(5, 10)))
        print(
            "  exact P[randomise()=i]:"
            + "".join(f"{float(exact.get(i, 0)):11.3e}" for i in range(5, 10))
        )
        print(
            f"  P[candidate in {S_TEXT}]: ideal {sum(ideal[i] for i in S):.3e}, "
            f"library {sum(library[i] for i in S):.3e}, "
            f"randomise() exactly {sum(exact.get(i, Fraction(0)) for i in S)} "
            f"= {float(sum(exact.get(i, Fraction(0)) for i in S)):.3e}"
        )

    p_u = sum(results["u"].get(i, Fraction(0)) for i in S)
    p_up = sum(results["u'"].get(i, Fraction(0)) for i in S)
    violated = p_u > 0 and (p_up == 0 or math.log(p_u / p_up) > EPSILON)
    ratio = "infinite" if p_up == 0 else f"{math.log(p_u / p_up):.3f}"
    print(
        f"\nexact: P_u[S] = {p_u} > 0, P_u'[S] = {p_up}  ->  ln ratio = {ratio} (claim {EPSILON})"
    )
    # smallest delta for which this pair satisfies (epsilon, delta), both directions (hockey stick)
    e = math.exp(EPSILON)
    delta_pair = max(
        sum(max(0.0, float(p.get(i, 0)) - e * float(q.get(i, 0))) for i in range(len(U)))
        for p, q in ((results["u"], results["u'"]), (results["u'"], results["u"]))
    )
    print(
        f"exact: smallest delta with which this pair satisfies ({EPSILON}, delta)-DP: "
        f"{delta_pair:.3e} (= {delta_pair * GRID:.0f} * 2^-53)"
    )

    # sampling with randomise() and a seeded RandomState, as the library is normally used
    k = {}
    for j, (name, utility) in enumerate((("u", U), ("u'", U_PRIME))):
        mech = mechanism(utility, np.random.RandomState(100 + j))
        out = np.fromiter((mech.randomise() for _ in range(N_SAMPLES)), np.int64, count=N_SAMPLES)
        k[name] = int(np.isin(out, S).sum())
        print(
            f"sampling: {N_SAMPLES} randomise() calls on {name}: candidate in {S_TEXT} "
            f"{k[name]} times; candidate counts {np.bincount(out, minlength=10).tolist()}"
        )
    p0_lo = 0.0 if k["u"] == 0 else float(beta.ppf(A, k["u"], N_SAMPLES - k["u"] + 1))
    p1_hi = float(beta.ppf(1 - A, k["u'"] + 1, N_SAMPLES - k["u'"]))
    sampled = math.log(p0_lo / p1_hi) if p0_lo > 0 else float("-inf")
    print(
        f"sampling bound (one-sided Clopper-Pearson, a = {A:g}): eps >= {sampled} "
        f"(no evidence: the event is ~{float(p_u):.1e} likely on u)"
    )

    print(f"\nRESULT: {'claim violated (exact computation)' if violated else 'no violation'}")
    return 1 if violated else 0


if __name__ == "__main__":
    sys.exit(main())
