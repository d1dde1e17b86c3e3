"""Shared test set-up.

Test helpers live in ``tests/helpers`` and are imported by module name (``audit_fixtures``), not
as ``tests.…``: diffprivlib ships a top-level package called ``tests`` that would shadow ours.
The repository root is importable too, so tests can reuse the ``bench`` scripts' mechanisms
whether pytest is started as ``python -m pytest`` or as ``pytest``.
"""

import sys
from pathlib import Path

HELPERS = Path(__file__).resolve().parent / "helpers"
ROOT = HELPERS.parents[1]
for path in (ROOT, HELPERS):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
