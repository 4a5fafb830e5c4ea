"""A finished tool call as the turn records it, and how a call is named as a number's source.

Its own module so that :mod:`app.core.tools` (the verdict's facts) and
:mod:`app.core.toolrun` (which makes the records) both import it, and neither the other.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from app.core.messages import Message
from app.core.numbers import find_numbers


@dataclasses.dataclass(frozen=True)
class CallRecord:
    """One finished call, in the shape ``calculon ask --json`` reports."""

    server: str
    tool: str
    arguments: Mapping[str, Any]
    result: str
    is_error: bool
    ms: float

    @property
    def failed(self) -> bool:
        """The server said so (``is_error``), or its text opens as an error does (:func:`looks_failed`)."""
        return self.is_error or looks_failed(self.result)

    @property
    def label(self) -> str:
        return call_label(self.tool, self.arguments)

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "arguments": dict(self.arguments), "ms": round(self.ms, 2)}


def call_label(tool: str, arguments: Mapping[str, Any]) -> str:
    """How a call is named as the source of a number: ``multiply(12, 7)``, ``evaluate("2 + 3")``."""
    values = ", ".join(
        str(v)
        if isinstance(v, int | float) and not isinstance(v, bool)
        else json.dumps(v, ensure_ascii=False)
        for v in arguments.values()
    )
    return f"{tool}({values})"


# A reply that reports a failure in its text: the SQLite reference server answers a bad query with
# "Database error: no such table: shop" as an ordinary result, not an error.
_FAILED = re.compile(r"^\s*(?:[A-Za-z]+\s){0,2}error\b\s*:|^\s*error\b|^\s*failed\b", re.IGNORECASE)


def looks_failed(text: str) -> bool:
    return bool(_FAILED.match(text))


def records_of(history: Sequence[Message]) -> list[CallRecord]:
    """The calls of earlier turns, in order, from the conversation's messages (no server, no
    timing: a message keeps neither); a call with no result in them is left out."""
    results = {m.tool_call_id: m for m in history if m.role == "tool"}
    return [
        CallRecord("", call.name.rsplit(".", 1)[-1], call.arguments, found.text, found.is_error, 0.0)
        for m in history
        if m.role == "assistant"
        for call in m.tool_calls
        if (found := results.get(call.id)) is not None
    ]


def earlier_result(history: Sequence[Message]) -> str:
    """The last result of the turns before, as written ("84"), that "add 16 to that" works on;
    "" where no call has succeeded yet."""
    results = [m for m in history if m.role == "tool" and not m.is_error]
    mentions = find_numbers(results[-1].text) if results else []
    return mentions[0].text if mentions else ""
