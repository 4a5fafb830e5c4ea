"""The supervisor: every configured MCP server, started in parallel and kept alive.

It is the engine's :class:`app.core.tools.ToolProvider`. Each server has one
:class:`ServerConnection` owner task (state machine, restarts, backoff) and the
:class:`ClientHandlers` this supervisor gives it for what the server tells or asks;
this module starts and stops them, keeps the tool index in step with their tools,
and publishes every state change as :class:`app.core.events.ServerStateChanged`.

Events: ``ServerStateChanged(server, state, pid, tool_count, last_error)``, and
whatever the handlers emit (``ServerLog`` from the default ones).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio
import mcp_types

from app import paths
from app.core import events as ev
from app.core.tools import ToolInfo, ToolResult
from app.mcp.apps import visible_to
from app.mcp.calls import call_tool
from app.mcp.config import ServerEntry, ServersConfig
from app.mcp.connection import ServerConnection
from app.mcp.early import EarlyStarts
from app.mcp.handlers import ClientHandlers, server_handlers
from app.mcp.icons import described
from app.mcp.index import ToolIndex
from app.mcp.kept import KeptResults
from app.mcp.known import KnownTools
from app.mcp.lifecycle import Backoff, Limits, ServerStatus
from app.mcp.pinning import Pinning

logger = logging.getLogger(__name__)

_OFFERED = ("idle", "starting", "ready", "crashed", "restarting")  # tools of these servers stay in the index

# Builds one server's handlers from its name and the supervisor's event sink.
HandlersFactory = Callable[[str, ev.EventSink], ClientHandlers]


class Supervisor:
    def __init__(
        self,
        servers: ServersConfig | Sequence[ServerEntry],
        *,
        tool_timeout_s: float = 30.0,
        connect_timeout_s: float = 60.0,
        probe_timeout_s: float = 5.0,
        backoff: Backoff | None = None,
        log_dir: Path | None = None,
        handlers: HandlersFactory = server_handlers,
        kept: KeptResults | None = None,
        early: EarlyStarts | None = None,
        pinning: Pinning | None = None,
        known: KnownTools | None = None,
        on_demand: Collection[str] = (),
    ) -> None:
        self.entries = _entries(servers)
        self.limits = Limits(tool_timeout_s, connect_timeout_s, probe_timeout_s)
        self.backoff = backoff or Backoff()
        self.log_dir = log_dir if log_dir is not None else paths.log_dir()
        self.handlers = handlers
        self.kept = kept if kept is not None else KeptResults()  # whole results cut for the model
        self.early = early  # processes started before the SDK was imported, adopted at launch
        self.pinning = pinning if pinning is not None else Pinning()  # changed tools are left out
        self.known = known if known is not None else KnownTools()  # each server's last listing
        self.on_demand = on_demand  # servers offered from that listing, started on first use
        self.connections: dict[str, ServerConnection] = {}
        self.index = ToolIndex()
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._sinks: list[ev.EventSink] = []
        self._state_changed = asyncio.Event()  # set on every state change, for wait_for_tool

    # --- lifecycle ---

    def subscribe(self, sink: ev.EventSink) -> None:
        self._sinks.append(sink)

    async def start(self, *, wait: bool = True, timeout: float = 30.0) -> None:
        """Start every enabled server at once; with ``wait``, return when each is ready
        or its first attempt failed, or after ``timeout`` seconds."""
        for entry in self.entries.values():
            if not entry.disabled and entry.name not in self._tasks:  # never started, or stopped
                self._launch(entry)
        if wait and self._tasks:
            waits = [asyncio.ensure_future(self.connections[n].settled.wait()) for n in self._tasks]
            _, pending = await asyncio.wait(waits, timeout=timeout)
            for waiter in pending:
                waiter.cancel()

    def _launch(self, entry: ServerEntry) -> None:
        connection = ServerConnection(
            entry,
            on_change=self._changed,
            limits=self.limits,
            backoff=self.backoff,
            log_dir=self.log_dir,
            handlers=self.handlers(entry.name, self._emit),
        )
        if self.early is not None:
            connection.adopt = self.early.take(entry)
        if entry.name in self.on_demand and connection.adopt is None:
            connection.known = self.known.recall(entry)
        self.connections[entry.name] = connection
        self._tasks[entry.name] = asyncio.create_task(connection.run(), name=f"mcp-server-{entry.name}")

    def wake_idle(self) -> None:
        """Start every server left idle (offered from its last listing) now."""
        for connection in self.connections.values():
            if connection.state == "idle":
                connection.want()

    async def restart(self, name: str, *, wait: bool = True, timeout: float = 30.0) -> ServerStatus:
        """Restart one server now (also one that gave up); returns its status afterwards."""
        connection = self._connection(name)
        if name in self._tasks:
            settled = connection.next_settle()
            connection.request_restart()
        else:  # stopped: start it afresh
            self._launch(connection.entry)
            settled = self.connections[name].next_settle()
        if wait:
            await asyncio.wait([settled], timeout=timeout)
        return self.connections[name].status()

    async def sign_in(self, name: str, *, timeout: float = 300.0) -> ServerStatus:
        """Connect ``name`` again, this time letting OAuth open the browser for consent."""
        if not self._connection(name).allow_sign_in():
            return self.connections[name].status()
        return await self.restart(name, timeout=timeout)

    async def update(self, servers: ServersConfig | Sequence[ServerEntry], *, wait: bool = True) -> None:
        """Adopt an edited config: stop servers removed or disabled, restart changed ones,
        start new ones; servers whose entry did not change keep running untouched, and one
        whose roots alone changed keeps running and is told."""
        self.entries = entries = _entries(servers)
        for name, connection in self.connections.items():
            if _roots_alone_changed(connection.entry, entries.get(name)):
                await connection.roots_changed(entries[name])
        stale = [n for n, c in self.connections.items() if entries.get(n) != c.entry]
        await self._stop(stale)
        for entry in entries.values():
            if entry.disabled and entry.name in stale:
                self._emit(ev.ServerStateChanged(server=entry.name, state="disabled"))
        self._reindex()
        await self.start(wait=wait)

    async def aclose(self, timeout: float = 8.0) -> None:
        """Stop every server and its whole process tree."""
        await self._stop(list(self.connections), timeout)

    async def _stop(self, names: list[str], timeout: float = 8.0) -> None:
        for name in names:
            self.connections[name].request_stop()
        tasks = [self._tasks.pop(name) for name in names if name in self._tasks]
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=timeout)
            for task in late:
                logger.warning("%s did not stop in %.0f s; cancelling it", task.get_name(), timeout)
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        for name in names:
            if self.connections[name].entry != self.entries.get(name):
                del self.connections[name]  # replaced or removed; kept otherwise, to report "stopped"

    # --- observation ---

    def states(self) -> list[ServerStatus]:
        """Every configured server in config order, disabled ones included."""
        return [self._status(entry) for entry in self.entries.values()]

    def stderr_tail(self, name: str) -> list[str]:
        """The last lines the server wrote on stderr (and stray stdout), newest last."""
        connection = self.connections.get(name)
        return list(connection.status().stderr_tail) if connection else []

    def _status(self, entry: ServerEntry) -> ServerStatus:
        if entry.disabled:
            return ServerStatus(entry.name, "disabled", remote=entry.remote)
        connection = self.connections.get(entry.name)
        if connection is None:
            return ServerStatus(entry.name, "stopped", remote=entry.remote)
        return dataclasses.replace(connection.status(), icons=described(connection.catalog.icons))

    async def wait_for_tool(self, name: str, timeout: float) -> None:
        """Return as soon as ``name`` resolves, or every server has settled, or after ``timeout``:
        a call needs the server that has the tool, not the slowest one."""
        with anyio.move_on_after(timeout):
            while self.resolve(name) is None and not self._all_settled():
                self._state_changed.clear()
                await self._state_changed.wait()

    def _all_settled(self) -> bool:
        return all(self.connections[name].settled.is_set() for name in self._tasks)

    def _changed(self, connection: ServerConnection) -> None:
        self._state_changed.set()
        self._reindex()
        if connection.state == "ready":
            self.known.remember(connection.entry, connection.tools)
        status = connection.status()
        self._emit(
            ev.ServerStateChanged(
                server=status.name,
                state=status.state,
                pid=status.pid,
                tool_count=status.tool_count,
                last_error=status.last_error,
            )
        )

    def _reindex(self) -> None:
        live = [
            (name, _for_model(self.pinning.offered(name, c.tools, bundled=bool(c.entry.bundled))))
            for name, c in self.connections.items()
            if c.state in _OFFERED
        ]
        self.index = ToolIndex(live)

    def accept(self, name: str, tool: str = "", sha256: str = "") -> list[str]:
        """Accept changed tools of ``name`` (see :meth:`Pinning.accept`); they are offered at once."""
        accepted = self.pinning.accept(name, tool, sha256)
        if accepted and name in self.connections:
            self._changed(self.connections[name])
        return accepted

    def _emit(self, event: ev.Event) -> None:
        ev.deliver(self._sinks, event)  # a broken listener must not take a server's owner task down

    # --- ToolProvider ---

    def list_tools(self) -> list[ToolInfo]:
        return list(self.index.tools)

    def resolve(self, name: str) -> ToolInfo | None:
        return self.index.resolve(name)

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Run a tool by model-facing name or ``server.tool``; failures come back as error results."""
        info = self.index.resolve(name)
        if info is not None and self.connections[info.server].state == "idle":
            # offered from its last listing: it starts now, and its live tools (and their pins) decide
            await self.connections[info.server].live_client()
            info = self.index.resolve(name)
        if info is None:
            return ToolResult(self._explain_missing(name), is_error=True)
        return await call_tool(self.connections[info.server], info.tool, arguments, self.kept)

    def _explain_missing(self, name: str) -> str:
        server, dot, _ = name.partition(".")
        connection = self.connections.get(server) if dot else None
        if connection is not None and connection.state != "ready":
            return connection.unavailable()  # e.g. "server x is not available (failed): ..."
        missing = self.pinning.explain(name) or self.index.explain_missing(name)
        # A tool may be missing only because its server wants a sign-in: say which, and how.
        locked = [c.unavailable() for c in self.connections.values() if c.state == "unauthorized"]
        return "; ".join([missing, *locked])

    def _connection(self, name: str) -> ServerConnection:
        try:
            return self.connections[name]
        except KeyError:
            state = "disabled" if name in self.entries else "not configured"
            raise KeyError(f"server {name!r} is {state}") from None


def _for_model(tools: Sequence[mcp_types.Tool]) -> list[mcp_types.Tool]:
    """An MCP App's own tools (visibility ["app"]) are for its page to call, never offered to the model."""
    return [tool for tool in tools if visible_to(tool, "model")]


def _roots_alone_changed(old: ServerEntry, new: ServerEntry | None) -> bool:
    return new is not None and new != old and _rootless(new) == _rootless(old)


def _rootless(entry: ServerEntry) -> ServerEntry:
    return dataclasses.replace(entry, extra={k: v for k, v in entry.extra.items() if k != "roots"})


def _entries(servers: ServersConfig | Sequence[ServerEntry]) -> dict[str, ServerEntry]:
    listed = servers.servers.values() if isinstance(servers, ServersConfig) else servers
    return {entry.name: entry for entry in listed}
