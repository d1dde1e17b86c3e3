"""The delta bound and where a tightened violation first crossed reach every report format."""

from __future__ import annotations

import copy
from typing import Any

from reports.html import render_html
from reports.junit import render_junit
from reports.markdown import render_markdown

DELTA = {
    "delta_lower_bound": 0.00042,
    "epsilon": 1.0,
    "event": "key 7 released",
    "counts": {"k0": 93, "n0": 200_000, "k1": 0, "n1": 200_000},
    "alpha": 0.001,
    "trial": "D and D plus one record of 7",
}
FIRST = {"bound": 1.3, "n_certify": 20_000, "looks": 2}


def _with_both(report: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(report)
    r = next(r for r in data["results"] if r["verdict"] == "violation")
    r["claim"] = {**r["claim"], "delta": 1e-5}
    r["delta_lower_bound"], r["first_certified"] = DELTA, FIRST
    for other in data["results"]:
        if other is not r:
            other.pop("delta_lower_bound", None)
            other.pop("first_certified", None)
    return data


def test_every_format_states_the_delta_bound_and_the_first_certifying_look(report_dict):
    data = _with_both(report_dict)
    pages = {
        "markdown": render_markdown(data),
        "html": render_html(data),
        "junit": render_junit(data),
    }
    for name, page in pages.items():
        assert "0.00042" in page and "key 7 released" in page, name
        assert "93 of 200,000" in page and "exceeds the claim" in page, name
        assert "first certified at 1.3 on 20,000 outputs per side (look 2)" in page, name
    # and nothing of the kind where the result has neither
    plain = copy.deepcopy(report_dict)
    for r in plain["results"]:
        r.pop("delta_lower_bound", None)
        r.pop("first_certified", None)
    for page in (render_markdown(plain), render_html(plain), render_junit(plain)):
        assert "certified δ ≥" not in page and "first certified at" not in page
