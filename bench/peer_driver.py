"""Runs one peer tester (DP-Sniper or StatDP) on one benchmark mechanism; prints one JSON line.

Not a dp-audit module: ``bench/bench_peers.py`` runs it with the interpreter given as
``--peer-python``, where the user has installed the peer from its public repository as its
README says.  It imports only the peer, numpy and the standard library, and runs the peer's own
search on the peer's own implementation of the mechanism:

* ``sniper NAME``: DP-Sniper's DD-Search with its logistic-regression attack, configured as its
  artifact's default experiment (``dpsniper/experiments/exp_default.py``: input domain, pattern
  generator, classifier factory and feature transform per mechanism), then its final
  high-precision estimate of the witness.  The bound is DP-Sniper's ``lower_bound`` at its
  ``DDConfig.confidence`` (0.9).
* ``statdp NAME``: StatDP's ``detect_counterexample`` (event selection and hypothesis test) at
  one test epsilon per call, searched as the DP-Sniper paper searched it
  (``statdpwrapper/experiments/binary_search.py``): doubling from 0.01 until the p-value
  reaches 0.1, then halving the interval down to the precision, keeping the inputs and event of
  the largest epsilon rejected at p < 0.1.  That epsilon chose the event on the search's own
  samples, so it is no bound; as in the paper, the bound is re-computed on fresh samples:
  each input's count in the event over ``verify`` runs of StatDP's ``run_algorithm``.  The
  driver prints the counts; ``bench_peers.statdp_bound`` turns them into a Clopper-Pearson
  bound at confidence 0.9, both directions (Bonferroni) since the search does not say which
  input has the larger probability.

Output, the last line of stdout: ``{"tool", "mechanism", "seconds", "setting", ...}`` with
``bound`` and ``confidence`` (DP-Sniper) or ``epsilon_searched``, ``counts`` and ``verify``
(StatDP), or ``error``.  Usage: ``python peer_driver.py TOOL NAME '{"option": value}'``.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import tempfile
import time
import traceback
from typing import Any

#: StatDP's rejection level in the DP-Sniper paper's search: 1 - DP-Sniper's confidence 0.9
P_THRESHOLD = 0.1


#: DP-Sniper's SVT i: threshold, classifier input size, flag values (``exp_default.py``)
SNIPER_SVT: dict[int, tuple[float, int, Any]] = {
    1: (0.5, 20, [-1]),
    2: (1, 20, [-1]),
    3: (1, 30, [-1000.0, -2000.0]),
    4: (1, 20, [-1]),
    5: (1, 10, None),
    6: (1, 10, None),
}


def _sniper_spec(name: str) -> tuple[Any, Any, int, Any]:
    """(mechanism, input generator, classifier input size, feature transform) as
    ``exp_default.py`` sets them."""
    from dpsniper.classifiers.feature_transformer import FlagsFeatureTransformer
    from dpsniper.input.input_domain import InputBaseType, InputDomain
    from dpsniper.input.pattern_generator import PatternGenerator
    from dpsniper.mechanisms import (
        geometric,
        laplace,
        noisy_hist,
        parallel,
        prefix_sum,
        rappor,
        report_noisy_max,
    )
    from dpsniper.mechanisms import sparse_vector_technique as svt

    def gen(dims: int, base: str, low: int, high: int, component_wise: bool) -> Any:
        domain = InputDomain(dims, getattr(InputBaseType, base), [low, high])
        return PatternGenerator(domain, component_wise)

    flags = FlagsFeatureTransformer
    specs: dict[str, Any] = {
        "laplace": lambda: (laplace.LaplaceMechanism(), gen(1, "FLOAT", -10, 10, False), 1, None),
        "truncated_geometric": lambda: (
            geometric.TruncatedGeometricMechanism(),
            gen(1, "INT", 0, 5, False),
            1,
            None,
        ),
        "noisy_hist1": lambda: (noisy_hist.NoisyHist1(), gen(5, "INT", 0, 10, False), 5, None),
        "noisy_hist2": lambda: (noisy_hist.NoisyHist2(), gen(5, "INT", 0, 10, False), 5, None),
        "prefix_sum": lambda: (prefix_sum.PrefixSum(), gen(10, "FLOAT", -10, 10, True), 10, None),
        "rappor": lambda: (rappor.Rappor(), gen(1, "INT", -10, 10, False), 20, None),
        "one_time_rappor": lambda: (
            rappor.OneTimeRappor(),
            gen(1, "INT", -10, 10, False),
            20,
            None,
        ),
        "laplace_parallel": lambda: (
            parallel.LaplaceParallel(eps=0.005, n_parallel=20),
            gen(1, "FLOAT", -10, 10, False),
            20,
            None,
        ),
        "svt34_parallel": lambda: (
            parallel.SVT34Parallel(),
            gen(10, "FLOAT", -10, 10, True),
            80,
            flags([-1, -1000.0, -2000.0]),
        ),
        "numerical_svt": lambda: (svt.NumericalSVT(), gen(10, "FLOAT", -10, 10, True), 10, None),
    }
    for i in range(1, 5):
        cls = getattr(report_noisy_max, f"ReportNoisyMax{i}")
        specs[f"report_noisy_max{i}"] = lambda cls=cls: (
            cls(),
            gen(5, "FLOAT", -10, 10, True),
            1,
            None,
        )
    for i, (t, size, flag) in SNIPER_SVT.items():
        cls = getattr(svt, f"SparseVectorTechnique{i}")
        specs[f"svt{i}"] = lambda cls=cls, t=t, size=size, flag=flag: (
            cls(c=1, t=t),
            gen(10, "FLOAT", -10, 10, True),
            size,
            None if flag is None else flags(flag),
        )
    if name not in specs:
        raise KeyError(f"DP-Sniper has no mechanism {name!r} here; known: {sorted(specs)}")
    return specs[name]()


def run_sniper(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """DD-Search plus the final estimate, at ``scale`` times DDConfig's default sample sizes."""
    from dpsniper.attack.dpsniper import DPSniper
    from dpsniper.classifiers.classifier_factory import LogisticRegressionFactory
    from dpsniper.classifiers.torch_optimizer_factory import SGDOptimizerFactory
    from dpsniper.search.ddconfig import DDConfig
    from dpsniper.search.ddsearch import DDSearch
    from dpsniper.utils.initialization import initialize_dpsniper

    scale = float(options.get("scale", 1.0))
    processes = int(options.get("processes", 2))
    default = DDConfig()
    # multiples of 1000, as DDConfig requires of sizes >= 10,000
    sizes = {
        key: max(10_000, int(getattr(default, key) * scale) // 1000 * 1000)
        for key in ("n_train", "n", "n_check", "n_final")
    }
    config = DDConfig(n_processes=processes, **sizes)
    start = time.perf_counter()
    mechanism, generator, size, transform = _sniper_spec(name)
    factory = LogisticRegressionFactory(
        feature_transform=transform,
        in_dimensions=size,
        optimizer_factory=SGDOptimizerFactory(learning_rate=0.3, momentum=0.3, step_size=500),
        regularization_weight=0.001,
        epochs=10,
        label=name,
    )
    with tempfile.TemporaryDirectory() as out, initialize_dpsniper(config, out_dir=out):
        attack = DPSniper(mechanism, factory, config)
        witness = DDSearch(mechanism, attack, generator, config).run()
        witness.compute_eps_high_precision(mechanism, config)
    return {
        "bound": float(witness.lower_bound),
        "estimate": float(witness.eps),
        "confidence": config.confidence,
        "seconds": time.perf_counter() - start,
        "setting": f"logistic regression, samples x{scale:g} ({sizes['n_train']:,} train, "
        f"{sizes['n_final']:,} final)",
    }


def _laplace(prng: Any, queries: Any, epsilon: float) -> float:
    """The Laplace mechanism as StatDP's README asks an algorithm to be written (StatDP's
    repository has none; DP-Sniper's wrapper writes the same one)."""
    return float(queries[0] + prng.laplace(scale=1.0 / epsilon))


def _statdp_spec(name: str) -> tuple[Any, dict[str, Any], Any, int]:
    """(algorithm, keyword arguments, neighbouring relation, number of queries): StatDP's own
    algorithms, mapped as in DP-Sniper's ``statdpwrapper/experiments/__main__.py``, except SVT5
    (StatDP's iSVT1), run at epsilon 0.1 like the other tools' SVT5, not at 0.05."""
    from statdp import ALL_DIFFER, ONE_DIFFER
    from statdp import algorithms as a

    svt = {"epsilon": 0.1, "N": 1, "T": 1}
    specs: dict[str, tuple[Any, dict[str, Any], Any, int]] = {
        "laplace": (_laplace, {"epsilon": 0.1}, ONE_DIFFER, 1),
        "noisy_hist1": (a.histogram, {"epsilon": 0.1}, ONE_DIFFER, 5),
        "noisy_hist2": (a.histogram_eps, {"epsilon": 0.1}, ONE_DIFFER, 5),
        "report_noisy_max1": (a.noisy_max_v1a, {"epsilon": 0.1}, ALL_DIFFER, 5),
        "report_noisy_max2": (a.noisy_max_v2a, {"epsilon": 0.1}, ALL_DIFFER, 5),
        "report_noisy_max3": (a.noisy_max_v1b, {"epsilon": 0.1}, ALL_DIFFER, 5),
        "report_noisy_max4": (a.noisy_max_v2b, {"epsilon": 0.1}, ALL_DIFFER, 5),
        "svt1": (a.SVT, {"epsilon": 0.1, "N": 1, "T": 0.5}, ALL_DIFFER, 10),
        "svt3": (a.iSVT4, dict(svt), ALL_DIFFER, 10),
        "svt4": (a.iSVT3, dict(svt), ALL_DIFFER, 10),
        "svt5": (a.iSVT1, dict(svt), ALL_DIFFER, 10),
        "svt6": (a.iSVT2, dict(svt), ALL_DIFFER, 10),
    }
    if name not in specs:
        raise KeyError(f"StatDP has no mechanism {name!r} here; known: {sorted(specs)}")
    return specs[name]


def _probe(algorithm: Any, kwargs: Any, sensitivity: Any, queries: int, eps: float, o: Any) -> Any:
    from statdp import detect_counterexample

    ((_, p, d1, d2, args, event),) = detect_counterexample(
        algorithm,
        eps,
        default_kwargs=dict(kwargs),
        num_input=(queries,),
        event_iterations=o["event_iterations"],
        detect_iterations=o["detect_iterations"],
        cores=o["processes"],
        sensitivity=sensitivity,
        quiet=True,
        loglevel=40,
    )
    return p, (d1, d2, args, event)


def _count(algorithm: Any, d: Any, args: Any, event: Any, n: int, processes: int) -> int:
    """How often ``algorithm(d)`` lands in ``event`` in ``n`` fresh runs.  StatDP's
    ``run_algorithm`` counts two inputs and returns the larger count first; given the same input
    twice, the sum of the two counts is the count over twice the runs, whichever comes first."""
    from statdp.core import run_algorithm

    chunks = [n // (2 * processes)] * processes
    with multiprocessing.Pool(processes) as pool:
        results = pool.starmap(
            run_algorithm, [(algorithm, d, d, args, event, c) for c in chunks if c > 0]
        )
    return int(sum(int(cx) + int(cy) for ((cx, cy), *_), _ in results))


def run_statdp(name: str, options: dict[str, Any]) -> dict[str, Any]:
    """The DP-Sniper paper's search over StatDP's test epsilon, then fresh counts."""
    o = {
        "event_iterations": int(options.get("event_iterations", 100_000)),
        "detect_iterations": int(options.get("detect_iterations", 500_000)),
        "processes": int(options.get("processes", 2)),
    }
    precision = float(options.get("precision", 0.001))
    verify = int(options.get("verify", 1_000_000))
    algorithm, kwargs, sensitivity, queries = _statdp_spec(name)
    start = time.perf_counter()
    probes: list[tuple[float, float]] = []

    def probe(eps: float) -> tuple[float, Any]:
        p, found = _probe(algorithm, kwargs, sensitivity, queries, eps, o)
        probes.append((eps, float(p)))
        return float(p), found

    low, found, eps = 0.0, None, 0.005
    while eps < 20.0:  # NoisyHist2's 10 and SVT5's ~14 are the largest bounds published
        eps *= 2
        p, attempt = probe(eps)
        if p >= P_THRESHOLD:
            break
        low, found = eps, attempt
    high = eps
    if found is not None:
        while high - low > precision:
            mid = low + (high - low) / 2
            p, attempt = probe(mid)
            if p < P_THRESHOLD:
                low, found = mid, attempt
            else:
                high = mid
    out: dict[str, Any] = {
        "epsilon_searched": low,
        "probes": probes,
        "verify": verify,
        "confidence": 1 - P_THRESHOLD,
        "setting": f"event {o['event_iterations']:,} / detect {o['detect_iterations']:,} runs "
        f"per probe, precision {precision:g}, {verify:,} fresh runs per input",
    }
    if found is None:
        out["counts"] = None  # no test epsilon rejected: no counterexample, bound 0
    else:
        d1, d2, args, event = found
        n = verify // (2 * o["processes"]) * 2 * o["processes"]
        out["verify"] = n
        c1 = _count(algorithm, d1, args, event, n, o["processes"])
        c2 = _count(algorithm, d2, args, event, n, o["processes"])
        out["counts"] = [c1, c2]
        out["witness"] = repr((list(d1), list(d2), event))
    out["seconds"] = time.perf_counter() - start
    return out


def main() -> None:
    tool, name = sys.argv[1], sys.argv[2]
    options = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
    result: dict[str, Any] = {"tool": tool, "mechanism": name}
    start = time.perf_counter()
    try:
        runner = {"sniper": run_sniper, "statdp": run_statdp}[tool]
        result.update(runner(name, options))
    except Exception as exc:  # reported to the bench, which shows it in the table
        traceback.print_exc()
        result["error"] = f"{type(exc).__name__}: {exc}"
        result["seconds"] = time.perf_counter() - start
    print(json.dumps(result, default=str), flush=True)


if __name__ == "__main__":
    main()
