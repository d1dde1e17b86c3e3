"""Events, the distinguishers that propose them, trials and the certification plan a
distinguisher is told about."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from auditor.core.claim_kinds import is_point

if TYPE_CHECKING:
    from auditor.core.results import ExactEvidence
    from auditor.core.spec import AdapterSpec

#: ``exact(spec) -> ExactEvidence | None``: a white-box check with no sampling error
ExactCheck = Callable[["AdapterSpec"], "ExactEvidence | None"]


@dataclass(frozen=True)
class Event:
    """A measurable set of outputs: ``predicate(outputs)`` is a boolean array, one per output.

    ``description`` is what a reviewer reads in the report ("output > 0.73", "output is not a
    value numpy's Laplace sampler can produce at input 1.0").  ``white_box`` marks events that
    rely on a model of the implementation's sampler.
    """

    description: str
    predicate: Callable[[np.ndarray], np.ndarray] = field(repr=False, compare=False)
    white_box: bool = False
    #: the predicate as standalone Python source (see :meth:`source`), when not the predicate's
    code: str | None = field(default=None, repr=False, compare=False)

    def source(self) -> str | None:
        """Python source defining ``event(x)`` -- the same boolean array as this event on the
        outputs ``x`` -- that imports only the standard library and numpy, so that a
        reproducer can apply the event without dp-audit; None when the event has none.

        The source is the ``code`` given here, else the predicate's own ``code()`` when it has
        one (predicate classes that carry their parameters write it themselves).
        """
        if self.code is not None:
            return self.code
        write = getattr(self.predicate, "code", None)
        written = write() if callable(write) else None
        return None if written is None else str(written)

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        hits = np.asarray(self.predicate(outputs), dtype=bool)
        if hits.shape != (len(outputs),):
            raise ValueError(
                f"event {self.description!r} returned shape {hits.shape}, expected ({len(outputs)},)"
            )
        return hits


@dataclass(frozen=True)
class Trial:
    """One neighbouring pair ``(x, x_prime)`` and the distinguisher that looks for events.

    ``x`` and ``x_prime`` are queries of the adapter's family and must be neighbours under the
    adapter's declared sensitivity or neighbouring relation.

    ``exact`` (optional) is a white-box check the certifier runs before sampling: it may query
    the adapter's own oracles (e.g. ``probabilities(query)``, never ``sample``) and return
    evidence that needs no statistics.  Every pair of inputs it reports must be neighbours too.
    A trial that only has an exact check uses a distinguisher with ``max_events = 0`` and so
    reserves none of the run's alpha.

    ``candidates`` (optional) are further pairs ``(x, x_prime, description)`` to choose from:
    the certifier screens every pair on outputs of its own, keeps the one whose proposed
    events promise the largest bound, and certifies that pair alone on fresh outputs.  A
    search over neighbouring pairs then costs screening samples, not alpha.
    """

    x: Any
    x_prime: Any
    distinguisher: Distinguisher
    description: str
    exact: ExactCheck | None = field(default=None, repr=False, compare=False)
    candidates: tuple[tuple[Any, Any, str], ...] = field(default=(), repr=False, compare=False)
    #: the same search around another base value: ``rebase(b)`` is this trial with every pair
    #: moved to base entries ``b`` (its ``x`` the base itself; the trial's own base is 0), and
    #: ``rebase(b, uniform=True)`` the same with only the pairs that move every entry alike.
    #: The certifier asks for the first when the outputs at 0 sit far off the middle of their
    #: response to the base (an SVT whose threshold is far from 0 answers ⊥ to most queries
    #: there), for the second towards the ends of that response (see
    #: ``auditor.engine.search_units.base``); it returns None where no pattern fits (integer moves
    #: under L1 leave no uniform one).  None: the base is fixed.
    rebase: Callable[..., Trial | None] | None = field(default=None, repr=False, compare=False)
    #: the same search with one more pair: ``resize(k)`` is this trial with the pair of k and
    #: k + 1 records at the domain's midpoint screened first (its ``x`` the k records).  The
    #: certifier asks for it when a dataset mechanism's usual output at one record is lost
    #: at some size (a minimum count, which add/remove neighbours expose; see
    #: ``auditor.engine.search_units.size``); None: the relation fixes the size.
    resize: Callable[[int], Trial] | None = field(default=None, repr=False, compare=False)
    #: local values whose outputs the certifier probes before screening, to pair those whose
    #: outputs stand apart as further candidates (a domain with too many pairs to screen; see
    #: ``auditor.engine.search_units.values``); empty: the candidates are fixed.
    probe_values: tuple[Any, ...] = field(default=(), repr=False, compare=False)
    #: moves between neighbouring datasets that the certifier climbs on probe outputs before
    #: screening, to add the pairs whose outputs lie farthest apart as further candidates
    #: (structure among records: a graph statistic whose change depends on the rest of the
    #: graph; see ``auditor.engine.search_units.datasets``); None: the candidates are fixed.
    explore: Explorer | None = field(default=None, repr=False, compare=False)
    #: outputs per side the trial needs to show what it looks for, when that is more than a
    #: run's budget buys (a leak in delta alone costs about e^eps / delta outputs to see);
    #: 0: the run's budget.  ``AuditConfig.budget_for`` grants it within a cap, fixed before
    #: any sampling like every other size.
    needs: int = field(default=0, compare=False)

    @property
    def pairs(self) -> list[tuple[Any, Any, str]]:
        """Its own pair, then its candidates."""
        return [(self.x, self.x_prime, self.description), *self.candidates]

    def grouped(self, k: int) -> Trial:
        """This trial for privacy units of up to ``k`` records (``max_contributions``): every
        dataset pair's change made ``k`` times (:func:`grouped_pair`), its ``resize`` likewise;
        itself when ``k`` is 1."""
        if k == 1:
            return self
        resize = self.resize
        return self._with_pairs(
            [unit_pair(p, k) for p in self.pairs],
            None if resize is None else lambda size: resize(size).grouped(k),
        )

    def for_privacy_units(self, spec: AdapterSpec) -> Trial | None:
        """This trial for the adapter's privacy unit: a record, up to ``max_contributions``
        records (:meth:`grouped`) or every record of one user id (:meth:`by_user`)."""
        if spec.user_column is not None:
            assert spec.user_ids is not None
            return self.by_user(spec.user_column, spec.user_ids)
        return self.grouped(spec.max_contributions)

    def by_user(self, column: int, ids: tuple[int, int]) -> Trial | None:
        """This trial for datasets whose ``column`` holds user ids: each add/remove pair made
        a pair of one user added, holding the changed records once and (a single changed
        record) also :data:`USER_RECORDS` times; the other records each their own user
        (:func:`user_pair`).  Pairs that come out alike are kept once, replace pairs dropped;
        None if no pair is left."""
        made: dict[tuple[tuple[Any, ...], tuple[Any, ...]], tuple[Any, Any, str]] = {}
        for x, x_prime, description in self.pairs:
            for size in USER_RECORDS:
                pair = user_pair(x, x_prime, column, ids, size)
                if pair is None:
                    continue
                a, b, records = pair
                text = f"{description}; one user per record, the changed one with {records}"
                made.setdefault((tuple(row_keys(a)), tuple(row_keys(b))), (a, b, text))
        if not made:
            return None
        resize = self.resize

        def by_user_resized(size: int) -> Trial:
            assert resize is not None
            trial = resize(size).by_user(column, ids)
            assert trial is not None  # a size pair adds one record
            return trial

        users = self._with_pairs(list(made.values()), None if resize is None else by_user_resized)
        return replace(users, explore=None)  # its moves change one record, not one user

    def _with_pairs(
        self, pairs: list[tuple[Any, Any, str]], resize: Callable[[int], Trial] | None
    ) -> Trial:
        """This trial with ``pairs`` in place of its own (the first becomes its own pair) and
        ``resize`` in place of its own."""
        (x, x_prime, description), *rest = pairs
        return replace(
            self,
            x=x,
            x_prime=x_prime,
            description=description,
            candidates=tuple(rest),
            resize=resize,
        )

    def with_candidates(self, more: Sequence[tuple[Any, Any, str]]) -> Trial:
        """This trial with ``more`` pairs to choose from, after its own candidates."""
        return replace(self, candidates=(*self.candidates, *more)) if more else self

    def accepted_by(self, spec: AdapterSpec) -> Trial | None:
        """This trial with only the pairs whose inputs the adapter accepts (a dataset
        mechanism's ``min_records``) and that are neighbours the way it declares (monotone
        vector moves, within the sensitivity exactly), its first such pair its own; None if
        none is left."""
        pairs = self.pairs
        kept = [
            p
            for p in pairs
            if spec.accepts_size(p[0])
            and spec.accepts_size(p[1])
            and spec.accepts_move(p[0], p[1])
            and spec.within_sensitivity(p[0], p[1])
        ]
        if len(kept) == len(pairs):
            return self
        if not kept:
            return None
        return self._with_pairs(kept, self.resize)


#: local values probed at most (spread over the domain, ends included; ``Trial.probe_values``)
MAX_PROBE_VALUES = 1024


def probed_values(lo: int, hi: int) -> list[int]:
    """The ``Trial.probe_values`` of a local domain ``lo .. hi``: every value if there are at
    most ``MAX_PROBE_VALUES``, else that many spread evenly, both ends included."""
    if hi - lo + 1 <= MAX_PROBE_VALUES:
        return list(range(lo, hi + 1))
    return sorted({int(v) for v in np.round(np.linspace(lo, hi, MAX_PROBE_VALUES))})


def unit_pair(pair: tuple[Any, Any, str], k: int) -> tuple[Any, Any, str]:
    """A described dataset pair for privacy units of up to ``k`` records: a one-record change
    made ``k`` times (:func:`grouped_pair`); a pair that changes several records already (one
    unit's, as ``dataset_pairs`` builds) and any pair when ``k`` is 1, as it is."""
    x, x_prime, description = pair
    if k == 1 or changed_records(x, x_prime) > 1:
        return pair
    text = f"{description}; the change made {k} times (one privacy unit's records)"
    return (*grouped_pair(x, x_prime, k), text)


def grouped_pair(x: Any, x_prime: Any, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Neighbouring datasets that differ in one record, turned into datasets that differ in
    ``k``: each record ``x`` holds and ``x_prime`` does not gets ``k - 1`` more copies in ``x``,
    and each one only ``x_prime`` holds ``k - 1`` more in ``x_prime`` (appended).  Added,
    removed or replaced, one record's change becomes one privacy unit's ``k`` records."""
    a, b = np.asarray(x), np.asarray(x_prime)
    rows_a, rows_b = row_keys(a), row_keys(b)
    only_a, only_b = Counter(rows_a) - Counter(rows_b), Counter(rows_b) - Counter(rows_a)

    def more(d: np.ndarray, keys: list[Any], only: Counter[Any]) -> np.ndarray:
        extra = [d[keys.index(key)] for key, count in only.items() for _ in range(count)]
        if not extra:
            return d
        copies = np.repeat(np.stack(extra), k - 1, axis=0)
        return np.concatenate([d, copies.astype(d.dtype, copy=False)])

    return more(a, rows_a, only_a), more(b, rows_b, only_b)


#: how many copies of a changed record one user holds in the pairs :meth:`Trial.by_user`
#: makes, when nothing bounds a user's records: one, a few (a per-user cap of 1-3 that is
#: off by one or missing shows), and many (caps up to 31, and sums without any cap)
USER_RECORDS = (1, 4, 32)


def user_pair(
    x: Any, x_prime: Any, column: int, ids: tuple[int, int], size: int
) -> tuple[np.ndarray, np.ndarray, str] | None:
    """An add/remove pair of datasets as a pair of one user added: the records the larger one
    holds beyond the smaller get the first id in ``ids``, each ``size`` times when there is
    one such record; the shared records get the next ids, one each (round robin when the ids
    run out: users of several records, never the changed one).  Returns the pair in its
    order and what the changed user holds, or None for a pair of equal sizes (replace)."""
    a, b = as_rows(x), as_rows(x_prime)
    if len(a) == len(b):
        return None
    small, big = (a, b) if len(a) < len(b) else (b, a)
    extra = _extra_rows(small, big)
    copies = np.where(extra, size if int(extra.sum()) == 1 else 1, 1)
    rows = np.repeat(big, copies, axis=0)
    changed = np.repeat(extra, copies)
    lo, hi = ids
    others = max(1, hi - lo)
    shared = lo + 1 + np.arange(int((~changed).sum())) % others
    labelled = rows.copy()
    labelled[changed, column] = lo
    labelled[~changed, column] = shared.astype(labelled.dtype, copy=False)
    big_out, small_out = labelled, labelled[~changed]
    shape = np.asarray(x).shape[1:]
    big_out, small_out = big_out.reshape(-1, *shape), small_out.reshape(-1, *shape)
    n = int(changed.sum())
    held = f"{n} copies of one record" if n > int(extra.sum()) else f"{n} record" + "s" * (n > 1)
    pair = (small_out, big_out) if len(a) < len(b) else (big_out, small_out)
    return (*pair, held)


def _extra_rows(small: np.ndarray, big: np.ndarray) -> np.ndarray:
    """Which rows of ``big`` ``small`` lacks: ``small`` matched in order as a subsequence of
    ``big`` (a record appended, or the first one removed, stays where it was), else the last
    copies of each surplus record."""
    keys_small, keys_big = row_keys(small), row_keys(big)
    extra = np.ones(len(big), dtype=bool)
    i = 0
    for j, key in enumerate(keys_big):
        if i < len(keys_small) and key == keys_small[i]:
            extra[j] = False
            i += 1
    if i == len(keys_small):
        return extra
    surplus = Counter(keys_big) - Counter(keys_small)
    extra[:] = False
    for j in range(len(keys_big) - 1, -1, -1):
        if surplus[keys_big[j]] > 0:
            surplus[keys_big[j]] -= 1
            extra[j] = True
    return extra


def changed_records(x: Any, x_prime: Any) -> int:
    """How many records one dataset holds that the other does not, the larger side's count
    (1 for one record added, removed or replaced)."""
    rows_a, rows_b = Counter(row_keys(np.asarray(x))), Counter(row_keys(np.asarray(x_prime)))
    return max(sum((rows_a - rows_b).values()), sum((rows_b - rows_a).values()))


def as_rows(d: Any) -> np.ndarray:
    """A dataset as (m, c) rows: a 1-D dataset (one value per record) as one column."""
    rows: np.ndarray = np.asarray(d)
    return rows[:, None] if rows.ndim == 1 else rows


def row_keys(d: np.ndarray) -> list[Any]:
    """Each record of a dataset (1-D, or (m, c) rows) as a hashable key."""
    return [tuple(np.atleast_1d(row).tolist()) for row in d]


@dataclass(frozen=True)
class CertificationPlan:
    """What a distinguisher may know about the certification that follows its proposal.

    ``n`` samples per side will be used, each event and direction is certified at
    significance ``alpha``; the claim under audit is (``epsilon``, ``delta``).  Distinguishers
    use this to prefer events that can certify a large bound at this ``n``.
    """

    n: int
    alpha: float
    #: the value a certified bound must exceed: epsilon for a point claim, else the claim's
    #: own parameter (``claim.value``); ``delta`` is the delta of the (epsilon, delta) bound
    epsilon: float
    delta: float
    #: a quick proposal (screening a candidate pair, the pilot stage): cheap events suffice
    quick: bool = False
    #: the claim when it is not one (epsilon, delta) point: events are then ranked by the
    #: value of its parameter they are predicted to certify (``claim.certified``)
    claim: Any = None
    #: the certification may use the conditional test (``AuditConfig.conditional_test``, a
    #: pure epsilon claim): events are ranked by the better of its prediction and the box's
    conditional: bool = False

    @classmethod
    def for_claim(
        cls, n: int, alpha: float, claim: Any, quick: bool = False, conditional: bool = False
    ) -> CertificationPlan:
        """The plan for auditing ``claim`` (a point claim or any claim kind)."""
        point = is_point(claim)
        return cls(
            n,
            alpha,
            claim.value,
            claim.delta,
            quick,
            None if point else claim,
            conditional and point and claim.delta == 0,
        )


class Explorer(Protocol):
    """A neighbourhood of dataset pairs to climb (``Trial.explore``): states, each one pair of
    neighbouring datasets, and random moves between them that keep the relation for the
    adapter's privacy unit (``max_contributions`` records)."""

    def starts(self) -> Sequence[Any]:
        """The states the climbs start from, one climb each."""
        ...

    def moved(self, state: Any, rng: np.random.Generator) -> Any:
        """A random neighbour of ``state`` (one record changed, added or removed), or None
        when the move drawn does not apply there."""
        ...

    def pair(self, state: Any) -> tuple[Any, Any, str]:
        """The state's two datasets, as the adapter takes them, and what they are."""
        ...


class Distinguisher(Protocol):
    """Chooses distinguishing events from a training split.

    ``max_events`` is fixed before any data is seen: the run's error budget reserves that many
    events (each tested in both directions), so ``propose`` must never return more.
    ``train_fraction`` is the share of the trial's per-side budget spent on training (0 for
    events fixed in advance).
    """

    # read-only: frozen dataclasses satisfy the protocol too
    @property
    def max_events(self) -> int: ...

    @property
    def train_fraction(self) -> float: ...

    def propose(
        self, train_x: np.ndarray, train_x_prime: np.ndarray, plan: CertificationPlan
    ) -> list[Event]:
        """Return at most ``max_events`` events, chosen using the training outputs only."""
        ...
