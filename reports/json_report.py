"""The machine-readable report: ``report.json`` (schema ``dp-audit/1``)."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from auditor.core.errors import InvalidArgument
from auditor.core.results import SCHEMA

#: JSON Schema (draft 2020-12) of report.json; shipped as package data
SCHEMA_PATH = Path(__file__).with_name("schema") / "report.schema.json"


def report_schema() -> dict[str, Any]:
    """The report.json JSON Schema as a dictionary (validate with any draft 2020-12 validator)."""
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def render_json(report: dict[str, Any]) -> str:
    """Indented JSON; each result's ``output_sample`` (thousands of numbers) on one line; a
    result with a curve claim and counts gets ``epsilon_by_delta`` (``with_epsilon_by_delta``)."""
    token = "@@dp-audit-output-sample-{}@@"
    samples: list[Any] = []
    results = []
    report = with_epsilon_by_delta(report)
    for r in report.get("results") or []:
        if isinstance(r, dict) and r.get("output_sample"):
            samples.append(r["output_sample"])
            r = {**r, "output_sample": token.format(len(samples) - 1)}
        results.append(r)
    text = json.dumps(
        {**report, "results": results} if samples else report,
        indent=2,
        ensure_ascii=False,
        allow_nan=False,
    )
    if text.count('"@@dp-audit-output-sample-') != len(samples):  # a string mimics the token
        return json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    for i, sample in enumerate(samples):
        compact = json.dumps(sample, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        text = text.replace(json.dumps(token.format(i)), compact, 1)
    return text + "\n"


def with_epsilon_by_delta(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with each result's ``epsilon_by_delta`` (``reports.epsilon_by_delta``): the
    certified and the claimed ε at each δ of a curve claim, derived from the stored counts.
    A result that does not parse is left as it is (the numbers it holds are the report)."""
    from reports.epsilon_by_delta import epsilon_by_delta

    results = []
    for r in report.get("results") or []:
        if isinstance(r, dict) and isinstance(r.get("claim"), dict) and r.get("counts"):
            try:
                points = epsilon_by_delta(r)
            except InvalidArgument:
                points = None
            r = {**r, "epsilon_by_delta": points} if points else r
        results.append(r)
    return {**report, "results": results} if "results" in report else report


def load_report(text: str, source: str = "report") -> dict[str, Any]:
    """Parse a report.json, checking it is one this version can read.

    Raises:
        InvalidArgument: not JSON, or not a ``dp-audit/1`` report.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidArgument(
            f"{source} is not valid JSON ({exc.msg} at line {exc.lineno})"
        ) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else type(data).__name__
        raise InvalidArgument(f"{source} has schema {found!r}, expected {SCHEMA!r}")
    import jsonschema.exceptions

    # best_match looks inside anyOf/oneOf for the error that says what to fix
    problem = jsonschema.exceptions.best_match(_validator().iter_errors(data))
    if problem is not None:
        where = "/".join(str(part) for part in problem.absolute_path) or "the top level"
        raise InvalidArgument(
            f"{source} is not a valid {SCHEMA} report: at {where}, {problem.message[:200]}"
        )
    return data


@functools.cache
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(report_schema())
