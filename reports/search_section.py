"""What a parameter search did, for the Markdown and HTML reports (``report["search"]``)."""

from __future__ import annotations

from reports.view import AdapterReport
from reports.view_fields import SearchedAdapter, SearchView

#: screened configurations listed per adapter (the rest are in report.json)
SHOWN = 10
#: a screening result in words (it is a ranking, never a verdict)
SCREENED = {"violation": "bound above claim", "no_violation": "bound below claim"}


def search_summary(search: SearchView) -> list[str]:
    """Sentences: the design, the screening budget, how alpha was spent."""
    return [
        f"Design: {search.design}; {search.configurations} configurations per searched "
        f"adapter, screened at {search.screening_budget:,} outputs per side "
        f"(seed {search.screening_seed}).",
        f"Alpha: {search.alpha}.",
    ]


def search_rows(adapter: SearchedAdapter) -> tuple[str, list[tuple[str, str, str, str]]]:
    """A heading line for one searched adapter, and its most suspicious configurations as
    (configuration, screening verdict, bound at screening / claim, finalist?) rows."""
    space = "; ".join(f"{k}: {v}" for k, v in adapter.space.items())
    head = (
        f"{adapter.adapter}: space {space}; {adapter.screened} screened, "
        f"{adapter.rejected} rejected by the adapter, {len(adapter.finalists)} certified"
    )
    rows = []
    for s in adapter.ranking[:SHOWN]:
        ratio = "" if s.ratio is None else f"{s.ratio:.3g}"
        # the screening certifies nothing: say where its bound fell, not a verdict
        verdict = (
            f"rejected: {s.rejected}"
            if s.rejected
            else f"error: {s.error}"
            if s.error
            else SCREENED.get(str(s.verdict_at_screening), "")
        )
        rows.append((s.name, verdict, ratio, "yes" if s.name in adapter.finalists else ""))
    return head, rows


def reproducer_path(r: AdapterReport) -> str | None:
    """Where ``dp-audit run`` wrote the violation's script (None: it wrote none)."""
    return r.reproducer if r.reproducer and r.verdict == "violation" else None
