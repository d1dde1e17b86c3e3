"""Where the built-in adapters live.

Each target is a ``module:attr`` string naming a zero-argument callable that returns a list of
adapters.  Strings, not imports: listing the built-ins must not import optional libraries
(diffprivlib, OpenDP, python-dp, Opacus, SmartNoise, Tumult).  A target whose library is missing is skipped with a note.
"""

from __future__ import annotations

#: ``(target, library, extra)``: ``extra`` is the pip extra that installs the library, or None.
#:
#: Groups audited only when named (``dp-audit run --adapter 'benchmark.*'``): the testers'
#: benchmark mechanisms (StatDP, DP-Sniper), mostly broken on purpose and each at its paper's
#: epsilon, are for comparing testers and for teaching; the libraries' vector, quantile and
#: partition APIs call the library once per output, so at the full budget each takes minutes,
#: too long for every default run (``--adapter 'diffprivlib.tools.*'``, ``'pipeline_dp.*'``,
#: ``'smartnoise_sql.*'``, ``'smartnoise_synth.*'``, ``'opendp_context.*'``, ``'tumult.*'``).
OPT_IN_TARGETS: tuple[tuple[str, str, str | None], ...] = (
    ("auditor.adapters.benchmarks:builtin_adapters", "numpy", None),
    ("auditor.adapters.diffprivlib_adapters:vector_adapters", "diffprivlib", "libs"),
    ("auditor.adapters.opendp_adapters:vector_adapters", "opendp", "libs"),
    ("auditor.adapters.pydp_adapters:vector_adapters", "python-dp", "libs"),
    ("auditor.adapters.pipeline_dp_adapters:builtin_adapters", "pipeline-dp", "libs"),
    # OpenDP's Context / Polars API: grouped counts with private keys (systems-analytics.md)
    (
        "auditor.adapters.opendp_context_adapters:builtin_adapters",
        "opendp[polars] (opendp_context.*)",
        "libs",
    ),
    # one query execution per output (about 15 ms): run with a modest --budget (systems-sql.md)
    ("auditor.adapters.smartnoise_sql_adapters:builtin_adapters", "smartnoise-sql", "sql"),
    # the same queries on the PostgreSQL server named by $DP_AUDIT_POSTGRES_DSN
    ("auditor.adapters.smartnoise_sql_adapters:postgres_adapters", "smartnoise-sql", "sql"),
    # SmartNoise Synth: one whole fit and sample per output, 0.1 s (MWEM) to 3 s (MST): run
    # with a small --budget (systems-synth.md)
    (
        "auditor.adapters.smartnoise_synth_adapters:builtin_adapters",
        "smartnoise-synth (smartnoise_synth.*)",
        "synth",
    ),
    # Tumult Analytics on Spark local[2]: many outputs per Spark job (systems-analytics.md)
    ("auditor.adapters.tumult_adapters:builtin_adapters", "tmlt.analytics (tumult.*)", "tumult"),
)

BUILTIN_TARGETS: tuple[tuple[str, str, str | None], ...] = (
    ("auditor.adapters.textbook:builtin_adapters", "numpy", None),
    ("auditor.adapters.reference:builtin_adapters", "dp-audit", None),
    ("auditor.adapters.reference_selection:builtin_adapters", "dp-audit", None),
    ("auditor.adapters.reference_dataset:builtin_adapters", "dp-audit", None),
    ("auditor.adapters.reference_vector:builtin_adapters", "dp-audit", None),
    ("auditor.adapters.diffprivlib_adapters:builtin_adapters", "diffprivlib", "libs"),
    ("auditor.adapters.opendp_adapters:builtin_adapters", "opendp", "libs"),
    ("auditor.adapters.pydp_adapters:builtin_adapters", "python-dp", "libs"),
    ("auditor.adapters.opacus_adapters:builtin_adapters", "opacus", "opacus"),
)
