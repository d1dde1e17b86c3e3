"""Reproducers next to a report (``reproduce/<adapter>.py``) and ``dp-audit reproduce``.

The script itself is rendered by ``reports.reproducer``; this module finds the mechanism's
standalone source: the adapter's own ``reproducer_source()`` (built-in adapters draw through the
library's public API, without dp-audit), else an import of the module the adapter was loaded
from (adapters users write).
"""

from __future__ import annotations

import inspect
from typing import Any

from auditor.core import keyed
from auditor.core.errors import AdapterLoadError, DPAuditError, InvalidArgument, describe
from auditor.core.kinds import OutputKind
from auditor.core.space import Configured
from auditor.core.spec import adapter_label, check_adapter
from auditor.core.text import printable
from reports.reproducer import NotReproducible, render_reproducer, script_name, target_source

#: the folder of the report set that holds the scripts
FOLDER = "reproduce"


def mechanism_source(
    adapter: Any, target: str | None, configuration: dict[str, Any] | None = None
) -> str:
    """How the script draws the adapter's outputs without dp-audit (see the module notes).

    Raises:
        NotReproducible: the adapter has no source of its own and no target to import.
    """
    name = adapter_label(adapter)
    write = getattr(adapter, "reproducer_source", None)
    if callable(write):
        try:
            return _with_keys(adapter, str(write()))
        except Exception as exc:  # noqa: BLE001 - adapter code: a note, never a crash
            raise NotReproducible(f"{name}: reproducer_source() raised {describe(exc)}") from None
    if not target:
        raise NotReproducible(
            f"{name}: no reproducer_source() and no target to import it from (adapters passed "
            "as objects in Python)"
        )
    return _with_keys(adapter, target_source(target, name, configuration))


#: what the encoding of open-key outputs needs, beside numpy (imported by every script)
_KEYED_IMPORTS = """import math
import numbers
from collections.abc import Hashable, Mapping, Sequence
from typing import Any
"""


def _with_keys(adapter: Any, source: str) -> str:
    """``source``, then, for an open-key adapter, ``sample`` wrapped in dp-audit's encoding of
    each output (``auditor.core.keyed``, copied: the script needs no dp-audit), so the event
    reads the rows the audit counted."""
    try:
        output = check_adapter(adapter).output
    except DPAuditError:
        return source
    if not output.keys:
        return source
    parts = [_KEYED_IMPORTS] + [
        inspect.getsource(part)
        for part in (keyed.KeyedOutputProblem, keyed._pairs, keyed._finite, keyed.encode_keyed)
    ]
    return "\n".join(
        [
            source.rstrip(),
            "# open keys: each output encoded as dp-audit encodes it (auditor/core/keyed.py)",
            *parts,
            f"_KEYS = {list(output.keys)!r}",
            f"_FRAME = {output.frame_columns!r}",
            "_sample_keyed = sample\n",
            "def sample(query, n):",
            "    return encode_keyed(_sample_keyed(query, n), n, _KEYS, _FRAME)\n",
        ]
    )


def output_contract(adapter: Any, dtype: str | None = None) -> dict[str, Any] | None:
    """What the audit's outputs were, for the script to refuse others: the declared output
    kind (shape, fields, integers or not) and, for real outputs, the ``dtype`` they came in
    (``numpy.dtype.str``, when known).  None when the adapter's declaration cannot be read."""
    try:
        out = check_adapter(adapter).output
    except DPAuditError:
        return None
    record = out.kind is OutputKind.RECORD
    real = out.kind is OutputKind.REAL and not out.nullable
    return {
        "label": out.label,
        "length": out.length if isinstance(out.length, str) else int(out.length),
        "fields": [name for name, _, _ in out.fields] if record else None,
        "integers": out.kind not in (OutputKind.REAL, OutputKind.RECORD),
        "dtype": dtype if real and dtype is not None and dtype[1] in "fi" else None,
    }


def reproducers(data: dict[str, Any], adapters: list[Any]) -> tuple[dict[str, str], list[str]]:
    """Scripts ``reproduce/<adapter>.py`` for every violation in report ``data``, and a note for
    each violation that has none (why).  Each result with a script gets its path as
    ``"reproducer"``, which the rendered reports show."""
    by_name = {adapter_label(a): a for a in adapters}
    files: dict[str, str] = {}
    notes: list[str] = []
    for r in data.get("results", []):
        if r.get("verdict") != "violation":
            continue
        name = r["adapter"]
        try:
            adapter = _configured(r, by_name.get(_base(r)))
            source = mechanism_source(adapter, r.get("target"), r.get("configuration"))
            path = f"{FOLDER}/{script_name(name)}"
            contract = output_contract(adapter, (r.get("replay") or {}).get("dtype"))
            files[path] = render_reproducer(r, source, outputs=contract)
            r["reproducer"] = path
        except NotReproducible as exc:
            notes.append(str(exc))
    return files, notes


def reproducer_for(data: dict[str, Any], name: str) -> str:
    """The script for adapter ``name`` of report ``data``, loading the adapter from its target.

    Raises:
        InvalidArgument: no such violation, no target, or nothing to replay (the message says).
    """
    from dp_audit.loading import load_named

    results = {r.get("adapter"): r for r in data.get("results", [])}
    if name not in results:
        known = ", ".join(
            sorted(str(n) for n, r in results.items() if r.get("verdict") == "violation")
        )
        raise InvalidArgument(
            f"the report has no adapter named {printable(name)!r} (its violations: {known or 'none'})"
        )
    r = results[name]
    target = r.get("target")
    if not target:
        raise InvalidArgument(
            f"the report does not say where {printable(name)!r} was loaded from (a report from "
            "before dp-audit 0.3, or an adapter passed as an object); rerun the audit"
        )
    base = _base(r)
    try:
        loaded = [a for a, _ in load_named(target) if adapter_label(a) == base]
    except AdapterLoadError as exc:
        raise InvalidArgument(str(exc)) from None
    try:
        adapter = _configured(r, loaded[0] if loaded else None)
        source = mechanism_source(adapter, target, r.get("configuration"))
        contract = output_contract(adapter, (r.get("replay") or {}).get("dtype"))
        return render_reproducer(r, source, outputs=contract)
    except NotReproducible as exc:
        raise InvalidArgument(str(exc)) from None


def _base(r: dict[str, Any]) -> str:
    """The name of the adapter a result came from (a searched one's base adapter)."""
    configuration = r.get("configuration")
    return str(configuration["adapter"]) if configuration else str(r["adapter"])


def _configured(r: dict[str, Any], base: Any) -> Any:
    """The adapter of result ``r`` from its base adapter (rebuilt at its configuration).

    Raises:
        NotReproducible: no base adapter, or rebuilding it raised.
    """
    if base is None:
        raise NotReproducible(f"{r['adapter']}: the adapter {_base(r)!r} is not loaded")
    configuration = r.get("configuration")
    if not configuration:
        return base
    values = configuration["parameters"]
    try:
        return Configured(_base(r), base.with_parameters(**values), values)
    except Exception as exc:  # noqa: BLE001 - adapter code rebuilding the configuration
        raise NotReproducible(f"{r['adapter']}: rebuilding it raised {describe(exc)}") from None


__all__ = ["FOLDER", "mechanism_source", "reproducer_for", "reproducers", "script_name"]
