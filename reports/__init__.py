"""Renderers: an audit result (as the report.json dictionary) to files people and CI read.

Renderers take only the report dictionary, so ``dp-audit report`` can re-render any saved
report.json.  Heavy imports (matplotlib) happen inside the HTML renderer's functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reports.html import render_html
from reports.json_report import render_json
from reports.junit import render_junit
from reports.markdown import render_markdown

#: format name -> (file name written by ``dp-audit run``, renderer of the report dict)
RENDERERS: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "json": ("report.json", render_json),
    "md": ("report.md", render_markdown),
    "html": ("report.html", render_html),
    "junit": ("junit.xml", render_junit),
}
