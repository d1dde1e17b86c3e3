"""A violation as a script a maintainer can run without dp-audit: ``reproduce/<adapter>.py``.

The script holds three things from the report: how to draw the mechanism's outputs (the
adapter's ``reproducer_source()``, or an import of the user's adapter module by path), the event
as standalone source (``Event.source``), and the seeded ``sample`` calls behind the reported
counts.  It redraws those outputs, counts the event, recomputes the Clopper-Pearson bound with
scipy (not dp-audit's code), prints both next to the report's numbers and exits 1 when the
violation reproduces.  Seedable adapters give the report's exact counts; others (python-dp,
OpenDP draw from their own generators) give fresh counts of the same size.

A white-box finding has no counts: its script asks the mechanism's ``probabilities`` oracle for
the event's exact probability on each input.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from auditor.core.source import enclosed, literal
from reports.view import parse_result

#: claim kinds whose bound the script recomputes (the others have no short closed form)
SUPPORTED_KINDS = ("pure", "approx", "gdp", "zcdp")


class NotReproducible(Exception):
    """The result has nothing a standalone script could replay (the message says why)."""


def script_name(adapter: str) -> str:
    """``reproduce/<adapter>.py`` with the name made safe for a file system."""
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in adapter).strip("._")
    return f"{safe or 'adapter'}.py"


def target_source(target: str, name: str, configuration: dict[str, Any] | None = None) -> str:
    """Mechanism source for an adapter the user wrote: import its module by path (or by name,
    or the entry point), take the attribute, call it if it makes adapters, pick ``name`` --
    and, for a searched adapter, rebuild it at its ``configuration``."""
    where, _, attr = target.rpartition(":")
    if configuration:
        name = str(configuration["adapter"])
    if not where:  # an entry point
        load = (
            "from importlib.metadata import entry_points\n\n"
            f"_found = entry_points(group='dp_audit.adapters')[{target!r}].load()"
        )
    elif where.endswith(".py") or "/" in where:
        load = (
            "import importlib.util\nimport sys\n\n"
            f"_spec = importlib.util.spec_from_file_location('_adapter_module', {where!r})\n"
            "_module = importlib.util.module_from_spec(_spec)\n"
            "sys.modules[_spec.name] = _module\n"
            "_spec.loader.exec_module(_module)\n"
            f"_found = _module\nfor _part in {attr!r}.split('.'):\n"
            "    _found = getattr(_found, _part)"
        )
    else:
        load = (
            "import importlib\n\n"
            f"_found = importlib.import_module({where!r})\nfor _part in {attr!r}.split('.'):\n"
            "    _found = getattr(_found, _part)"
        )
    return (
        f"# the adapter {name!r} as dp-audit loaded it from {target!r}\n{load}\n"
        f"if isinstance(_found, type) or (callable(_found) and not hasattr(_found, 'sample')):\n"
        "    _found = _found()\n"
        "_adapters = _found if isinstance(_found, (list, tuple)) else [_found]\n"
        f"_adapter = next((a for a in _adapters if getattr(a, 'name', None) == {name!r}), None)\n"
        "if _adapter is None:\n"
        f"    print({f'cannot replay: {target} holds no adapter named {name!r} any more'!r}, "
        "file=sys.stderr)\n"
        "    sys.exit(2)\n"
        + (
            "try:\n"
            f"    _adapter = _adapter.with_parameters(**{literal_dict(configuration['parameters'])})\n"
            "except Exception as _exc:\n"
            "    print(f'cannot replay: with_parameters raised {type(_exc).__name__}: {_exc}', "
            "file=sys.stderr)\n"
            "    sys.exit(2)\n"
            if configuration
            else ""
        )
        + "sample = _adapter.sample\n"
        "if hasattr(_adapter, 'seed'):\n"
        "    seed = _adapter.seed\n"
        "if hasattr(_adapter, 'probabilities'):\n"
        "    probabilities = _adapter.probabilities\n"
        "if hasattr(_adapter, 'release_without_noise'):\n"
        "    release_without_noise = _adapter.release_without_noise\n"
    )


def literal_dict(values: dict[str, Any]) -> str:
    """A dict of parameters as exact Python source."""
    return (
        "{"
        + ", ".join(
            f"{k!r}: {literal(v) if not isinstance(v, str) else repr(v)}" for k, v in values.items()
        )
        + "}"
    )


def _claim(r: dict[str, Any]) -> dict[str, Any]:
    claim = dict(r.get("claim") or {})
    kind = claim.get("kind") or ("approx" if claim.get("delta") else "pure")
    if kind not in SUPPORTED_KINDS:
        raise NotReproducible(
            f"{r['adapter']}: a reproducer recomputes bounds for {', '.join(SUPPORTED_KINDS)} "
            f"claims, not {kind!r}"
        )
    return {"kind": kind, **{k: v for k, v in claim.items() if k != "description"}}


def render_reproducer(
    r: dict[str, Any], mechanism: str, library: str = "", outputs: dict[str, Any] | None = None
) -> str:
    """The script for result ``r`` (a report.json result) given the mechanism's source.

    ``outputs`` describes the outputs the audit counted (see ``output_contract``): the script
    refuses, with one line and status 2, outputs that are not of that shape or dtype -- a
    mechanism that changed since the audit is not "not reproduced".

    Raises:
        NotReproducible: not a violation, or the event or the draws cannot be replayed.
    """
    name = r.get("adapter", "?")
    if r.get("verdict") != "violation":
        raise NotReproducible(f"{name}: verdict is {r.get('verdict')!r}, not a violation")
    replay = r.get("replay")
    if not replay:
        raise NotReproducible(
            f"{name}: the finding's draws were not recorded (timed or sensitivity attack)"
        )
    probe = replay.get("probe")
    if parse_result(r).is_cells:
        raise NotReproducible(
            f"{name}: the bound was certified on the counts of several cells (a Rényi "
            "divergence from below), which the script does not recompute; rerun dp-audit to "
            "reproduce it"
        )
    if not probe and not replay.get("event_code"):
        raise NotReproducible(
            f"{name}: the event ({r.get('event')!r}) has no standalone source; rerun dp-audit "
            "to reproduce it"
        )
    queries = replay.get("queries") or [None, None]
    if None in queries:
        raise NotReproducible(f"{name}: the inputs have no Python literal (structured records)")
    lib = r.get("library") or {}
    library = library or f"{lib.get('name', '')} {lib.get('version', '')}".strip()
    if probe:
        return _checked(name, _probe_script(r, mechanism, probe, queries, library))
    claim = _claim(r)
    exact = r.get("estimator") == "white-box-exact"
    counts = r.get("counts") or {}
    settings = {
        "claim": claim,
        "alpha": r.get("alpha"),
        "alpha_split": r.get("alpha_split"),
        "test": r.get("estimator"),
        "poisson_mean": r.get("poisson_mean"),
        "outputs": outputs,
        "reported": {
            "counts": counts,
            "epsilon_lower_bound": r.get("epsilon_lower_bound"),
            "claim_bound": r.get("claim_bound"),
            "probabilities": r.get("probabilities"),
        },
    }
    header = _docstring(r, library, exact)
    parts = [
        header,
        _PRELUDE,
        "# --- the mechanism under test, as dp-audit drove it " + "-" * 30,
        mechanism.strip() + "\n",
        "# --- the event dp-audit chose (on training outputs, before certifying) " + "-" * 10,
        enclosed(replay["event_code"], "_load_event"),
        "EVENT = _load_event()\n",
        "# --- the finding " + "-" * 62,
        f"X = {queries[0]}\nX_PRIME = {queries[1]}",
        "# the seeded sample() calls whose outputs were counted: (outputs, entropy)",
        f"CALLS_X = {literal([list(c) for c in replay['calls'][0]])}",
        f"CALLS_X_PRIME = {literal([list(c) for c in replay['calls'][1]])}",
        f"SETTINGS = {_python(settings)}\n",
        _CHECK,
    ]
    return _checked(name, "\n".join(parts))


def _checked(name: str, script: str) -> str:
    """``script`` if it compiles (one that did not would exit 1, which reads as "reproduced").

    Raises:
        NotReproducible: it does not compile.
    """
    try:
        compile(script, script_name(str(name)), "exec")
    except SyntaxError as exc:
        raise NotReproducible(
            f"{name}: the script does not compile ({exc.msg}, line {exc.lineno})"
        ) from None
    return script


def _probe_script(
    r: dict[str, Any], mechanism: str, probe: dict[str, str], queries: list[str], library: str
) -> str:
    """The script of a white-box sensitivity finding: it calls ``release_without_noise`` on
    the two neighbours and compares the exact difference with the declared sensitivity."""
    text = f"""\
        Reproduce dp-audit's finding: {r.get("adapter")} releases answers that move by more
        than its declared sensitivity between two neighbouring datasets.

        Attack: {r.get("attack")}.  Finding: {r.get("event")}.
        Library: {library or "(none)"}.

        Needs only Python and numpy (not dp-audit).  Run
        ``python {script_name(str(r.get("adapter")))}``: it calls the mechanism's
        release_without_noise on both datasets, compares the exact difference of the answers
        with the declared sensitivity, and exits with status 1 when the difference exceeds
        it, 0 when it does not (2 when the mechanism has no release_without_noise).
        """
    quoted = textwrap.dedent(text).replace('"""', "'''")
    return "\n".join(
        [
            f'#!/usr/bin/env python3\n"""{quoted}"""\n',
            _PRELUDE,
            "# --- the mechanism under test, as dp-audit drove it " + "-" * 30,
            mechanism.strip() + "\n",
            "# --- the finding " + "-" * 62,
            f"X = {queries[0]}\nX_PRIME = {queries[1]}",
            f"PROBE = {_python(dict(probe))}\n",
            _PROBE_CHECK,
        ]
    )


