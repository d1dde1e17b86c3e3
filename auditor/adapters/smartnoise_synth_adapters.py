"""Adapters for SmartNoise Synth (``pip install 'dp-audit[synth]'``; imported as ``snsynth``).

SmartNoise Synth fits a differentially private generator to a table and samples a synthetic
table from it.  One output here is one whole ``Synthesizer.create(name, epsilon=…)``,
``fit`` and ``sample(rows)``, exactly as a user calls them, on the dataset as a pandas frame;
dp-audit never reimplements a generator.  The output a reader can interpret is the
synthetic table's full contingency table: the count of synthetic rows in each cell of the
declared domain (a fixed-length integer vector, so dp-audit's vector events apply).

The table has two categorical columns, ``a`` in ``0 .. 2`` and ``b`` in ``0 .. 1`` (6 cells);
records are rows ``(a, b)`` and neighbours add or remove one record.  The synthetic table has
a fixed number of rows (``rows``, 50), so its size says nothing about the input's.

The claim is the (epsilon, delta) passed to the synthesizer, what SmartNoise states it spends
(MWEM: pure epsilon; MST: (epsilon, delta) through zCDP).  Categories are either *declared*
(a ``TableTransformer`` of ``LabelTransformer``s fitted on a public frame listing every
category, passed as ``transformer=``: nothing is inferred from the private data) or *read
from the data* (``categorical_columns=[…]`` without a transformer: SmartNoise fits its
``LabelTransformer`` on the private rows, spending no budget and printing no warning).

Noise comes from OpenDP (unseedable), query selection and row sampling from numpy's and
Python's global generators, so the adapters have no ``seed`` and run on one worker;
``vectorised = False``.

References:
    SmartNoise Synth, https://docs.smartnoise.org/synth/ (``Synthesizer.create``, ``fit``,
    ``transformer``, ``categorical_columns``); Hardt, Ligett, McSherry, "A simple and
    practical algorithm for differentially private data release", NeurIPS 2012 (MWEM);
    McKenna, Miklau, Sheldon, "Winning the NIST contest: a scalable and general approach to
    differentially private synthetic data", JPC 2021 (MST).
"""

from __future__ import annotations

import contextlib
import io
import warnings
from typing import Any

import numpy as np

from auditor.adapters._provenance import installed_version
from auditor.adapters.base import integer_records

__all__ = ["SynthMarginals", "builtin_adapters"]

#: the table's columns and their categories (the declared, public domain)
COLUMNS = ("a", "b")
CATEGORIES = (3, 2)

#: constructor options of each generator as audited (MWEM: 10 iterations, not the default
#: ``10 * ceil(log10 n)``, which reads the dataset's size; and about 5 times faster)
GENERATORS: dict[str, dict[str, Any]] = {"mwem": {"iterations": 10}, "mst": {}}


def _import_snsynth() -> Any:
    """``snsynth``; ImportError without the ``synth`` extra (the target is then skipped)."""
    import snsynth

    return snsynth


