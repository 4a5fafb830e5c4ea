"""Neutral history and tools to the Chat Completions wire format.

Every backend's history replays here: a turn is rebuilt from its text and tool
calls, so a conversation begun on the local model or Gemini goes on unchanged.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Sequence
from typing import Any

from app.core.backend import ModelRequest
from app.core.messages import Message, ToolSpec

Wire = dict[str, Any]


def request_body(model: str, request: ModelRequest) -> Wire:
    """The keyword arguments of ``chat.completions.create`` for one step (``stream`` aside)."""
    body: Wire = {"model": model, "messages": messages(request.system, request.messages)}
    if request.tools:
        body["tools"] = tools(request.tools)
        # Explicit: llama-cpp-python's server offers no tool at all without it.
        body["tool_choice"] = "required" if request.must_call else "auto"
    return body


def tools(specs: Iterable[ToolSpec]) -> list[Wire]:
    return [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": copy.deepcopy(dict(spec.input_schema)),
            },
        }
        for spec in specs
    ]


def messages(system: str, history: Sequence[Message]) -> list[Wire]:
    wire: list[Wire] = [{"role": "system", "content": system}] if system else []
    wire.extend(message(m) for m in history)
    return wire


def message(entry: Message) -> Wire:
    if entry.role == "tool":
        return {"role": "tool", "tool_call_id": entry.tool_call_id, "content": entry.text}
    if entry.role == "user":
        return {"role": "user", "content": entry.text}
    # A string even when empty: llama-cpp-python's server refuses a null content.
    wire: Wire = {"role": "assistant", "content": entry.text}
    if entry.tool_calls:
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(dict(call.arguments))},
            }
            for call in entry.tool_calls
        ]
    return wire
