"""The futility projection against what the trial then reaches: is a cut ever wrong?

Usage: ``python bench/bench_futility_projection.py [--sets 24 25] [--benchmarks] [--seeds 2]
[--budget 200000] [--futility 0.2] [--rows rows.json] [--figure fig.png]``

``--rows`` saves every trial's (trial, claim, hope, reached) as JSON; ``--figure`` draws
reached against projected (both over the claim), cut and uncut trials marked, as a PNG;
``--from-rows rows.json --figure fig.png`` redraws a saved run without auditing.

The futility check (``Certifier._optimistic_bound``) cuts a trial when no proposed event, at
the favourable edge of its ``1 - futility`` training intervals, would certify a violation at
the final look.  This bench audits real mechanisms with the check *measured but never acted
on*: the projection (``hope``) is recorded for every trial and the trial goes on to every
look, so what it reaches is known.  A projection is wrong when ``hope <= claim`` (the trial
would have been cut) yet the trial certifies a violation; the table counts those, per
mechanism and in all, with the projection's margin (reached - hope) over all trials.

Mechanisms: the held-out sets named (their broken and correct twins) and, with
``--benchmarks``, the testers' benchmark suite on the 2^-6 grid (``bench_benchmarks.OnGrid``).
A few minutes per set and seed on two cores.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def _held_out(number: int) -> list[Any]:
    path = ROOT / "tests" / "corpus" / f"held_out_mechanisms_{number}.py"
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.ADAPTERS)


def _measured(futility: float) -> list[tuple[str, float, float]]:
    """Patch the certifier so the check runs and records, but never cuts; return the list
    ``(trial, hope, reached)`` the patched runs append to."""
    from auditor.engine import certify, trial_stages

    rows: list[tuple[str, float, float]] = []
    hopes: dict[int, float] = {}
    optimistic = certify.Certifier._optimistic_bound
    run = trial_stages.TrialStages.run

    def record(self: Any, *args: Any, **kwargs: Any) -> float:
        hopes[id(self)] = optimistic(self, *args, **kwargs)
        return float("inf")  # never cut

    def run_and_compare(self: Any) -> Any:
        certifier, trial = self.certifier, self.trial
        hopes.pop(id(certifier), None)
        finding = run(self)
        if id(certifier) in hopes:
            reached = finding.estimate.bound if finding is not None else 0.0
            text = trial.description[:50]
            rows.append((f"{certifier.spec.name} / {text}", hopes[id(certifier)], reached))
        return finding

    certify.Certifier._optimistic_bound = record  # type: ignore[method-assign]
    trial_stages.TrialStages.run = run_and_compare  # type: ignore[method-assign]
    return rows


def _kind(trial: str) -> int:
    """2: a held-out set's broken twin, 1: its correct twin, 0: a benchmark mechanism."""
    return 2 if ".broken" in trial else 1 if ".correct" in trial else 0


