from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from reports.html import render_html
from reports.markdown import render_markdown

HOSTILE_NAME = "<script>alert(1)</script>"  # the name conftest gives the correct mechanism


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.urls: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for key, value in attrs:
            if key in {"src", "href", "srcset", "action", "data", "poster"}:
                self.urls.append((tag, key, value or ""))


def _parse(page: str) -> _Collector:
    collector = _Collector()
    collector.feed(page)
    return collector


def test_html_is_self_contained_and_has_its_plots(html_page: str) -> None:
    page = html_page
    parsed = _parse(page)
    assert not re.search(r"https?://", page), "the page must not mention any web address"
    assert "script" not in parsed.tags and "link" not in parsed.tags and "iframe" not in parsed.tags
    assert "@import" not in page and "url(" not in page
    for tag, key, url in parsed.urls:
        assert url.startswith(("data:image/png;base64,", "#")), (tag, key, url[:60])
    images = [url for tag, _, url in parsed.urls if tag == "img"]
    # the epsilon overview + distributions, porosity (LSB finding only) and event bars for the
    # three adapters with counts, and the privacy-loss plot of the one statistical violation
    assert len(images) == 1 + 3 + 1 + 3 + 1 - 1 + 1, len(images)
    assert all(u.startswith("data:image/png;base64,iVBOR") for u in images)  # PNG magic
    assert 'alt="low-order bits of outputs of textbook.laplace(eps=1)"' in page


def test_self_contained_check_has_power(html_page: str) -> None:
    """The checks above would catch an external reference if the renderer emitted one."""
    page = html_page.replace(
        "<title>", '<link rel="stylesheet" href="https://example.org/x.css"><title>'
    )
    parsed = _parse(page)
    assert "link" in parsed.tags
    assert any(not u.startswith(("data:", "#")) for _, _, u in parsed.urls)


def test_hostile_adapter_name_is_escaped_in_html_and_markdown(
    report_dict: dict[str, Any], html_page: str
) -> None:
    page = html_page
    markdown = render_markdown(report_dict)
    for text in (page, markdown):
        assert HOSTILE_NAME not in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<script" not in page.lower()


def test_html_states_verdicts_and_numbers(report_dict: dict[str, Any], html_page: str) -> None:
    page = html_page
    lsb = next(r for r in report_dict["results"] if r["attack"] == "lsb-laplace")
    assert f"{lsb['epsilon_lower_bound']:.4g}" in page
    assert "VIOLATION" in page and "no violation found" in page and "boom" in page
    assert "python-dp: not installed" in page  # skipped targets are listed
    assert f"seed</dt><dd>{report_dict['seed']}" in page


def test_html_renders_a_report_without_output_samples(report_dict: dict[str, Any]) -> None:
    """Reports from older runs (no output_sample) still render, with the count plots only."""
    stripped = {
        **report_dict,
        "results": [{**r, "output_sample": None} for r in report_dict["results"]],
    }
    page = render_html(stripped)
    assert page.count("<img ") == 1 + 3
    assert "distributions not shown" in page


def test_cli_report_rerenders_html_and_junit_from_json(
    tmp_path: Any, report_dict: dict[str, Any], capsys: Any
) -> None:
    from dp_audit.cli import main
    from reports.json_report import render_json

    path = tmp_path / "report.json"
    path.write_text(render_json(report_dict))
    assert main(["report", str(path), "--format", "junit"]) == 0
    assert (tmp_path / "junit.xml").read_text().startswith('<?xml version="1.0"')
    assert main(["report", str(path), "--format", "pdf"]) == 2
    assert "--format 'pdf' is not one of: json, md, html, junit" in capsys.readouterr().err
