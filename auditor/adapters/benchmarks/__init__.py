"""The benchmark mechanisms on which differential-privacy testers are compared.

StatDP (Ding, Wang, Wang, Zhang, Kifer, "Detecting Violations of Differential Privacy", CCS 2018)
and DP-Sniper (Bichsel, Steffen, Bogunovic, Vechev, "DP-Sniper: Black-Box Discovery of
Differential Privacy Violations using Classifiers", IEEE S&P 2021) evaluate on the same small
zoo of textbook mechanisms, half of them broken on purpose, most at a claimed epsilon of 0.1.
This module writes them as built-in adapters (an opt-in group, ``benchmark.*``) so that our
verdicts can be set beside the figures those papers publish (:data:`PUBLISHED_FIGURES`).

The definitions follow the two public code bases (``cmla-psu/statdp``, ``statdp/algorithms.py``;
``eth-sri/dp-sniper``, ``dpsniper/mechanisms/*.py`` and ``statdpwrapper/``), re-written here:
every ``sample(query, n)`` draws the whole ``n x m`` noise matrix at once from the adapter's
seeded generator.  The neighbouring relation each adapter declares is the one the testers'
input pairs use (StatDP's ``ONE_DIFFER``: one entry moves by at most 1, declared as L1
sensitivity 1; ``ALL_DIFFER``: every entry may move by 1, declared as L∞ sensitivity 1); the
number of queries is the papers' (5 or 10), declared as ``query_length``.

===========================================  ==================================  =====  ==========
adapter                                      kinds                               claim  correct?
===========================================  ==================================  =====  ==========
``benchmark.laplace(eps=0.1)``               scalar → real                       0.1    yes
``benchmark.truncated_geometric(eps=0.1)``   scalar → integer                    0.1    no (0.118)
``benchmark.noisy_hist1(eps=0.1)``           vector(l1) → real[query]            0.1    yes
``benchmark.noisy_hist2(eps=0.1)``           vector(l1) → real[query]            0.1    no (10)
``benchmark.report_noisy_max1(eps=0.1)``     vector(linf) → index                0.1    yes
``benchmark.report_noisy_max2(eps=0.1)``     vector(linf) → index                0.1    yes
``benchmark.report_noisy_max3(eps=0.1)``     vector(linf) → real                 0.1    no (0.25)
``benchmark.report_noisy_max4(eps=0.1)``     vector(linf) → real                 0.1    no (∞)
``benchmark.svt1(eps=0.1)``                  vector(linf) → ternary[query]       0.1    yes
``benchmark.svt2(eps=0.1)``                  vector(linf) → ternary[query]       0.1    yes
``benchmark.svt3(eps=0.1)``                  vector(linf) → real[query]?         0.1    no
``benchmark.svt4(eps=0.1)``                  vector(linf) → ternary[query]       0.1    no (0.175)
``benchmark.svt5(eps=0.1)``                  vector(linf) → ternary[query]       0.1    no (∞)
``benchmark.svt6(eps=0.1)``                  vector(linf) → ternary[query]       0.1    no
``benchmark.numerical_svt(eps=0.1)``         vector(linf) → real[query]?         0.1    yes
``benchmark.rappor(f=0.75,p=0.45,q=0.55)``   local → boolean[20]                 0.4001 yes
``benchmark.one_time_rappor(f=0.95)``        local → boolean[20]                 0.8007 yes
``benchmark.laplace_parallel(eps=0.1,k=20)`` scalar → real[20]                   0.1    yes
``benchmark.svt34_parallel(eps=0.2)``        vector(linf) → real[20]?            0.2    no
``benchmark.prefix_sum(eps=0.1)``            vector(linf) → real[query]          0.1    no (1.0)
``benchmark.prefix_sum_l1(eps=0.1)``         vector(l1) → real[query]            0.1    yes
===========================================  ==================================  =====  ==========

Each adapter's ``description`` says what it is and, for a broken one, why, with the citation;
``correct`` records the literature's verdict on the claim *as declared* (epsilon and
neighbouring relation).  ``docs/benchmark-mechanisms.md`` has the full table with the published
figures and the choices made where the two code bases differ.

Output encodings:

* SVT answers (Alg. 1, 2, 4, 5, 6) are ``ternary``, one per query: 1 above (⊤), 0 below (⊥),
  -1 not answered (halted after the c-th ⊤).  Algorithms 5 and 6 have no cutoff, so they never
  output -1.
* SVT with values (Alg. 3) and NumericalSVT release a number for each ⊤ and nothing for ⊥: a
  ``real`` vector, one entry per query, NaN where no number is released (``nullable``).  NaN
  stands for both ⊥ and "halted"; nothing is lost, because an entry is halted exactly when c
  numbers precede it.  (DP-Sniper encodes ⊥ and halted as -1000.0 and -2000.0, ShadowDP's
  NumSVT writes 0 for ⊥; both are the same information, as would be a record of the answers
  and the values, ``fields = {"answers": ("ternary", "query"), "values": ("real", "query")}``.)
* ReportNoisyMax3/4 release the noisy maximum *value* only (not its index), as in both code
  bases: a ``real`` scalar.
* RAPPOR reports are the m Bloom-filter bits after randomized response: ``boolean[m]``.

Floating point: every mechanism here samples numpy float64 noise, as the testers' code does;
the float attacks that break textbook Laplace noise (Mironov, CCS 2012; DP-Sniper's own
floating-point experiment on exactly ``np.random.laplace`` at epsilon 0.1) apply to the "correct"
ones too.  "Correct" here means correct on paper, for real-valued noise.

Randomness: ``SeededAdapter._rng`` only, so every draw replays from the run's seed.
"""

