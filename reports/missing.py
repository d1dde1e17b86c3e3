"""How a renderer writes a value the report does not state: one mark per format, chosen here.

Markdown and HTML are read by people: they write an en dash ``–``, the mark their tables
already used for an empty cell (a ``?`` reads as doubt about a value, ``None`` as Python).
JUnit XML is read by CI tools: it writes nothing, the empty string, as the ``timestamp``
attribute already did; ``None`` or ``?`` in a property would be taken for its value.
"""

from __future__ import annotations

from typing import Any, Literal

Format = Literal["markdown", "html", "junit"]

#: the mark each format writes for a value the report leaves out
MISSING: dict[Format, str] = {"markdown": "–", "html": "–", "junit": ""}


def shown(value: Any, fmt: Format) -> Any:
    """``value`` as it is, or the format's mark for a missing value when it is None."""
    return MISSING[fmt] if value is None else value
