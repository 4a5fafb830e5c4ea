"""Tool calls written out as text: never an answer.

A model that writes its call as text instead of through its backend's call channel
(``{"name": "evaluate", "arguments": {...}}`` as the reply, a Hermes ``<tool_call>``
block from a server without tool parsing, a fenced JSON block) has not answered. The
turn loop reads such a reply here and runs the call, or refuses it with a note, in
every mode and for every backend: it is never shown, nor checked, as the answer.

Recognised: the whole reply as one JSON object (or a list of them) with ``name`` and
``arguments`` (or ``parameters``, Llama 3.1's key), optionally fenced in a code block, or
behind a call marker (Hermes/Qwen ``<tool_call>``, Mistral ``[TOOL_CALLS]`` with a JSON list or
``name[ARGS]{...}``, Llama 3.1
``<|python_tag|>``, Granite 3 ``<|tool_call|>``), after any prose; Gemma 4's own
``<|tool_call>call:name{key:<|"|>text<|"|>}<tool_call|>``, which is not JSON; and a call
written as Python, ``get_time(timezone="Asia/Tokyo")``, where the whole reply (or its fenced
block) is such calls to offered tools, one a line, with literal arguments: read with ``ast``,
never evaluated. Calls amid prose are read too (the first fenced block of calls, else JSON calls
that open a line): Qwen2.5-Coder-0.5B with Calculon mode off answered 8 of 28 real tasks with
"Here's how you can do it:", the call in a fenced JSON block or bare, and what it "will return";
that was shown as the answer.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.core import gemma_values
from app.core.messages import Message, ToolCall, ToolSpec
from app.core.toolrun import schema_error

WRITTEN_REASK = "That was a tool call written as text, and its result is above. Answer my question in words."
WRITTEN_FAILURE = "The model answered with a tool call written as text, so no answer is shown."
_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```$", re.DOTALL)
_ANY_FENCE = re.compile(r"```[a-zA-Z]*[ \t]*\n(?:(?!```).)*?```", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_GEMMA = re.compile(r"<\|tool_call>\s*(call:.*?)\s*(?:<tool_call\|>|$)", re.DOTALL)
_MARKERS = ("[TOOL_CALLS]", "<|python_tag|>", "<|tool_call|>")


@dataclasses.dataclass(frozen=True)
class TextCalls:
    """What a reply held: the prose before the calls, and the calls (checked against the tools:
    a problem is in ``raw_arguments_error``, so the turn loop tells the model, not the user)."""

    prose: str
    calls: tuple[ToolCall, ...]


@dataclasses.dataclass(frozen=True)
class Written:
    """The turn loop's reading of a reply that is a call: ``calls`` to run (empty: refused, as
    each repeats a call already made this turn), the prose before them, the trace's note."""

    prose: str
    calls: tuple[ToolCall, ...]
    notice: str


_OPENERS = ("{", "[", "```", "<tool_call>", gemma_values.CALL_OPEN, *_MARKERS)


def may_open_call(text: str) -> bool:
    """Whether ``text``, a reply still streaming, begins the way a call written out does: a view
    must not present it as the answer growing before the turn loop has read it whole."""
    head = text.lstrip()
    return bool(head) and any(head.startswith(o) or o.startswith(head) for o in _OPENERS)


def read_written(
    text: str, tools: Sequence[ToolSpec], turn: Sequence[Message], step_no: int
) -> Written | None:
    """``text`` as calls to run or refuse, given the messages of the turn so far; None: not a call."""
    found = calls_in_text(text, tools)
    if found is None:
        return None
    made = [(call.name, call.arguments) for message in turn for call in message.tool_calls]
    fresh = tuple(call for call in found.calls if (call.name, call.arguments) not in made)
    names = ", ".join(dict.fromkeys(call.name for call in found.calls))
    if fresh:
        return Written(
            found.prose, fresh, f"Step {step_no}: the model wrote its call to {names} as text; it was run."
        )
    note = f"Step {step_no}: the model wrote its call to {names} again as text; it is not shown as an answer."
    return Written(found.prose, (), note)


def calls_in_text(text: str, tools: Sequence[ToolSpec]) -> TextCalls | None:
    """The calls written in ``text``, or None where it is not a call."""
    text = text.strip()
    prose, bodies = _split(text)
    if not bodies:
        bodies = _python(text, tools)
    if not bodies:
        # "Here's how you can do it: ```json read_file("/.../README.md") ```", and often words
        # after it on what the call "will return": the first fenced block that is calls is the
        # call, the prose before it kept, the words after it (of a result not yet had) dropped
        for fence in _ANY_FENCE.finditer(text):
            block = fence.group(0).strip()
            bodies = _bodies(block) or _python(block, tools)
            if bodies:
                prose = text[: fence.start()].strip()
                break
    if not bodies:  # the same, unfenced: "Here's how you can do it:\n{"name": ...}"
        prose, bodies = _after_prose(text)
    if not bodies:
        return None
    calls = [_checked(body, tools) for body in bodies]
    return TextCalls(prose, tuple(calls))


def _split(text: str) -> tuple[str, list[Mapping[str, Any]]]:
    gemma = list(_GEMMA.finditer(text))
    if gemma:
        bodies = _gemma(match.group(1) for match in gemma)
        return (text[: gemma[0].start()].strip(), bodies) if bodies else ("", [])
    tagged = list(_TAGGED.finditer(text))
    if tagged:
        bodies = [body for match in tagged for body in _bodies(match.group(1))]
        return (text[: tagged[0].start()].strip(), bodies) if bodies else ("", [])
    for marker in _MARKERS:
        if marker in text:
            before, _, after = text.partition(marker)
            bodies = _named(after) if "[ARGS]" in after else _bodies(after)
            return (before.strip(), bodies) if bodies else ("", [])
    return "", _bodies(text)


