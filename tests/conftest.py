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


def pytest_addoption(parser):
    """Which held-out sets ``tests/corpus/test_corpus.py`` audits (tests/README.md)."""
    group = parser.getgroup("corpus", "the held-out corpus (run with -m corpus)")
    group.addoption(
        "--corpus",
        default="all",
        help="all (default), core, ci (core plus this commit's share) or set numbers: 24,27",
    )
    group.addoption(
        "--corpus-share",
        type=int,
        default=None,
        help="the share --corpus=ci audits, modulo the shares (default: the commit count)",
    )


def pytest_configure(config):
    """``--corpus=ci`` without ``--corpus-share``: the share rotates with the commit."""
    if config.getoption("corpus") == "ci" and config.getoption("corpus_share") is None:
        from corpus_sets import rotation

        config.option.corpus_share = rotation(ROOT)


def pytest_report_header(config):
    """Which held-out sets ``--corpus`` chose (shown with or without ``-m corpus``)."""
    which = config.getoption("corpus")
    if which == "all":
        return None
    from corpus_sets import number, schedule, select

    share = config.getoption("corpus_share")
    try:
        chosen = ", ".join(str(number(stem)) for stem in select(which, share, schedule()))
    except ValueError as exc:
        return f"corpus: {exc}"
    if which == "ci":
        which += f" (share {share} modulo {schedule()['shares']})"
    return f"corpus: --corpus={which}, sets {chosen}"
