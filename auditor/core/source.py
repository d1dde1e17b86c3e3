"""Python source for values and events: what a reproducer script is written from.

Every number round-trips exactly (``repr`` of a double is exact), so a script rebuilt from this
text draws and tests exactly what the audit did.
"""

from __future__ import annotations

import json
import math
import numbers
from typing import Any

import numpy as np


def literal(value: Any) -> str:
    """Python source that evaluates to exactly ``value``: a number (``repr`` round-trips every
    finite float; infinities and NaN as ``float("inf")`` etc.), a string (double-quoted, a
    JSON string being a Python one), ``None``, or a tuple or list of these."""
    if isinstance(value, str):
        return json.dumps(value)
    if value is None or isinstance(value, bool | np.bool_):
        return repr(bool(value)) if value is not None else "None"
    if isinstance(value, numbers.Integral):
        return repr(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        return repr(x) if math.isfinite(x) else f'float("{x!r}")'
    if isinstance(value, tuple):
        inner = ", ".join(literal(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, np.ndarray):
        return literal(value.tolist())
    raise TypeError(f"no exact literal for {type(value).__name__} {value!r}")


def event_code(expression: str, prelude: str = "") -> str:
    """Standalone source of ``event(x)`` returning ``expression`` (numpy as ``np``), after the
    module-level lines ``prelude`` (constants, helpers)."""
    head = "import numpy as np\n" + (prelude.rstrip() + "\n" if prelude else "")
    return f"{head}\n\ndef event(x):\n    return {expression}\n"


def enclosed(source: str, name: str) -> str:
    """``source`` (which defines ``event``) as the body of a function ``name()`` returning that
    ``event``: several event sources then live in one script without their names clashing."""
    body = "".join(f"    {line}" if line.strip() else "\n" for line in source.splitlines(True))
    return f"def {name}():\n{body}\n    return event\n"


def array_literal(values: Any, dtype: str) -> str:
    """``np.array([...], dtype=...)`` that rebuilds ``values`` exactly (floats by ``repr``,
    which round-trips every double)."""
    items = ", ".join(literal(v) for v in np.asarray(values).astype(dtype).tolist())
    return f"np.array([{items}], dtype=np.{dtype})"


def query_literal(query: Any) -> str | None:
    """Python source for a query as the engine passes it to ``sample`` (a number, or a numpy
    array with its dtype); None for what has no such source (structured records)."""
    if isinstance(query, np.ndarray):
        if query.dtype.kind not in "biuf":
            return None
        return f"np.array({literal(query.tolist())}, dtype=np.{query.dtype.name})"
    try:
        return literal(query)
    except TypeError:
        return None
