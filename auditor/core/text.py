"""Text from adapters (names, error messages) made safe to show: a name may hold control
characters that rewrite a terminal line or a lone surrogate that cannot be encoded at all."""

from __future__ import annotations

import unicodedata


def printable(text: str) -> str:
    """``text`` with control characters (C0, C1, DEL, line and paragraph separators) and lone
    surrogates escaped as ``\\xNN`` / ``\\uNNNN``; everything else, accents and CJK included, as is."""
    out = []
    for ch in text:
        code = ord(ch)
        if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp"):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)
