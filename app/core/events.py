"""Typed engine events.

Every event is a small frozen dataclass that serialises to a JSON object with a
``kind`` field, so a run can be stored and exported. The engine emits
them; the window, the CLI and the trace store only consume them.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

EventSink = Callable[["Event"], None]

logger = logging.getLogger(__name__)


def deliver(sinks: list[EventSink], event: Event) -> None:
    """Hand ``event`` to every sink; a broken listener is logged and must not break the sender."""
    for sink in sinks:
        try:
            sink(event)
        except Exception:
            logger.exception("event sink failed on %s", event.kind)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Event:
    """Base of all engine events; ``turn_id`` is empty for events outside a turn."""

    kind: ClassVar[str] = "event"
    turn_id: str = ""
    ts: float = dataclasses.field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        data = {f.name: _jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return {"kind": self.kind, **data}


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


# --- turn lifecycle ---------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class TurnStarted(Event):
    kind: ClassVar[str] = "turn_started"
    text: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class StepStarted(Event):
    """A model step begins; ``offered`` lists (tool name, relevance score) of the tools the step
    may call; ``listed``, the names of the tools its prompt shows (``offered``'s where empty)."""

    kind: ClassVar[str] = "step_started"
    step: int
    offered: tuple[tuple[str, float], ...] = ()
    selected: bool = False  # True when retrieval chose a subset rather than every tool
    continues: bool = False  # the step goes on writing the answer the last one began (worked answers)
    listed: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, kw_only=True)
class TextDelta(Event):
    kind: ClassVar[str] = "text_delta"
    text: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class ThoughtDelta(Event):
    kind: ClassVar[str] = "thought_delta"
    text: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class StepFinished(Event):
    kind: ClassVar[str] = "step_finished"
    step: int
    tokens: int = 0
    duration_ms: float = 0.0
    provider_data: Any = None  # the backend's record of the model's turn, as JSON (StepDone.provider_json)

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / (self.duration_ms / 1000) if self.duration_ms > 0 else 0.0


@dataclasses.dataclass(frozen=True, kw_only=True)
class ToolCallEvent(Event):
    """Base of the events of one tool call, which ``call_id`` names within its turn."""

    call_id: str
    server: str
    tool: str
    # The call id of the call whose MCP App made this call from its page; "" for the model's calls.
    from_app: str = ""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ToolCallStarted(ToolCallEvent):
    kind: ClassVar[str] = "tool_call_started"
    arguments: Mapping[str, Any]
    inline: bool = False  # written inside the answer's prose; its result goes on in the answer


@dataclasses.dataclass(frozen=True, kw_only=True)
class ToolCallFinished(ToolCallEvent):
    kind: ClassVar[str] = "tool_call_finished"
    arguments: Mapping[str, Any]
    result: str
    is_error: bool
    duration_ms: float
    cancelled: bool = False  # the user stopped it (the result says so to the model)
    structured: Any = None  # the validated structuredContent, when the tool gave one
    parts: tuple[Mapping[str, Any], ...] = ()  # non-text content for the window (app.mcp.content)
    kept: str = ""  # the file holding the whole result, when the text was cut for the model


@dataclasses.dataclass(frozen=True, kw_only=True)
class ToolCallProgress(ToolCallEvent):
    """A server's ``notifications/progress`` for a running call; ``total`` is None when unknown."""

    kind: ClassVar[str] = "tool_call_progress"
    progress: float
    total: float | None = None
    message: str = ""


@dataclasses.dataclass(frozen=True, kw_only=True)
class AppReady(ToolCallEvent):
    """The finished call's tool has an MCP App: its ``ui://`` page, read and checked (app.mcp.apps).

    ``csp`` holds the domains the page declares (connectDomains, resourceDomains...); the view
    allows no others. ``result`` is the call's ``CallToolResult`` as the app receives it, and
    ``definition`` the tool as listed (the app's host context names it)."""

    kind: ClassVar[str] = "app_ready"
    uri: str
    html: str
    csp: Mapping[str, tuple[str, ...]]
    permissions: Mapping[str, Any]
    prefers_border: bool | None
    arguments: Mapping[str, Any]
    result: Mapping[str, Any]
    definition: Mapping[str, Any]


@dataclasses.dataclass(frozen=True, kw_only=True)
class AppContextSent(Event):
    """The turn gives the model what an MCP App's page set (``ui/update-model-context``):
    ``app_call`` is the call whose app it is, ``text`` what the model gets (app.core.app_context)."""

    kind: ClassVar[str] = "app_context_sent"
    app_call: str
    server: str
    tool: str
    text: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class CheckFinished(Event):
    """The Calculon provenance check ran on a candidate answer."""

    kind: ClassVar[str] = "check_finished"
    attempt: int
    verified: bool
    unbacked: tuple[str, ...] = ()
    will_reask: bool = False
    backing: tuple[tuple[str, str], ...] = ()  # (number as written, its source: "multiply(12, 7)")


