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
import itertools
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from app.core import events as ev
from app.core import running
from app.core.acting import results_reask
from app.core.answer_check import AnswerCheck
from app.core.app_context import AppContext, context_messages
from app.core.backend import (
    Backend,
    BackendError,
    FormulaHint,
    ModelRequest,
    StepDone,
    TextChunk,
    ThoughtChunk,
    ToolCallChunk,
    UserArithmetic,
    WorkedAnswer,
)
from app.core.calling import run_call
from app.core.messages import Message, ToolCall, ToolSpec
from app.core.offer import listed, narrowed, ranked_offer, ruled_out, standing, step_specs
from app.core.outcome import TurnOutcome
from app.core.records import earlier_result
from app.core.refused_again import RefusedCalculations
from app.core.text_calls import WRITTEN_FAILURE, WRITTEN_REASK, read_written
from app.core.toolrun import ToolRunner
from app.core.tools import (
    USER_SOURCE,
    AnswerVerifier,
    ApprovalPolicy,
    Source,
    ToolProvider,
    ToolSelector,
)
from app.core.zones import choices as zone_choices

logger = logging.getLogger(__name__)

# A worked answer's calculations are steps of their own that count as no round; this many is a loop.
MAX_INLINE_CALLS = 24
REASKED_STEPS = 1  # answers asked again in a turn: within this many times its limit of rounds
INLINE_FAILURE = f"The worked answer went past {MAX_INLINE_CALLS} calculations without an answer."
INLINE_REPEAT = (
    "The model kept writing a calculation the calculator had refused, also after it was asked again."
)


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
        trusted: Callable[[str], bool] = lambda _server: True,
    ) -> None:
        self.backend = backend
        self.trusted = trusted  # whether a server's numbers may be called verified
        self.tools = tools
        self.system_prompt = system_prompt
        self.max_rounds = max_rounds
        self.verifier = verifier
        self.max_reasks = max_reasks
        self.selector = selector
        self.runner = ToolRunner(tools, approve)
        self.running = running.RunningCalls()
        self.history: list[Message] = []
        self._sources: list[Source] = []  # user words and tool results: what may back a number
        self._earlier: Fraction | None = None  # the last answer's result, where it was verified
        self.told_down: dict[str, str] = {}  # servers down, each with the error an answer named
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

    def cancel_call(self, call_id: str) -> bool:
        """Stop one running call; the model is told the user cancelled it and the turn goes on."""
        return self.running.cancel(call_id)

    def reset(self) -> None:
        self.history.clear()
        self._sources.clear()
        self._earlier = None

    def restore(self, history: list[Message], sources: list[Source], earlier: Fraction | None = None) -> None:
        """Continue a saved conversation (:mod:`app.history`): its messages, what backs its numbers
        (each server's results trusted as the settings say now), and its last verified result."""
        marked = [dataclasses.replace(s, trusted=self.trusted(s.server)) if s.server else s for s in sources]
        self.history[:], self._sources[:] = history, marked
        self._earlier = earlier

    async def run_turn(self, text: str, context: Sequence[AppContext] = ()) -> TurnOutcome:
        if self._task is not None:
            raise RuntimeError("a turn is already running")
        self._task = asyncio.current_task()
        turn = _Turn(self, uuid.uuid4().hex[:12])
        try:
            return await turn.run(text, context)
        finally:
            self._task, self._cancel_requested = None, False

    # --- for _Turn ---

    def emit(self, event: ev.Event) -> None:
        ev.deliver(self._sinks, event)


