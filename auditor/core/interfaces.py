"""The contracts everything else hangs on.

Three roles talk through these protocols and nothing else:

* an **Adapter** is one implementation under test; only the runner calls ``sample``;
* an **Attack** chooses neighbouring inputs and a way to pick distinguishing events; it never
  samples and never learns whether the implementation is broken;
* a **Distinguisher** (``auditor.core.trials``) turns a *training* split of outputs into a short list of candidate events.
  The runner certifies those events on fresh samples, so a distinguisher may look at its training
  data as much as it likes without weakening the guarantee.

Third parties satisfy these protocols by duck typing; nothing needs to subclass them.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from auditor.core.spec import AdapterSpec
from auditor.core.trials import Trial


@runtime_checkable
class Adapter(Protocol):
    """One implementation under test, configured with its parameters.

    Required attributes: ``name`` (unique), ``family`` (``additive`` | ``selection`` | ``binary``
    | ``dataset``), ``epsilon`` and ``delta`` (the claim), ``sensitivity`` (additive and
    selection: how far neighbouring queries may move) or, for ``dataset``, ``domain = (lo, hi)``
    and ``neighbours`` (``"add_remove"`` or ``"replace"``).

    Optional extras: ``seed(entropy: int)`` (re-seed; called before every ``sample``),
    ``integer_queries`` (additive: only integer queries are valid), ``probabilities(query)``
    (selection: the implementation's own selection probabilities), ``utility_bounds``,
    ``library``, ``library_version``, ``description``, ``vectorised``.
    """

    name: str
    family: str
    epsilon: float
    delta: float

    def sample(self, query: Any, n: int) -> np.ndarray:
        """Return ``n`` independent outputs on ``query`` as an array whose first axis has length n."""
        ...


class Attack(Protocol):
    """Produces trials (neighbouring inputs plus a distinguisher) for an adapter.

    ``trials`` may use ``rng`` to randomise its choice of inputs; it must not call
    ``adapter.sample``.  It returns an empty list when it has nothing to try on this adapter.
    """

    name: str
    description: str

    def applies_to(self, spec: AdapterSpec) -> bool:
        """Whether this attack can say anything about this adapter's family and extras."""
        ...

    def trials(self, spec: AdapterSpec, rng: np.random.Generator) -> list[Trial]:
        """Neighbouring input pairs within the declared sensitivity, each with a distinguisher."""
        ...
