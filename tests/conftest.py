"""Shared test set-up.

Test helpers live in ``tests/helpers`` and are imported by module name (``audit_fixtures``), not
as ``tests.…``: diffprivlib ships a top-level package called ``tests`` that would shadow ours.
"""

import sys
from pathlib import Path

HELPERS = Path(__file__).resolve().parent / "helpers"
if str(HELPERS) not in sys.path:
    sys.path.insert(0, str(HELPERS))
