"""What a search unit may use: seeded outputs of the adapter under audit, and nothing else.

Finding a pair worth certifying (moving a vector's base, a dataset's size, climbing over
datasets, probing local values, screening candidate pairs) reads outputs but certifies
nothing, so it spends no alpha.  A search unit therefore never sees the certifier: it gets a
:class:`Prober`, which draws seeded outputs (each request named by its labels, like every
draw of the run), counts events where a backend draws them, and reports what it drew to the
run's sample tally.  The alpha ledger and the certification counts stay with
``auditor.engine.certify``, out of reach.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from auditor.core.configs import AuditConfig
from auditor.core.errors import DPAuditError
from auditor.core.seeding import entropy
from auditor.core.spec import AdapterSpec
from auditor.core.trials import Event, Trial
from auditor.engine.proposals import Proposer
from auditor.engine.sampling import Counts, Sampler


@dataclass(frozen=True)
class Prober:
    """Seeded outputs for one trial's search.

    ``label``: the trial's ``(attack name, trial index)``, the first labels of every request;
    ``tally(n)``: ``n`` more outputs were drawn (the run's sample total and progress);
    ``screens``: where screening notes, under a point claim with delta > 0, the attack, the
    pairs screened and the outputs per side each was first scored on (the report's note on
    leaks in delta alone).
    """

    spec: AdapterSpec
    config: AuditConfig
    sampler: Sampler
    proposer: Proposer
    label: tuple[object, ...]
    tally: Callable[[int], None]
    screens: list[tuple[str, int, int]] = field(default_factory=list)

    def seed(self, *where: object) -> int:
        """The entropy of the request named by ``where`` (after the trial's label)."""
        return entropy(self.config.seed, self.spec.name, *self.label, *where)

    def draw(self, query: Any, n: int, *where: object) -> np.ndarray:
        """``n`` fresh outputs on ``query``; raises the adapter's ``DPAuditError``."""
        out = self.sampler.draw(self.spec, query, n, self.seed(*where))
        self.tally(n)
        return out

    def probe(self, query: Any, n: int, *where: object) -> np.ndarray | None:
        """:meth:`draw`, or None where the adapter fails: probing stops there."""
        try:
            return np.asarray(self.draw(query, n, *where))
        except DPAuditError:
            return None

    def start_counts(self, query: Any, n: int, events: Sequence[Event], *where: object) -> Counts:
        """Start counting ``events`` on ``n`` fresh outputs of ``query``, where they are drawn."""
        return self.sampler.start_counts(self.spec, [(query, n, self.seed(*where))], events)

    def wait(self, counts: Counts) -> list[np.ndarray]:
        """The counts of :meth:`start_counts`, with their outputs added to the tally."""
        return counts.wait(self.tally)


class SearchUnit(Protocol):
    """One stage of finding the pair: from the trial and seeded outputs, the trial with its
    pair moved or with further candidate pairs.  Certifies nothing and spends no alpha: it
    sees a :class:`Prober`, never the certifier."""

    def applies(self, trial: Trial) -> bool:
        """Whether the trial asks for this search (it then runs before certification)."""
        ...

    def search(self, trial: Trial, prober: Prober) -> Trial:
        """The trial as this search leaves it (the same trial when it finds nothing)."""
        ...
