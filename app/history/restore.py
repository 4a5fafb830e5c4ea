"""A saved conversation back into what the model saw: its messages and what backs its numbers.

Built from the stored events the way the turn loop builds them: each step is an assistant
message with its tool calls, followed by their results; a re-ask is a user message. A
failed or cancelled turn is left out, as the turn loop leaves it out. A turn the app never
finished (it was killed) keeps its question and every call that has a result, so the model
knows what was already done. What an MCP App's page set for the model goes just before the
question it was sent with, as the turn loop puts it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from app.core import events as ev
from app.core.app_context import AppContext, context_messages
from app.core.messages import Message, ToolCall
from app.core.prompts import REASK_TEMPLATE
from app.core.records import call_label
from app.core.tools import USER_SOURCE, Source


@dataclasses.dataclass
class _Turn:
    turn_id: str
    messages: list[Message]
    sources: list[Source]
    text: list[str] = dataclasses.field(default_factory=list)
    calls: list[ToolCall] = dataclasses.field(default_factory=list)
    results: list[Message] = dataclasses.field(default_factory=list)
    provider_data: Any = None  # the backend's record of this step (StepFinished)

    def close_step(self) -> None:
        answered = {m.tool_call_id for m in self.results}
        calls = tuple(c for c in self.calls if c.id in answered)
        # The record holds every call of the step: replayed with one unanswered, it would ask the
        # model for a result that never comes; rebuilt from what was answered, it asks for none.
        record = self.provider_data if len(calls) == len(self.calls) else None
        if self.text or calls:
            self.messages.append(Message("assistant", "".join(self.text), calls, provider_data=record))
        self.messages.extend(self.results)
        self.text, self.calls, self.results, self.provider_data = [], [], [], None

    def call(self, event: ev.ToolCallStarted) -> None:
        call_id = event.call_id.removeprefix(f"{self.turn_id}-")
        self.calls.append(ToolCall(call_id, event.tool, dict(event.arguments)))

    def result(self, event: ev.ToolCallFinished) -> None:
        call_id = event.call_id.removeprefix(f"{self.turn_id}-")
        message = Message(
            "tool",
            event.result,
            tool_call_id=call_id,
            tool_name=event.tool,
            is_error=event.is_error,
            structured=event.structured,
        )
        self.results.append(message)
        if not event.is_error:
            self.sources.append(Source(event.result, call_label(event.tool, event.arguments), event.server))


def model_history(events: Iterable[ev.Event]) -> tuple[list[Message], list[Source]]:
    messages: list[Message] = []
    sources: list[Source] = []
    turn: _Turn | None = None
    for event in events:
        if isinstance(event, ev.TurnStarted):
            _keep(turn, messages, sources)
            turn = _Turn(event.turn_id, [Message("user", event.text)], [Source(event.text, USER_SOURCE)])
        elif turn is not None and event.turn_id == turn.turn_id:
            if isinstance(event, ev.TurnFinished):
                _keep(None if event.failed or event.cancelled else turn, messages, sources)
                turn = None
            else:
                _step_event(turn, event)
    _keep(turn, messages, sources)
    return messages, sources


def earlier_result(events: Iterable[ev.Event]) -> Fraction | None:
    """The last finished turn's verified result, which "that" in the next question stands for, as
    the session keeps it: a turn that failed or was cancelled leaves it as it was. Reopened without
    it, "Now add 2 to that." had the model write the call a live session transcribes (84 + 2)."""
    earlier: Fraction | None = None
    pending: dict[str, Fraction | None] = {}
    for event in events:
        if isinstance(event, ev.AnswerReady):
            pending[event.turn_id] = _exact(event.value) if event.verdict == "verified" else None
        elif isinstance(event, ev.TurnFinished) and not (event.failed or event.cancelled):
            earlier = pending.get(event.turn_id)
    return earlier


def _exact(value: str) -> Fraction | None:
    try:
        return Fraction(value) if value else None
    except (ValueError, ZeroDivisionError):  # a record this version did not write
        return None


def _step_event(turn: _Turn, event: ev.Event) -> None:
    if isinstance(event, ev.ToolCallEvent) and event.from_app:
        return  # an MCP App's own call: the model never made it nor saw its result
    if isinstance(event, ev.StepStarted):
        turn.close_step()
    elif isinstance(event, ev.TextDelta):
        turn.text.append(event.text)
    elif isinstance(event, ev.StepFinished):
        turn.provider_data = event.provider_data
    elif isinstance(event, ev.ToolCallStarted):
        turn.call(event)
    elif isinstance(event, ev.ToolCallFinished):
        turn.result(event)
    elif isinstance(event, ev.AppContextSent):  # sent just before the question, which is last so far
        context = AppContext(event.app_call, event.server, event.tool, event.text)
        turn.messages[-1:-1] = context_messages([context])
    elif isinstance(event, ev.CheckFinished) and event.will_reask:
        turn.close_step()
        turn.messages.append(Message("user", REASK_TEMPLATE.format(numbers=", ".join(event.unbacked))))


def _keep(turn: _Turn | None, messages: list[Message], sources: list[Source]) -> None:
    if turn is not None:
        turn.close_step()
        messages.extend(turn.messages)
        sources.extend(turn.sources)
