"""The README's main job plans every built-in adapter's trials, quickly and without error.

A random pair that could not be pulled back inside the relation once made planning walk a
float one ulp at a time (the discrete vector Gaussian, sensitivity sqrt 2, seed 0): the
default run hung before it drew an output, and no test planned the default run.
"""

from __future__ import annotations

import signal

from attacks import load_attacks
from auditor.core.configs import AuditConfig
from auditor.engine.runner import _plan
from dp_audit.loading import load_builtins

#: seconds the whole plan may take (it takes a few): past this the test fails, not hangs
LIMIT = 300


def _too_long(signum, frame):
    raise TimeoutError(f"planning the default run took more than {LIMIT} s")


def test_every_builtin_adapter_is_planned_at_the_default_settings():
    seed = AuditConfig().seed  # the default run's
    adapters = [a for group in load_builtins() for a in group.adapters]
    assert len(adapters) >= 40
    previous = signal.signal(signal.SIGALRM, _too_long)
    signal.alarm(LIMIT)
    try:
        planned = [
            _plan(a, load_attacks(None), seed, None, AuditConfig(seed=seed)) for a in adapters
        ]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    errors = {p.name: p.error for p in planned if p.error}
    assert not errors, errors
    assert all(p.trials for p in planned), [p.name for p in planned if not p.trials]
