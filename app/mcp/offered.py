"""What a connected server offers, listed and kept current: its tools (screened), its
catalog (resources, templates, prompts) and its change stream.

A base of :class:`app.mcp.connection.ServerConnection`, kept apart so the owner task's
state machine stays readable: this part only lists, the owner decides when.
"""

from __future__ import annotations

import asyncio
import logging
import warnings

import anyio
import anyio.abc
import mcp_types
from mcp import Client, MCPDeprecationWarning, MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from app.mcp.catalog import Catalog, catalog_of, listing, relisted
from app.mcp.changes import Listening, Relisted
from app.mcp.handlers import ClientHandlers
from app.mcp.lifecycle import all_tools
from app.mcp.screen import screen
from app.mcp.transport import StdioTransport

logger = logging.getLogger(__name__)


class Offered:
    """The listings of one server; the connection sets the session it lists from."""

    name: str
    state: str
    handlers: ClientHandlers
    _session_client: Client | None
    _transport: StdioTransport | None
    _wake: asyncio.Event  # the owner task's: set when something asks it to act
    _stopping: bool
    _wanted: bool

    def _changed(self) -> None:
        raise NotImplementedError  # the connection reports itself to its supervisor

    def _set_state(self, state: str) -> None:
        raise NotImplementedError

    def _settle(self) -> None:
        raise NotImplementedError

    async def _idle(self, known: tuple[mcp_types.Tool, ...]) -> bool:
        """Offer the tools remembered from the last run without a process, until a call wants
        one (True) or a stop comes first (False)."""
        self._adopt(list(known))
        self._set_state("idle")
        self._settle()
        while not (self._stopping or self._wanted):
            await self._wake.wait()
            self._wake.clear()
        return not self._stopping  # the remembered tools stay offered until the live listing

    def want(self) -> None:
        """A call needs this idle server: start it now."""
        self._wanted = True
        self._wake.set()

    def _init_offered(self) -> None:
        self.tools: tuple[mcp_types.Tool, ...] = ()
        self.skipped: tuple[str, ...] = ()  # why tools of the last listing are not offered
        self.catalog = Catalog()  # resources, templates, prompts, and how the server introduced itself
        self.listening: Listening | None = None  # the session's change stream (2026-07-28)
        self.catalog_listed = asyncio.Event()  # set once this session's catalog is listed (or failed)
        if self.handlers.changes is not None:
            self.handlers.changes.relist = self._relist

    async def _list_catalog(self, client: Client, group: anyio.abc.TaskGroup) -> None:
        """Resources, templates and prompts, then the change stream; a failure leaves them empty."""
        try:
            self.catalog = await catalog_of(client)
            await self._ask_log_level(client)
            self.listening = Listening(client, self.catalog.capabilities, self.handlers.changes)
            await self.listening.run(group)
        except (MCPError, RuntimeError, anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
            logger.info("server %s: could not list what it offers besides tools: %s", self.name, exc)
        finally:
            self.catalog_listed.set()
        if self.handlers.changes is not None:  # the window shows the catalog now
            self.handlers.changes.report("resources", len(self.catalog.resources))
            self.handlers.changes.report("prompts", len(self.catalog.prompts))

    async def _ask_log_level(self, client: Client) -> None:
        """On a handshake-era connection, ask for log messages at our level, as 2026-07-28's
        per-request opt-in does: without it server-everything sent its debug lines too."""
        level = self.handlers.log_level
        if level is None or client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        if not self.catalog.offers("logging"):
            return
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)  # deprecated only from 2026-07-28
            await client.set_logging_level(level)

    async def _relist(self, what: str, *, fresh: bool = True) -> Relisted | None:
        """List ``what`` again: the server says it changed (``fresh``: ask it), or it may have, unheard
        (then a listing whose ``ttlMs`` has not run out stands); None with no session."""
        client = self._session_client
        if client is None:
            return None
        before = listing(self.catalog, self.tools, what)
        try:
            if what == "tools":
                self._adopt(await all_tools(client, fresh=fresh))
            else:
                kinds = {"resources": what == "resources", "prompts": what == "prompts"}
                self.catalog = await relisted(client, self.catalog, **kinds, fresh=fresh)
        except MCPError:
            logger.info("server %s: could not list its %s again", self.name, what, exc_info=True)
        now = Relisted(self.catalog, self.tools, what, before)
        if what == "tools" and now.changed and self.state == "ready":
            self._changed()  # the supervisor re-indexes them (going ready indexes them anyway)
        return now

    def _adopt(self, listed: list[mcp_types.Tool]) -> None:
        tools, skipped = screen(listed)
        unparsed = self._transport.inbound.take_skipped() if self._transport else []
        self.tools, self.skipped = tuple(tools), (*unparsed, *skipped)
        for reason in self.skipped:
            logger.info("server %s: %s", self.name, reason)
