"""The tool-call syntaxes of the model families, as their own chat templates render them.

A call is a JSON object naming the tool and holding its arguments, under the grammar
built from the tools' schemas (schema_grammar.py); a syntax says what is around it: the
marker that opens it (none for Llama 3.x, whose call is the JSON alone), what closes it (or
the JSON's own last brace), the key of the arguments ("parameters" for Llama 3.x), whether
several calls go in one JSON list (Mistral, Granite 3) and whether each carries the call id
the template checks (Mistral Nemo). Gemma 4's call is not JSON but its own ``call:name{...}``
(its grammar: gemma_grammar.py). Each was read off a published model's template text.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from app.core import gemma_values
from app.core.messages import ToolCall

FENCE_OPEN = "```json"
BARE_OPENERS = ("{", FENCE_OPEN)
_TEMPLATE_ID = re.compile(r"[A-Za-z0-9]{9}")
THINK = ("<think>", "</think>")


@dataclasses.dataclass(frozen=True)
class CallSyntax:
    name: str
    open: str  # what opens a call; "": the call is the JSON alone, at the start of the reply
    close: str  # what ends it; "": the JSON's own last brace (or bracket) does
    result_open: str  # what opens a tool result: a model that writes it is making one up
    newline: bool = False  # the JSON sits on its own line between the markers
    # a reply that opens with "{" or a ```json fence is a call too: the JSON alone, ended by its
    # closing brace or fence (Qwen2.5-Coder given its tools wrote its calls both ways, untagged)
    bare: bool = False
    arguments: str = "arguments"  # the key of the arguments beside "name"
    listed: bool = False  # the calls are one JSON list, several in one reply
    ids: bool = False  # each call in the list carries an "id" of nine letters and digits
    also_opens: tuple[str, ...] = ()  # markers the model may open a call with beside ``open``
    one_per_turn: bool = False  # the template renders one call per assistant turn
    in_text: bool = False  # the template renders an assistant turn's text alone: calls are written in it
    # the name outside the JSON: ``name[ARGS]{arguments}`` (Mistral Small 3.2, Devstral), with the
    # id between them behind ``id_marker`` where the template has one (``name[CALL_ID]id[ARGS]{...}``)
    args_marker: str = ""
    id_marker: str = ""
    # the template refuses two user turns without an assistant answer between them, even where the
    # first turn's calls and results stand there (a turn that ended without an answer)
    alternates: bool = False
    chunks: bool = False  # the template takes an empty answer only as a list of text chunks (Ministral 3)
    # what opens and closes the model's thinking before its answer or call, where it thinks
    think: tuple[str, str] = THINK
    # "gemma": the call is Gemma 4's ``call:name{key:value}``, not JSON (app/core/gemma_values.py)
    form: str = "json"
    results_on_call: bool = False  # results go on the assistant message that made the calls
    ends: tuple[str, ...] = ()  # what ends the model's turn, beside the format's own stop text
    declared: str = '"{}"'  # how the template's tool list names a tool

    @property
    def openers(self) -> tuple[str, ...]:
        """The markers that open a call (none where the call is the JSON alone)."""
        return tuple(marker for marker in (self.open, *self.also_opens) if marker)

    def body(self, call: ToolCall) -> dict[str, Any]:
        """One call as the JSON object the model writes."""
        body: dict[str, Any] = {"name": call.name, self.arguments: dict(call.arguments)}
        if self.ids:
            body["id"] = template_call_id(call.id)
        return body

    def named(self, call: ToolCall) -> str:
        """One call as ``name[ARGS]{arguments}``, the name outside the JSON."""
        call_id = f"{self.id_marker}{template_call_id(call.id)}" if self.id_marker else ""
        arguments = json.dumps(dict(call.arguments), ensure_ascii=False)
        return f"{call.name}{call_id}{self.args_marker}{arguments}"

    def whole(self, text: str) -> bool:
        """Whether ``text`` is a complete call: an object, or a list of them where calls are listed."""
        if self.args_marker:
            text = text.partition(self.args_marker)[2]
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            return False
        return isinstance(value, dict) or (self.listed and isinstance(value, list))

    def items(self, text: str) -> list[Any]:
        """The call objects in the text after the opening marker; raises ValueError where it is not
        JSON (nor, in Gemma's form, a ``call:name{...}``)."""
        if self.form == "gemma":
            tool, values = gemma_values.parse_call(text)
            return [{"name": tool, self.arguments: values}]
        if self.args_marker:
            head, marker, arguments = text.partition(self.args_marker)
            if not marker:
                raise json.JSONDecodeError(f"no {self.args_marker} after the tool's name", text, len(text))
            name = head.partition(self.id_marker)[0] if self.id_marker else head
            return [{"name": name.strip(), self.arguments: json.loads(arguments)}]
        value = json.loads(text)
        return value if self.listed and isinstance(value, list) else [value]


CALCULON = CallSyntax("calculon", "<tool_call>", "</tool_call>", "<tool_result")
HERMES = CallSyntax("hermes", "<tool_call>", "</tool_call>", "<tool_response>", newline=True, bare=True)
# Llama 3.1-3.3: the JSON alone right after the assistant header, "parameters" for the arguments,
# results in the ipython role; <|python_tag|> opens calls of its built-in tools, so it may open one
LLAMA3 = CallSyntax(
    "llama3",
    "",
    "",
    "<|start_header_id|>ipython<|end_header_id|>",
    bare=True,
    arguments="parameters",
    also_opens=("<|python_tag|>",),
    one_per_turn=True,
)
# Mistral Nemo: [TOOL_CALLS][{..., "id": "abcdefghi"}, ...], each id checked by the template
MISTRAL = CallSyntax("mistral", "[TOOL_CALLS]", "", "[TOOL_RESULTS]", listed=True, ids=True, alternates=True)
# Mistral Small 3.2: [TOOL_CALLS]name[CALL_ID]abcdefghi[ARGS]{...}, once per call
MISTRAL_IDS = CallSyntax(
    "mistral-ids",
    "[TOOL_CALLS]",
    "",
    "[TOOL_RESULTS]",
    ids=True,
    args_marker="[ARGS]",
    id_marker="[CALL_ID]",
    alternates=True,
)
# Devstral Small 2507 and Ministral 3: [TOOL_CALLS]name[ARGS]{...}, once per call
MISTRAL_ARGS = CallSyntax("mistral-args", "[TOOL_CALLS]", "", "[TOOL_RESULTS]", args_marker="[ARGS]")
# Ministral 3 Reasoning: Devstral's calls, after its thinking in [THINK]...[/THINK]
MISTRAL_THINK = dataclasses.replace(
    MISTRAL_ARGS, name="mistral-think", alternates=True, chunks=True, think=("[THINK]", "[/THINK]")
)
# Gemma 4: <|tool_call>call:name{key:<|"|>text<|"|>,n:5}<tool_call|>, one after another; the
# results follow the calls in the same model turn, thoughts go in <|channel>thought...<channel|>
GEMMA4 = CallSyntax(
    "gemma4",
    gemma_values.CALL_OPEN,
    gemma_values.CALL_CLOSE,
    "<|tool_response>",
    think=("<|channel>thought", "<channel|>"),
    form="gemma",
    results_on_call=True,
    ends=("<turn|>",),
    declared="declaration:{}{{",
    alternates=True,
)
# Granite 3.x: <|tool_call|>[{...}, ...]; the template renders the assistant's text only
GRANITE3 = CallSyntax(
    "granite3", "<|tool_call|>", "", "<|start_of_role|>tool<|end_of_role|>", listed=True, in_text=True
)


def render_calls(calls: Sequence[ToolCall], syntax: CallSyntax) -> str:
    """Calls as the model writes them in ``syntax``: one, a list where the syntax lists them, or
    each behind its own marker where the name stands outside the JSON."""
    if syntax.args_marker:
        return "".join(f"{syntax.open}{syntax.named(call)}" for call in calls)
    if syntax.form == "gemma":
        written = (gemma_values.render_call(call.name, call.arguments) for call in calls)
        return "".join(f"{syntax.open}{call}{syntax.close}" for call in written)
    bodies = [syntax.body(call) for call in calls]
    payload = json.dumps(bodies if syntax.listed else bodies[0], ensure_ascii=False)
    line = "\n" if syntax.newline else ""
    return f"{syntax.open}{line}{payload}{line}{syntax.close}"


def template_call_id(call_id: str) -> str:
    """An id the template accepts (Mistral's nine letters and digits), the same for the same call,
    so a call and its result still match and the prompt stays the same from step to step."""
    if _TEMPLATE_ID.fullmatch(call_id):
        return call_id
    return hashlib.sha256(call_id.encode("utf-8")).hexdigest()[:9]
