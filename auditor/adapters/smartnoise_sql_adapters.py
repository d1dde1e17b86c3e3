"""Adapters for SmartNoise SQL (``pip install 'dp-audit[sql]'``; imported as ``snsql``).

SmartNoise SQL answers ``SELECT region, COUNT(*) … GROUP BY region`` over a database with
differential privacy: it rewrites the query so that each user keeps at most ``max_ids`` rows
(a random sample of their rows, ``ROW_NUMBER() OVER (PARTITION BY user ORDER BY RANDOM())``),
clamps values to the metadata's bounds, lets the database compute the exact aggregates, adds
Laplace noise to each (OpenDP's ``make_laplace``, scale found for ``max_ids`` rows per user)
and, with ``censor_dims``, releases a group only when a noisy count of its distinct users
passes a threshold set by ``delta``.  One release here is one ``PrivateReader.execute`` of the
query, exactly as a user calls it, over the dataset as a table: through its pandas reader
(SQLite in memory), or on a real PostgreSQL server (:class:`PostgresGroupByQuery`).

The table is ``sales(user_id, region, amount)``: records are rows ``(user id, region,
amount)``, the user id is the privacy unit (``user_column = 0``: a user holds any number of
rows, and the audit adds or removes all of one user's rows), regions are the keys
``0 .. keys - 1`` and amounts are whole numbers in ``0 .. 2 * upper`` (twice the metadata's
bound, so SmartNoise's own clamping is exercised; up to 10 times it for the adapter that
turns clamping off).  The release is the query's answer for each
region of that closed key set, in order, NaN for a region not released (``nullable``).

The claim is SmartNoise's own accounting: ``PrivateReader.get_privacy_cost(query)``, the
(epsilon, delta) its odometer charges for one execution.  ``Privacy(epsilon, delta)`` is per
*noisy column*: ``COUNT`` spends epsilon on the count and epsilon on the distinct-user count
that decides which regions are released (2 epsilon), ``AVG`` on a sum, a count and the user
count (3 epsilon); delta is ``Privacy.delta`` plus the odometer's tolerance of half of it.

Every call parses, rewrites and calibrates the query again; the calibration (a binary search
of OpenDP's privacy map for the noise scale, 80 % of a call) depends only on epsilon, the
bounds and ``max_ids``, so :func:`_import_snsql` memoises it per process — the same scale to
the bit (``tests/unit/adapters/test_smartnoise_sql.py`` checks it), a call of about 15 ms
instead of 100 ms.  Noise comes from OpenDP's generator and rows are sampled by the
database's ``RANDOM()``: neither can be seeded, so no ``seed``; ``vectorised = False``.

References:
    SmartNoise SQL, https://docs.smartnoise.org/sql/ (``PrivateReader``, metadata options
    ``max_ids``, ``sample_max_ids``, ``censor_dims``, ``clamp_columns``); Wilson, Zhang, Lam,
    Desfontaines, Simmons-Marengo, Gipson, "Differentially private SQL with bounded user
    contribution", PoPETs 2020 (user-level bounding and thresholded keys).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from auditor.adapters._provenance import installed_version
from auditor.adapters.base import NamedRepr, integer_records

__all__ = ["GroupByQuery", "PostgresGroupByQuery", "builtin_adapters", "postgres_adapters"]

#: the SQL of each statistic, ``{table}`` filled with the schema-qualified table name
QUERIES = {
    "count": "SELECT region, COUNT(*) AS v FROM {table} GROUP BY region",
    "sum": "SELECT region, SUM(amount) AS v FROM {table} GROUP BY region",
    "mean": "SELECT region, AVG(amount) AS v FROM {table} GROUP BY region",
}

#: environment variable naming the PostgreSQL server of :func:`postgres_adapters` (libpq DSN)
POSTGRES_DSN_ENV = "DP_AUDIT_POSTGRES_DSN"

_MAX_USER_ID = 10**6


def _import_snsql() -> Any:
    """``snsql``, with the Laplace noise scale memoised per process (module docstring).

    The memo is keyed by every input of ``Laplace._compute_noise_scale`` (epsilon, the bounds
    and ``max_contrib``); the search itself is SmartNoise's, run once per key.
    """
    import snsql
    from snsql.sql._mechanisms import laplace

    cls = laplace.Laplace
    if not getattr(cls, "_dp_audit_memo", None):
        search = cls._compute_noise_scale
        memo: dict[tuple[float, float, float, float], float] = {}

        def memoised(self: Any) -> None:
            if self.scale is not None:
                return
            key = (float(self.lower), float(self.upper), float(self.max_contrib), self.epsilon)
            if key not in memo:
                search(self)  # sets self.scale
                memo[key] = vars(self)["scale"]
            self.scale = memo[key]

        cls._compute_noise_scale = memoised
        cls._dp_audit_memo = memo
    return snsql


class GroupByQuery(NamedRepr):
    """One SmartNoise SQL ``GROUP BY region`` query over ``sales(user_id, region, amount)``.

    Args:
        statistic: ``"count"`` (``COUNT(*)``), ``"sum"`` (``SUM(amount)``) or ``"mean"``
            (``AVG(amount)``).
        epsilon, delta: ``snsql.Privacy(epsilon=…, delta=…)``: epsilon per noisy column.
        max_ids: the metadata's bound on rows per user.
        keys: regions ``0 .. keys - 1``, the closed key set of the output.
        upper: the metadata's bounds on ``amount`` are ``(0, upper)``.
        max_amount: records hold amounts in ``0 .. max_amount`` (default ``2 * upper``: the
            bounds are exercised); the data a misconfiguration meets may lie farther out.
        censor_dims, sample_max_ids, clamp_columns: the metadata options of those names.
            SmartNoise's defaults (True) are the correct configuration; each set to False is a
            misconfiguration its documentation allows (``sample_max_ids=False``: "the data
            collection will never have more than max_contrib record per individual";
            ``censor_dims=False``: "small dimensions cannot expose privacy";
            ``clamp_columns=False``: values beyond the bounds "may impact privacy").

    Attributes:
        correct: whether the configuration is private as claimed when users may hold any
            number of rows and amounts may exceed the bounds (dp-audit does not read it).
        costs: SmartNoise's (epsilon, delta) per noisy column of the rewritten query.
    """

    library = "smartnoise-sql"
    vectorised = False
    input_kind = "dataset"
    columns = 3
    user_column = 0
    neighbours = "add_remove"
    nullable = True
    backend = "pandas"

    def __init__(
        self,
        statistic: str = "count",
        *,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        max_ids: int = 1,
        keys: int = 4,
        upper: int = 10,
        max_amount: int | None = None,
        censor_dims: bool = True,
        sample_max_ids: bool = True,
        clamp_columns: bool = True,
    ) -> None:
        if statistic not in QUERIES:
            raise ValueError(f"statistic={statistic!r} must be one of {sorted(QUERIES)}")
        if not epsilon > 0:
            raise ValueError(f"epsilon={epsilon!r} must be > 0")
        if not 0 <= delta < 1 or (censor_dims and delta == 0):
            raise ValueError(f"delta={delta!r} must be in [0, 1) (> 0 with censor_dims)")
        max_amount = 2 * upper if max_amount is None else max_amount
        checked = (
            ("max_ids", max_ids),
            ("keys", keys),
            ("upper", upper),
            ("max_amount", max_amount),
        )
        for arg, value in checked:
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{arg}={value!r} must be a positive int")
        self.statistic = statistic
        self.privacy_epsilon, self.privacy_delta = float(epsilon), float(delta)
        self.max_ids, self.upper = max_ids, upper
        self.options = {
            "censor_dims": bool(censor_dims),
            "sample_max_ids": bool(sample_max_ids),
            "clamp_columns": bool(clamp_columns),
        }
        self.correct = all(self.options.values())
        self.output_length = keys
        self.output_kind = "real" if statistic == "mean" else "integer"
        self.domain: Any = ((0, _MAX_USER_ID), (0, keys - 1), (0, max_amount))
        self.library_version = installed_version("smartnoise-sql")
        off = [k for k, on in self.options.items() if not on]
        self.name = f"smartnoise_sql.{self._prefix()}{statistic}" + (
            f"({','.join(f'{k}=False' for k in off)})" if off else ""
        )
        self.epsilon, self.delta, self.costs = self._claim()
        self.description = (
            f"snsql PrivateReader.execute({self.sql()!r}) via the {self.backend} reader; "
            f"Privacy(epsilon={epsilon}, delta={delta}), max_ids={max_ids}, amount bounds "
            f"(0, {upper}) (amounts in the data up to {max_amount}), {', '.join(f'{k}={v}' for k, v in self.options.items())}; "
            f"claim = get_privacy_cost: ({self.epsilon:.6g}, {self.delta:.6g}) for columns "
            f"{self.costs}; output: regions 0..{keys - 1}, NaN = not released"
        )

    def _prefix(self) -> str:
        return ""

    # --- the table, the metadata and the claim ---------------------------------------------

    def schema(self) -> str:
        """The schema that holds the ``sales`` table the query reads."""
        return "audit"

    def sql(self) -> str:
        """The query as SmartNoise is given it."""
        return QUERIES[self.statistic].format(table=f"{self.schema()}.sales")

    def metadata(self) -> dict[str, Any]:
        """SmartNoise's metadata for the table (the dictionary form of its YAML file)."""
        table = {
            "max_ids": self.max_ids,
            "row_privacy": False,
            **self.options,
            "user_id": {"type": "int", "private_id": True},
            "region": {"type": "int"},
            "amount": {"type": "int", "lower": 0, "upper": self.upper},
        }
        return {"audit": {self.schema(): {"sales": table}}}

    def privacy(self) -> Any:
        """A fresh ``snsql.Privacy`` (its odometer state is per reader)."""
        snsql = _import_snsql()
        return snsql.Privacy(epsilon=self.privacy_epsilon, delta=self.privacy_delta)

    def _claim(self) -> tuple[float, float, list[tuple[float, float]]]:
        """SmartNoise's own cost of one execution (nothing is executed), and per column."""
        import pandas as pd

        snsql = _import_snsql()
        empty = pd.DataFrame({"user_id": [0], "region": [0], "amount": [0]})
        reader = snsql.from_connection(empty, privacy=self.privacy(), metadata=self.metadata())
        epsilon, delta = reader.get_privacy_cost(self.sql())
        costs = [c for c in reader._get_mechanism_costs(self.sql()) if c is not None]
        return float(epsilon), float(delta), [(float(e), float(d)) for e, d in costs]

    # --- releases ---------------------------------------------------------------------------

    def records(self, query: Any) -> np.ndarray:
        """The dataset as an (m, 3) int64 array, checked against the domain."""
        return integer_records(query, self.domain)

    def reader(self, rows: np.ndarray) -> Any:
        """A ``PrivateReader`` over the rows: here SmartNoise's pandas reader."""
        import pandas as pd

        snsql = _import_snsql()
        frame = pd.DataFrame(rows, columns=["user_id", "region", "amount"])
        return snsql.from_connection(frame, privacy=self.privacy(), metadata=self.metadata())

    def answers(self, result: list[Any]) -> np.ndarray:
        """One release (``execute``'s rows, the first the column names) as the key vector."""
        out = np.full(self.output_length, np.nan)
        header, *rows = result
        if [str(h).lower() for h in header] != ["region", "v"]:
            raise ValueError(f"unexpected columns {header!r}")
        for region, value in rows:
            key = int(region)
            if not 0 <= key < self.output_length or not np.isnan(out[key]):
                raise ValueError(f"region {region!r} released outside the key set or twice")
            out[key] = np.nan if value is None else float(value)
        return out

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` executions of the query on dataset ``query``: shape (n, keys)."""
        reader = self.reader(self.records(query))
        sql = self.sql()
        out = np.empty((n, self.output_length), dtype=np.float64)
        for i in range(n):
            out[i] = self.answers(reader.execute(sql))
        return out


class PostgresGroupByQuery(GroupByQuery):
    """The same query through SmartNoise's PostgreSQL reader on a real server.

    ``dsn`` is a libpq connection string (``host=/tmp/x port=5432 user=postgres
    dbname=postgres``).  Each ``sample`` call loads its dataset into a temporary table of this
    process's connection (``pg_temp.sales``: private to the connection, so worker processes
    never see each other's rows, and gone when the connection closes) and then runs the
    query ``n`` times through ``snsql.from_connection(connection, …)``: the rewritten SQL,
    the per-user sampling by ``ROW_NUMBER() … ORDER BY RANDOM()`` included, runs on the
    server.
    """

    backend = "postgres"

    def __init__(self, statistic: str = "count", *, dsn: str, **options: Any) -> None:
        self.dsn = dsn
        super().__init__(statistic, **options)
        self._connection: Any = None
        self._pid = -1

    def _prefix(self) -> str:
        return "postgres."

    def schema(self) -> str:
        return "pg_temp"

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_connection"], state["_pid"] = None, -1  # a connection never crosses processes
        return state

    def connection(self) -> Any:
        """This process's connection (opened on first use, again after a fork)."""
        import psycopg2

        if self._connection is None or self._pid != os.getpid() or self._connection.closed:
            self._connection = psycopg2.connect(self.dsn)
            self._pid = os.getpid()
        return self._connection

    def reader(self, rows: np.ndarray) -> Any:
        snsql = _import_snsql()
        connection = self.connection()
        with connection.cursor() as cursor:
            cursor.execute(
                "CREATE TEMPORARY TABLE IF NOT EXISTS sales "
                "(user_id bigint, region bigint, amount bigint)"
            )
            cursor.execute("TRUNCATE pg_temp.sales")
            cursor.executemany(
                "INSERT INTO pg_temp.sales VALUES (%s, %s, %s)", [tuple(map(int, r)) for r in rows]
            )
        connection.commit()
        return snsql.from_connection(
            connection, engine="postgres", privacy=self.privacy(), metadata=self.metadata()
        )


def builtin_adapters() -> list[Any]:
    """SmartNoise SQL through its pandas reader: count, sum and mean as configured by default
    (correct), and three misconfigurations of the same API (raises ImportError without the
    ``sql`` extra)."""
    _import_snsql()  # ImportError here means: skipped, install the extra
    return [
        GroupByQuery("count"),
        GroupByQuery("sum"),
        GroupByQuery("mean"),
        GroupByQuery("count", censor_dims=False),
        GroupByQuery("count", sample_max_ids=False),
        # bounds of 10 on amounts that reach 100 (say, set in the wrong unit), not clamped
        GroupByQuery("sum", clamp_columns=False, max_amount=100),
    ]


def postgres_adapters() -> list[Any]:
    """The count, correct and with ``sample_max_ids=False``, on the PostgreSQL server named by
    ``$DP_AUDIT_POSTGRES_DSN`` (raises ImportError, a skip, without the extra or the server)."""
    _import_snsql()
    import psycopg2

    dsn = os.environ.get(POSTGRES_DSN_ENV)
    if not dsn:
        raise ImportError(f"no PostgreSQL server: set {POSTGRES_DSN_ENV} (docs/systems-sql.md)")
    try:
        psycopg2.connect(dsn).close()
    except psycopg2.Error as exc:
        raise ImportError(f"cannot connect to {POSTGRES_DSN_ENV}={dsn!r}: {exc}") from exc
    return [
        PostgresGroupByQuery("count", dsn=dsn),
        PostgresGroupByQuery("count", dsn=dsn, sample_max_ids=False),
    ]