@dataclasses.dataclass(frozen=True, kw_only=True)
class AnswerReady(Event):
    """The final answer and its verdict; ``verified`` is None when Calculon mode is off. ``backing`` names
    the source of each backed number: a tool call such as ``multiply(12, 7)``, or ``your message``."""

    kind: ClassVar[str] = "answer_ready"
    text: str
    verified: bool | None = None  # True only for the verdict "verified"
    # verified, computed, not_calculated, unverified or unchecked (app.core.tools.Verdict), or
    # untrusted (verified but for a server nobody vouched for); None when Calculon mode is off
    verdict: str | None = None
    formula: str = ""  # what ran, the user's numbers labelled: "10 = 15 (goldfish) − 5 (were eaten)"
    basis: str = ""  # one sentence: what the verdict rests on
    unbacked: tuple[str, ...] = ()
    backing: tuple[tuple[str, str], ...] = ()
    # numbers that only an untrusted server's result backs, each with that server: such an
    # answer is shown "from SERVER", never plainly verified
    untrusted: tuple[tuple[str, str], ...] = ()
    # a verified answer's result, exact ("84", "3/4"): what "that" stands for in the next question,
    # also once the conversation is reopened (app.history.restore.earlier_result)
    value: str = ""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Notice(Event):
    """Something the user should know that is not an error (history trimmed, retrying...)."""

    kind: ClassVar[str] = "notice"
    message: str
    # The text streamed in this step was a tool call written out, not an answer: a view that
    # showed it as the answer growing retitles it.
    text_was_call: bool = False


@dataclasses.dataclass(frozen=True, kw_only=True)
class TurnError(Event):
    kind: ClassVar[str] = "turn_error"
    message: str
    category: str = "error"  # auth, quota, network, model, context, tool, cancelled, error


@dataclasses.dataclass(frozen=True, kw_only=True)
class TurnFinished(Event):
    kind: ClassVar[str] = "turn_finished"
    cancelled: bool = False
    failed: bool = False
    duration_ms: float = 0.0


# --- outside a turn ---------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class ModelLoading(Event):
    """Model load progress in [0, 1]; ``done`` with an ``error`` when loading failed."""

    kind: ClassVar[str] = "model_loading"
    progress: float
    message: str = ""
    done: bool = False
    error: str = ""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ModelStateChanged(Event):
    """The local model's own process (app.llm.local.process): its state, why (the crash's cause,
    the load's error, when it restarts), and its pid once loaded."""

    kind: ClassVar[str] = "model_state"
    state: str  # starting, loading, ready, crashed, restarting, failed, stopped
    detail: str = ""
    pid: int | None = None


@dataclasses.dataclass(frozen=True, kw_only=True)
class ServerStateChanged(Event):
    kind: ClassVar[str] = "server_state"
    server: str
    state: str  # starting, ready, crashed, restarting, stopped, failed, unauthorized, disabled
    pid: int | None = None
    tool_count: int = 0
    last_error: str = ""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ServerLog(Event):
    """A log message an MCP server sent (``notifications/message``)."""

    kind: ClassVar[str] = "server_log"
    server: str
    level: str  # debug, info, notice, warning, error, critical, alert, emergency
    logger: str = ""
    message: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class ServerListChanged(Event):
    """A server said its ``what`` (tools, resources, prompts) changed; they were listed again."""

    kind: ClassVar[str] = "server_list_changed"
    server: str
    what: str
    count: int


@dataclasses.dataclass(frozen=True, kw_only=True)
class ResourceUpdated(Event):
    """A resource the user subscribed to changed on its server (read it again to see how)."""

    kind: ClassVar[str] = "resource_updated"
    server: str
    uri: str


# --- asking the user (app.core.asking) --------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class UserAsked(Event):
    """A question was put to the user; ``request`` is its kind (approval, elicitation, url,
    sampling, sampling_result) and ``details`` what it shows, as sent by ``server``."""

    kind: ClassVar[str] = "user_asked"
    request_id: str
    request: str
    server: str
    title: str
    details: Mapping[str, Any]


@dataclasses.dataclass(frozen=True, kw_only=True)
class UserAnswered(Event):
    """The question ``request_id`` was settled: ``answer`` in a word or two, ``details`` in full."""

    kind: ClassVar[str] = "user_answered"
    request_id: str
    request: str
    server: str
    answer: str
    details: Mapping[str, Any]
    duration_ms: float


@dataclasses.dataclass(frozen=True, kw_only=True)
class ApprovalRemembered(Event):
    """The user chose ``always`` or ``never`` for a tool: the settings changed and were saved."""

    kind: ClassVar[str] = "approval_remembered"
    key: str  # server.tool
    policy: str