class _Turn:
    """State of one running turn; commits to the session's history only on success."""

    def __init__(self, session: ChatSession, turn_id: str):
        self.s = session
        self.id = turn_id
        self.messages: list[Message] = []
        self.sources: list[Source] = []
        self.user_text = ""
        self.specs: tuple[ToolSpec, ...] = ()  # the tools offered at the latest step
        self.listed: tuple[ToolSpec, ...] = ()  # the tools the prompt lists (app.core.offer.listed)
        self.written = 0  # calls written as text that were refused
        self.idle_server = ""  # whose calculation worked nothing out and was refused: not offered again
        self.idle_told = False  # such a call was refused this step: the request is written out again
        self.named: tuple[str, ...] = ()  # the servers the question names, among those offered first
        self.zones: list[str] = []  # the time zones it names (app.core.zones): a zone argument's only values
        self.zones_told = False
        self.worked: list[str] = []  # a worked answer's text so far, while its inline calls run
        self.inserted: list[str] = []  # how each inline result stands in that answer ("= 9")
        self.refused = RefusedCalculations()
        self.outcome = TurnOutcome()
        self.check = AnswerCheck(self)
        self.formula: FormulaHint | None = None
        self.arithmetic: UserArithmetic | None = None
        self.started = time.perf_counter()

    def emit(self, event_cls: type[ev.Event], **fields: Any) -> None:
        event = event_cls(turn_id=self.id, **fields)
        self.outcome.events.append(event)
        self.s.emit(event)

    async def run(self, text: str, context: Sequence[AppContext] = ()) -> TurnOutcome:
        self.emit(ev.TurnStarted, text=text)
        for item in context:  # what MCP Apps' pages set: before the question, as tool output, no source
            self.emit(ev.AppContextSent, **item.event_fields())
        self.messages.extend(context_messages(context))
        self.messages.append(Message("user", text))
        self.sources.append(Source(text, USER_SOURCE))
        self.user_text, self.zones = text, zone_choices(text)
        hint = getattr(self.s.verifier, "hint", None)  # Calculon mode reads the formula once a turn
        self.formula = hint(text, self.s._earlier) if hint is not None else None
        read = getattr(self.s.verifier, "arithmetic", None)
        self.arithmetic = read(text, earlier_result(self.s.history)) if read is not None else None
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
            self.s._earlier = self.check.earlier
        duration = (time.perf_counter() - self.started) * 1000
        self.emit(ev.TurnFinished, cancelled=self.outcome.cancelled, failed=failed, duration_ms=duration)
        return self.outcome

    def _fail(self, message: str, category: str) -> bool:
        self.outcome.error = message
        self.emit(ev.TurnError, message=message, category=category)
        return True

    async def _loop(self) -> None:
        rounds = reasked = 0
        for step_no in itertools.count(1):
            # the limit counts the model's rounds of calls: the app's own re-asks of an answer
            # are bounded each (app.core.answer_check) and spend no step of the user's (a model
            # set right after "no such table" ran out of steps one call short). Together they
            # stay within as many steps again, whatever happens.
            if rounds >= self.s.max_rounds or reasked > REASKED_STEPS * self.s.max_rounds:
                break
            step = await self._step(step_no)
            self.messages.append(
                Message("assistant", step.text, tuple(step.calls), provider_data=step.done.provider_data)
            )
            calls = step.calls or self._written_calls(step.text, step_no)
            inline = bool(calls) and all(call.inline for call in calls or ())
            if inline:
                self.worked.append(step.text)  # the answer goes on after these results: not a round
                if len(self.worked) > MAX_INLINE_CALLS:
                    raise BackendError(INLINE_FAILURE, category="rounds")
            else:
                rounds += 1
            if calls is not None:  # none ([]): a call written as text was refused; the model asks again
                if calls and not inline:  # a call of its own ends any worked answer begun
                    self.worked.clear()
                    self.inserted.clear()
                for call in calls:
                    await run_call(self, call)
                if inline and self.refused.again(self.outcome.tool_calls[-len(calls) :]):
                    self._set_aside_worked()
                if self.idle_told:  # after all of the step's results, which a template keeps together
                    self.idle_told = False
                    self.messages.append(Message("user", results_reask(self.user_text)))
                continue
            answer, worked = "".join([*self.worked, step.text]), bool(self.worked)
            self.worked.clear()
            self.inserted.clear()
            check = self.check
            if (
                check.is_echo(answer, step_no)
                or check.asks_to_act(answer, worked)
                or check.needs_reask(answer, worked)
            ):
                rounds, reasked = rounds - 1, reasked + 1  # the app's re-ask, not the model's round
                continue
            return
        raise BackendError(
            f"The model did not reach an answer within {self.s.max_rounds} steps.", category="rounds"
        )

    def _set_aside_worked(self) -> None:
        """A worked answer that wrote a refused calculation again (:mod:`app.core.refused_again`)."""
        if self.refused.set_aside:
            raise BackendError(INLINE_REPEAT, category="rounds")
        self.refused.set_aside = True
        self.worked.clear()
        self.inserted.clear()
        self.emit(
            ev.Notice,
            message="The model wrote again a calculation the calculator had refused; its worked answer was "
            "set aside and it was asked to calculate again.",
        )
        self.check.ask_to_calculate_again()

    async def _step(self, step_no: int) -> _Step:
        # Retrieval ranks the user's own words: never the app's re-ask text, whose words
        # ("calculator", "numbers") would rank tools that do not fit the question.
        context = self.user_text
        stays = standing(self)  # read once a step: it looks for numbers in every result
        out = ruled_out(context)
        every = self.s.tools.list_tools()
        settle = getattr(self.s.selector, "settle", None)
        if settle is not None:  # an index still being built would offer every tool
            await settle(every)
        offer = (self.s.selector, every, context, lambda tool: not out(tool))
        if self.s.selector is None:
            offered, selected = ranked_offer(*offer)
        else:  # ranking embeds the query (tens of ms): off the loop, so a window never stalls
            offered, selected = await asyncio.to_thread(ranked_offer, *offer)
        ranked = offered
        offered, opens = narrowed(self, offered, step_no, stays)
        shown = listed(self, ranked, offered, stays)
        self.emit(
            ev.StepStarted,
            step=step_no,
            offered=tuple((t.name, s) for t, s in offered),
            selected=selected,
            continues=bool(self.worked),
            listed=tuple(s.name for s in shown),
        )
        specs = self.specs = step_specs(self, offered)
        backed = tuple(s.text for s in self.all_sources()) if self.s.verifier is not None else None
        history = (*self.s.history, *self.messages)
        must_call, self.check.must_call = (self.check.must_call or opens) and bool(specs), False
        reading_due, self.check.reading_due = self.check.reading_due, False
        request = ModelRequest(
            self.s.system_prompt,
            history,
            specs,
            backed,
            self.formula,
            self._worked_format(),
            must_call,
            shown if specs else (),
            reading_due,
            self.arithmetic,
        )
        started = time.perf_counter()
        step = await self._stream_with_retry(request)
        for notice in step.done.notices:
            self.emit(ev.Notice, message=notice)
        duration = (time.perf_counter() - started) * 1000
        done = step.done
        self.emit(
            ev.StepFinished,
            step=step_no,
            tokens=done.tokens,
            duration_ms=duration,
            provider_data=done.provider_json,
        )
        return step

    def _worked_format(self) -> WorkedAnswer | None:
        """Calculon mode's worked-answer format for this question, with this answer's inline
        results so far (app.calculon reads both), for a backend whose model reads stories itself."""
        worked = getattr(self.s.verifier, "worked", None)
        return worked(self.user_text, tuple(self.inserted)) if worked is not None else None

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

    def all_sources(self) -> list[Source]:
        return [*self.s._sources, *self.sources]

    def _written_calls(self, text: str, step_no: int) -> list[ToolCall] | None:
        """A tool call written as text is run, or refused and the model asked again (``[]``):
        never an answer. None: the text is no call."""
        written = read_written(text, self.specs, self.messages, step_no)
        if written is not None:
            self.emit(ev.Notice, message=written.notice, text_was_call=True)
            if written.calls:
                self.messages[-1] = Message("assistant", written.prose, written.calls)
            elif self.written >= self.s.max_reasks:
                raise BackendError(WRITTEN_FAILURE, category="model")
            else:
                self.written += 1
                self.messages.append(Message("user", WRITTEN_REASK))
        return None if written is None else list(written.calls)
