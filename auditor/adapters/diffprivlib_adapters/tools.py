"""diffprivlib's ``tools`` sum and mean on a dataset with declared bounds, one release per call."""

from __future__ import annotations

from typing import Any

import numpy as np

from auditor.adapters.base import call_source, keywords
from auditor.adapters.diffprivlib_adapters.common import BOUNDS, EPSILON, DiffprivlibAdapter

#: how the tools adapters turn a query into the data they pass (``_records`` in reproducers)
RECORDS = "np.asarray(query, dtype=np.float64).ravel()"


def tools_reproducer(
    function: str, arguments: list[str], records: str, width: int = 1, edges: bool = False
) -> str:
    """A reproducer's ``sample``: ``tools.<function>(data, arguments...)`` once per release
    (``width`` values each; ``edges``: it returns ``(counts, edges)``, the counts released)."""
    parts = ["data", *arguments, "random_state=random_state", "accountant=accountant"]
    if edges:
        release = call_source(f"        counts, _ = tools.{function}", parts)
        release += "\n        out[i] = counts.ravel()"
    else:
        release = call_source(f"        out[i] = tools.{function}", parts)
    shape = "n" if width == 1 else f"(n, {width})"
    return f"""
def sample(query, n):
    data = {records}
    accountant = BudgetAccountant()  # a private one: the default would record every release
    out = np.empty({shape}, dtype=np.float64)
    for i in range(n):
{release}
    return out
"""


class _Tool(DiffprivlibAdapter):
    """A ``diffprivlib.tools`` aggregate on a 1-D dataset with declared bounds."""

    family = "dataset"
    delta = 0.0
    #: diffprivlib calibrates to ``upper - lower`` (sum) or ``(upper - lower)/n`` (mean), and
    #: truncates to a range that depends on n: the replace-one neighbour relation.
    neighbours = "replace"
    space = {"epsilon": EPSILON, "domain": BOUNDS}

    def __init__(self, epsilon: float = 1.0, domain: tuple[float, float] = (0.0, 1.0)) -> None:
        super().__init__()
        self.epsilon = float(epsilon)
        self.domain = (float(domain[0]), float(domain[1]))
        if not self.domain[0] < self.domain[1]:
            raise ValueError(f"domain={domain!r} must have lower < upper")

    #: the ``diffprivlib.tools`` function released
    _function = ""
    _reproducer_imports = "BudgetAccountant, tools"

    def sample(self, query: Any, n: int) -> np.ndarray:
        """``n`` releases on dataset ``query`` (a 1-D array of records in ``domain``)."""
        from diffprivlib import BudgetAccountant, tools

        tool = getattr(tools, self._function)
        data = np.asarray(query, dtype=np.float64).ravel()
        # A private accountant: the library's default one would record every release.
        accountant = BudgetAccountant()
        random_state = self._random_state
        out = np.empty(n, dtype=np.float64)
        for i in range(n):
            out[i] = tool(
                data,
                epsilon=self.epsilon,
                bounds=self.domain,
                random_state=random_state,
                accountant=accountant,
            )
        return out

    def _reproducer_code(self) -> str:
        arguments = keywords(epsilon=self.epsilon, bounds=self.domain)
        return tools_reproducer(self._function, arguments, RECORDS)


class ToolsSum(_Tool):
    """``diffprivlib.tools.sum`` with bounds: clip, float sum, LaplaceTruncated(upper − lower)."""

    name = "diffprivlib.tools.sum"
    description = "diffprivlib.tools.sum (clip to bounds, numpy float sum, LaplaceTruncated)"
    _function = "sum"


class ToolsMean(_Tool):
    """``diffprivlib.tools.mean`` with bounds: clip, float mean, LaplaceTruncated((u − l)/n)."""

    name = "diffprivlib.tools.mean"
    description = "diffprivlib.tools.mean (clip to bounds, numpy float mean, LaplaceTruncated)"
    _function = "mean"
