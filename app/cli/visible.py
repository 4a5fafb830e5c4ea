"""Text from servers and models made safe to print: what a terminal would act on or hide is shown.

A tool named ``\\x1b[2J...`` clears the screen; ``evil\\u202etxt.exe`` reads as ``evilexe.txt``;
a zero-width space makes two names look alike; a lone surrogate cannot be printed at all.
Every line the CLI writes goes through :func:`show`, which writes such characters as escapes
(``\\x1b``, ``\\u202e``), or, for JSON, as JSON escapes, so the output stays valid JSON.
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

# C0 and C1 controls and DEL (a terminal acts on them), bidi marks, embeddings, overrides and
# isolates (they reorder what is shown), zero-width and invisible characters, the BOM, tag
# characters (invisible), and lone surrogates (they cannot be encoded). Tab and newline are kept.
_HIDDEN = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\U000e0000-\U000e007f\ud800-\udfff"
)
_IN_TEXT = re.compile(f"[{_HIDDEN}]")
_IN_LINE = re.compile(f"[\t\n{_HIDDEN}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON writes a character past the BMP as its surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def visible(text: str) -> str:
    """``text`` with every hidden or terminal-controlling character written as an escape."""
    return _IN_TEXT.sub(_escape, text)


def visible_line(text: str) -> str:
    """As :func:`visible`, and tabs and newlines escaped too: for a name or a one-line field."""
    return _IN_LINE.sub(_escape, text)


def visible_json(text: str) -> str:
    """JSON text (from ``json.dumps``) with those characters as JSON escapes: still the same JSON."""
    return _IN_TEXT.sub(_json_escape, text)


def show(text: str, stream: TextIO | None = None, *, as_json: bool = False) -> None:
    """Print one block of output (stdout unless ``stream``), made visible."""
    print(visible_json(text) if as_json else visible(text), file=stream or sys.stdout)
