"""Adapters for Tumult Analytics on Spark in local mode (``pip install 'dp-audit[tumult]'``).

A user of Tumult Analytics writes::

    session = Session.from_dataframe(privacy_budget=PureDPBudget(1), source_id="sales",
                                     dataframe=spark_frame, protected_change=AddOneRow())
    session.evaluate(QueryBuilder("sales").count(), PureDPBudget(1)).toPandas()

and gets a one-row Spark frame.  Each adapter here runs one such query (a total count, a
clamped sum, or a count grouped by a ``KeySet`` of regions) through ``Session.evaluate``,
exactly as a user calls it, over the dataset as a Spark ``DataFrame`` (records are rows
``region`` or ``amount``, or ``(user_id, region)`` where a user holds any number of rows and
``user_column = 0``).  The claim is Tumult's own accounting: a session is opened with twice
the query's budget on a small example table, the query is evaluated once, and the claim is
what the session's accountant spent (initial budget minus ``remaining_privacy_budget``):
``PureDPBudget`` → pure ε, ``RhoZCDPBudget`` → ``zcdp:rho``.

**Many outputs per Spark job.**  One ``evaluate`` is a few Spark jobs (about 4 s on two
loaded cores), so one output per job gives under one output per second.  :meth:`sample`
instead evaluates one query over the dataset replicated r times with a replicate id ``rep``
(``spark.range(r)`` cross-joined in Spark), grouped by the public ``KeySet`` of ``rep``
(times the query's own keys).  Replicate j's answer has exactly the law of the single-dataset
query on D:

- its exact aggregate is the aggregate of D: the rows with ``rep = j`` are D's rows (the
  groupby partitions the rows, and the replicated ids ``rep * 2**20 + user`` keep each
  replicate's users apart, so ``MaxRowsPerID`` truncates each replicate's user as it would
  the single user; a count after truncation does not depend on which rows are kept);
- its noise has the single query's law: Tumult adds one independent draw per output row from
  one mechanism whose scale it calibrates to the query's sensitivity under the protected
  change, which for a grouped count or sum over a public ``KeySet`` is that of the ungrouped
  query (one row, or one user, changes one group).  This is *checked*, not assumed: before
  every batched evaluation, Tumult's own ``Session._noise_info`` for the batched query must
  equal that for the single query (mechanism and parameter) or :meth:`sample` raises;
- the draws are independent across rows and across evaluations (Tumult Core's generator,
  RDRAND or ``os.urandom``, in each Spark Python worker).

The budget spent on the replicated table is not what is audited; it is a device to draw r
outputs at once.  ``batched=False`` evaluates the plain query once per output, for comparing
(``bench/bench_tumult.py``).  The Spark session is shared by the process, started on first
use (``spark_session``) and stopped at exit (:func:`stop_spark`, registered with ``atexit``).

Tumult's noise comes from RDRAND or the operating system and cannot be seeded: no ``seed``.
:func:`builtin_adapters` raises ``ImportError`` without ``tmlt.analytics`` (skipped).

References:
    Tumult Analytics 0.21 (``Session``, ``QueryBuilder``, ``KeySet``, ``AddOneRow``,
    ``AddRowsWithID``, ``MaxRowsPerID``); Berghel et al., "Tumult Analytics: a robust,
    easy-to-use, scalable, and expressive framework for differential privacy", 2022.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import threading
import warnings
from typing import Any

import numpy as np

from auditor.adapters._provenance import as_integer, installed_version
from auditor.adapters.base import NamedRepr
from auditor.core.claim_kinds import ZeroConcentratedDP

__all__ = ["REGIONS", "TumultQuery", "builtin_adapters", "spark_session", "stop_spark"]

#: the key labels: record value j is region ``REGIONS[j]``
REGIONS = ("north", "south", "east", "west")

#: users are ids ``0 .. _MAX_USER``; a replicate's ids are ``rep * _ID_STRIDE + user``
_MAX_USER = 10**6
_ID_STRIDE = 2**20

#: the most rows (records x replicates) one Spark job holds
MAX_ROWS = 2**23

_SPARK: dict[str, Any] = {}
_LOCK = threading.Lock()


def spark_session() -> Any:
    """The process's Spark session (``local[2]``), started on first use, stopped at exit.

    Spark's Python workers must run this interpreter (where Tumult is installed), so
    ``PYSPARK_PYTHON`` is set to it unless the user set it.  Tumult's temporary tables go to a
    warehouse in a temporary directory, removed when the session stops, never into the
    user's working directory.  A session the caller already started is used as it is, and
    left running.
    """
    from pyspark.sql import SparkSession

    with _LOCK:
        existing = SparkSession.getActiveSession()
        if "session" not in _SPARK and existing is not None:
            return existing
        if "session" not in _SPARK:
            os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
            _SPARK["warehouse"] = tempfile.mkdtemp(prefix="dp-audit-spark-")
            session = (
                SparkSession.builder.master("local[2]")
                .appName("dp-audit")
                .config("spark.ui.enabled", "false")
                .config("spark.ui.showConsoleProgress", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.execution.arrow.pyspark.enabled", "true")
                .config("spark.sql.warehouse.dir", _SPARK["warehouse"])
                .getOrCreate()
            )
            session.sparkContext.setLogLevel("ERROR")
            _SPARK["session"] = session
            atexit.register(stop_spark)
        return _SPARK["session"]


def stop_spark() -> None:
    """Stop the shared Spark session and end its JVM (if this module started one).

    ``SparkSession.stop`` leaves PySpark's gateway JVM running until the interpreter exits;
    shutting the gateway down and waiting for its process ends the JVM now, so a test (or
    a long-lived worker) that is done with Spark holds no JVM.
    """
    with _LOCK:
        session = _SPARK.pop("session", None)
        if session is None:
            return
        from pyspark import SparkContext

        session.stop()
        gateway = SparkContext._gateway
        if gateway is not None:
            process = getattr(gateway, "proc", None)
            gateway.shutdown()
            if process is not None:
                process.terminate()
                process.wait(timeout=60)
            SparkContext._gateway = None
            SparkContext._jvm = None
        warehouse = _SPARK.pop("warehouse", None)
        if warehouse is not None:  # Tumult's temporary tables
            shutil.rmtree(warehouse, ignore_errors=True)


class TumultQuery(NamedRepr):
    """One Tumult Analytics query through ``Session.evaluate``.

    Args:
        statistic: ``"count"`` (``QueryBuilder.count()``), ``"sum"`` (``.sum("amount", 0,
            upper)``) or ``"groupby_count"`` (``.groupby(keys).count()`` by region).
        epsilon: ``PureDPBudget(epsilon)``; or ``rho``: ``RhoZCDPBudget(rho)`` (one of them).
        user_rows: records are rows ``(user_id, region)``, a user holding any number.
        max_rows_per_id: with ``user_rows``, ``AddRowsWithID("user_id")`` and
            ``.enforce(MaxRowsPerID(k))`` (correct); None keeps ``AddOneRow()`` (a
            misconfiguration when users hold several rows).
        keys_from_data: the groupby's ``KeySet`` is read from the private table
            (``KeySet.from_dataframe``), a misconfiguration; else it is the public regions.
        upper: the sum's clamping bounds are ``(0, upper)``; amounts in the data go to
            ``2 * upper`` so that Tumult's clamping is exercised.
        batched: r outputs per Spark job (module docstring); False: one job per output.
    """

    library = "tmlt.analytics"
    input_kind = "dataset"
    neighbours = "add_remove"
    vectorised = True

    def __init__(
        self,
        statistic: str = "count",
        *,
        epsilon: float | None = 1.0,
        rho: float | None = None,
        user_rows: bool = False,
        max_rows_per_id: int | None = None,
        keys_from_data: bool = False,
        upper: int = 10,
        batched: bool = True,
    ) -> None:
        if statistic not in ("count", "sum", "groupby_count"):
            raise ValueError(f"statistic={statistic!r} must be count, sum or groupby_count")
        if (epsilon is None) == (rho is None):
            raise ValueError(f"give one of epsilon={epsilon!r} and rho={rho!r}")
        level = epsilon if rho is None else rho
        if not (level is not None and level > 0):
            raise ValueError(f"the budget {level!r} must be > 0")
        if max_rows_per_id is not None and not user_rows:
            raise ValueError("max_rows_per_id needs user_rows=True (rows with user ids)")
        if user_rows and statistic == "sum":
            raise ValueError("user_rows is for counts (records (user_id, region))")
        self.statistic, self.zcdp, self.level = statistic, rho is not None, float(level)
        self.user_rows, self.keys_from_data = bool(user_rows), bool(keys_from_data)
        self.max_rows = None if max_rows_per_id is None else as_integer(max_rows_per_id)
        self.upper, self.batched = as_integer(upper, "upper"), bool(batched)
        self.library_version = installed_version("tmlt.analytics")
        self._configure_records()
        self.name = self._name()
        self._claim: tuple[float, str] | None = None

    def _configure_records(self) -> None:
        self.user_column: int | None = None
        self.columns = 1
        self.domain: Any = (0, len(REGIONS) - 1)
        if self.statistic == "sum":
            self.domain = (0, 2 * self.upper)
            self.sensitivity = float(self.upper)
        elif self.statistic == "count" and not self.user_rows:
            self.sensitivity = 1.0
        if self.user_rows:
            self.columns, self.user_column = 2, 0
            self.domain = ((0, _MAX_USER), (0, len(REGIONS) - 1))
        if self.statistic == "groupby_count":
            self.output_kind, self.value_kind, self.keys = "keyed", "integer", REGIONS
        else:
            self.output_kind = "integer"

    def _name(self) -> str:
        options = []
        if self.user_rows:
            options.append(
                "AddOneRow, users with many rows"
                if self.max_rows is None
                else f"AddRowsWithID, MaxRowsPerID={self.max_rows}"
            )
        if self.keys_from_data:
            options.append("KeySet from the data")
        if not self.batched:
            options.append("one job per output")
        return f"tumult.{self.statistic}" + (f"({', '.join(options)})" if options else "")

    # --- Tumult's objects ------------------------------------------------------------------

    def budget(self) -> Any:
        """The query's budget, as the user passes it to ``evaluate``."""
        from tmlt.analytics import PureDPBudget, RhoZCDPBudget

        return RhoZCDPBudget(self.level) if self.zcdp else PureDPBudget(self.level)

    def session(self, frame: Any, budget: Any) -> Any:
        """A ``Session`` over ``frame`` with ``budget`` and the configured protected change."""
        from tmlt.analytics import AddOneRow, AddRowsWithID, Session

        change = AddOneRow() if self.max_rows is None else AddRowsWithID("user_id")
        return Session.from_dataframe(
            privacy_budget=budget, source_id="sales", dataframe=frame, protected_change=change
        )

    def query(self, frame: Any, replicates: int | None) -> Any:
        """The query; grouped by the public ``KeySet`` of ``rep`` when ``replicates``."""
        from tmlt.analytics import KeySet, MaxGroupsPerID, MaxRowsPerID, QueryBuilder

        builder = QueryBuilder("sales")
        if self.max_rows is not None:
            builder = builder.enforce(MaxRowsPerID(self.max_rows))
        reps = None if replicates is None else KeySet.from_dict({"rep": list(range(replicates))})
        if reps is not None and self.max_rows is not None:
            builder = builder.enforce(MaxGroupsPerID("rep", 1))  # each id is in one replicate
        if self.statistic == "groupby_count":
            if self.keys_from_data:
                columns = ["region"] if reps is None else ["rep", "region"]
                keys = KeySet.from_dataframe(frame.select(*columns))
            else:
                keys = KeySet.from_dict({"region": list(REGIONS)})
                keys = keys if reps is None else reps * keys
            return builder.groupby(keys).count()
        grouped = builder if reps is None else builder.groupby(reps)
        if self.statistic == "sum":
            return grouped.sum("amount", 0, self.upper, name="value")
        return grouped.count(name="value")

    # --- the claim --------------------------------------------------------------------------

    def _read_claim(self) -> tuple[float, str]:
        """What Tumult's accountant spends on one evaluation (module docstring)."""
        if self._claim is None:
            example = np.zeros((11, self.columns), dtype=np.int64)
            example[:, -1] = np.arange(11) % len(REGIONS)  # regions, or amounts
            example[:, 0] += np.arange(11) * self.user_rows  # one user per row
            frame = self.frame(example)
            granted = 2 * self.level
            session = self.session(frame, type(self.budget())(granted))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                info = session._noise_info(self.query(frame, None), self.budget())
                session.evaluate(self.query(frame, None), self.budget()).collect()
            left = session.remaining_privacy_budget
            spent = granted - float(left.rho if self.zcdp else left.epsilon)
            noise = ", ".join(f"{i['noise_mechanism'].name} {i['noise_parameter']}" for i in info)
            self._claim = (spent, noise)
        return self._claim

    @property
    def claim(self) -> Any:
        """zCDP: ``ZeroConcentratedDP(rho)``, the ρ Tumult's accountant spends; pure: None."""
        return ZeroConcentratedDP(self._read_claim()[0]) if self.zcdp else None

    @property
    def epsilon(self) -> float:
        """Pure DP: the ε Tumult's accountant spends; zCDP: the ε of the point ρ implies."""
        return float(self.claim.epsilon) if self.zcdp else self._read_claim()[0]

    @property
    def delta(self) -> float:
        return float(self.claim.delta) if self.zcdp else 0.0

    @property
    def description(self) -> str:
        spent, noise = self._read_claim()
        change = "AddOneRow()" if self.max_rows is None else "AddRowsWithID('user_id')"
        keys = "KeySet.from_dataframe(private data)" if self.keys_from_data else "public regions"
        what = {
            "count": "count()",
            "sum": f"sum('amount', 0, {self.upper}) (amounts up to {2 * self.upper})",
            "groupby_count": f"groupby({keys}).count()",
        }[self.statistic]
        unit = "rows (user_id, region)" if self.user_rows else "one row per user"
        enforce = f"enforce(MaxRowsPerID({self.max_rows})); " if self.max_rows else ""
        kind = "RhoZCDPBudget" if self.zcdp else "PureDPBudget"
        return (
            f"tmlt.analytics {self.library_version} on Spark local[2]: Session.evaluate("
            f"QueryBuilder('sales').{enforce}{what}, {kind}({self.level})) over {unit}; "
            f"protected change {change}; noise {noise}; claim = budget the session spent "
            f"({spent:g}); {'batched: r replicates per Spark job' if self.batched else 'one job per output'}"
        )

    # --- releases ---------------------------------------------------------------------------

    def records(self, query: Any) -> np.ndarray:
        """The dataset as an (m, columns) int64 array, checked against the domain."""
        rows = np.asarray(query).reshape(-1, self.columns)
        if len(rows) == 0 or not np.all(rows == np.round(rows)):
            raise ValueError(f"records must be whole numbers, got shape {rows.shape}")
        rows = rows.astype(np.int64)
        domains = self.domain if self.columns > 1 else (self.domain,)
        for j, (lo, hi) in enumerate(domains):
            if rows[:, j].min() < lo or rows[:, j].max() > hi:
                raise ValueError(f"column {j} must lie in [{lo}, {hi}]")
        return rows

    def frame(self, rows: np.ndarray, replicates: int | None = None) -> Any:
        """The table as a Spark frame; cross-joined with ``rep = 0 .. r-1`` when given."""
        import pandas as pd
        from pyspark.sql import functions as f

        spark = spark_session()
        if self.user_rows:
            table = {"user_id": rows[:, 0], "region": [REGIONS[k] for k in rows[:, 1]]}
        elif self.statistic == "sum":
            table = {"amount": rows[:, 0]}
        else:
            table = {"region": [REGIONS[k] for k in rows[:, 0]]}
        frame = spark.createDataFrame(pd.DataFrame(table))
        if replicates is None:
            return frame
        frame = frame.crossJoin(spark.range(replicates).withColumnRenamed("id", "rep"))
        if self.user_rows:
            frame = frame.withColumn("user_id", f.col("rep") * _ID_STRIDE + f.col("user_id"))
        return frame

    def _evaluate(self, rows: np.ndarray, replicates: int | None) -> Any:
        """One ``evaluate`` on the table (replicated ``replicates`` times), as pandas."""
        frame = self.frame(rows, replicates)
        session = self.session(frame, self.budget())
        query = self.query(frame, replicates)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if replicates is not None:
                batched = session._noise_info(query, self.budget())
                single = session._noise_info(self.query(frame, None), self.budget())
                if batched != single:
                    raise RuntimeError(
                        f"the batched query's noise {batched} differs from the single "
                        f"query's {single}: its replicates would not have the query's law"
                    )
            return session.evaluate(query, self.budget()).toPandas()

    def _outputs(self, result: Any, replicates: int | None) -> list[Any]:
        """One output per replicate (or the one output), in replicate order."""
        reps = range(1) if replicates is None else range(replicates)
        rep = result["rep"].to_numpy() if replicates is not None else np.zeros(len(result), int)
        if self.output_kind != "keyed":
            values = dict(zip(rep.tolist(), result["value"].tolist(), strict=True))
            if sorted(values) != list(reps):
                raise RuntimeError(f"Tumult returned replicates {sorted(values)[:5]}…")
            return [values[j] for j in reps]
        outputs: list[dict[str, int]] = [{} for _ in reps]
        for j, key, value in zip(rep.tolist(), result["region"], result["count"], strict=True):
            outputs[j][key] = int(value)
        return outputs

    def sample(self, query: Any, n: int) -> Any:
        """``n`` releases on dataset ``query``: integers, or one ``{region: count}`` each."""
        rows = self.records(query)
        outputs: list[Any] = []
        per_job = max(1, min(n, MAX_ROWS // len(rows))) if self.batched else 1
        while len(outputs) < n:
            replicates = min(per_job, n - len(outputs)) if self.batched else None
            outputs.extend(self._outputs(self._evaluate(rows, replicates), replicates))
        if self.output_kind == "keyed":
            return outputs
        return np.asarray(outputs, dtype=np.int64)


def builtin_adapters() -> list[Any]:
    """Three correct queries and three misconfigurations (ImportError without Tumult)."""
    import pyspark  # noqa: F401  (ImportError here means: skipped, install the extra)
    import tmlt.analytics  # noqa: F401

    return [
        TumultQuery("count"),
        TumultQuery("sum"),
        TumultQuery("groupby_count", epsilon=None, rho=0.5),
        TumultQuery("count", user_rows=True, max_rows_per_id=2),
        TumultQuery("count", user_rows=True),
        TumultQuery("groupby_count", epsilon=None, rho=0.5, keys_from_data=True),
    ]
