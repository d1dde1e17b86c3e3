"""Adapters for OpenDP's Context / Polars API (``pip install 'opendp[polars]'``).

A user of OpenDP's high-level API writes::

    context = dp.Context.compositor(data=lazy_frame, privacy_unit=dp.unit_of(contributions=1),
                                    privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-5),
                                    split_evenly_over=1, margins=[...])
    context.query().group_by("region").agg(dp.len()).release().collect()

and gets a Polars frame with one row per region OpenDP released.  Without a margin declaring
the keys public, OpenDP chooses them privately: a region is released when its noisy count
reaches a threshold OpenDP calibrates to delta.  The frame is the output as it is, an open
key set (``output_kind = "keyed"``, :mod:`auditor.core.keyed`): which regions appear is part
of the release.

One output is one evaluation of the query's measurement, the object ``query.resolve()``
returns and ``release()`` evaluates inside the context's compositor, on the dataset as a
Polars ``LazyFrame``.  Resolving searches OpenDP's noise scale and threshold (seconds); the
measurement does not depend on the data, only on the frame's schema, the privacy unit, the
budget and the margins, so it is resolved once per process and evaluated per output (about a
millisecond).  The claim is read from OpenDP's own accounting: the measurement's privacy map at
the privacy unit's distance, ``measurement.map(d_in)``, which is what ``query.summarize()``
describes (scale and threshold in :attr:`OpenDPContextCount.description`).

OpenDP's noise comes from the operating system's generator and cannot be seeded: no ``seed``;
``vectorised = False``.  :func:`builtin_adapters` raises ``ImportError`` without OpenDP or Polars.

References:
    OpenDP, "Polars" user guide and ``opendp.context`` (0.16); Desfontaines, Voss, Gipson,
    Mandayam, "Differentially private partition selection", PoPETs 2022.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer, installed_version
from auditor.adapters.base import NamedRepr

__all__ = ["REGIONS", "OpenDPContextCount", "builtin_adapters"]

#: the key labels: record value j is region ``REGIONS[j]``
REGIONS = ("north", "south", "east", "west")

#: resolved measurements per process, by configuration (resolving takes seconds)
_MEASUREMENTS: dict[tuple[Any, ...], Any] = {}


class OpenDPContextCount(NamedRepr):
    """``group_by("region").agg(dp.len())`` through ``dp.Context`` over a ``LazyFrame``.

    Records are region indices 0..3 (``user_column=False``: each record is one user) or rows
    ``(user id, region index)`` (``user_column=True``: a user holds any number of rows, and the
    audit adds or removes all of them).  ``contributions`` is what the privacy unit declares
    (``dp.unit_of(contributions=...)``); ``public_keys=True`` adds the margin
    ``Margin(by=["region"], invariant="keys")``, declaring the set of regions public.

    Correct: one row per user and private keys.  The two misconfigurations a user can make
    through the same calls: ``public_keys=True`` on data whose regions are not public (a
    region held by one user appears only when that user is in the data), and
    ``user_column=True`` with ``contributions=1`` (the privacy unit is a row, but users hold
    many rows).
    """

    library = "opendp"
    vectorised = False
    #: OpenDP's noise comes from OpenSSL's CSPRNG, seeded per process (see ``OpenDPAdapter``)
    os_entropy = True
    input_kind = "dataset"
    neighbours = "add_remove"
    output_kind = "keyed"
    value_kind = "integer"
    keys = REGIONS
    key_column, value_column = "region", "len"

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        *,
        contributions: int = 1,
        public_keys: bool = False,
        user_column: bool = False,
    ) -> None:
        if not epsilon > 0 or not 0 <= delta < 1:
            raise ValueError(f"epsilon={epsilon!r} must be > 0 and delta={delta!r} in [0, 1)")
        self.budget = (float(epsilon), float(delta))
        self.contributions = as_integer(contributions, "contributions")
        self.public_keys = bool(public_keys)
        self.library_version = installed_version("opendp")
        hi = len(REGIONS) - 1
        self.domain: Any = (0, hi)
        self.columns = 1
        self.user_column: int | None = None
        options = []
        if self.public_keys:
            options.append("public_keys=True")
        if user_column:
            self.columns, self.user_column = 2, 0
            self.domain = ((0, 10**6), (0, hi))
            options.append("rows with user ids")
        if self.contributions != 1:
            options.append(f"contributions={self.contributions}")
        self.name = "opendp_context.count" + (f"({', '.join(options)})" if options else "")
        self._claim: tuple[float, float] | None = None
        self._summary = ""

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)  # the measurement lives in _MEASUREMENTS, per process

    def _configuration(self) -> tuple[Any, ...]:
        return (self.budget, self.contributions, self.public_keys, self.user_column)

    def _frame(self, query: Any) -> Any:
        import polars as pl

        records = np.asarray(query)
        if self.user_column is None:
            users, regions = None, records.ravel()
        else:
            records = records.reshape(-1, 2)
            users, regions = records[:, 0], records[:, 1]
        labels = [REGIONS[as_integer(r, "region")] for r in regions]
        columns: dict[str, Any] = {"region": pl.Series(labels, dtype=pl.String)}
        if users is not None:
            columns["user"] = pl.Series([as_integer(u, "user id") for u in users], dtype=pl.Int64)
        return pl.LazyFrame(columns)

    def measurement(self) -> Any:
        """The query's measurement, as ``query.resolve()`` makes it (memoised per process)."""
        key = self._configuration()
        if key not in _MEASUREMENTS:
            import opendp.prelude as dp
            from opendp.extras.polars import Margin, dp_len

            dp.enable_features("contrib")
            example = [[0, 0]] if self.user_column is not None else [0]
            margins = [Margin(by=["region"], invariant="keys")] if self.public_keys else []
            context = dp.Context.compositor(
                data=self._frame(example),
                privacy_unit=dp.unit_of(contributions=self.contributions),
                privacy_loss=dp.loss_of(epsilon=self.budget[0], delta=self.budget[1]),
                split_evenly_over=1,
                margins=margins,
            )
            with warnings.catch_warnings():  # dp.len()'s notice that its default will change
                warnings.simplefilter("ignore", FutureWarning)
                query = context.query().group_by("region").agg(dp_len())
            summary = query.summarize()
            _MEASUREMENTS[key] = (query.resolve(), summary)
        return _MEASUREMENTS[key][0]

    def _read_claim(self) -> tuple[float, float]:
        if self._claim is None:
            measurement = self.measurement()
            epsilon, delta = measurement.map(self.contributions)
            self._claim = (float(epsilon), float(delta))
            summary = _MEASUREMENTS[self._configuration()][1]
            self._summary = ", ".join(
                f"{row['distribution']} scale {row['scale']:g}"
                + (f", threshold {row['threshold']}" if row.get("threshold") is not None else "")
                for row in summary.to_dicts()
            )
        return self._claim

    @property
    def epsilon(self) -> float:
        """OpenDP's own accounting of one release: ``measurement.map(d_in)``'s epsilon."""
        return self._read_claim()[0]

    @property
    def delta(self) -> float:
        return self._read_claim()[1]

    @property
    def description(self) -> str:
        self._read_claim()
        keys = "public (Margin invariant='keys')" if self.public_keys else "private (thresholded)"
        rows = "rows (user id, region)" if self.user_column is not None else "one row per user"
        return (
            f"opendp {self.library_version} Context: group_by('region').agg(dp.len()) over a "
            f"polars LazyFrame of {rows}; privacy unit contributions={self.contributions}; "
            f"keys {keys}; budget loss_of{self.budget}; {self._summary}; claim = "
            "measurement.map(d_in)"
        )

    def sample(self, query: Any, n: int) -> list[Any]:
        """``n`` releases on dataset ``query``: one Polars frame (region, len) each."""
        measurement, frame = self.measurement(), self._frame(query)
        return [measurement(frame).collect() for _ in range(n)]


def builtin_adapters() -> list[Any]:
    """The correct grouped count and two misconfigurations (ImportError without the libraries)."""
    import opendp.prelude  # noqa: F401  (ImportError here means: skipped, install the extra)
    import polars  # noqa: F401

    return [
        OpenDPContextCount(),
        OpenDPContextCount(public_keys=True),
        OpenDPContextCount(user_column=True),
    ]
