"""The runnable examples in the docs run, and say what the docs say they say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.parametrize("doc", ["vector-outputs.md"])
def test_every_python_block_runs(doc):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        for block in python_blocks(DOCS / doc):
            exec(compile(block, doc, "exec"), {"__name__": "__main__"})  # noqa: S102
    if doc == "vector-outputs.md":
        verdict, bound = printed.getvalue().split()
        assert verdict == "no_violation" and 0.5 < float(bound) <= 1.0
