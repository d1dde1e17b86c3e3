"""The neighbouring pair every module of ``attacks.neighbours`` lists."""

from __future__ import annotations

from typing import Any

#: ``(x, x', description)``: two neighbouring inputs and what sets them apart
Pair = tuple[Any, Any, str]
