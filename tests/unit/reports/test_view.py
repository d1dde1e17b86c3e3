"""The report view (reports/view.py): one parser of report.json, the numbers the renderers read."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from auditor.core.errors import InvalidArgument
from auditor.statistics.clopper_pearson import cp_lower, cp_upper, epsilon_lower_bound
from reports.json_report import load_report, render_json
from reports.view import TradeoffEvidence, parse_report, parse_result


def test_a_real_report_round_trips_through_report_json(report_dict: dict[str, Any]) -> None:
    in_process = parse_report(report_dict)
    from_file = parse_report(load_report(render_json(report_dict)))
    assert from_file == in_process
    assert [r.adapter for r in from_file.results] == [r["adapter"] for r in report_dict["results"]]
    assert from_file.alpha == report_dict["alpha"] and from_file.seed == report_dict["seed"]
    assert from_file.tests == report_dict["multiple_comparisons"]["tests"]
    assert from_file.skipped == ("python-dp: not installed",)


def test_the_view_holds_the_engine_objects_report_json_was_written_from(
    report_dict: dict[str, Any],
) -> None:
    """Counts, the delta bound and where a violation was first certified are the result
    classes of auditor.core.results, rebuilt: serialised again, they are what the file holds."""
    view = parse_report(report_dict)
    checked = 0
    for r, data in zip(view.results, report_dict["results"], strict=True):
        assert r.verdict == data["verdict"] and r.error == data["error"]
        if data["counts"] is not None:
            assert r.counts is not None and r.counts.to_dict() == data["counts"]
            checked += 1
        if data["delta_lower_bound"] is not None:
            assert r.delta_bound is not None
            assert r.delta_bound.to_dict() == data["delta_lower_bound"]
        if data["first_certified"] is not None:
            assert r.first_certified is not None
            assert r.first_certified.to_dict() == data["first_certified"]
    assert checked >= 3  # two violations and a correct mechanism carry counts


def test_limits_are_the_engines_clopper_pearson_limits_of_the_stored_counts(
    report_dict: dict[str, Any],
) -> None:
    for r in parse_report(report_dict).results:
        ev = r.event_evidence
        if r.verdict == "error":
            assert ev is None
            continue
        assert ev is not None and r.counts is not None and r.alpha is not None
        split = r.alpha_split or 0.5
        c = r.counts
        assert ev.p0_low == cp_lower(c.k0, c.n0, r.alpha * split)
        assert ev.p1_high == cp_upper(c.k1, c.n1, r.alpha * (1 - split))
        # the certified end is the engine's bound as written, which the counts re-derive
        assert ev.lower == r.epsilon_lower_bound
        assert ev.lower == epsilon_lower_bound(c.k0, c.n0, c.k1, c.n1, r.alpha, 0.0, split)
        assert ev.lower <= ev.upper


def _curve_result(claim_bound: float | None) -> dict[str, Any]:
    claim = {"kind": "gdp", "mu": 1.0, "report_delta": 1e-6, "epsilon": 4.9, "delta": 1e-6}
    return {
        "adapter": "synthetic",
        "verdict": "violation",
        "claim": {**claim, "description": "1-GDP"},
        "counts": {"n0": 100_000, "k0": 90_000, "n1": 100_000, "k1": 30_000},
        "alpha": 1e-4,
        "alpha_split": 0.5,
        "estimator": "clopper-pearson",
        "epsilon_lower_bound": 1.0,
        "point_estimate": 1.1,
        **({} if claim_bound is None else {"claim_bound": claim_bound, "parameter": "mu"}),
    }


def test_the_trade_off_box_reads_the_bound_the_engine_wrote() -> None:
    computed = TradeoffEvidence.from_result(_curve_result(None))
    assert computed is not None and computed.violating
    # a report without the bound: computed by the engine's own function, once
    c, claim = _curve_result(None)["counts"], computed.claim
    expected = epsilon_lower_bound(c["k0"], c["n0"], c["k1"], c["n1"], 1e-4, 1e-6, 0.5, claim)
    assert computed.certified == expected
    stated = TradeoffEvidence.from_result(_curve_result(0.25))
    assert stated is not None and stated.certified == 0.25 and not stated.violating


def test_another_schema_version_is_refused() -> None:
    with pytest.raises(InvalidArgument, match=r"old\.json has schema 'dp-audit/0', expected"):
        parse_report({"schema": "dp-audit/0", "results": []}, source="old.json")
    with pytest.raises(InvalidArgument, match="is not a dp-audit/1 report: list"):
        parse_report([], source="x.json")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("counts", "k0"), "many", r"at results/0/counts/k0, expected an integer, found 'many'"),
        (("alpha",), [0.05], r"at results/0/alpha, expected a number"),
        (("claim", "epsilon"), "one", r"at results/0/claim/epsilon, expected a number"),
        (("adapter",), None, r"at results/0/adapter, expected a string, found None"),
        (("notes",), "a note", r"at results/0/notes, expected a list"),
        (("counts",), {"n0": 10}, r"at results/0/counts, expected counts n0, k0, n1, k1"),
    ],
)
def test_a_malformed_result_names_the_field(
    report_dict: dict[str, Any], path: tuple[str, ...], value: Any, message: str
) -> None:
    data = copy.deepcopy(report_dict)
    target = data["results"][0]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(InvalidArgument, match=message):
        parse_report(data, source="bad.json")


def test_a_malformed_file_fails_before_rendering(report_dict: dict[str, Any]) -> None:
    """What ``dp-audit report`` reads: load_report's JSON Schema check, then the view."""
    data = json.loads(render_json(report_dict))
    data["results"][1]["counts"]["n0"] = -1
    with pytest.raises(InvalidArgument, match="not a valid dp-audit/1 report"):
        load_report(json.dumps(data), source="bad.json")