def _python(value: Any) -> str:
    """A JSON-shaped value as a Python literal (``null`` -> ``None``...)."""
    text = json.dumps(value, indent=4, allow_nan=True)
    for js, py in (("null", "None"), ("true", "True"), ("false", "False")):
        text = text.replace(f": {js}", f": {py}").replace(f"[{js}", f"[{py}")
    return text.replace("NaN", "float('nan')").replace("Infinity", "float('inf')")


def _docstring(r: dict[str, Any], library: str, exact: bool) -> str:
    counts = r.get("counts") or {}
    if exact:
        evidence = (
            f"exact probabilities of the event: {r.get('probabilities')} on x and x' "
            f"(white-box: the mechanism's own probabilities() oracle)"
        )
    else:
        evidence = (
            f"{counts.get('k0')} of {counts.get('n0')} outputs on x in the event, "
            f"{counts.get('k1')} of {counts.get('n1')} on x'"
        )
    claim = r.get("claim") or {}
    promise = claim.get("description") or (
        f"({claim.get('epsilon')}, {claim.get('delta')})-DP"
        if claim.get("delta")
        else f"{claim.get('epsilon')}-DP"
    )
    bound = (
        f"{r.get('parameter')} >= {r.get('claim_bound'):.6g}"
        if r.get("claim_bound") is not None
        else f"epsilon >= {r.get('epsilon_lower_bound'):.6g}"
    )
    text = f"""\
        Reproduce dp-audit's finding: {r.get("adapter")} does not satisfy {promise}.

        Attack: {r.get("attack")}.  Event: {r.get("event")}.
        Reported: {evidence}; certified {bound} at confidence 1 - {r.get("alpha"):.3g}.
        Library: {library or "(none)"}.

        Needs only Python, numpy, scipy and the library under test (not dp-audit).  Run
        ``python {script_name(str(r.get("adapter")))}``: it redraws the counted outputs with
        the recorded seeds (mechanisms that cannot be seeded draw fresh ones), counts the
        event, recomputes the one-sided Clopper-Pearson bound with scipy, and exits with
        status 1 when the violation reproduces, 0 when it does not.
        """
    quoted = textwrap.dedent(text).replace('"""', "'''")
    return f'#!/usr/bin/env python3\n"""{quoted}"""\n'


