"""What a report carries: provenance, the output sample for plots, Markdown rendering."""

from __future__ import annotations

import platform
from typing import Any

import numpy as np

from reports.markdown import render_markdown


def test_provenance_is_complete(report_dict: dict[str, Any]) -> None:
    versions = report_dict["versions"]
    assert versions["python"] == platform.python_version()
    assert versions["numpy"] == np.__version__
    assert "dp-audit" in versions
    assert {"system", "machine", "platform"} <= set(report_dict["platform"])
    assert report_dict["seed"] == 3 and report_dict["budget"] == 20_000
    assert report_dict["alpha"] == 0.05
    settings = report_dict["settings"]
    assert settings["seed"] == 3 and settings["budget"] == 20_000 and settings["looks"]
    assert report_dict["timing"]["wall_seconds"] > 0 and report_dict["timing"]["started"]
    lsb = next(r for r in report_dict["results"] if r["attack"] == "lsb-laplace")
    assert lsb["library"] == {"name": "numpy", "version": np.__version__}


def test_output_sample_is_in_bound_order_and_marked(report_dict: dict[str, Any]) -> None:
    for r in report_dict["results"]:
        sample = r["output_sample"]
        if r["verdict"] == "error":
            assert sample is None
            continue
        assert 0 < len(sample["x"]) <= 2000 and len(sample["x"]) == len(sample["in_event_x"])
        assert len(sample["x_prime"]) == len(sample["in_event_x_prime"])
        # x is the input on which the event is more likely (the bound's numerator)
        assert np.mean(sample["in_event_x"]) > np.mean(sample["in_event_x_prime"])
    lsb = next(r for r in report_dict["results"] if r["attack"] == "lsb-laplace")
    # white-box LSB event: "a double the sampler cannot produce at x'": never hit on x'
    assert sum(lsb["output_sample"]["in_event_x_prime"]) == 0
    assert lsb["output_sample"]["source"] == "training"


def test_markdown_has_verdicts_and_escapes(report_dict: dict[str, Any]) -> None:
    text = render_markdown(report_dict)
    assert text.count("**VIOLATION**") >= 2
    assert "| broken.raises | (1, 0) | ERROR | – |" in text
    assert "&lt;script&gt;" in text and "<script>" not in text
    assert "seed=3" in text
