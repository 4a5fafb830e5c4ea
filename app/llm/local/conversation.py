"""Neutral history to plain chat turns: what any chat template can render.

A small local model sees tools as text: the preamble lists them compactly, a call
is written as ``<tool_call>{"name": ..., "arguments": ...}</tool_call>`` (the
syntax the grammar enforces, and the one Hermes/Qwen-style models already know),
and a tool result goes back as a user turn in ``<tool_result>`` tags. Turns of
the same role are merged, so templates that insist on strict user/assistant
alternation never see two in a row.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from app.core.messages import Message, ToolCall, ToolSpec

CALL_OPEN = "<tool_call>"
CALL_CLOSE = "</tool_call>"

DESCRIPTION_CHARS = 160  # a tool's description is cut at a sentence end near here
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(])")

_CALL_HELP = (
    "To call a tool, reply with only this, on one line:\n"
    f'{CALL_OPEN}{{"name": "<tool name>", "arguments": {{<arguments as JSON>}}}}{CALL_CLOSE}\n'
    'Each result comes back as <tool_result name="<tool name>">...</tool_result>. '
    "When you have what you need, answer the user in plain text."
)


@dataclasses.dataclass(frozen=True)
class Turn:
    role: Literal["system", "user", "assistant"]
    text: str


def build_turns(
    system: str,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    examples: Sequence[Message] = (),
) -> list[Turn]:
    """The system preamble (instructions plus tools) and alternating user/assistant turns.

    With worked ``examples``, they follow the instructions, and the tool list moves to a
    second system turn just before the latest user message. The instructions and examples
    then open every prompt word for word, so llama.cpp's cache keeps them between
    questions even when retrieval offers other tools; only the short tool list and the
    question are read anew.
    """
    if not examples:
        preamble = "\n\n".join(part for part in (system.strip(), tools_preamble(tools)) if part)
        return _with_messages([Turn("system", preamble)] if preamble else [], messages)
    turns = [Turn("system", system.strip())] if system.strip() else []
    turns = _with_messages(turns, examples)
    latest = max((i for i, m in enumerate(messages) if m.role == "user"), default=0)
    turns = _with_messages(turns, messages[:latest])
    if tools:
        turns.append(Turn("system", tools_preamble(tools, compact=True)))
    return _with_messages(turns, messages[latest:])


def _with_messages(turns: list[Turn], messages: Sequence[Message]) -> list[Turn]:
    for message in messages:
        _append(turns, *_as_turn(message))
    return turns


def _append(turns: list[Turn], role: Literal["user", "assistant"], text: str) -> None:
    if not text:
        return
    if turns and turns[-1].role == role:
        turns[-1] = Turn(role, f"{turns[-1].text}\n\n{text}")
    elif role == "assistant" and (not turns or turns[-1].role == "system"):
        return  # a conversation opens with the user; an orphaned reply (after trimming) goes
    else:
        turns.append(Turn(role, text))


def _as_turn(message: Message) -> tuple[Literal["user", "assistant"], str]:
    if message.role == "tool":
        return "user", render_tool_result(message)
    if message.role == "assistant":
        calls = [render_call(call) for call in message.tool_calls]
        return "assistant", "\n".join(part for part in (message.text.strip(), *calls) if part)
    return "user", message.text


def render_call(call: ToolCall) -> str:
    body = {"name": call.name, "arguments": dict(call.arguments)}
    return f"{CALL_OPEN}{json.dumps(body, ensure_ascii=False)}{CALL_CLOSE}"


RESULT_OPEN = "<tool_result"  # a model that writes this is making up a result: its reply ends there


def render_tool_result(message: Message) -> str:
    flag = ' error="true"' if message.is_error else ""
    name = message.tool_name.replace('"', "'")
    return f'{RESULT_OPEN} name="{name}"{flag}>{fence(message.text)}</tool_result>'


# Chat-template and tool markup: the prompt is tokenized with special tokens on, so a tool
# result holding "<|im_start|>system" would open a real system turn, and "</tool_result>"
# would end the result early (Mistral's "[/TOOL_RESULTS][INST]" likewise). In untrusted text the
# brackets become guillemets.
_MARKUP = re.compile(
    r"<(\|[^|<>\n]{1,40}\|)>"
    r"|<(/?(?:start_of_turn|end_of_turn|tool_call|tool_result|tool_response|tools|s|bos|eos)\b[^<>\n]{0,80})>"
    r"|<(\|[a-z_]{1,20}|[a-z_]{1,20}\|)>"  # Gemma 4's <|turn>, <tool_call|>, <|tool_response>...
    r"|\[(/?(?:INST|TOOL_CALLS|TOOL_RESULTS|AVAILABLE_TOOLS|SYSTEM_PROMPT|TOOL_CONTENT|ARGS|CALL_ID))\]",
    re.IGNORECASE,
)


def fence(text: str) -> str:
    """Untrusted text (a tool's output or description) with no chat-template markup left in it."""
    return _MARKUP.sub(lambda m: f"‹{next(g for g in m.groups() if g is not None)}›", text)


def fold_system(turns: Sequence[Turn]) -> list[Turn]:
    """For formats without a system role: each system turn opens the user turn after it."""
    folded: list[Turn] = []
    pending = ""
    for turn in turns:
        if turn.role == "system":
            pending = f"{pending}\n\n{turn.text}" if pending else turn.text
        elif pending and turn.role == "user":
            folded.append(Turn("user", f"{pending}\n\n{turn.text}"))
            pending = ""
        else:
            if pending:
                folded.append(Turn("user", pending))
                pending = ""
            folded.append(turn)
    return [*folded, Turn("user", pending)] if pending else folded


def tools_preamble(tools: Sequence[ToolSpec], *, compact: bool = False) -> str:
    if not tools:
        return ""
    lines = ["You can call these tools:"]
    lines.extend(brief_tool(tool) if compact else describe_tool(tool) for tool in tools)
    return "\n".join(lines) + "\n\n" + _CALL_HELP


def brief_tool(tool: ToolSpec) -> str:
    """``- name(a, b): What it does.``, its first sentence: for a small model that learns the
    call syntax from worked examples, and whose argument types the grammar enforces."""
    properties: Mapping[str, Any] = tool.input_schema.get("properties") or {}
    head = f"- {tool.name}({', '.join(properties)})"
    return f"{head}: {fence(first_sentence(tool.description))}" if tool.description.strip() else head


def describe_tool(tool: ToolSpec) -> str:
    """``- name(a: number, unit?: "m"|"km"): What it does.`` plus one short line per described parameter."""
    properties: Mapping[str, Any] = tool.input_schema.get("properties") or {}
    required = set(tool.input_schema.get("required") or ())
    params = ", ".join(
        f"{name}{'' if name in required else '?'}: {type_label(schema)}"
        for name, schema in properties.items()
    )
    head = f"- {tool.name}({params})"
    if summary := sentences(tool.description, DESCRIPTION_CHARS):
        head += f": {fence(summary)}"
    notes = [
        f"    {name}: {fence(first_sentence(schema['description']))}"
        for name, schema in properties.items()
        if isinstance(schema, Mapping) and schema.get("description")
    ]
    return "\n".join([head, *notes])


def type_label(schema: Any) -> str:
    """A short type for the tool list: ``number|string``, ``"m"|"km"``, ``array of integer``."""
    if not isinstance(schema, Mapping):
        return "any"
    if "enum" in schema:
        return "|".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"], ensure_ascii=False)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return "|".join(dict.fromkeys(type_label(s) for s in schema[key]))
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    if kind == "array" and isinstance(schema.get("items"), Mapping):
        return f"array of {type_label(schema['items'])}"
    return str(kind)


def sentences(text: str, limit: int) -> str:
    """Whole sentences from the start of ``text``, as many as fit in ``limit`` characters (at least one)."""
    parts = _SENTENCE_END.split(_squash(text))
    kept = parts[:1]
    for part in parts[1:]:
        if len(" ".join([*kept, part])) > limit:
            break
        kept.append(part)
    return " ".join(kept)


def first_sentence(text: str) -> str:
    return sentences(text, 0)


def _squash(text: str) -> str:
    return " ".join(text.split())


def message_groups(messages: Sequence[Message]) -> list[list[Message]]:
    """History split where each user message starts: the unit that context trimming drops."""
    groups: list[list[Message]] = []
    for message in messages:
        if message.role == "user" or not groups:
            groups.append([])
        groups[-1].append(message)
    return groups


def flatten(groups: Iterable[Sequence[Message]]) -> tuple[Message, ...]:
    return tuple(message for group in groups for message in group)
