"""Asking the user: small request objects the engine awaits, answered by whoever is in front.

Deep code never opens a dialog. It builds a request (approve a tool call, fill a form,
open a link, approve a sampling request or its result) and awaits it on the
:class:`Asker`, which asks one question at a time, times it, and reports it as a
``UserAsked``/``UserAnswered`` event pair for the trace. The window, the CLI and the
tests each implement :class:`User` their own way; :class:`Nobody` declines everything
with a reason, so a request with no one to answer it never hangs.

Events: ``UserAsked(request_id, kind, server, title, details)`` when a question is put,
``UserAnswered(request_id, kind, server, answer, details, duration_ms)`` when it is settled.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

from app.core import events as ev

logger = logging.getLogger(__name__)

Decision = Literal["allow", "conversation", "always", "decline", "never"]
FormAction = Literal["accept", "decline", "cancel"]


# --- answers -------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ApprovalAnswer:
    """``allow`` runs this call, ``conversation`` every call of the tool in this conversation,
    ``always`` from now on; ``decline`` refuses this call, ``never`` refuses it from now on."""

    decision: Decision
    note: str = ""  # why, when nobody could be asked ("needs approval")

    @property
    def allowed(self) -> bool:
        return self.decision in ("allow", "conversation", "always")

    def summary(self) -> str:
        return self.decision + (f" ({self.note})" if self.note else "")


@dataclasses.dataclass(frozen=True)
class FormAnswer:
    """An elicitation's outcome; ``content`` only with ``accept`` (for a URL: consent given)."""

    action: FormAction
    content: Mapping[str, Any] | None = None
    note: str = ""

    def summary(self) -> str:
        return self.action + (f" ({self.note})" if self.note else "")


@dataclasses.dataclass(frozen=True)
class SamplingAnswer:
    """Approval of a sampling request or of its result; the user may have edited either."""

    approved: bool
    system_prompt: str = ""
    messages: tuple[tuple[str, str], ...] = ()  # (role, text), as edited
    max_tokens: int = 0
    text: str = ""  # a reviewed result, as edited
    note: str = ""

    def summary(self) -> str:
        return ("approve" if self.approved else "decline") + (f" ({self.note})" if self.note else "")


A = TypeVar("A", ApprovalAnswer, FormAnswer, SamplingAnswer)
AnyAnswer = ApprovalAnswer | FormAnswer | SamplingAnswer


