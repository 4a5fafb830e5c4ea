"""Optional numbers nobody said, left out of a call: in Calculon mode a number the model made up
has no place in a call, and an optional one has a default the server knows.

Asked "How many lines does notes.txt have?", Qwen2.5-Coder-0.5B called the filesystem server's
read_file with `"head": 10, "tail": 10`, numbers from neither the question nor any result; the
server refused the pair, and the model spent its steps on the error (7 of the 12 calls it sent a
server that failed, in `python -m bench real_tasks`). Left out, the call reads the whole file. A
required argument is never dropped (the call would not fit its schema), and a number the user or
a tool result wrote is kept as the model gave it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

from app.core.numbers import find_numbers


def unsaid_options(
    arguments: Mapping[str, Any], schema: Mapping[str, Any], said: Iterable[str]
) -> tuple[dict[str, Any], list[str]] | None:
    """The arguments without their optional numbers that no text of ``said`` holds, and the names
    left out; None where every number is said or required."""
    required = set(schema.get("required") or ())
    numbers = {
        name: value
        for name, value in arguments.items()
        if name not in required and isinstance(value, int | float) and not isinstance(value, bool)
    }
    if not numbers:
        return None
    known: set[Fraction] = {v for text in said for m in find_numbers(text) for v in m.values()}
    unsaid = [name for name, value in numbers.items() if _exact(value) not in known]
    if not unsaid:
        return None
    return {k: v for k, v in arguments.items() if k not in unsaid}, unsaid


def _exact(value: int | float) -> Fraction:
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)