def draw(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    """Reached against projected, each over its trial's claim, on log axes: a point left of
    the vertical claim line was (or would be) cut; one above the horizontal line certified a
    violation; a cut point above it is a wrong cut.  Zeros and infinities sit on the edges."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    floor, ceiling = 1e-3, 1e3
    x = np.array([r["hope"] / r["claim"] for r in rows], dtype=float)
    y = np.array([r["reached"] / r["claim"] for r in rows], dtype=float)
    x, y = np.clip(np.nan_to_num(x, posinf=ceiling), floor, ceiling), np.clip(y, floor, ceiling)
    cut = x <= 1.0
    kinds = np.array([_kind(r["trial"]) for r in rows])
    styles = ((1, "o", "held-out correct"), (2, "x", "held-out broken"), (0, "^", "benchmark"))
    fig, ax = plt.subplots(figsize=(7, 6))
    for mask, colour, label in ((cut, "tab:red", "cut"), (~cut, "tab:blue", "not cut")):
        for kind, marker, name in styles:
            m = mask & (kinds == kind)
            if m.any():
                ax.scatter(x[m], y[m], s=14, c=colour, marker=marker, alpha=0.6,
                           label=f"{label}, {name} ({int(m.sum())})")  # fmt: skip
    ax.axvline(1.0, color="k", lw=0.8)
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.plot([floor, ceiling], [floor, ceiling], color="grey", lw=0.6, ls=":")
    top = max(float(x.max(initial=1.0)), float(y.max(initial=1.0)), 2.0) * 1.5
    ax.set(xscale="log", yscale="log", xlim=(floor / 1.5, top), ylim=(floor / 1.5, top))
    ax.set_xlabel("projected (futility hope) / claim   [left of the line: cut; 0 drawn at 1e-3]")
    ax.set_ylabel("reached with the cut disabled / claim   [above the dashed line: violation]")
    wrong = int((cut & (y > 1.0)).sum())
    ax.set_title(
        f"{title}\n{len(rows)} trials, {int(cut.sum())} cut, {wrong} wrong cut(s)", fontsize=9
    )
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, nargs="*", default=[24])
    parser.add_argument("--benchmarks", action="store_true")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--budget", type=int, default=200_000)
    parser.add_argument("--futility", type=float, default=0.2)
    parser.add_argument("--rows", type=Path, help="save every trial's numbers here (JSON)")
    parser.add_argument("--figure", type=Path, help="draw reached against projected (PNG)")
    parser.add_argument("--from-rows", type=Path, help="redraw saved --rows; audit nothing")
    args = parser.parse_args(argv)
    if args.from_rows is not None:
        saved = json.loads(args.from_rows.read_text())
        if args.figure is not None:
            draw(saved["rows"], args.figure, saved["title"])
        return 0

    from attacks import load_attacks
    from auditor.core.configs import AuditConfig, EngineConfig
    from auditor.engine.runner import run_audit

    adapters = [a for n in args.sets for a in _held_out(n)]
    if args.benchmarks:
        from bench_benchmarks import OnGrid

        from auditor.adapters.benchmarks import builtin_adapters

        adapters += [OnGrid(a) for a in builtin_adapters()]
    rows = _measured(args.futility)
    t0 = time.perf_counter()
    claims: dict[str, float] = {}
    for seed in range(args.seeds):
        config = AuditConfig(seed=seed, budget=args.budget, futility=args.futility, tighten=False)
        # the certifier runs in this process (workers only sample): the patch holds
        report = run_audit(adapters, load_attacks(None), config, engine=EngineConfig())
        claims.update({r.adapter: r.claim.value for r in report.results if r.claim})
    wrong = [(t, h, r) for t, h, r in rows if h <= claims[t.split(" / ")[0]] < r]
    cut = [(t, h, r) for t, h, r in rows if h <= claims[t.split(" / ")[0]]]
    margin = np.array([r - h for _, h, r in rows])
    print(
        f"{len(rows)} trials checked ({len(adapters)} mechanisms x {args.seeds} seed(s), "
        f"futility {args.futility:g}, budget {args.budget:,}, {time.perf_counter() - t0:.0f} s)"
    )
    print(f"would be cut: {len(cut)}; of those certified a violation all the same: {len(wrong)}")
    if len(margin):
        q = np.quantile(margin, [0.5, 0.9, 0.99, 1.0])
        print(
            "reached - hope over all trials: median {:.3g}, 90% {:.3g}, 99% {:.3g}, max "
            "{:.3g}".format(*q)
        )
    for t, h, r in wrong:
        print(f"  WRONG CUT  {t}: projected {h:.4g}, reached {r:.4g}")
    named = [f"set {n}" for n in args.sets] + (["benchmarks"] * args.benchmarks)
    title = (
        f"futility projection, {' + '.join(named)}: {args.seeds} seed(s), budget "
        f"{args.budget:,}, futility {args.futility:g}"
    )
    table = [
        {"trial": t, "claim": claims[t.split(" / ")[0]], "hope": h, "reached": r}
        for t, h, r in rows
    ]
    if args.rows is not None:
        args.rows.write_text(json.dumps({"title": title, "rows": table}, indent=0))
    if args.figure is not None:
        draw(table, args.figure, title)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