class SynthMarginals:
    """One SmartNoise Synth generator, fitted and sampled once per output.

    Args:
        synth: ``"mwem"`` or ``"mst"`` (the ``Synthesizer.create`` name).
        epsilon, delta: passed to ``Synthesizer.create`` (delta only to MST, which needs it).
        categories: ``"declared"`` (a transformer fitted on the public domain) or ``"data"``
            (``categorical_columns`` only: SmartNoise reads the categories from the rows).
        rows: rows of each synthetic table (fixed: not the input's size).

    Attributes:
        correct: whether this configuration is expected private as claimed (dp-audit does
            not read it; ``mwem`` is not: see ``docs/systems-synth.md``).
    """

    library = "smartnoise-synth"
    vectorised = False
    input_kind = "dataset"
    columns = len(COLUMNS)
    domain: Any = tuple((0, k - 1) for k in CATEGORIES)
    neighbours = "add_remove"
    output_kind = "integer"
    output_length = int(np.prod(CATEGORIES))

    def __init__(
        self,
        synth: str = "mwem",
        *,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        categories: str = "declared",
        rows: int = 50,
    ) -> None:
        if synth not in GENERATORS:
            raise ValueError(f"synth={synth!r} must be one of {sorted(GENERATORS)}")
        if categories not in ("declared", "data"):
            raise ValueError(f"categories={categories!r} must be 'declared' or 'data'")
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        if synth == "mst" and not 0 < delta < 1:
            raise ValueError(f"delta={delta!r} must be in (0, 1) for MST")
        if not isinstance(rows, int) or rows < 1:
            raise ValueError(f"rows={rows!r} must be a positive int")
        self.synth, self.categories, self.rows = synth, categories, rows
        self.epsilon = float(epsilon)
        self.delta = float(delta) if synth == "mst" else 0.0
        self.options = dict(GENERATORS[synth])
        if synth == "mst":
            self.options["delta"] = self.delta
        self.correct = synth == "mst" and categories == "declared"
        self.library_version = installed_version("smartnoise-synth")
        self.name = f"smartnoise_synth.{synth}" + (
            "(categories_from_data)" if categories == "data" else ""
        )
        how = (
            "transformer fitted on the public domain"
            if categories == "declared"
            else "categorical_columns=['a', 'b'] (categories read from the data)"
        )
        self.description = (
            f"snsynth Synthesizer.create({synth!r}, epsilon={epsilon}, "
            f"{', '.join(f'{k}={v}' for k, v in self.options.items())}).fit(frame, {how})"
            f".sample({rows}); output: counts of the synthetic rows in each (a, b) cell, "
            f"a in 0..{CATEGORIES[0] - 1}, b in 0..{CATEGORIES[1] - 1}"
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def records(self, query: Any) -> np.ndarray:
        """The dataset as an (m, 2) int64 array, checked against the domain."""
        return integer_records(query, self.domain)

    def transformer(self) -> Any:
        """A ``TableTransformer`` fitted on a public frame listing every category."""
        import pandas as pd
        from snsynth.transform.label import LabelTransformer

        snsynth = _import_snsynth()
        longest = max(CATEGORIES)
        public = pd.DataFrame(
            {
                c: [min(i, k - 1) for i in range(longest)]
                for c, k in zip(COLUMNS, CATEGORIES, strict=True)
            }
        )
        table = snsynth.TableTransformer([LabelTransformer(nullable=False) for _ in COLUMNS])
        table.fit(public)
        return table

    def release(self, rows: np.ndarray) -> np.ndarray:
        """One fit and sample on ``rows``: the synthetic table's count in each cell."""
        import pandas as pd

        snsynth = _import_snsynth()
        frame = pd.DataFrame(rows, columns=list(COLUMNS))
        synth = snsynth.Synthesizer.create(self.synth, epsilon=self.epsilon, **self.options)
        if self.categories == "declared":
            hints: dict[str, Any] = {"transformer": self.transformer()}
        else:
            hints = {"categorical_columns": list(COLUMNS)}
        # SmartNoise warns (MWEM: "0 based indices") and prints (MST, AIM) as it fits
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            synth.fit(frame, **hints)
            table = synth.sample(self.rows)
        cells = np.asarray(pd.DataFrame(table, columns=list(COLUMNS)), dtype=np.int64)
        if cells.shape != (self.rows, self.columns):
            raise ValueError(f"the synthetic table has shape {cells.shape}")
        for j, k in enumerate(CATEGORIES):
            if cells[:, j].min() < 0 or cells[:, j].max() >= k:
                raise ValueError(f"synthetic column {COLUMNS[j]!r} left 0..{k - 1}")
        flat = np.ravel_multi_index(tuple(cells.T), CATEGORIES)
        return np.bincount(flat, minlength=self.output_length)

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` independent fits and samples on dataset ``query``: shape (n, 6)."""
        rows = self.records(query)
        out = np.empty((n, self.output_length), dtype=np.int64)
        for i in range(n):
            out[i] = self.release(rows)
        return out


def builtin_adapters() -> list[Any]:
    """MST with declared categories (correct), MST with categories read from the data (a
    misconfiguration), and MWEM with declared categories (raises ImportError without the
    ``synth`` extra)."""
    _import_snsynth()  # ImportError here means: skipped, install the extra
    return [
        SynthMarginals("mst"),
        SynthMarginals("mst", categories="data"),
        SynthMarginals("mwem"),
    ]
