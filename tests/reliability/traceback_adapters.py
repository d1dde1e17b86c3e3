"""Adapters for ``test_worker_output.py``: one that raises deep in its own code, one that warns
and writes to stdout and stderr (by Python and straight to the file descriptors) but is
otherwise correct, and the hang and crash cases of ``bad_adapters.py`` under names of their own.

Loaded by target in worker processes, so everything here must be importable from the file
(and its sibling ``bad_adapters.py``) alone.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np
from bad_adapters import Exits, GoodGeometric, Hangs, HangsSeeded, Segfaults, _Base


class RaisesDeep(_Base):
    def sample(self, query, n):
        return self._library_call(query, n)

    def _library_call(self, query, n):
        del query, n
        raise ValueError("bad query\x1b[31m red\nsecond line")  # the line the report names


class Noisy(GoodGeometric):
    """Correct (never a violation), but talkative in every way a library can be."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def sample(self, query, n):
        warnings.warn("PrivacyLeakWarning-like: bounds were not given", UserWarning, stacklevel=1)
        print("noise on stdout from the adapter")
        print("noise on stderr from the adapter", file=sys.stderr)
        os.write(2, b"noise on fd 2 from C code\n")
        return super().sample(query, n)


class SegfaultsOnItsSecondCall(_Base):
    """Answers (and prints) once, then segfaults: the report keeps the crash's own output only."""

    calls = 0

    def sample(self, query, n):
        type(self).calls += 1
        if type(self).calls == 1:
            print("first call, all is well", file=sys.stderr)
            return np.zeros(n)
        return Segfaults.sample(self, query, n)


def raising() -> list:
    return [RaisesDeep("tb.raises")]


def failing() -> list:
    return [
        RaisesDeep("tb.raises"),
        Hangs("tb.hangs"),
        HangsSeeded("tb.hangs_seeded"),
        Exits("tb.exits"),
        Segfaults("tb.segfaults"),
        SegfaultsOnItsSecondCall("tb.segfaults_later"),
        Noisy("tb.noisy"),
    ]
