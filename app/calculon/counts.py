"""Counts the app takes of a tool's text result, so the model never counts lines itself.

"How many lines does notes.txt have?" and "How many lines in server.log are ERROR lines?" are
answered from a file's text, and a small model cannot count: it guessed 9 for 12 lines. Counting
is arithmetic, and in Calculon mode arithmetic is never the model's: where the question is about
lines, the result the model reads ends with what the app counted (all lines, and the lines holding
each of the question's own words that some lines hold and others do not). The note is part of the
tool's result as a source, so a count in the answer is backed by it, a lookup like any other.
"""

from __future__ import annotations

import re

_LINES = re.compile(r"\blines?\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][\w.-]*[A-Za-z0-9]|[A-Za-z]")
# Words of the question that name no text to look for.
_PLAIN_TEXT = (
    "how many much lines line does do did have has are is the a an in of and or to for with that which "
    "what there their file files together total count number"
)
_PLAIN = frozenset(_PLAIN_TEXT.split())
MAX_WORDS = 3


def count_note(asked: str, result: str) -> str:
    """The note for ``result`` where ``asked`` is about lines and the result has several; ""
    otherwise."""
    if not _LINES.search(asked):
        return ""
    lines = result.rstrip("\n").split("\n")
    if len(lines) < 2:
        return ""
    filled = sum(1 for line in lines if line.strip())
    # "13 lines (13 not empty)" had a model divide 13 by 13: the second count only where it differs
    facts = [f"{len(lines)} lines" + (f" ({filled} not empty)" if filled != len(lines) else "")]
    for word in _asked_words(asked, result):
        holding = sum(1 for line in lines if word in line)
        if 0 < holding < len(lines):
            facts.append(f"{holding} lines contain {word!r}")
    return f"\n\n[Counted by the app: this result has {'; '.join(facts)}.]"


def _asked_words(asked: str, result: str) -> list[str]:
    """The question's own words (as written, case kept) that appear in the result."""
    words = [w for w in dict.fromkeys(_WORD.findall(asked)) if w.lower() not in _PLAIN and "." not in w]
    return [w for w in words if w in result][:MAX_WORDS]
