"""Turning the decoded call text into a :class:`ToolCall`, checked once more.

The grammar already guarantees the shape; the schema check here is belt and
braces (and the only check for tools whose grammar had to be relaxed, and for
constraints the grammar cannot express, such as numeric bounds).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence

from app.core.messages import ToolCall, ToolSpec
from app.core.toolrun import schema_error

_NAME = re.compile(r'^\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"')


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:10]}"


def parse_call(text: str, tools: Sequence[ToolSpec], *, complete: bool, cut_off_note: str = "") -> ToolCall:
    """The call in ``text`` (the JSON between the markers); a problem goes into
    ``raw_arguments_error`` so the turn loop can tell the model."""
    call_id = new_call_id()
    if not complete:
        return ToolCall(
            call_id, _name_of(text), {}, raw_arguments_error=cut_off_note or "the call was cut off"
        )
    try:
        body = json.loads(text)
    except json.JSONDecodeError as exc:
        return ToolCall(call_id, _name_of(text), {}, raw_arguments_error=f"invalid JSON: {exc}")
    if not isinstance(body, dict) or not isinstance(body.get("arguments"), dict):
        return ToolCall(call_id, _name_of(text), {}, raw_arguments_error="arguments must be a JSON object")
    name, arguments = str(body.get("name", "")), body["arguments"]
    spec = next((tool for tool in tools if tool.name == name), None)
    if spec is None:
        return ToolCall(
            call_id, name, arguments, raw_arguments_error=f"{name!r} is not one of the offered tools"
        )
    if problem := schema_error(spec.input_schema, arguments):
        return ToolCall(call_id, name, arguments, raw_arguments_error=f"does not match the schema: {problem}")
    return ToolCall(call_id, name, arguments)


def _name_of(text: str) -> str:
    match = _NAME.match(text)
    if not match:
        return "?"
    try:
        return str(json.loads(f'"{match.group(1)}"'))
    except json.JSONDecodeError:
        return match.group(1)