from __future__ import annotations

from typing import Any

from auditor.adapters.benchmarks.figures import PUBLISHED_FIGURES, PUBLISHED_SECONDS
from auditor.adapters.benchmarks.histograms import NoisyHist1, NoisyHist2, PrefixSum
from auditor.adapters.benchmarks.noisy_max import (
    ReportNoisyMax1,
    ReportNoisyMax2,
    ReportNoisyMax3,
    ReportNoisyMax4,
)
from auditor.adapters.benchmarks.rappor import OneTimeRappor, Rappor
from auditor.adapters.benchmarks.scalar import LaplaceMechanism, LaplaceParallel, TruncatedGeometric
from auditor.adapters.benchmarks.sparse_vector import (
    SVT1,
    SVT2,
    SVT3,
    SVT4,
    SVT5,
    SVT6,
    NumericalSVT,
    SVT34Parallel,
)

__all__ = [
    "PUBLISHED_FIGURES",
    "PUBLISHED_SECONDS",
    "LaplaceMechanism",
    "LaplaceParallel",
    "NoisyHist1",
    "NoisyHist2",
    "NumericalSVT",
    "OneTimeRappor",
    "PrefixSum",
    "Rappor",
    "ReportNoisyMax1",
    "ReportNoisyMax2",
    "ReportNoisyMax3",
    "ReportNoisyMax4",
    "SVT1",
    "SVT2",
    "SVT3",
    "SVT4",
    "SVT5",
    "SVT6",
    "SVT34Parallel",
    "TruncatedGeometric",
    "builtin_adapters",
]


def builtin_adapters() -> list[Any]:
    """The testers' benchmark at their settings (epsilon 0.1 where the testers claim one)."""
    return [
        LaplaceMechanism(0.1),
        TruncatedGeometric(0.1, n=5),
        NoisyHist1(0.1),
        NoisyHist2(0.1),
        ReportNoisyMax1(0.1),
        ReportNoisyMax2(0.1),
        ReportNoisyMax3(0.1),
        ReportNoisyMax4(0.1),
        SVT1(0.1),
        SVT2(0.1),
        SVT3(0.1),
        SVT4(0.1),
        SVT5(0.1),
        SVT6(0.1),
        NumericalSVT(0.1),
        Rappor(),
        OneTimeRappor(),
        LaplaceParallel(0.1, copies=20),
        SVT34Parallel(0.2),
        PrefixSum(0.1),
        PrefixSum(0.1, norm="l1"),
    ]
