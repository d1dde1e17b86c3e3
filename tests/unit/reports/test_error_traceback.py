"""The traceback behind an ``error`` verdict (``error_traceback``) in every report format:
shown whole and inert (no markup, no fence breaking, no control characters), and a report
without it (one written before the field existed) still renders."""

from __future__ import annotations

import copy
import html
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from reports.html import render_html
from reports.junit import case_name, render_junit
from reports.markdown import render_markdown

HOSTILE = (
    "Traceback (most recent call last):\n"
    '  File "lib.py", line 3, in sample\n'
    '    raise ValueError("```\\n</pre></details><script>alert(1)</script>")\n'
    "ValueError: ````\n"
    "</pre></details><script>alert(1)</script> \x1b[2J\x00 & done"
)


def _errored(report: dict[str, Any]) -> dict[str, Any]:
    (r,) = [r for r in report["results"] if r["verdict"] == "error"]
    return r


def _with_traceback(report: dict[str, Any], text: str | None) -> dict[str, Any]:
    data = copy.deepcopy(report)
    _errored(data)["error_traceback"] = text
    return data


def test_the_fixture_s_error_carries_its_traceback(report_dict: dict[str, Any]) -> None:
    tb = _errored(report_dict)["error_traceback"]
    assert tb.startswith("Traceback (most recent call last):")
    assert ", in sample\n" in tb and tb.endswith("RuntimeError: boom")
    assert all(
        r["error_traceback"] is None for r in report_dict["results"] if r["verdict"] != "error"
    )


def test_markdown_shows_it_in_a_fence_nothing_inside_can_close(report_dict: dict[str, Any]) -> None:
    page = render_markdown(_with_traceback(report_dict, HOSTILE))
    lines = page.split("\n")
    start = lines.index("Traceback behind the error:") + 2
    fence = lines[start].removesuffix("text")
    assert set(fence) == {"`"} and len(fence) == 5  # longer than the ```` inside
    end = lines.index(fence, start + 1)
    assert lines[start + 1 : end] == [
        "Traceback (most recent call last):",
        '  File "lib.py", line 3, in sample',
        '    raise ValueError("```\\n</pre></details><script>alert(1)</script>")',
        "ValueError: ````",
        "</pre></details><script>alert(1)</script> \\x1b[2J\\x00 & done",
    ]
    assert "\x1b" not in page and "\x00" not in page


def test_markdown_fence_of_the_real_report(report_dict: dict[str, Any]) -> None:
    page = render_markdown(report_dict)
    assert "Traceback behind the error:\n\n```text\nTraceback (most recent call last):" in page
    assert "RuntimeError: boom\n```" in page


def test_html_shows_it_collapsed_and_escaped(report_dict: dict[str, Any]) -> None:
    page = render_html(_with_traceback(report_dict, HOSTILE))
    blocks = re.findall(r"<details><summary>[^<]*</summary><pre>(.*?)</pre></details>", page, re.S)
    assert len(blocks) == 1
    assert "<script>" not in blocks[0] and "&lt;script&gt;" in blocks[0]
    assert html.unescape(blocks[0]).endswith(
        "</pre></details><script>alert(1)</script> \\x1b[2J\\x00 & done"
    )
    assert "<script>" not in page and "\x1b" not in page and "\x00" not in page


def test_junit_puts_it_in_the_error_element(report_dict: dict[str, Any]) -> None:
    data = _with_traceback(report_dict, HOSTILE)
    root = ET.fromstring(render_junit(data))
    cases = {c.get("name"): c for c in root.iter("testcase")}
    error = cases[case_name(_errored(data))].find("error")
    assert error is not None
    text = error.text or ""
    assert text.index("error: ") < text.index("traceback:\nTraceback (most recent call last):")
    assert text.endswith("\\x1b[2J\\x00 & done")


@pytest.mark.parametrize("missing", ["absent", "null"])
def test_a_report_without_it_renders_as_before(report_dict: dict[str, Any], missing: str) -> None:
    data = copy.deepcopy(report_dict)
    for r in data["results"]:
        if missing == "absent":
            del r["error_traceback"]
        else:
            r["error_traceback"] = None
    assert "Traceback behind the error" not in render_markdown(data)
    assert "<details>" not in render_html(data)
    assert "traceback:" not in render_junit(data)