_PRELUDE = '''\
import math
import os
import sys

import numpy as np
from scipy import special, stats


def _crashed(kind, value, traceback):
    """A script that fails to run exits 2: status 1 means "the violation reproduces"."""
    sys.__excepthook__(kind, value, traceback)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(2)


sys.excepthook = _crashed


def cannot_replay(why):
    """One line and status 2: the draws cannot be the report's (not "not reproduced")."""
    print(f"cannot replay: {why}", file=sys.stderr)
    sys.exit(2)
'''

_CHECK = '''\
def mismatch(query, size, outputs):
    """Why ``outputs`` cannot be of the kind the audit counted (None: they can)."""
    kind = SETTINGS.get("outputs")
    if outputs.ndim == 0 or len(outputs) != size:
        return f"sample(query, {size}) returned {outputs.size} value(s) of shape {outputs.shape}"
    if kind is None:
        return None
    if kind["fields"] is not None:
        names = list(outputs.dtype.names or [])
        if sorted(names) != sorted(kind["fields"]):
            return f"the outputs have fields {names}, the audit's had {kind['fields']}"
        return None
    d = max(1, len(query)) if kind["length"] == "query" else kind["length"]
    tail = outputs.shape[1:]
    if (tail not in ((), (1,))) if d == 1 else (tail != (d,)):
        audited = f"({size},)" if d == 1 else f"({size}, {d})"
        return f"the outputs have shape {outputs.shape}, the audit's had {audited} ({kind['label']})"
    if kind["dtype"] is not None and outputs.dtype.str != kind["dtype"]:
        return f"the outputs are {outputs.dtype}, the audit's were {np.dtype(kind['dtype'])}"
    if kind["integers"] and outputs.dtype.kind not in "biu":
        # NaN is "none" in a nullable integer output, not a non-integer
        if outputs.dtype.kind != "f" or not np.array_equal(
            outputs, np.round(outputs), equal_nan=True
        ):
            return f"the outputs are {outputs.dtype} non-integers, the audit's were integers"
    return None


def count(query, calls):
    """How many outputs of the recorded calls fall in the event, and how many were drawn."""
    hits = drawn = 0
    for size, entropy in calls:
        if "seed" in globals():
            seed(entropy)
        outputs = np.asarray(sample(query, size))
        why = mismatch(query, size, outputs)
        inside = np.asarray(EVENT(outputs)) if why is None else None
        if inside is not None and inside.shape != (len(outputs),):
            why = f"the event answers with shape {inside.shape} on {len(outputs)} outputs"
        if why is not None:
            cannot_replay(f"{why}: the mechanism changed since the audit; rerun dp-audit")
        hits += int(np.count_nonzero(inside))
        drawn += len(outputs)
    return hits, drawn


def limits(k0, n0, k1, n1):
    """One-sided Clopper-Pearson limits: p0 >= p0_lo and p1 <= p1_hi, each at its share of
    alpha (alpha_split of it for p0, the rest for p1)."""
    alpha, split = SETTINGS["alpha"], SETTINGS["alpha_split"]
    a0, a1 = alpha * split, alpha * (1.0 - split)
    p0_lo = 0.0 if k0 == 0 else float(stats.beta.ppf(a0, k0, n0 - k0 + 1))
    p1_hi = 1.0 if k1 == n1 else float(stats.beta.isf(a1, k1 + 1, n1 - k1))
    return p0_lo, p1_hi


def conditional_bound(k0, k1):
    """The conditional test: with both sides' sizes drawn from Poisson with one mean, x's
    share of the outputs in the event is Binomial(k0 + k1, p0 / (p0 + p1)); its
    Clopper-Pearson lower limit at the whole alpha bounds ln(p0 / p1)."""
    if k0 == 0:
        return 0.0
    share = float(stats.beta.ppf(SETTINGS["alpha"], k0, k1 + 1))
    return max(0.0, math.log(share / (1.0 - share))) if share < 1 else math.inf


def poisson_calls(rng):
    """Fresh calls of a Poisson-sized sample (a mechanism that cannot be seeded: the sizes
    must be drawn afresh too for the conditional test to hold)."""
    n, chunk = int(rng.poisson(SETTINGS["poisson_mean"])), 1 << 18
    return [(min(chunk, n - i), None) for i in range(0, n, chunk)]


def bound(p0_lo, p1_hi):
    """The largest claim parameter the corner (p0_lo, p1_hi) refutes, and its name."""
    claim = SETTINGS["claim"]
    kind = claim["kind"]
    if kind in ("pure", "approx"):
        delta = claim.get("delta") or 0.0
        if p0_lo <= delta:
            return 0.0, "epsilon"
        return (math.inf if p1_hi == 0 else max(0.0, math.log((p0_lo - delta) / p1_hi))), "epsilon"
    if p0_lo <= p1_hi:
        return 0.0, kind
    if kind == "gdp":  # Dong, Roth & Su 2019: mu >= Phi^-1(p0) - Phi^-1(p1)
        return float(special.ndtri(p0_lo) - special.ndtri(p1_hi)), "mu"
    # zCDP: rho >= sup_a D_a(Bern(p)||Bern(q)) / a over both orders (Bun & Steinke 2016)
    best = 0.0
    for p, q in ((p0_lo, p1_hi), (1 - p1_hi, 1 - p0_lo)):
        a = np.exp(np.linspace(np.log(1.0001), np.log(1e4), 4000))
        with np.errstate(all="ignore"):
            terms = np.logaddexp(a * np.log(p) + (1 - a) * np.log(q),
                                 a * np.log1p(-p) + (1 - a) * np.log1p(-q))
        best = max(best, float(np.nanmax(terms / (a - 1) / a)))
    return best, "rho"


def claimed():
    claim = SETTINGS["claim"]
    return {"pure": "epsilon", "approx": "epsilon", "gdp": "mu", "zcdp": "rho"}[claim["kind"]]


def main():
    claim, reported = SETTINGS["claim"], SETTINGS["reported"]
    value = claim[claimed()]
    if not CALLS_X:  # white-box: the exact probabilities of the event
        p = []
        for q in (X, X_PRIME):
            probs = np.asarray(probabilities(q), dtype=float)
            p.append(float(np.sum(probs[EVENT(np.arange(len(probs)))])))
        print(f"P[event] on x = {p[0]!r}, on x' = {p[1]!r} (report: {reported['probabilities']})")
        found, name = bound(p[0], p[1])
    else:
        seeded = "seed" in globals()
        calls = [CALLS_X, CALLS_X_PRIME]
        conditional = SETTINGS.get("test") == "poisson-conditional"
        if conditional and not seeded:
            rng = np.random.default_rng()
            calls = [poisson_calls(rng), poisson_calls(rng)]
        k0, n0 = count(X, calls[0])
        k1, n1 = count(X_PRIME, calls[1])
        r = reported["counts"]
        print(f"x : {k0} of {n0} outputs in the event (report: {r['k0']} of {r['n0']})")
        print(f"x': {k1} of {n1} outputs in the event (report: {r['k1']} of {r['n1']})")
        if not seeded:
            print("(this mechanism cannot be seeded: fresh outputs, so counts differ from the report)")
        if conditional:
            found, name = conditional_bound(k0, k1), "epsilon"
        else:
            found, name = bound(*limits(k0, n0, k1, n1))
    how = "exactly" if not CALLS_X else f"at confidence 1 - {SETTINGS['alpha']:.3g}"
    print(f"certified {name} >= {found:.6g} {how}; claimed {value!r}")
    violated = found > value * (1 + 1e-9)
    print("VIOLATION REPRODUCED" if violated else "not reproduced")
    return 1 if violated else 0


if __name__ == "__main__":
    sys.exit(main())
'''

