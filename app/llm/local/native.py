"""A model's own tool-call format, where its chat template has one.

A GGUF whose ``tokenizer.chat_template`` renders ``tools`` was trained to read the
tools, its calls and their results in that template's own sections and roles, and to
write calls in its own syntax. Such a model is given the tools through its template
(as ``llama-server --jinja`` does) and its calls are decoded in that syntax, still
under the grammar built from the tools' schemas: only the markers around the JSON
change. Anything else keeps Calculon's own format (the tool list in the system text,
``<tool_call>{json}</tool_call>`` calls and ``<tool_result>`` turns, see conversation.py).

Only syntaxes checked against real published template texts are recognised (syntaxes.py):
Hermes (Qwen2.5, Qwen3, Hermes 2 Pro and 3, Granite 4.0), Llama 3.1-3.3, Mistral Nemo's list,
Mistral Small 3.2's, Devstral's and Ministral 3 Reasoning's named calls, Granite 3's, Gemma 4's.
Each is confirmed by rendering a probe conversation through the template at load time: a
template that names the markers but does not render a call and a result with them keeps
Calculon's format.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import jinja2
from llama_cpp.llama_chat_format import Jinja2ChatFormatter

from app.core.messages import Message, ToolCall, ToolSpec
from app.llm.local.conversation import DESCRIPTION_CHARS, Turn, fence, first_sentence, sentences
from app.llm.local.syntaxes import (
    GEMMA4,
    GRANITE3,
    HERMES,
    LLAMA3,
    MISTRAL,
    MISTRAL_ARGS,
    MISTRAL_IDS,
    MISTRAL_THINK,
    CallSyntax,
    render_calls,
    template_call_id,
)


class PlainFormat(Protocol):
    """What a native format needs of the plain chat format it falls back on (formats.ChatFormat):
    named here so that formats, which builds native formats, is the only one of the two to import
    the other."""

    @property
    def name(self) -> str: ...

    @property
    def stop(self) -> tuple[str, ...]: ...

    def render(self, turns: Sequence[Turn]) -> str: ...


logger = logging.getLogger(__name__)


_USES_TOOLS = re.compile(r"\btools\b")
_PROBE_TOOL = ToolSpec(
    "probe_tool",
    "Probe.",
    {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
)
_PROBE_RESULT = "probe-result-5813"


def detect_syntax(template: str) -> CallSyntax | None:
    """The native syntax a chat template's text names, if it renders ``tools`` at all."""
    if not _USES_TOOLS.search(template):
        return None
    if HERMES.open in template and HERMES.close in template and "<tool_response>" in template:
        return HERMES
    if '"parameters": ' in template and "ipython" in template:
        return LLAMA3
    if MISTRAL.open in template and "[ARGS]" in template:
        if MISTRAL_THINK.think[0] in template:
            return MISTRAL_THINK if "[CALL_ID]" not in template else None
        return MISTRAL_IDS if "[CALL_ID]" in template else MISTRAL_ARGS
    if MISTRAL.open + "[" in template and MISTRAL.result_open in template and "[ARGS]" not in template:
        return MISTRAL
    if GRANITE3.open in template and "available_tools" in template:
        return GRANITE3
    if f"{GEMMA4.open}call:" in template and GEMMA4.result_open in template and "declaration:" in template:
        return GEMMA4
    return None


