"""Streamed Gemini responses to neutral chunks, and the step's merged content.

Gemini streams a step as many small responses. Each part becomes a chunk as
it arrives; all parts are also kept, in order, so the complete model content
(thought signatures included) can be replayed on the next request.
"""

from __future__ import annotations

import enum
import uuid

from google.genai import types

from app.core.backend import BackendError, Chunk, StepDone, TextChunk, ThoughtChunk, ToolCallChunk
from app.core.messages import ToolCall

_BLOCKED = {
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "LANGUAGE",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION",
    "MODEL_ARMOR",
}
_NORMAL = {"STOP", "MAX_TOKENS", "FINISH_REASON_UNSPECIFIED"}
_TEXT_ONLY = {"text", "thought", "thought_signature"}

CUT_OFF = "The connection to Gemini broke mid-answer, so the answer was cut off. Try again."


class StepAssembler:
    """Feed it each streamed response; ``done()`` checks the ending and returns :class:`StepDone`."""

    def __init__(self) -> None:
        self.parts: list[types.Part] = []
        self.received = False  # any response at all: a later failure cuts an answer off
        self._finish = ""
        self._finish_message = ""
        self._tokens = 0

    def feed(self, response: types.GenerateContentResponse) -> list[Chunk]:
        self.received = True
        _raise_if_prompt_blocked(response)
        if response.usage_metadata is not None:
            meta = response.usage_metadata
            self._tokens = (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0)
        if not response.candidates:
            return []
        candidate = response.candidates[0]
        if candidate.finish_reason is not None:
            self._finish = _name(candidate.finish_reason)
            self._finish_message = candidate.finish_message or ""
        parts = candidate.content.parts if candidate.content and candidate.content.parts else []
        return [chunk for part in parts if (chunk := self._take(part)) is not None]

    def done(self) -> StepDone:
        self._check_ending()
        notices: tuple[str, ...] = ()
        if self._finish == "MAX_TOKENS":
            notices = ("Gemini reached its output token limit, so this answer may be incomplete.",)
        content = types.Content(role="model", parts=list(self.parts))
        record = content.model_dump(mode="json", exclude_none=True)  # convert.model_content rebuilds it
        return StepDone(tokens=self._tokens, provider_data=content, notices=notices, provider_json=record)

    def _take(self, part: types.Part) -> Chunk | None:
        self._keep(part)
        if part.function_call is not None:
            return ToolCallChunk(_tool_call(part.function_call))
        if part.text:
            return ThoughtChunk(part.text) if part.thought else TextChunk(part.text)
        return None

    def _keep(self, part: types.Part) -> None:
        """Append, joining streamed text pieces so history holds whole parts.

        Pieces join only while the earlier one carries no signature, so every
        signature stays on the part that ends where it arrived."""
        last = self.parts[-1] if self.parts else None
        if last is not None and _joinable(last, part):
            self.parts[-1] = types.Part(
                text=(last.text or "") + (part.text or ""),
                thought=part.thought,
                thought_signature=part.thought_signature,
            )
        else:
            self.parts.append(part)

    def _check_ending(self) -> None:
        error = _finish_error(self._finish, self._finish_message) or self._shape_error()
        if error is not None:
            raise error

    def _shape_error(self) -> BackendError | None:
        if not self._finish:
            return BackendError(CUT_OFF, category="network")
        if self._answered():
            return None
        if self._finish == "MAX_TOKENS":
            return BackendError(
                "Gemini spent its whole output token limit before answering.", category="model"
            )
        return BackendError(
            "Gemini returned an empty answer (no text and no tool call). Try rephrasing the question.",
            category="blocked",
        )

    def _answered(self) -> bool:
        return any(p.function_call is not None or (p.text and not p.thought) for p in self.parts)


def _finish_error(reason: str, message: str) -> BackendError | None:
    detail = f": {message}" if message else ""
    if reason in _BLOCKED:
        text = f"Gemini stopped the answer for safety or policy reasons ({reason}){detail}."
        return BackendError(text, category="blocked")
    if reason == "MALFORMED_FUNCTION_CALL":
        text = f"Gemini produced a malformed function call{detail}. Try again or rephrase the question."
        return BackendError(text, category="arguments")
    if reason and reason not in _NORMAL:
        return BackendError(f"Gemini stopped early ({reason}){detail}.", category="model")
    return None


def _raise_if_prompt_blocked(response: types.GenerateContentResponse) -> None:
    feedback = response.prompt_feedback
    if feedback is None or feedback.block_reason is None:
        return
    detail = f": {feedback.block_reason_message}" if feedback.block_reason_message else ""
    raise BackendError(
        f"Gemini refused the request ({_name(feedback.block_reason)}){detail}. Rephrase it and try again.",
        category="blocked",
    )


def _tool_call(call: types.FunctionCall) -> ToolCall:
    """Gemini often sends calls without ids; the turn loop needs one to pair the result.

    A generated id stays on our side: the part kept for history is left as sent."""
    call_id = call.id or f"call_{uuid.uuid4().hex[:12]}"
    return ToolCall(id=call_id, name=call.name or "", arguments=dict(call.args or {}))


def _joinable(last: types.Part, part: types.Part) -> bool:
    return (
        _text_only(last)
        and _text_only(part)
        and last.thought_signature is None
        and bool(last.thought) == bool(part.thought)
    )


def _text_only(part: types.Part) -> bool:
    present = {name for name in part.model_fields_set if getattr(part, name) is not None}
    return part.text is not None and present <= _TEXT_ONLY


def _name(value: object) -> str:
    return str(value.value) if isinstance(value, enum.Enum) else str(value)
