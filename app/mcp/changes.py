"""A server says its tools, resources or prompts changed, or a subscribed resource was updated.

On a handshake-era connection the server sends ``notifications/*/list_changed`` and
``notifications/resources/updated`` on its own; on a 2026-07-28 connection only through a
``subscriptions/listen`` stream the client opens (:class:`Listening`), whose events the SDK
also hands to the ``message_handler``. So one handler, :class:`ListChanges`, serves both:
it asks the connection to list that kind again, then reports it as an event.

A change made before the stream is open (between the first listing and the stream's
acknowledgement, or while a stream is reopened for a new subscription) reaches nobody, so
each time a stream opens the lists it watches are listed once more, and a list that differs
from what was listed is reported like any change.

Events: ``ServerListChanged(server, what, count)`` after each re-listing,
``ResourceUpdated(server, uri)`` for each update of a subscribed resource.
"""

from __future__ import annotations

import dataclasses
import logging
import warnings
from collections.abc import Awaitable, Callable, Iterable

import anyio
import mcp_types
from mcp import Client, MCPDeprecationWarning, MCPError
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from app.core import events as ev
from app.mcp.catalog import Catalog, listing

logger = logging.getLogger(__name__)

_KINDS: dict[type, str] = {
    mcp_types.ToolListChangedNotification: "tools",
    mcp_types.ResourceListChangedNotification: "resources",
    mcp_types.PromptListChangedNotification: "prompts",
}


class Relisted:
    """One kind listed again: how many there are now (resources without their templates), and
    whether the listing differs from ``before``."""

    def __init__(self, catalog: Catalog, tools: tuple[mcp_types.Tool, ...], what: str, before: tuple) -> None:
        self.changed = listing(catalog, tools, what) != before
        self.count = len({"tools": tools, "resources": catalog.resources}.get(what, catalog.prompts))


@dataclasses.dataclass
class ListChanges:
    """The ``message_handler`` of one server's client. ``relist`` is the connection's: it lists
    one kind again and says what came of it, None with no session (set when the connection is made)."""

    server: str
    sink: ev.EventSink
    relist: Callable[..., Awaitable[Relisted | None]] | None = None

    async def __call__(self, message: object) -> None:
        if isinstance(message, mcp_types.ResourceUpdatedNotification):
            self.sink(ev.ResourceUpdated(server=self.server, uri=str(message.params.uri)))
            return
        what = _KINDS.get(type(message))
        if what is None or self.relist is None:
            return
        logger.info("server %s: its %s changed; listing them again", self.server, what)
        relisted = await self.relist(what)
        if relisted is not None:
            self.report(what, relisted.count)

    async def catch_up(self, kinds: Iterable[str]) -> None:
        """A change stream just opened: list ``kinds`` again, reporting those that changed unheard."""
        for what in kinds:
            # a listing the server said stays fresh (its ttlMs) is not asked for again
            relisted = await self.relist(what, fresh=False) if self.relist is not None else None
            if relisted is not None and relisted.changed:
                logger.info("server %s: its %s changed before the change stream opened", self.server, what)
                self.report(what, relisted.count)

    def report(self, what: str, count: int) -> None:
        """``what`` was listed (again): ``count`` of them now."""
        self.sink(ev.ServerListChanged(server=self.server, what=what, count=count))


class Listening:
    """The ``subscriptions/listen`` stream of a 2026-07-28 connection (nothing on older ones):
    every list the server can announce changes of, and the resources subscribed so far.
    ``changes`` catches up on what changed while no stream was open."""

    def __init__(
        self, client: Client, capabilities: dict[str, dict[str, object]], changes: ListChanges | None = None
    ) -> None:
        self.client, self.changes = client, changes
        self.wanted = {
            k: bool(capabilities.get(k, {}).get("listChanged")) for k in ("tools", "resources", "prompts")
        }
        self.uris: list[str] = []
        self.open = False  # whether a stream is acknowledged and running
        self._scope: anyio.CancelScope | None = None
        self._group: anyio.abc.TaskGroup | None = None

    @property
    def modern(self) -> bool:
        return self.client.protocol_version in MODERN_PROTOCOL_VERSIONS

    async def run(self, group: anyio.abc.TaskGroup) -> None:
        """Open the stream in ``group`` (where there is anything to listen for); returns once the
        server has acknowledged it and the lists are caught up on, so no change is missed."""
        self._group = group
        if self.modern and (any(self.wanted.values()) or self.uris):
            await group.start(self._listen)
            await self._catch_up()

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
            self._group.start_soon(self._catch_up)  # the subscriber need not wait for the lists

    async def _catch_up(self) -> None:
        if self.changes is None or not self.open:
            return
        try:
            await self.changes.catch_up(k for k, wanted in self.wanted.items() if wanted)
        except (MCPError, anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.info("could not catch up on the lists of this server", exc_info=True)

    async def _listen(self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        started = False
        with anyio.CancelScope() as scope:
            self._scope = scope
            try:
                async with self.client.listen(
                    tools_list_changed=self.wanted["tools"],
                    resources_list_changed=self.wanted["resources"],
                    prompts_list_changed=self.wanted["prompts"],
                    resource_subscriptions=tuple(self.uris),
                ) as stream:
                    self.open = started = True
                    task_status.started()
                    async for _event in stream:  # the SDK tees each event to ListChanges
                        pass
            except (ListenNotSupportedError, SubscriptionLost, MCPError, TimeoutError):
                logger.info("the change stream of this server ended", exc_info=True)
            finally:
                self.open = self.open and self._scope is not scope  # a newer stream may be open already
        if not started:
            task_status.started()  # the caller goes on without a stream