def _bodies(text: str) -> list[Mapping[str, Any]]:
    """The call objects in ``text`` when all of it is calls, else none."""
    text = text.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = _lines(text)
    items = value if isinstance(value, list) else [value]
    if not items or not all(_is_call(item) for item in items):
        return []
    return [_unwrapped(item) for item in items]


def _python(text: str, tools: Sequence[ToolSpec]) -> list[Mapping[str, Any]]:
    """Calls written as Python (``name(key=value)``), one a line, to offered tools, else none.

    Only the offered names count, so prose that happens to read as a call ("f(x)") is no call;
    a single positional argument goes to a tool's only property, or its only required one.
    """
    fenced = _FENCE.match(text)
    lines = [line.strip() for line in (fenced.group(1) if fenced else text).splitlines() if line.strip()]
    specs = {tool.name: tool for tool in tools}
    bodies: list[Mapping[str, Any]] = []
    for line in lines:
        try:
            node = ast.parse(line, mode="eval").body
        except SyntaxError:
            return []
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in specs):
            return []
        arguments = _python_arguments(node, specs[node.func.id])
        if arguments is None:
            return []
        bodies.append({"name": node.func.id, "arguments": arguments})
    return bodies


def _python_arguments(node: ast.Call, spec: ToolSpec) -> dict[str, Any] | None:
    properties = list((spec.input_schema.get("properties") or {}).keys())
    required = [name for name in spec.input_schema.get("required") or () if name in properties]
    # one positional argument: the tool's only property, or its only required one (read_file's path)
    only = properties if len(properties) == 1 else required if len(required) == 1 else []
    if len(node.args) > len(only[:1]) or any(k.arg is None for k in node.keywords):
        return None
    try:
        arguments = {str(k.arg): ast.literal_eval(k.value) for k in node.keywords}
        if node.args:
            arguments[only[0]] = ast.literal_eval(node.args[0])
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    return arguments


def _named(text: str) -> list[Mapping[str, Any]]:
    """Mistral's ``name[ARGS]{...}`` calls (``name[CALL_ID]id[ARGS]{...}``), each behind its own
    [TOOL_CALLS], when all of the text is calls, else none."""
    bodies: list[Mapping[str, Any]] = []
    for part in text.split("[TOOL_CALLS]"):
        head, marker, arguments = part.partition("[ARGS]")
        name, value = head.partition("[CALL_ID]")[0].strip(), _object(arguments.strip())
        if not marker or not name or value is None:
            return []
        bodies.append({"name": name, "arguments": value})
    return bodies


def _gemma(calls: Iterable[str]) -> list[Mapping[str, Any]]:
    """Gemma 4's ``call:name{...}`` calls, when each reads as one, else none."""
    bodies: list[Mapping[str, Any]] = []
    for call in calls:
        try:
            name, arguments = gemma_values.parse_call(call)
        except ValueError:
            return []
        bodies.append({"name": name, "arguments": arguments})
    return bodies


def _after_prose(text: str) -> tuple[str, list[Mapping[str, Any]]]:
    """The JSON calls that open a line after prose, one after another, the first of each kind
    (a model cut off at its token cap wrote the same call four times and half of a fifth), and
    the prose before them; ("", []) where no line opens with a call."""
    decoder = json.JSONDecoder()
    for line in re.finditer(r"^[ \t]*\{", text, re.MULTILINE):
        at, bodies = line.end() - 1, []
        while at < len(text):
            try:
                value, at = decoder.raw_decode(text, at)
            except json.JSONDecodeError:
                break
            if not _is_call(value):
                break
            if (body := _unwrapped(value)) not in bodies:
                bodies.append(body)
            while at < len(text) and text[at].isspace():
                at += 1
        if bodies:
            return text[: line.start()].strip(), bodies
    return "", []


def _lines(text: str) -> list[Any] | None:
    """One JSON call per line (a model that wrote several calls, or the same one twice)."""
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError:
        return None


def _unwrapped(item: Mapping[str, Any]) -> Mapping[str, Any]:
    inner = item.get("function")
    return inner if isinstance(inner, Mapping) else item


def _is_call(item: Any) -> bool:
    if not isinstance(item, Mapping):
        return False
    item = _unwrapped(item)
    arguments = item.get("arguments", item.get("parameters"))
    if isinstance(arguments, str):  # the OpenAI wire form: arguments as a JSON string
        arguments = _object(arguments)
    return isinstance(item.get("name"), str) and isinstance(arguments, Mapping)


def _object(text: str) -> Mapping[str, Any] | None:
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, Mapping) else None


def _checked(body: Mapping[str, Any], tools: Sequence[ToolSpec]) -> ToolCall:
    name = str(body["name"])
    arguments = body.get("arguments", body.get("parameters"))
    if isinstance(arguments, str):
        arguments = _object(arguments)
    assert isinstance(arguments, Mapping)  # _is_call checked it
    call_id = f"call_{uuid.uuid4().hex[:10]}"
    spec = next((tool for tool in tools if tool.name == name), None)
    if spec is None:
        return ToolCall(
            call_id, name, dict(arguments), raw_arguments_error=f"{name!r} is not an offered tool"
        )
    problem = schema_error(spec.input_schema, arguments)
    if problem is not None:
        return ToolCall(
            call_id, name, dict(arguments), raw_arguments_error=f"does not match the schema: {problem}"
        )
    return ToolCall(call_id, name, dict(arguments))
