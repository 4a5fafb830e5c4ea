"""A trace row's line: what a glance needs of a node whose label is a whole sentence.

Notices and answers carry sentences ("The formula 15 − 5 is a reading of the story (79% likely
among the candidate formulas of its numbers), not a transcription: check it.") and formulas with
each number's words beside it. In a tree column a few hundred pixels wide those were cut to "The
formula 15 − 5 is a reading o…". The line keeps what reads at a glance: asides in brackets are
left out (the formula's labels, the odds), and what is still too wide for its column ends at a
word (the view measures; :func:`at_word` cuts). The whole label stays in the details pane and
the tooltip.
"""

from __future__ import annotations

import re
from collections.abc import Callable

HEADLINE_CHARS = 48  # a label longer than this loses its asides
_ASIDE = re.compile(r"\s*\([^()]*\)")  # one level; nested brackets are rare and kept
_SHORTENED = ("notice", "answer", "check", "error")


def headline(kind: str, label: str) -> str:
    """The row's line for a node of ``kind``: ``label`` itself, or without its asides when long."""
    if kind not in _SHORTENED or len(label) <= HEADLINE_CHARS:
        return label
    return " ".join(_ASIDE.sub("", label).split())


def at_word(text: str, fits: Callable[[str], bool]) -> str:
    """``text`` if it fits, else as many of its words as fit with "…" after them (at least one
    word's worth: a first word too wide for the column is cut where it stops fitting)."""
    if fits(text):
        return text
    words = text.split(" ")
    for count in range(len(words) - 1, 0, -1):
        line = " ".join(words[:count]).rstrip(" ,;:·-–—") + "…"
        if fits(line):
            return line
    for end in range(len(text) - 1, 0, -1):
        if fits(text[:end] + "…"):
            return text[:end] + "…"
    return "…"