# --- requests ------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class Request(Generic[A]):
    """One question. ``server`` is who caused it; every text here may come from that server."""

    kind: ClassVar[str] = "request"
    server: str

    def declined(self, note: str) -> A:
        """The answer when nobody can be asked."""
        raise NotImplementedError

    def title(self) -> str:
        raise NotImplementedError

    def details(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclasses.dataclass(frozen=True, kw_only=True)
class ApprovalRequest(Request[ApprovalAnswer]):
    """May this tool call run? ``annotations`` are the server's hints (camelCase, as sent)."""

    kind: ClassVar[str] = "approval"
    tool: str
    arguments: Mapping[str, Any]
    annotations: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    trusted: bool = False
    reason: str = ""  # why it asks: "destructive", "first use in this conversation"...

    def declined(self, note: str) -> ApprovalAnswer:
        return ApprovalAnswer("decline", note)

    def title(self) -> str:
        return f"Run {self.server}.{self.tool}?"


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Elicitation(Request[FormAnswer]):
    message: str

    def declined(self, note: str) -> FormAnswer:
        return FormAnswer("decline", None, note)


@dataclasses.dataclass(frozen=True, kw_only=True)
class FormRequest(_Elicitation):
    """Form elicitation: ``schema`` is the flat object schema the server asked for."""

    kind: ClassVar[str] = "elicitation"
    schema: Mapping[str, Any]

    def title(self) -> str:
        return f"{self.server} asks for information"


@dataclasses.dataclass(frozen=True, kw_only=True)
class UrlRequest(_Elicitation):
    """URL elicitation: may the system browser open ``url``? ``accept`` means it was opened."""

    kind: ClassVar[str] = "url"
    url: str
    elicitation_id: str = ""

    def title(self) -> str:
        return f"{self.server} asks you to open a link"


@dataclasses.dataclass(frozen=True, kw_only=True)
class _SamplingQuestion(Request[SamplingAnswer]):
    def declined(self, note: str) -> SamplingAnswer:
        return SamplingAnswer(False, note=note)


@dataclasses.dataclass(frozen=True, kw_only=True)
class SamplingRequest(_SamplingQuestion):
    """A server asks the host's model for a completion; shown, editable, before it runs."""

    kind: ClassVar[str] = "sampling"
    system_prompt: str
    messages: tuple[tuple[str, str], ...]
    max_tokens: int
    wants_tools: bool = False

    def title(self) -> str:
        return f"{self.server} asks the model for a completion"


@dataclasses.dataclass(frozen=True, kw_only=True)
class SamplingReview(_SamplingQuestion):
    """The model's completion for a server, shown for approval before it goes back."""

    kind: ClassVar[str] = "sampling_result"
    text: str
    model: str

    def title(self) -> str:
        return f"Send this completion to {self.server}?"


# --- who answers ---------------------------------------------------------------


class User(Protocol):
    """Whoever answers requests: the window, the terminal, a test's script."""

    async def answer(self, request: Request[A]) -> A: ...


class Nobody:
    """No one to ask (no terminal, no window): every request is declined, with ``reason``."""

    def __init__(self, reason: str = "needs approval; nobody is there to ask") -> None:
        self.reason = reason

    async def answer(self, request: Request[A]) -> A:
        return request.declined(self.reason)


_ids = itertools.count(1)


class Asker:
    """Puts requests to a :class:`User` one at a time, and reports each as trace events.

    ``turn_id`` follows the running turn (feed it the session's events through :meth:`watch`),
    so a question asked during a turn lands in that turn's trace.
    """

    def __init__(self, user: User | None = None, sink: ev.EventSink | None = None) -> None:
        self.user: User = user or Nobody()
        self.turn_id = ""
        self._sinks: list[ev.EventSink] = [sink] if sink else []
        self._one_at_a_time = asyncio.Lock()

    def subscribe(self, sink: ev.EventSink) -> None:
        self._sinks.append(sink)

    def watch(self, event: ev.Event) -> None:
        """An event sink: remembers which turn is running."""
        if isinstance(event, ev.TurnStarted):
            self.turn_id = event.turn_id
        elif isinstance(event, ev.TurnFinished) and event.turn_id == self.turn_id:
            self.turn_id = ""

    async def ask(self, request: Request[A]) -> A:
        async with self._one_at_a_time:
            request_id = f"ask-{next(_ids)}"
            self._emit(ev.UserAsked, request, request_id, title=request.title(), details=request.details())
            started = time.perf_counter()
            try:
                answer = await self.user.answer(request)
            except asyncio.CancelledError:
                self._settled(request, request_id, started, "cancel (the turn stopped)", {})
                raise
            self._settled(request, request_id, started, answer.summary(), dataclasses.asdict(answer))
            return answer

    def _settled(
        self, request: Request[Any], request_id: str, started: float, answer: str, details: dict[str, Any]
    ) -> None:
        ms = (time.perf_counter() - started) * 1000
        logger.info("%s from %s answered %s after %.0f ms", request.kind, request.server, answer, ms)
        self._emit(ev.UserAnswered, request, request_id, answer=answer, details=details, duration_ms=ms)

    def _emit(
        self, cls: Callable[..., ev.Event], request: Request[Any], request_id: str, **fields: Any
    ) -> None:
        event = cls(
            turn_id=self.turn_id, request_id=request_id, request=request.kind, server=request.server, **fields
        )
        ev.deliver(self._sinks, event)
