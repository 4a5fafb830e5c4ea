"""A server says its tools, resources or prompts changed, or a subscribed resource was updated.

On a handshake-era connection the server sends ``notifications/*/list_changed`` and
``notifications/resources/updated`` on its own; on a 2026-07-28 connection only through a
``subscriptions/listen`` stream the client opens (:class:`Listening`), whose events the SDK
also hands to the ``message_handler``. So one handler, :class:`ListChanges`, serves both:
it asks the connection to list that kind again, then reports it as an event.

Events: ``ServerListChanged(server, what, count)`` after each re-listing,
``ResourceUpdated(server, uri)`` for each update of a subscribed resource.
"""

from __future__ import annotations

import dataclasses
import logging
import warnings
from collections.abc import Awaitable, Callable

import anyio
import mcp_types
from mcp import Client, MCPDeprecationWarning, MCPError
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from app.core import events as ev

logger = logging.getLogger(__name__)

_KINDS: dict[type, str] = {
    mcp_types.ToolListChangedNotification: "tools",
    mcp_types.ResourceListChangedNotification: "resources",
    mcp_types.PromptListChangedNotification: "prompts",
}


@dataclasses.dataclass
class ListChanges:
    """The ``message_handler`` of one server's client. ``relist`` is the connection's: it lists
    one kind again and returns how many there are now, None with no session (set when the
    connection is made)."""

    server: str
    sink: ev.EventSink
    relist: Callable[[str], Awaitable[int | None]] | None = None

    async def __call__(self, message: object) -> None:
        if isinstance(message, mcp_types.ResourceUpdatedNotification):
            self.sink(ev.ResourceUpdated(server=self.server, uri=str(message.params.uri)))
            return
        what = _KINDS.get(type(message))
        if what is None or self.relist is None:
            return
        logger.info("server %s: its %s changed; listing them again", self.server, what)
        count = await self.relist(what)
        if count is not None:
            self.report(what, count)

    def report(self, what: str, count: int) -> None:
        """``what`` was listed (again): ``count`` of them now."""
        self.sink(ev.ServerListChanged(server=self.server, what=what, count=count))


class Listening:
    """The ``subscriptions/listen`` stream of a 2026-07-28 connection (nothing on older ones):
    every list the server can announce changes of, and the resources subscribed so far."""

    def __init__(self, client: Client, capabilities: dict[str, dict[str, object]]) -> None:
        self.client = client
        self.wanted = {
            k: bool(capabilities.get(k, {}).get("listChanged")) for k in ("tools", "resources", "prompts")
        }
        self.uris: list[str] = []
        self._scope: anyio.CancelScope | None = None
        self._group: anyio.abc.TaskGroup | None = None

    @property
    def modern(self) -> bool:
        return self.client.protocol_version in MODERN_PROTOCOL_VERSIONS

    async def run(self, group: anyio.abc.TaskGroup) -> None:
        """Open the stream in ``group`` (where there is anything to listen for); returns once the
        server has acknowledged it, so no change after this is missed."""
        self._group = group
        if self.modern and (any(self.wanted.values()) or self.uris):
            await group.start(self._listen)

    async def subscribe(self, uri: str) -> None:
        """Updates of ``uri`` from now on: a new stream with it in the filter, or ``resources/subscribe``."""
        if not self.modern:
            with warnings.catch_warnings():  # deprecated by 2026-07-28, still the way on this connection
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await self.client.subscribe_resource(uri)
            return
        self.uris.append(uri)
        if self._scope is not None:
            self._scope.cancel()
        if self._group is not None:
            await self._group.start(self._listen)

    async def _listen(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        started = False
        with anyio.CancelScope() as self._scope:
            try:
                async with self.client.listen(
                    tools_list_changed=self.wanted["tools"],
                    resources_list_changed=self.wanted["resources"],
                    prompts_list_changed=self.wanted["prompts"],
                    resource_subscriptions=tuple(self.uris),
                ) as stream:
                    task_status.started()
                    started = True
                    async for _event in stream:  # the SDK tees each event to ListChanges
                        pass
            except (ListenNotSupportedError, SubscriptionLost, MCPError, TimeoutError):
                logger.info("the change stream of this server ended", exc_info=True)
        if not started:
            task_status.started()  # the caller goes on without a stream
