"""Digits that name a thing, not a quantity: in paths, URLs, file names and identifiers.

"Add up the prices in /tmp/shots-6rgfo5q_/project/prices.csv" gives no numbers to calculate
with, yet its path holds a 6 and a 5: read as the question's numbers they made it a worked story
("Expression: ... Answer: 12345") instead of a file to read. Calculon mode reads the user's numbers
from the text with these names blanked out; each is replaced by as many spaces as it had
characters, so every other number keeps its place (formula labels point into the question).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_PLACES = (
    r"\b[a-z][a-z0-9+.-]*://\S+"  # a URL
    r"|(?<!\S)(?:~|\.{1,2})?/[^\s,;:!?()\"']+"  # an absolute or relative path
    r"|(?<![\w.])[A-Za-z][\w-]*(?:/[\w.-]+)+"  # src/main.py: a path with no leading slash
    r"|(?<![\w.-])[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b(?![\w/])"  # a file name: notes2.txt
)
_NAMES = re.compile(
    _PLACES + r"|\b[A-Za-z][\w-]*[0-9][\w-]*"  # an identifier with a digit in it: task1, COVID-19, x86_64
    r"|\b\w*_\w*[0-9]\w*",  # or an underscore: 6rgfo5q_
    re.IGNORECASE,
)
_PLACE = re.compile(_PLACES, re.IGNORECASE)
_ABBREVIATION = re.compile(r"^\w\.\w$")  # "e.g", "i.e": no file names
_FRACTION = re.compile(r"^[0-9.,]+/[0-9.,]+$")  # 3/4 is a number, not a path


def places(text: str) -> list[str]:
    """The paths, URLs and file names ``text`` names ("3/4" is a number, not one)."""
    found = (m.group(0).rstrip(".,;:!?)'\"") for m in _PLACE.finditer(text))
    return [f for f in found if not _FRACTION.match(f) and not _ABBREVIATION.match(f)]


def without_names(text: str) -> str:
    """``text`` with every path, URL, file name and identifier blanked, lengths kept."""
    return _NAMES.sub(lambda m: m.group(0) if _FRACTION.match(m.group(0)) else " " * len(m.group(0)), text)


# Words the user quotes are content to write, not an operation to do: "Commit it with the message
# 'Add launch draft'" asks for no addition. Quoted digits stay: they may be quantities.
_QUOTED = re.compile(r"(?<!\w)'[^'\d\n]{1,200}'(?!\w)|\"[^\"\d\n]{1,200}\"|“[^”\d\n]{1,200}”")


def without_quoted_words(text: str) -> str:
    """``text`` with every quoted span that holds no digit blanked, lengths kept."""
    return _QUOTED.sub(lambda m: " " * len(m.group(0)), text)


def origin(address: str) -> str:
    """An address's scheme and host ("http://127.0.0.1:8000"), or "" where it has none."""
    try:
        parts = urlsplit(address)
    except ValueError:
        return ""
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""
