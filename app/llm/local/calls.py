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
from app.llm.local.syntaxes import CALCULON, CallSyntax

_NAME = re.compile(r'^\s*\{\s*"name"\s*:\s*"((?:[^"\\]|\\.)*)"')


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:10]}"


def parse_calls(
    text: str, tools: Sequence[ToolSpec], syntax: CallSyntax, *, complete: bool, cut_off_note: str = ""
) -> tuple[ToolCall, ...]:
    """The calls in ``text`` (what follows the opening marker, in ``syntax``): one, or several
    where the syntax lists them; a problem goes into ``raw_arguments_error`` so the turn loop
    can tell the model."""
    if not complete:
        return (
            ToolCall(
                new_call_id(), _name_of(text), {}, raw_arguments_error=cut_off_note or "the call was cut off"
            ),
        )
    try:
        items = syntax.items(text)
    except json.JSONDecodeError as exc:
        return (ToolCall(new_call_id(), _name_of(text), {}, raw_arguments_error=f"invalid JSON: {exc}"),)
    except ValueError as exc:  # Gemma's own call:name{...}, not JSON
        return (
            ToolCall(new_call_id(), "?", {}, raw_arguments_error=f"not a call in the model's syntax: {exc}"),
        )
    if not items:
        return (ToolCall(new_call_id(), "?", {}, raw_arguments_error="an empty list of calls"),)
    return tuple(_checked(item, tools, syntax.arguments) for item in items)


def parse_call(text: str, tools: Sequence[ToolSpec], *, complete: bool, cut_off_note: str = "") -> ToolCall:
    """The one call in ``text`` (the JSON between Calculon's own markers)."""
    return parse_calls(text, tools, CALCULON, complete=complete, cut_off_note=cut_off_note)[0]


def _checked(item: object, tools: Sequence[ToolSpec], key: str) -> ToolCall:
    call_id = new_call_id()
    if not isinstance(item, dict) or not isinstance(item.get(key), dict):
        name = str(item.get("name", "?")) if isinstance(item, dict) else "?"
        return ToolCall(call_id, name, {}, raw_arguments_error=f"{key} must be a JSON object")
    name, arguments = str(item.get("name", "")), item[key]
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
