"""What a server may tell or ask its client, handled beside the connection, not inside it.

The supervisor gives each :class:`app.mcp.connection.ServerConnection` one
:class:`ClientHandlers`: the SDK ``Client`` callbacks for that server. The owner
task passes them to every ``Client`` it opens and knows nothing of what they do,
so a new protocol feature (elicitation, sampling, roots, list_changed) is one new
handler here, not another branch in the owner's state machine.

Events: ``ServerLog(server, level, logger, message)`` for each log message a server sends, and
one (logger ``calculon``) saying how many notifications a flood lost;
``ServerListChanged`` and ``ResourceUpdated`` from :mod:`app.mcp.changes`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import webbrowser
from collections.abc import Awaitable, Callable
from typing import Any

import mcp_types
from mcp.client.session import ElicitationFnT, ListRootsFnT, LoggingFnT, MessageHandlerFnT, SamplingFnT

from app.core import events as ev
from app.mcp.apps import AppsExtension
from app.mcp.changes import ListChanges
from app.mcp.flood import PER_SECOND
from app.mcp.pause import CallClock
from app.mcp.task_log import TaskRecorder
from app.mcp.tasks import TasksExtension

logger = logging.getLogger(__name__)


async def system_browser(url: str) -> None:
    """Open ``url`` in the user's browser (off the loop: some browsers block while starting)."""
    if not await asyncio.to_thread(webbrowser.open, url):
        logger.warning("no browser could be opened; open this address to sign in: %s", url)


@dataclasses.dataclass(frozen=True)
class ClientHandlers:
    """The callbacks one server's ``Client`` runs; None leaves the SDK's default
    (which declines sampling, elicitation and roots, and drops notifications)."""

    logging_callback: LoggingFnT | None = None
    # On 2026-07-28+ connections a server sends log messages only to requests that opt in at a level.
    log_level: mcp_types.LoggingLevel | None = None
    message_handler: MessageHandlerFnT | None = None  # notifications such as tools/list_changed
    elicitation_callback: ElicitationFnT | None = None
    sampling_callback: SamplingFnT | None = None
    list_roots_callback: ListRootsFnT | None = None
    # Not for the Client: the server's call deadlines, which the handlers that ask the user pause.
    clock: CallClock = dataclasses.field(default_factory=CallClock)
    # list_changed and resource updates; the message handler unless another is set.
    changes: ListChanges | None = None
    # Not for the Client either: how an OAuth sign-in shows its consent page (the system browser).
    open_browser: Callable[[str], Awaitable[None]] = dataclasses.field(default=system_browser)
    # Not for the Client: told how many notifications a flood lost (app.mcp.flood).
    dropped: Callable[[int], None] | None = None
    # Not for the Client: keeps each task's status for `calculon tasks` (app.mcp.task_log).
    tasks: Callable[[str, str, str, str], None] | None = None

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments for ``mcp.Client``: only the handlers that are set."""
        skip = ("clock", "changes", "open_browser", "dropped", "tasks")
        fields = [f for f in dataclasses.fields(self) if f.name not in skip]
        options = {f.name: value for f in fields if (value := getattr(self, f.name)) is not None}
        if self.changes is not None:
            options.setdefault("message_handler", self.changes)
        options["extensions"] = [
            TasksExtension(self.clock.lift, self.tasks),  # a call may come back as a task
            AppsExtension(),  # a tool may name a ui:// page the window renders
        ]
        return options


def server_handlers(server: str, sink: ev.EventSink) -> ClientHandlers:
    """The handlers every supervised server gets: its log messages become ``ServerLog`` events,
    and its lists are listed again when it says they changed (:mod:`app.mcp.changes`)."""
    return ClientHandlers(
        logging_callback=ServerLogForwarder(server, sink),
        log_level="info",
        changes=ListChanges(server, sink),
        dropped=DroppedNote(server, sink),
        tasks=TaskRecorder(server),
    )


@dataclasses.dataclass(frozen=True)
class DroppedNote:
    """``dropped``: one ``ServerLog`` warning for the notifications a flood lost in one second."""

    server: str
    sink: ev.EventSink

    def __call__(self, count: int) -> None:
        message = f"{count:,} notifications dropped: the server sent more than {PER_SECOND} in one second"
        logger.info("server %s: %s", self.server, message)
        self.sink(ev.ServerLog(server=self.server, level="warning", logger="calculon", message=message))


@dataclasses.dataclass(frozen=True)
class ServerLogForwarder:
    """``logging_callback`` that turns a server's ``notifications/message`` into a ``ServerLog``."""

    server: str
    sink: ev.EventSink

    async def __call__(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        message = params.data if isinstance(params.data, str) else json.dumps(params.data, default=str)
        logger.debug("server %s logged (%s): %s", self.server, params.level, message)
        source = params.logger or ""
        self.sink(ev.ServerLog(server=self.server, level=params.level, logger=source, message=message))
