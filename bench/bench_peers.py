"""dp-audit beside DP-Sniper and StatDP, run on one machine at equal wall time.

For each benchmark mechanism that dp-audit (``auditor.adapters.benchmarks``) and a peer both
implement, the peer runs its own search on its own implementation of the mechanism, in a
subprocess of ``--peer-python`` (``bench/peer_driver.py``, which prints the peer's result as
JSON); then dp-audit audits the same mechanism in the time the faster peer took, and the table
shows the three bounds side by side with the ratios dp-audit / peer.

The peers are not dependencies of dp-audit and this script installs nothing: install each peer
in an environment of its own, following its README (``eth-sri/dp-sniper``, ``cmla-psu/statdp``),
and pass that environment's interpreter.  A peer that is not importable there shows as an
error in its column.

Confidence: each bound is a lower confidence bound on the mechanism's epsilon.
* DP-Sniper: its own ``lower_bound`` at its default ``DDConfig.confidence`` 0.9
  (Clopper-Pearson on the final high-precision estimate, union bound over the two
  probabilities).
* StatDP reports a p-value per tested epsilon, not a bound.  As the DP-Sniper paper did
  (``statdpwrapper/experiments``), the driver searches the test epsilon (doubling from 0.01,
  then bisection) for the largest one StatDP rejects at p < 0.1 and keeps that probe's inputs
  and event; since the search chose them on its own samples, the bound is computed on fresh
  runs (:func:`statdp_bound`, confidence 0.9 over both directions).
* dp-audit: its certified ``epsilon_lower_bound`` at family-wise confidence 0.95 over the whole
  audit of the mechanism (fixed-n certification, as ``bench_benchmarks.py``).

Equal wall time: dp-audit's allowance is the shorter of the peers' times on that mechanism.
Its budget is found from timings alone, as ``bench_benchmarks.py --match-time`` does (an audit
at ``--budget``, then up to three more at the budget a line through the last timings puts at
80 % of the allowance, and one correction after an overshoot); the audit that counts is the
largest budget that fit the allowance (:func:`match_time`), and all audits' seconds are shown.

Floating point: every implementation, the peers' and dp-audit's, samples numpy float64 noise.
dp-audit's float attacks break those with real outputs (Laplace, NoisyHist, ReportNoisyMax3/4)
far beyond their claim, as DP-Sniper's own floating-point experiment does for Laplace; the
peers' default searches look for the on-paper violation only.  ``--grid`` rounds dp-audit's
outputs to multiples of 2^-6 (``bench_benchmarks.OnGrid``: post-processing, no float
artefacts left) to compare the statistical searches alone; the peers' outputs stay unrounded.

Smaller settings: the peers' own defaults take hours per mechanism on two cores (DP-Sniper's
``DDConfig``: 10.7 million samples to train, select and check each of up to 16 input pairs,
2 x 10^8 for the final estimate; StatDP in the paper's search: 10^5 + 5 x 10^5 runs of a Python
function per probe, ten to twenty probes).  The defaults here scale them down
(``--sniper-scale``: DP-Sniper's sample sizes times 0.02; StatDP: ``--statdp-event``,
``--statdp-detect``, ``--statdp-precision``, ``--statdp-verify``); the table's last column
states each peer's setting.  The default run (``DEFAULT``, eight mechanisms) took 36 minutes
on 2 cores shared with other jobs (load 7-12; less on a quiet machine); ``--all`` runs every
mechanism a peer has (20; those StatDP lacks get dp-audit at DP-Sniper's time).

Neither peer can be seeded (both draw fresh entropy in their worker processes): their figures
do not replay; dp-audit's do, from ``--seed``.

Run: ``python bench/bench_peers.py --peer-python PATH [--only SUBSTRING[,...]] [--all]
[--peers sniper,statdp] [--seed S] [--budget N] [--grid]``.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_benchmarks import AIM, MAX_AUDITS, STEP, OnGrid, next_budget  # noqa: E402

DRIVER = Path(__file__).resolve().parent / "peer_driver.py"

#: true epsilon per mechanism key, on paper (real-valued noise), as ``auditor.adapters.benchmarks``'
#: table and ``docs/benchmark-mechanisms.md`` give it: the claim 0.1 where the mechanism is correct
TRUE_EPSILON: dict[str, float] = {
    "laplace": 0.1,
    "truncated_geometric": math.log(9 / 8),
    "noisy_hist1": 0.1,
    "noisy_hist2": 10.0,
    "report_noisy_max1": 0.1,
    "report_noisy_max2": 0.1,
    "report_noisy_max3": 0.25,
    "report_noisy_max4": math.inf,
    "svt1": 0.1,
    "svt2": 0.1,
    "svt3": math.inf,
    "svt4": 0.175,
    "svt5": math.inf,
    "svt6": math.inf,
    "numerical_svt": 0.1,
    "prefix_sum": 1.0,
    "rappor": 0.4001,
    "one_time_rappor": 0.8007,
    "laplace_parallel": 0.1,
    "svt34_parallel": math.inf,
}

#: mechanisms both peers have, run by default (36 minutes in all on a busy 2-core machine)
DEFAULT = (
    "laplace",
    "noisy_hist2",
    "report_noisy_max1",
    "report_noisy_max3",
    "report_noisy_max4",
    "svt1",
    "svt4",
    "svt6",
)
#: which peer has which mechanism (StatDP's repository has no SVT2, geometric or composed ones)
STATDP_HAS = frozenset(DEFAULT) | {"noisy_hist1", "report_noisy_max2", "svt3", "svt5"}


@dataclass(frozen=True)
class PeerResult:
    """One peer's figures on one mechanism, read from the driver's JSON line."""

    bound: float | None
    confidence: float | None
    seconds: float | None
    setting: str
    error: str | None = None


def statdp_bound(counts: list[int] | None, n: int, confidence: float) -> float:
    """StatDP's epsilon lower bound from the fresh counts of its event on its two inputs.

    Holds with probability >= ``confidence``: the search does not say which input has the
    larger probability, so both directions are bounded, each at ``(1 - confidence) / 2``
    (Bonferroni), and the larger is kept.  No counts (no test epsilon was rejected) is 0."""
    from auditor.statistics.clopper_pearson import epsilon_lower_bound

    if counts is None:
        return 0.0
    c1, c2 = counts
    alpha = (1.0 - confidence) / 2
    return max(epsilon_lower_bound(c1, n, c2, n, alpha), epsilon_lower_bound(c2, n, c1, n, alpha))


def parse_driver(stdout: str) -> PeerResult:
    """The driver's result: its last JSON line (anything the peer prints before is ignored)."""
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    if not lines:
        return PeerResult(None, None, None, "", "the driver printed no result")
    data = json.loads(lines[-1])
    seconds = data.get("seconds")
    if data.get("error"):
        return PeerResult(None, None, seconds, data.get("setting", ""), data["error"])
    confidence = float(data["confidence"])
    if data["tool"] == "statdp":
        bound = statdp_bound(data["counts"], int(data["verify"]), confidence)
    else:
        bound = float(data["bound"])
    return PeerResult(bound, confidence, float(seconds), data.get("setting", ""))