class NativeFormat:
    """The model's own template, rendered with the tools and with calls and results in its own
    roles. ``render`` (plain turns) is for prompts without tools, through ``plain``."""

    native = True

    def __init__(
        self, template: str, syntax: CallSyntax, plain: PlainFormat, *, bos_token: str, eos_token: str
    ):
        self._formatter = Jinja2ChatFormatter(template=template, eos_token=eos_token, bos_token=bos_token)
        self.syntax, self._plain = syntax, plain
        self.name = f"{plain.name}+{syntax.name}"
        self.stop: tuple[str, ...] = tuple(dict.fromkeys((*plain.stop, *syntax.ends)))
        self.thinks: bool = syntax.think[0] in template  # it thinks in its own markers

    def render(self, turns: Sequence[Turn]) -> str:
        return self._plain.render(turns)

    def render_request(self, system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> str:
        """The whole prompt, ending where the model's reply begins."""
        return self._formatter(
            messages=template_messages(system, messages, self.syntax),  # type: ignore[arg-type]
            tools=template_tools(tools) or None,  # type: ignore[arg-type]
        ).prompt

    def confirmed(self) -> bool:
        """Whether the template renders a probe call and its result in this syntax."""
        call = ToolCall("call_probe", _PROBE_TOOL.name, {"x": 5})
        messages = (
            Message("user", "Probe 5."),
            Message("assistant", "", (call,)),
            Message("tool", _PROBE_RESULT, tool_call_id=call.id, tool_name=call.name),
        )
        try:
            prompt = self.render_request("", messages, (_PROBE_TOOL,))
        except (ValueError, TypeError, jinja2.TemplateError) as exc:
            logger.info("the chat template does not render tools (%s)", exc)
            return False
        written = prompt.find(render_calls((call,), self.syntax))
        results = prompt[written:].split(self.syntax.result_open, 1)
        return (
            written > 0
            and self.syntax.declared.format(_PROBE_TOOL.name) in prompt[:written]  # listed before the call
            and len(results) == 2
            and _PROBE_RESULT in results[1]
        )


def template_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Tools as chat templates take them (the OpenAI shape); descriptions are untrusted text."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": fence(sentences(tool.description, DESCRIPTION_CHARS)),
                "parameters": _shown_schema(tool.input_schema),
            },
        }
        for tool in tools
    ]


def _shown_schema(node: Any) -> Any:
    """A schema as the model reads it: descriptions fenced and cut to their first sentence, titles
    (the parameter's own name again, mostly) left out: the same tokens as Calculon's own list."""
    if isinstance(node, list):
        return [_shown_schema(item) for item in node]
    if not isinstance(node, Mapping):
        return node
    shown: dict[str, Any] = {}
    for key, value in node.items():
        if key == "description" and isinstance(value, str):
            shown[key] = fence(first_sentence(value))
        elif key == "properties" and isinstance(value, Mapping):
            shown[key] = {name: _shown_schema(sub) for name, sub in value.items()}
        elif key != "title" or not isinstance(value, str):
            shown[key] = _shown_schema(value)
    return shown


def template_messages(system: str, messages: Sequence[Message], syntax: CallSyntax) -> list[dict[str, Any]]:
    """The conversation in the template's own roles: calls on the assistant turn, results as
    ``tool`` messages (fenced: a tool's output must not open a turn of its own)."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system.strip()}] if system.strip() else []
    after_result = False
    for message in messages:
        if message.role == "tool":
            text = f"Error: {message.text}" if message.is_error else message.text
            after_result = True
            if syntax.results_on_call and out and out[-1]["role"] == "assistant":
                response = {"name": message.tool_name, "response": fence(text)}
                out[-1].setdefault("tool_responses", []).append(response)
                continue
            out.append(
                {
                    "role": "tool",
                    "content": fence(text),
                    "tool_call_id": _call_id(message.tool_call_id, syntax),
                    "name": message.tool_name,
                }
            )
        elif message.role == "assistant":
            out.extend(_assistant(message, syntax))
            after_result = False
        else:
            if syntax.alternates and after_result:
                out.append({"role": "assistant", "content": _empty(syntax)})  # that turn ended unanswered
            out.append({"role": "user", "content": message.text})
            after_result = False
    return out


def _empty(syntax: CallSyntax) -> str | list[dict[str, str]]:
    """An empty answer, as a list of text chunks where the template refuses an empty string."""
    return [{"type": "text", "text": ""}] if syntax.chunks else ""


def _assistant(message: Message, syntax: CallSyntax) -> list[dict[str, Any]]:
    """The assistant turn, or one turn per call where the template takes one call a turn."""
    text, calls = message.text.strip(), message.tool_calls
    if not calls:
        return [{"role": "assistant", "content": text}]
    if syntax.in_text:  # the template shows the text alone: the calls are written into it
        return [{"role": "assistant", "content": text + render_calls(calls, syntax)}]
    groups = [(call,) for call in calls] if syntax.one_per_turn else [calls]
    return [
        {
            "role": "assistant",
            "content": text if i == 0 else "",
            "tool_calls": [_call(c, syntax) for c in group],
        }
        for i, group in enumerate(groups)
    ]


def _call(call: ToolCall, syntax: CallSyntax) -> dict[str, Any]:
    return {
        "id": _call_id(call.id, syntax),
        "type": "function",
        "function": {"name": call.name, "arguments": dict(call.arguments)},
    }


def _call_id(call_id: str, syntax: CallSyntax) -> str:
    return template_call_id(call_id) if syntax.ids else call_id