def test_a_partial_result_is_read_with_absent_fields_as_none() -> None:
    r = parse_result({"adapter": "a", "verdict": "error", "error": "boom"})
    assert (r.counts, r.claim, r.limits, r.tradeoff, r.samples) == (None, None, None, None, None)
    assert r.error == "boom" and not r.is_curve and r.is_sampled


def test_numpy_integers_of_an_in_process_dictionary_are_read_as_ints() -> None:
    import numpy as np

    r = parse_result(
        {
            "adapter": "a",
            "verdict": "no_violation",
            "samples": np.int64(40_000),
            "counts": {"n0": np.int64(10), "k0": 3, "n1": 10, "k1": np.int32(1)},
        }
    )
    assert r.samples == 40_000 and type(r.samples) is int
    assert r.counts is not None and (r.counts.n0, r.counts.k1) == (10, 1)
    with pytest.raises(InvalidArgument, match="expected an integer, found True"):
        parse_result({"adapter": "a", "verdict": "error", "samples": True})


def test_a_search_section_is_typed() -> None:
    ranking = [
        {
            "name": "g[eps=2]",
            "score": [1.5, 2.0],
            "rejected": None,
            "error": None,
            "verdict_at_screening": "violation",
        },
        {
            "name": "g[eps=0]",
            "score": [None],
            "rejected": "eps must be > 0",
            "error": None,
            "verdict_at_screening": None,
        },
    ]
    search = {
        "design": "Sobol",
        "configurations": 2,
        "screening_budget": 5000,
        "screening_seed": 7,
        "alpha": "a sentence",
        "adapters": [
            {
                "adapter": "g",
                "space": {"eps": [0, 4]},
                "screened": 2,
                "rejected": 1,
                "finalists": ["g[eps=2]"],
                "ranking": ranking,
            }
        ],
    }
    view = parse_report({"results": [], "search": search}).search
    assert view is not None and view.alpha == "a sentence" and view.screening_seed == 7
    (adapter,) = view.adapters
    assert adapter.finalists == ("g[eps=2]",) and adapter.space == {"eps": [0, 4]}
    assert [(s.ratio, s.rejected) for s in adapter.ranking] == [
        (1.5, None),
        (None, "eps must be > 0"),
    ]
    ranking[0]["name"] = 3
    with pytest.raises(
        InvalidArgument, match="at search/adapters/0/ranking/0/name, expected a string"
    ):
        parse_report({"results": [], "search": search})
