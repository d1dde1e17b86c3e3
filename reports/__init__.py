"""Renderers: an audit result (as the report.json dictionary) to files people and CI read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reports.json_report import render_json
from reports.markdown import render_markdown

#: format name -> (file name written by ``dp-audit run``, renderer of the report dict)
RENDERERS: dict[str, tuple[str, Callable[[dict[str, Any]], str]]] = {
    "json": ("report.json", render_json),
    "md": ("report.md", render_markdown),
}
