from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest

from reports.baseline import compare_with_baseline
from reports.json_report import render_json, report_schema


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"].endswith("/draft/2020-12/schema")
    return jsonschema.Draft202012Validator(schema)


def test_real_report_validates(validator: Any, report_dict: dict[str, Any]) -> None:
    written = json.loads(render_json(report_dict))  # what dp-audit run writes to disk
    errors = [e.message for e in validator.iter_errors(written)]
    assert errors == []


def test_report_with_baseline_validates(validator: Any, report_dict: dict[str, Any]) -> None:
    old = copy.deepcopy(report_dict)
    for r in old["results"]:
        if r["adapter"] == "rr.too-weak":
            r["verdict"] = "no_violation"
    data = {**report_dict, "baseline": compare_with_baseline(report_dict, old, path="old.json")}
    assert data["baseline"]["regressions"]
    assert list(validator.iter_errors(json.loads(render_json(data)))) == []


@pytest.mark.parametrize(
    "break_it",
    [
        lambda d: d.pop("results"),
        lambda d: d.update(schema="dp-audit/0"),
        lambda d: d["results"][0].update(verdict="private"),
        lambda d: d["results"][0]["counts"].pop("k1"),
        lambda d: d["versions"].pop("numpy"),
        lambda d: d["results"][0]["output_sample"]["in_event_x"].append(2),
        lambda d: d["results"][0].update(error_traceback=["not", "text"]),
        lambda d: d["results"][0].update(error_traceback="a violation has no traceback"),
    ],
)
def test_schema_rejects_broken_reports(
    validator: Any, report_dict: dict[str, Any], break_it: Any
) -> None:
    data = json.loads(render_json(report_dict))
    assert data["results"][0]["counts"] and data["results"][0]["output_sample"]
    break_it(data)
    assert list(validator.iter_errors(data))


def test_error_traceback_is_optional_text(validator: Any, report_dict: dict[str, Any]) -> None:
    data = json.loads(render_json(report_dict))
    (errored,) = [r for r in data["results"] if r["verdict"] == "error"]
    assert isinstance(errored["error_traceback"], str)  # the fixture's adapter raised
    assert all("error_traceback" in r for r in data["results"])
    assert list(validator.iter_errors(data)) == []
    for r in data["results"]:  # reports written before the field existed
        del r["error_traceback"]
    assert list(validator.iter_errors(data)) == []
    assert "error_traceback" not in report_schema()["$defs"]["result"]["required"]


def test_json_round_trips_with_compact_output_samples(report_dict: dict[str, Any]) -> None:
    text = render_json(report_dict)
    assert json.loads(text) == json.loads(json.dumps(report_dict))
    assert len(text.splitlines()) < 1000  # samples are one line each, not one line per number
    mimic = {
        **report_dict,
        "skipped": ['"@@dp-audit-output-sample-0@@"', "@@dp-audit-output-sample-0@@"],
    }
    assert json.loads(render_json(mimic)) == json.loads(json.dumps(mimic))
