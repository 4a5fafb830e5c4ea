"""Neutral history and tools to google-genai request types.

The model's own turns are replayed verbatim from ``provider_data`` so thought
signatures go back exactly as they came. Function-call ids only round-trip
when Gemini issued them; history from another backend is sent without ids and
Gemini pairs calls and responses by order.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Sequence
from typing import Any

from google.genai import types

from app.core.backend import ModelRequest
from app.core.messages import Message, ToolSpec


def build_config(request: ModelRequest, *, include_thoughts: bool) -> types.GenerateContentConfig:
    return types.GenerateContentConfig(
        system_instruction=request.system or None,
        tools=[types.Tool(function_declarations=declarations(request.tools))] if request.tools else None,
        # Our turn loop runs every call itself, so the trace sees each one.
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        thinking_config=types.ThinkingConfig(include_thoughts=True) if include_thoughts else None,
        tool_config=_must_call() if request.must_call and request.tools else None,
    )


def _must_call() -> types.ToolConfig:
    """The step may only call a function (the model described a task instead of doing it)."""
    return types.ToolConfig(
        function_calling_config=types.FunctionCallingConfig(mode=types.FunctionCallingConfigMode.ANY)
    )


def declarations(tools: Iterable[ToolSpec]) -> list[types.FunctionDeclaration]:
    """MCP input schemas go through as full JSON Schema, not the OpenAPI subset."""
    return [
        types.FunctionDeclaration(
            name=tool.name,
            description=tool.description,
            parameters_json_schema=copy.deepcopy(dict(tool.input_schema)),
        )
        for tool in tools
    ]


def build_contents(messages: Sequence[Message]) -> list[types.Content]:
    contents: list[types.Content] = []
    issued_ids: set[str] = set()
    pending: list[types.Part] = []  # function responses of one run of tool messages
    for message in messages:
        if message.role == "tool":
            pending.append(function_response(message, issued_ids))
            continue
        if pending:
            contents.append(types.Content(role="user", parts=pending))
            pending = []
        if message.role == "assistant":
            content = model_content(message)
            issued_ids = _call_ids(content)
        else:
            content = types.Content(
                role="user", parts=[types.Part(text=message.text)] if message.text else []
            )
        if content.parts and content.role == "model" and contents and contents[-1].role == "model":
            # Gemini refuses a function call right after a model turn: an MCP App's context (a
            # call of app_context, app.core.app_context) after the last answer joins that answer
            contents[-1] = types.Content(role="model", parts=[*(contents[-1].parts or []), *content.parts])
        elif content.parts:
            contents.append(content)
    if pending:
        contents.append(types.Content(role="user", parts=pending))
    return contents


def model_content(message: Message) -> types.Content:
    """The assistant's turn: verbatim when Gemini produced it, rebuilt otherwise."""
    data = message.provider_data
    if isinstance(data, types.Content):
        return data
    if isinstance(data, dict):
        return types.Content.model_validate(data)
    parts = [types.Part(text=message.text)] if message.text else []
    parts += [
        types.Part(function_call=types.FunctionCall(name=call.name, args=dict(call.arguments)))
        for call in message.tool_calls
    ]
    return types.Content(role="model", parts=parts)


def function_response(message: Message, issued_ids: set[str]) -> types.Part:
    response = _response(message)
    call_id = message.tool_call_id if message.tool_call_id in issued_ids else None
    return types.Part(
        function_response=types.FunctionResponse(id=call_id, name=message.tool_name, response=response)
    )


def _response(message: Message) -> dict[str, Any]:
    """Gemini takes a function's response as JSON: structured content as itself, with the text
    beside it only where the text says something the JSON does not."""
    if message.is_error or not isinstance(message.structured, dict):
        return {"error" if message.is_error else "result": message.text}
    response: dict[str, Any] = {"result": message.structured}
    if _json_or_none(message.text) != message.structured:
        response["text"] = message.text
    return response


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _call_ids(content: types.Content) -> set[str]:
    return {p.function_call.id for p in content.parts or () if p.function_call and p.function_call.id}
