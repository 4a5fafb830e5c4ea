"""Arguments a tool's own description offers as alternatives, given together.

The filesystem server's read_text_file says "Use the 'head' parameter to read only the first N
lines of a file, or the 'tail' parameter to read only the last N lines", and refuses a call with
both ("Cannot specify both head and tail parameters simultaneously"). The 0.5B model sent such
calls on three real tasks. Where one sentence of the description names two of the tool's
parameters joined by "or", a call that gives both is answered by the app, before any server sees it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import Any

_SENTENCE = re.compile(r"[^.!?]+")
_NAMED = re.compile(r"""['"`](\w+)['"`]""")  # a parameter named in quotes


def both_alternatives(description: str, schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str:
    """Why the call gives two parameters its description offers as alternatives, or ""."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return ""
    given = {name for name, value in arguments.items() if value is not None}
    for sentence in _SENTENCE.findall(description):
        named = [m for m in _NAMED.finditer(sentence) if m.group(1) in properties]
        for first, second in itertools.pairwise(named):
            between = sentence[first.end() : second.start()]
            a, b = first.group(1), second.group(1)
            offered = re.search(r"\bor\b", between) and not re.search(r"\band\b", between)
            if a != b and offered and {a, b} <= given:
                return (
                    f"it gives both {a!r} and {b!r}, which its description offers as alternatives: give one"
                )
    return ""
