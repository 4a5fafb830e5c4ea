"""The provider-neutral turn loop.

A turn: the user's message goes to the backend; each tool call it asks for runs
through the tool provider and its result goes back; this repeats until the
model answers without calling a tool, or the round cap. In Calculon mode the
answer is checked, and the model is re-asked while numbers are unbacked.

Everything observable leaves as events. A failed or cancelled turn leaves the
history exactly as it was before the turn, so nothing the user had is lost.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
import uuid
from typing import Any

from app.core import events as ev
from app.core.backend import (
    Backend,
    BackendError,
    ModelRequest,
    StepDone,
    TextChunk,
    ThoughtChunk,
    ToolCallChunk,
)
from app.core.messages import Message, ToolCall, ToolSpec
from app.core.toolrun import CallRecord, ToolRunner
from app.core.tools import AnswerVerifier, ApprovalPolicy, ToolInfo, ToolProvider, ToolSelector

logger = logging.getLogger(__name__)

REASK_TEMPLATE = (
    "Your answer contains numbers that no tool returned and the user did not give: {numbers}. "
    "Compute each of them with the calculator tools, then answer again using only numbers "
    "from tool results or from the question."
)


@dataclasses.dataclass
class TurnOutcome:
    answer: str = ""
    verified: bool | None = None
    unbacked: tuple[str, ...] = ()
    tool_calls: list[CallRecord] = dataclasses.field(default_factory=list)
    events: list[ev.Event] = dataclasses.field(default_factory=list)
    cancelled: bool = False
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "answer": self.answer,
            "tool_calls": [c.to_dict() for c in self.tool_calls],
            "events": [e.to_dict() for e in self.events],
        }
        if self.verified is not None:
            body.update(verified=self.verified, unbacked_numbers=list(self.unbacked))
        if self.error:
            body["error"] = self.error
        if self.cancelled:
            body["cancelled"] = True
        return body


@dataclasses.dataclass
class _Step:
    text: str = ""
    calls: list[ToolCall] = dataclasses.field(default_factory=list)
    done: StepDone = dataclasses.field(default_factory=StepDone)


class ChatSession:
    """Runs turns against one backend and one tool provider. Emits :mod:`app.core.events`."""

    def __init__(
        self,
        backend: Backend,
        tools: ToolProvider,
        *,
        system_prompt: str = "",
        max_rounds: int = 8,
        verifier: AnswerVerifier | None = None,
        max_reasks: int = 2,
        selector: ToolSelector | None = None,
        approve: ApprovalPolicy | None = None,
    ) -> None:
        self.backend = backend
        self.tools = tools
        self.system_prompt = system_prompt
        self.max_rounds = max_rounds
        self.verifier = verifier
        self.max_reasks = max_reasks
        self.selector = selector
        self.runner = ToolRunner(tools, approve)
        self.history: list[Message] = []
        self._sources: list[str] = []  # user words and tool results: what may back a number
        self._sinks: list[ev.EventSink] = []
        self._task: asyncio.Task[Any] | None = None
        self._cancel_requested = False

    # --- public surface ---

    def subscribe(self, sink: ev.EventSink) -> None:
        self._sinks.append(sink)

    @property
    def busy(self) -> bool:
        return self._task is not None

    def cancel(self) -> None:
        """Stop the running turn; safe to call at any time."""
        if self._task is not None and not self._task.done():
            self._cancel_requested = True
            self._task.cancel()

    def reset(self) -> None:
        self.history.clear()
        self._sources.clear()

    async def run_turn(self, text: str) -> TurnOutcome:
        if self._task is not None:
            raise RuntimeError("a turn is already running")
        self._task = asyncio.current_task()
        turn = _Turn(self, uuid.uuid4().hex[:12])
        try:
            return await turn.run(text)
        finally:
            self._task, self._cancel_requested = None, False

    # --- for _Turn ---

    def emit(self, event: ev.Event) -> None:
        ev.deliver(self._sinks, event)

    def offer(self, context: str) -> tuple[list[tuple[ToolInfo, float]], bool]:
        every = self.tools.list_tools()
        chosen = self.selector.select(context, every) if self.selector else None
        if chosen is None:
            return [(t, 1.0) for t in every], False
        return chosen, True


class _Turn:
    """State of one running turn; commits to the session's history only on success."""

    def __init__(self, session: ChatSession, turn_id: str):
        self.s = session
        self.id = turn_id
        self.messages: list[Message] = []
        self.sources: list[str] = []
        self.outcome = TurnOutcome()
        self.started = time.perf_counter()

    def emit(self, event_cls: type[ev.Event], **fields: Any) -> None:
        event = event_cls(turn_id=self.id, **fields)
        self.outcome.events.append(event)
        self.s.emit(event)

    async def run(self, text: str) -> TurnOutcome:
        self.emit(ev.TurnStarted, text=text)
        self.messages.append(Message("user", text))
        self.sources.append(text)
        failed = False
        try:
            await self._loop()
        except asyncio.CancelledError:
            if not self.s._cancel_requested:
                raise
            asyncio.current_task().uncancel()  # type: ignore[union-attr]
            self.outcome.cancelled = True
            self.emit(ev.TurnError, message="Stopped by the user.", category="cancelled")
        except BackendError as exc:
            failed = self._fail(exc.message, exc.category)
        except Exception as exc:  # top of the turn: report, keep the session usable
            logger.exception("turn failed")
            failed = self._fail(f"Unexpected error: {exc}", "error")
        else:
            self.s.history.extend(self.messages)
            self.s._sources.extend(self.sources)
        duration = (time.perf_counter() - self.started) * 1000
        self.emit(ev.TurnFinished, cancelled=self.outcome.cancelled, failed=failed, duration_ms=duration)
        return self.outcome

    def _fail(self, message: str, category: str) -> bool:
        self.outcome.error = message
        self.emit(ev.TurnError, message=message, category=category)
        return True

    async def _loop(self) -> None:
        reasks = 0
        for step_no in range(1, self.s.max_rounds + 1):
            step = await self._step(step_no)
            self.messages.append(
                Message("assistant", step.text, tuple(step.calls), provider_data=step.done.provider_data)
            )
            if step.calls:
                for call in step.calls:
                    await self._call(call)
                continue
            if self._needs_reask(step.text, reasks):
                reasks += 1
                continue
            return
        raise BackendError(
            f"The model did not reach an answer within {self.s.max_rounds} steps.", category="rounds"
        )

    async def _step(self, step_no: int) -> _Step:
        context = self._context()
        if self.s.selector is None:
            offered, selected = self.s.offer(context)
        else:  # ranking embeds the query (tens of ms): off the loop, so a window never stalls
            offered, selected = await asyncio.to_thread(self.s.offer, context)
        self.emit(
            ev.StepStarted, step=step_no, offered=tuple((t.name, s) for t, s in offered), selected=selected
        )
        specs = tuple(ToolSpec(t.name, t.description, t.input_schema) for t, _ in offered)
        request = ModelRequest(self.s.system_prompt, (*self.s.history, *self.messages), specs)
        started = time.perf_counter()
        step = await self._stream_with_retry(request)
        for notice in step.done.notices:
            self.emit(ev.Notice, message=notice)
        duration = (time.perf_counter() - started) * 1000
        self.emit(ev.StepFinished, step=step_no, tokens=step.done.tokens, duration_ms=duration)
        return step

    async def _stream_with_retry(self, request: ModelRequest) -> _Step:
        try:
            return await self._stream(request)
        except BackendError as exc:
            if exc.retry_after is None or exc.category != "quota":
                raise
            self.emit(ev.Notice, message=f"{exc.message} Retrying in {exc.retry_after:.0f} s.")
            await asyncio.sleep(exc.retry_after)
            return await self._stream(request)

    async def _stream(self, request: ModelRequest) -> _Step:
        step, parts = _Step(), []
        async for chunk in self.s.backend.stream(request):
            if isinstance(chunk, TextChunk):
                parts.append(chunk.text)
                self.emit(ev.TextDelta, text=chunk.text)
            elif isinstance(chunk, ThoughtChunk):
                self.emit(ev.ThoughtDelta, text=chunk.text)
            elif isinstance(chunk, ToolCallChunk):
                step.calls.append(chunk.call)
            elif isinstance(chunk, StepDone):
                step.done = chunk
        step.text = "".join(parts)
        return step

    async def _call(self, call: ToolCall) -> None:
        server, tool = self.s.runner.identify(call)
        call_id = f"{self.id}-{call.id}"
        self.emit(ev.ToolCallStarted, call_id=call_id, server=server, tool=tool, arguments=call.arguments)
        result, ms = await self.s.runner.run(call)
        self.emit(
            ev.ToolCallFinished,
            call_id=call_id,
            server=server,
            tool=tool,
            arguments=call.arguments,
            result=result.text,
            is_error=result.is_error,
            duration_ms=ms,
        )
        self.outcome.tool_calls.append(
            CallRecord(server, tool, call.arguments, result.text, result.is_error, ms)
        )
        self.messages.append(
            Message("tool", result.text, tool_call_id=call.id, tool_name=call.name, is_error=result.is_error)
        )
        if not result.is_error:
            self.sources.append(result.text)

    def _needs_reask(self, answer: str, reasks: int) -> bool:
        """Check the candidate answer; True when the model should try again."""
        verified: bool | None = None
        unbacked: tuple[str, ...] = ()
        if self.s.verifier is not None:
            check = self.s.verifier.check(answer, (*self.s._sources, *self.sources))
            verified, unbacked = check.verified, check.unbacked
            will_reask = not verified and reasks < self.s.max_reasks
            self.emit(
                ev.CheckFinished,
                attempt=reasks + 1,
                verified=verified,
                unbacked=unbacked,
                will_reask=will_reask,
            )
            if will_reask:
                self.messages.append(Message("user", REASK_TEMPLATE.format(numbers=", ".join(unbacked))))
                return True
        self.outcome.answer, self.outcome.verified, self.outcome.unbacked = answer, verified, unbacked
        self.emit(ev.AnswerReady, text=answer, verified=verified, unbacked=unbacked)
        return False

    def _context(self) -> str:
        """What tool retrieval ranks against: the user's words and the latest step."""
        user = next((m.text for m in reversed(self.messages) if m.role == "user"), "")
        first = self.messages[0].text if self.messages else ""
        latest = self.messages[-1].text if len(self.messages) > 1 else ""
        return " ".join(dict.fromkeys(t for t in (first, user, latest) if t))
