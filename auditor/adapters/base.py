"""Small shared pieces for the built-in adapters.

Third-party adapters never need this module: the contract is duck-typed (see
``auditor.core.interfaces.Adapter``).  Built-ins use :class:`SeededAdapter` so that the runner can
replay every draw from the run's seed, and the helpers at the end to write their reproducers.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np

from auditor.core.source import literal


class SeededAdapter:
    """Holds a ``numpy.random.Generator`` that the runner re-seeds before each batch.

    The optional ``seed(entropy)`` extra is how the harness makes seedable adapters
    reproducible: it is called with a fresh non-negative integer before every ``sample`` call.
    """

    #: shown in reports; subclasses override
    library: str = "dp-audit"
    library_version: str = ""
    #: True when ``sample`` is vectorised (no Python loop per output)
    vectorised: bool = True

    def __init__(self) -> None:
        self._rng = np.random.default_rng()

    def seed(self, entropy: int) -> None:
        self._rng = np.random.default_rng(entropy)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {getattr(self, 'name', '?')}>"


class NamedRepr:
    """``<ClassName adapter-name>``: how the built-in adapters that drive a library show in
    logs and tracebacks (``SeededAdapter`` writes the same)."""

    name: str

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


# --- reproducers: an adapter's draws as a standalone module (``reproducer_source``) ---------
#
# A built-in adapter may offer ``reproducer_source()``: Python source that, run as a fresh
# module needing only the standard library, numpy/scipy and the library under test, defines
# ``sample(query, n)`` (and ``seed(entropy)``, ``probabilities(query)`` when the adapter has
# them) giving the adapter's outputs -- bitwise, after the same seed.  The helpers below write
# such modules; the adapters' parameters go in as literals that evaluate to exactly them.

#: lines of a reproducer longer than this are wrapped (calls and the opening comment)
REPRODUCER_WIDTH = 100

#: how a reproducer seeds like :meth:`SeededAdapter.seed` (needs ``import numpy as np``)
GENERATOR_SEED_SOURCE = """\
rng = np.random.default_rng()


def seed(entropy):
    global rng
    rng = np.random.default_rng(entropy)"""


def integer_records(query: Any, domain: Sequence[tuple[int, int]]) -> np.ndarray:
    """A dataset of whole-number records as an (m, len(domain)) int64 array, each column
    checked against its (lo, hi): what a system adapter hands to the system under audit."""
    width = len(domain)
    rows = np.asarray(query)
    if rows.ndim != 2 or rows.shape[1] != width or len(rows) == 0:
        raise ValueError(f"records must have shape (m, {width}) with m > 0, got {rows.shape}")
    if not np.all(np.isfinite(rows)) or not np.all(rows == np.round(rows)):
        raise ValueError("records must hold whole numbers")
    rows = rows.astype(np.int64)
    for j, (lo, hi) in enumerate(domain):
        if rows[:, j].min() < lo or rows[:, j].max() > hi:
            raise ValueError(f"column {j} must lie in [{lo}, {hi}]")
    return rows


def keywords(**values: Any) -> list[str]:
    """``key=literal`` for each keyword argument, in order: arguments for :func:`call_source`."""
    return [f"{key}={literal(value)}" for key, value in values.items()]


def call_source(head: str, parts: Sequence[str], brackets: str = "()") -> str:
    """``head(parts...)`` as a line of a reproducer (``parts``: each argument's source text),
    or with ``brackets="[]"`` the list ``head[parts...]``.

    ``head`` is the line up to the bracket, its indentation included (e.g.
    ``"    x = mechanisms.Laplace"``).  A line longer than :data:`REPRODUCER_WIDTH` is wrapped as
    ``ruff format`` would: the parts on one indented line, else one per line (a list's items
    are filled into lines instead).
    """
    opening, closing = brackets[0], brackets[1]
    line = f"{head}{opening}{', '.join(parts)}{closing}"
    if len(line) <= REPRODUCER_WIDTH:
        return line
    indent = " " * (len(head) - len(head.lstrip()))
    inner = f"{indent}    {', '.join(parts)}"
    if len(inner) <= REPRODUCER_WIDTH:
        return f"{head}{opening}\n{inner}\n{indent}{closing}"
    rows = [f"{indent}    {part}," for part in parts]
    if brackets == "[]":
        rows = textwrap.wrap(
            " ".join(f"{part}," for part in parts),
            REPRODUCER_WIDTH,
            initial_indent=f"{indent}    ",
            subsequent_indent=f"{indent}    ",
            break_long_words=False,
            break_on_hyphens=False,
        )
    return f"{head}{opening}\n" + "\n".join(rows) + f"\n{indent}{closing}"


def assignments(**values: Any) -> str:
    """``NAME = literal`` lines: a reproducer's parameters, upper case by convention."""
    return "\n".join(f"{name} = {literal(value)}" for name, value in values.items())


def module_source(adapter: Any, imports: Sequence[str], *blocks: str) -> str:
    """A reproducer of ``adapter``: a comment naming and describing it, the ``imports``, then
    the ``blocks`` of code, each dedented (two blank lines around functions, as in PEP 8)."""
    about = textwrap.wrap(str(adapter.description), REPRODUCER_WIDTH - 2)
    comment = [f"Reproduces dp-audit's adapter {adapter.name}:", *about]
    text = "".join(f"# {line}\n" for line in comment) + "\n".join(imports)
    for block in blocks:
        code = textwrap.dedent(block).strip("\n")
        last = [line for line in text.splitlines() if line[:1].strip()][-1]  # top level
        functions = last.startswith(("def ", "@")) or code.startswith(("def ", "@"))
        text += ("\n\n\n" if functions else "\n\n") + code
    return text + "\n"