_PROBE_CHECK = '''\
from fractions import Fraction


def exact(answer):
    """The released numbers as exact fractions (integers of any width stay exact)."""
    return [Fraction(v.item() if hasattr(v, "item") else v)
            for v in np.asarray(answer, dtype=object).ravel()]


def squared_size(gaps, norm):
    """The gaps' size in the declared norm, squared (exact also for l2)."""
    if norm == "l2":
        return sum(g * g for g in gaps)
    size = max(gaps) if norm == "linf" else sum(gaps)
    return size * size


def main():
    if "release_without_noise" not in globals():
        print("the mechanism above has no release_without_noise(): nothing to replay")
        return 2
    a, b = exact(release_without_noise(X)), exact(release_without_noise(X_PRIME))
    norm = PROBE.get("norm")  # None: one number
    declared = Fraction(PROBE["declared"])
    shown = lambda v: repr(float(v[0])) if len(v) == 1 else str([float(u) for u in v])
    print(f"noiseless answers: {shown(a)} on x, {shown(b)} on x'")
    gaps = [abs(u - v) for u, v in zip(a, b)]
    difference = squared_size(gaps, norm) ** 0.5
    print(f"difference {float(difference):.6g}{'' if norm is None else ' in ' + norm} "
          f"(report: {float(PROBE['difference']):.6g}); declared sensitivity {float(declared):.6g}")
    violated = len(a) != len(b) or squared_size(gaps, norm) > declared * declared
    print("VIOLATION REPRODUCED" if violated else "not reproduced")
    return 1 if violated else 0


if __name__ == "__main__":
    sys.exit(main())
'''