def run_peer(
    python: str, tool: str, key: str, options: dict[str, Any], timeout: float
) -> PeerResult:
    """The driver in a subprocess of the peer's interpreter; a crash or time-out is an error."""
    command = [python, str(DRIVER), tool, key, json.dumps(options)]
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return PeerResult(None, None, time.perf_counter() - start, "", f"timed out ({timeout:g} s)")
    result = parse_driver(done.stdout)
    if result.error == "the driver printed no result":
        tail = done.stderr.strip().splitlines()[-1:] or ["no stderr"]
        return PeerResult(None, None, None, "", f"exit {done.returncode}: {tail[0][:80]}")
    return result


def match_time(audit: Any, allowance: float, first: int) -> tuple[Any, int, float, float]:
    """Audits at budgets found from timings until the next one would not fit ``allowance``.

    Budgets follow ``bench_benchmarks.next_budget``; when an audit overshoots the allowance
    (the line through small budgets' timings can underestimate a large one), one more audit
    at the budget the line through the last two timings puts at 80 % of it.  Returns the
    result, budget and seconds of the audit that counts (the largest budget that fit the
    allowance; the smallest if none did: a choice made on timings alone, never on a bound) and
    the seconds of all audits."""
    timings: list[tuple[int, float]] = []
    results: dict[int, Any] = {}
    budget = first
    while True:
        result, seconds = audit(budget)
        timings.append((budget, seconds))
        results[budget] = result
        if len(timings) >= MAX_AUDITS + 1:
            break
        if seconds > allowance:
            if len(timings) < 2:
                break
            budget = correction_budget(timings, allowance)
            if budget is None or budget in results:
                break
            continue
        if len(timings) >= MAX_AUDITS:
            break
        following = next_budget(timings, allowance)
        if following is None:
            break
        budget = min(following, STEP * budget) if len(timings) == 1 else following
    chosen = pick_audit(timings, allowance)
    spent = sum(t for _, t in timings)
    return results[chosen[0]], chosen[0], chosen[1], spent


