"""Arguments a tool's own description offers as alternatives, given together.

The filesystem server's read_text_file says "Use the 'head' parameter to read only the first N
lines of a file, or the 'tail' parameter to read only the last N lines", and refuses a call with
both ("Cannot specify both head and tail parameters simultaneously"). The 0.5B model sent such
calls on three real tasks, to read_file, whose own description ("DEPRECATED: Use read_text_file
instead") says nothing of it. Where one sentence of the tool's description, or of another tool of
its server, names two of the tool's parameters joined by "or", a call that gives both is answered
by the app, before any server sees it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

_SENTENCE = re.compile(r"[^.!?]+")
_NAMED = re.compile(r"""['"`](\w+)['"`]""")  # a parameter named in quotes
_BARE = re.compile(r"\b(\w+) or (\w+)\b")  # or two named bare, side by side: "head or tail"


def both_alternatives(
    descriptions: Iterable[str], schema: Mapping[str, Any], arguments: Mapping[str, Any]
) -> str:
    """Why the call gives two parameters that ``descriptions`` (the tool's own, then its server's
    other tools') offer as alternatives, or ""."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return ""
    given = {name for name, value in arguments.items() if value is not None}
    sentences = (sentence for text in descriptions for sentence in _SENTENCE.findall(text))
    for a, b in (pair for sentence in sentences for pair in _offered(sentence, properties)):
        if a != b and {a, b} <= given:
            return f"it gives both {a!r} and {b!r}, which its description offers as alternatives: give one"
    return ""


def _offered(sentence: str, properties: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Pairs of parameters one sentence joins with "or": quoted apart ("the 'head' parameter ...,
    or the 'tail' parameter"), or bare side by side ("head or tail")."""
    named = [m for m in _NAMED.finditer(sentence) if m.group(1) in properties]
    for first, second in itertools.pairwise(named):
        between = sentence[first.end() : second.start()]
        if re.search(r"\bor\b", between) and not re.search(r"\band\b", between):
            yield first.group(1), second.group(1)
    for bare in _BARE.finditer(sentence):
        if bare.group(1) in properties and bare.group(2) in properties:
            yield bare.group(1), bare.group(2)
