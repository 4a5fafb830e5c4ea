"""Chat Completions replies (streamed deltas or one whole message) to neutral chunks.

Text and reasoning become chunks as they arrive. A tool call's arguments come in
pieces keyed by the call's ``index`` (parallel calls interleave), so calls are
emitted only when the step ends, each with its JSON parsed once. Arguments that
are not a JSON object do not fail the step: the call carries the problem in
``raw_arguments_error`` and the turn loop tells the model, as for the local model.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Mapping
from typing import Any

from app.core.backend import BackendError, Chunk, StepDone, TextChunk, ThoughtChunk, ToolCallChunk
from app.core.messages import ToolCall

# Where servers put reasoning text: llama.cpp, DeepSeek and LM Studio say
# ``reasoning_content``; vLLM's newer releases and Ollama say ``reasoning``.
REASONING_FIELDS = ("reasoning_content", "reasoning")


@dataclasses.dataclass
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = dataclasses.field(default_factory=list)


class StepAssembler:
    """Feed it each delta (or the whole message); ``done()`` checks the ending."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.received = False  # any chunk at all: a later failure cuts an answer off
        self.finish = ""
        self.tokens = 0
        self._counted = 0  # content pieces, the token count when the server sends no usage
        self._calls: dict[int, _PendingCall] = {}
        self._answered = False

    def feed(self, delta: Any, finish_reason: str | None) -> list[Chunk]:
        """One choice's ``delta`` (streamed) or ``message`` (whole); both have the same fields."""
        self.received = True
        if finish_reason:
            self.finish = finish_reason
        if delta is None:
            return []
        chunks: list[Chunk] = []
        if reasoning := _reasoning(delta):
            self._counted += 1
            chunks.append(ThoughtChunk(reasoning))
        if content := getattr(delta, "content", None):
            self._counted += 1
            self._answered = True
            chunks.append(TextChunk(content))
        for position, piece in enumerate(getattr(delta, "tool_calls", None) or ()):
            self._take_call(piece, position)
        return chunks

    def count_usage(self, usage: Any) -> None:
        if usage is not None and getattr(usage, "completion_tokens", None):
            self.tokens = int(usage.completion_tokens)

    def done(self) -> tuple[list[Chunk], StepDone]:
        """The step's tool calls and its :class:`StepDone`; raises when the step did not end well."""
        self._check_ending()
        calls: list[Chunk] = [ToolCallChunk(_tool_call(p)) for _, p in sorted(self._calls.items())]
        notices: tuple[str, ...] = ()
        if self.finish == "length":
            notices = ("The model reached its output token limit, so this answer may be incomplete.",)
        return calls, StepDone(tokens=self.tokens or self._counted, notices=notices)

    def _take_call(self, piece: Any, position: int) -> None:
        index = getattr(piece, "index", None)
        pending = self._calls.setdefault(position if index is None else int(index), _PendingCall())
        pending.id = pending.id or (getattr(piece, "id", None) or "")
        function = getattr(piece, "function", None)
        if function is not None:
            pending.name += getattr(function, "name", None) or ""
            pending.arguments.append(getattr(function, "arguments", None) or "")

    def _check_ending(self) -> None:
        if not self.finish:
            raise BackendError(cut_off(self.where), category="network")
        if self.finish == "content_filter":
            raise BackendError(
                "The server's content filter stopped the answer. Rephrase the question.", category="blocked"
            )
        if not self._answered and not self._calls:
            raise BackendError(
                "The model returned an empty answer (no text and no tool call). Try rephrasing the question.",
                category="model",
            )


def cut_off(where: str) -> str:
    return f"The connection to the model server at {where} broke mid-answer, so the answer was cut off."


def _reasoning(delta: Any) -> str:
    extra: Mapping[str, Any] = getattr(delta, "model_extra", None) or {}
    for field in REASONING_FIELDS:
        value = extra.get(field) or getattr(delta, field, None)
        if isinstance(value, str) and value:
            return value
    return ""


def _tool_call(pending: _PendingCall) -> ToolCall:
    call_id = pending.id or f"call_{uuid.uuid4().hex[:12]}"
    text = "".join(pending.arguments).strip()
    try:
        arguments = json.loads(text) if text else {}
    except json.JSONDecodeError as exc:
        shown = text if len(text) <= 200 else text[:200] + "…"
        problem = f"the server sent invalid JSON ({exc.msg} at character {exc.pos}): {shown}"
        return ToolCall(call_id, pending.name, {}, raw_arguments_error=problem)
    if not isinstance(arguments, dict):
        return ToolCall(call_id, pending.name, {}, raw_arguments_error="arguments must be a JSON object")
    return ToolCall(call_id, pending.name, arguments)