def correction_budget(timings: list[tuple[int, float]], allowance: float) -> int | None:
    """After an overshoot: the budget the line through the last two timings puts at ``AIM``
    of the allowance, two significant digits; None when the line does not rise or the budget is
    not between the two."""
    (b0, t0), (b1, t1) = sorted(timings[-2:])
    if b1 <= b0 or t1 <= t0:
        return None
    slope = (t1 - t0) / (b1 - b0)
    budget = b0 + (AIM * allowance - t0) / slope
    if not b0 < budget < b1:
        return None
    digits = 10 ** max(0, int(math.log10(budget)) - 1)
    return int(budget // digits * digits)


def pick_audit(timings: list[tuple[int, float]], allowance: float) -> tuple[int, float]:
    """The ``(budget, seconds)`` that counts: the largest budget whose audit took at most the
    allowance, else the smallest budget."""
    fitting = [(b, t) for b, t in timings if t <= allowance]
    return max(fitting) if fitting else min(timings)


def _fmt(value: float | None, digits: int = 4) -> str:
    if value is None:
        return "–"
    return "∞" if math.isinf(value) else f"{value:.{digits}g}"


def _ratio(ours: float, peer: PeerResult | None) -> str:
    if peer is None or peer.bound is None:
        return "–"
    if peer.bound <= 0:
        return "∞" if ours > 0 else "–"
    return f"{ours / peer.bound:.2f}"


def _cell(peer: PeerResult | None) -> str:
    if peer is None:
        return "– | –"
    if peer.error:
        return f"error: {peer.error[:60]} | {_fmt(peer.seconds, 3)}"
    return f"{_fmt(peer.bound)} | {peer.seconds:.0f}"


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-python", required=True, help="interpreter with the peers installed")
    parser.add_argument("--peers", default="sniper,statdp", help="comma-separated: sniper, statdp")
    parser.add_argument(
        "--only", default="", help="only mechanisms whose key contains one of these (a,b,...)"
    )
    parser.add_argument("--all", action="store_true", help="every mechanism a peer has")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--grid", action="store_true", help="round dp-audit's outputs to 2^-6")
    parser.add_argument("--budget", type=int, default=100_000, help="dp-audit's first budget")
    parser.add_argument("--processes", type=int, default=2, help="the peers' worker processes")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per peer run")
    parser.add_argument("--sniper-scale", type=float, default=0.02)
    parser.add_argument("--statdp-event", type=int, default=20_000)
    parser.add_argument("--statdp-detect", type=int, default=100_000)
    parser.add_argument("--statdp-precision", type=float, default=0.01)
    parser.add_argument("--statdp-verify", type=int, default=1_000_000)
    return parser.parse_args()


def _peer_options(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    return {
        "sniper": {"scale": args.sniper_scale, "processes": args.processes},
        "statdp": {
            "event_iterations": args.statdp_event,
            "detect_iterations": args.statdp_detect,
            "precision": args.statdp_precision,
            "verify": args.statdp_verify,
            "processes": args.processes,
        },
    }


def _row(key: str, adapter: Any, args: argparse.Namespace, options: dict[str, Any]) -> str:
    """Both peers on one mechanism, then dp-audit in the faster one's time: one table row."""
    from attacks import load_attacks
    from auditor.core.configs import AuditConfig, EngineConfig
    from auditor.engine.runner import run_audit

    peers = {p.strip() for p in args.peers.split(",") if p.strip()}
    results: dict[str, PeerResult | None] = {"sniper": None, "statdp": None}
    for tool in ("sniper", "statdp"):
        if tool in peers and (tool == "sniper" or key in STATDP_HAS):
            results[tool] = run_peer(args.peer_python, tool, key, options[tool], args.timeout)
    times = [r.seconds for r in results.values() if r and r.bound is not None and r.seconds]
    if not times:
        return f"| {key} | no peer result: nothing to match |"
    subject = OnGrid(adapter) if args.grid else adapter

    def audit(budget: int) -> tuple[Any, float]:
        t0 = time.perf_counter()
        config = AuditConfig(budget=budget, seed=args.seed, looks=((1.0, 1.0),))
        report = run_audit([subject], load_attacks(None), config, engine=EngineConfig())
        return report.results[0], time.perf_counter() - t0

    ours, budget, seconds, spent = match_time(audit, min(times), args.budget)
    bound = ours.epsilon_lower_bound if ours.error is None else float("nan")
    settings = "; ".join(
        f"{name}: {r.setting}" for name, r in results.items() if r is not None and r.setting
    )
    return (
        f"| {key} | {adapter.epsilon:g} | {_fmt(TRUE_EPSILON[key])} | "
        f"{_cell(results['sniper'])} | {_cell(results['statdp'])} | {_fmt(bound)} | "
        f"{seconds:.0f} ({spent:.0f}) | {budget / 1e6:g}M | "
        f"{_ratio(bound, results['sniper'])} | {_ratio(bound, results['statdp'])} | "
        f"{settings} |"
    )


def main() -> None:
    from auditor.adapters.benchmarks import builtin_adapters

    args = _arguments()
    options = _peer_options(args)
    keys = list(TRUE_EPSILON) if args.all else list(DEFAULT)
    wanted = args.only.split(",")
    keys = [k for k in keys if any(w in k for w in wanted)]
    adapters = {a.name.split("(")[0].removeprefix("benchmark."): a for a in builtin_adapters()}
    print(
        f"dp-audit beside its peers at equal wall time, seed {args.seed}"
        + (", dp-audit's outputs on a 2^-6 grid" if args.grid else "")
        + f", peers via {args.peer_python}"
    )
    print(
        "| mechanism | claimed ε | true ε | DP-Sniper ε_lb (0.9) | s | StatDP ε_lb (0.9) | s | "
        "dp-audit ε_lb (0.95) | s (all audits) | budget | ours/DP-Sniper | ours/StatDP | "
        "peers' settings |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    total_start = time.perf_counter()
    for key in keys:
        print(_row(key, adapters[key], args, options), flush=True)
    print(f"\ntotal wall time {time.perf_counter() - total_start:.0f} s for {len(keys)} mechanisms")


if __name__ == "__main__":
    main()
