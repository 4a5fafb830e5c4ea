"""One MCP server, owned by one long-lived task.

The task connects (spawn, initialize, list tools), marks the server ready,
then waits: for the child to die, a restart or stop request, or a timed-out
call that makes the server suspect. When a session ends unexpectedly it
restarts with capped exponential backoff, and gives up ("failed") after too
many failures in a row (a remote server never: it is reconnected at the capped
delay until it is back). It never raises; the last error and the stderr tail
say what went wrong.

What the server may tell or ask the client goes through the :class:`ClientHandlers`
the supervisor gives it (:mod:`app.mcp.handlers`), and tool calls run in the
caller's task on the client this owner lends (:mod:`app.mcp.calls`), so the
supervisor adds no hop to a call's round trip. Listing what the server offers (tools,
catalog, change stream) is the :class:`app.mcp.offered.Offered` base.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import anyio
import mcp_types
from mcp import Client, MCPDeprecationWarning, MCPError
from mcp.client import Transport
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from app.mcp.config import ServerEntry
from app.mcp.handlers import ClientHandlers
from app.mcp.lifecycle import (
    DOWN,
    Backoff,
    Limits,
    ServerStatus,
    Timing,
    all_tools,
    describe_failure,
    exit_message,
    expected,
    file_safe,
    stderr_hint,
)
from app.mcp.oauth import CONSENT_TIMEOUT_S, OAuthSignIn
from app.mcp.offered import Offered
from app.mcp.remote import HttpWatch, refusal, remote_transport
from app.mcp.transport import StdioTransport

logger = logging.getLogger(__name__)

_CLIENT_INFO = mcp_types.Implementation(name="calculon", version="0.1")
REMOTE_REQUEST_S = 30.0  # connecting to a remote server, and each request but a stream's wait


class ServerConnection(Offered):
    """One server. :meth:`run` is the body of its owner task; :meth:`live_client` lends
    the client to a call in any task. Every state change is reported through ``on_change(self)``."""

    def __init__(
        self,
        entry: ServerEntry,
        *,
        on_change: Callable[[ServerConnection], None],
        limits: Limits | None = None,
        backoff: Backoff | None = None,
        log_dir: Path | None = None,
        handlers: ClientHandlers | None = None,
    ) -> None:
        self.entry, self.name = entry, entry.name
        self.handlers = handlers or ClientHandlers()
        self.on_change = on_change
        self.limits = limits or Limits()
        self.backoff = backoff or Backoff()
        self.log_dir = log_dir
        self.state = "stopped"
        self.last_error = ""
        self.timing = Timing()
        self.settled = asyncio.Event()  # set once the server was ready, or an attempt failed
        self._settle_waiters: list[asyncio.Future[None]] = []
        self._client: Client | None = None
        self._session_client: Client | None = None  # from connect to teardown; _client only while ready
        self._transport: StdioTransport | None = None
        self.adopt: anyio.abc.Process | None = None  # a process already started (app.mcp.early)
        self.known: tuple[mcp_types.Tool, ...] | None = None  # offered idle, started on first use
        self._init_offered()
        self._wake = asyncio.Event()
        self._stopping = self._restart = self._suspect = self._lost = self._wanted = False
        self._ended = ""  # why the current session is ending, once the owner knows
        self._failures = 0
        self._connecting: anyio.CancelScope | None = None  # while a session connects
        self.http = HttpWatch()  # a remote server's last refusal
        self.oauth = OAuthSignIn.for_entry(entry, self.handlers.open_browser)

    # --- observation ---

    @property
    def pid(self) -> int | None:
        transport = self._transport
        return transport.pid if transport is not None and not transport.exited else None

    def status(self) -> ServerStatus:
        tail = tuple(self._transport.stderr_tail) if self._transport else ()
        names = tuple(t.name for t in self.tools)
        return ServerStatus(
            self.name,
            self.state,
            self.pid,
            len(names),
            self.last_error,
            tail,
            names,
            self.entry.remote,
            self.skipped,
        )

    # --- requests from the supervisor ---

    def next_settle(self) -> asyncio.Future[None]:
        """Resolves when the next session is ready or has ended."""
        waiter = asyncio.get_running_loop().create_future()
        self._settle_waiters.append(waiter)
        return waiter

    def _settle(self) -> None:
        self.settled.set()
        waiters, self._settle_waiters = self._settle_waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    async def roots_changed(self, entry: ServerEntry) -> None:
        """The entry's roots changed: keep the session and tell the server (it asks for them again)."""
        self.entry = entry
        client = self._client
        # Not connected: it asks when it connects. A 2026-07-28 server asks inside each request
        # that needs the roots, so it sees the change without being told (and the notice is gone).
        if client is None or client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return
        try:
            with warnings.catch_warnings():  # deprecated by 2026-07-28, still the way on this connection
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.session.send_roots_list_changed()
        except (MCPError, anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.info("server %s: could not tell it the roots changed", self.name, exc_info=True)

    def allow_sign_in(self) -> bool:
        """Let the next connection attempt open the browser for an OAuth sign-in; False when
        this server does not use OAuth (it has an Authorization header of its own, or is local)."""
        if self.oauth is None:
            return False
        self.oauth.allowed = True
        return True

    def request_restart(self) -> None:
        self._restart = True
        self._wake.set()

    def request_stop(self) -> None:
        self._stopping = True
        self._wake.set()
        if self._connecting is not None:
            self._connecting.cancel()  # a server still starting (npx downloading...) need not finish
            if self._transport is not None:
                self._transport.grace_s = 0.0  # nor does it get to wind down: it never served

    # --- the owner task ---

    async def run(self) -> None:
        """Body of the owner task: connect, serve, restart, until stopped. Never raises."""
        state = "starting"
        try:
            if self.known is not None and not await self._idle(self.known):
                return
            while not self._stopping:
                started = time.monotonic()
                reason = await self._session(state)
                if reason in ("error", "refused"):  # never became ready: this attempt is over
                    self._settle()
                if reason == "refused":  # trying again with the same credentials cannot help
                    reason = await self._wait_as("unauthorized")
                state = "restarting"
                if reason == "stop" or (reason != "restart" and not await self._recover(started)):
                    break
        finally:
            self._leave_ready()
            self._set_state("stopped")
            self._settle()

    async def _session(self, state: str) -> str:
        """One connection from spawn to end; returns why it ended."""
        self._restart = self._suspect = self._lost = False
        self._ended = ""
        self._set_state(state)
        reason = "stop"  # unless the session gets further than a stop during its connect
        try:
            # The deadline covers only the connect, but its scope must enclose the
            # client's whole life: the client's task groups live inside it.
            with anyio.fail_after(self._connect_limit()) as self._connecting:
                async with contextlib.AsyncExitStack() as stack:
                    client = await self._connect(stack)
                    self._connecting.deadline, self._connecting = math.inf, None
                    self._go_ready(client)
                    reason = self._ended = await self._serve(client)
                    self._wind_down(reason)
        except Exception as exc:  # top of one session: any failure becomes state, never a crash
            self._leave_ready()
            if self.entry.remote and self.http.refused:
                self.last_error = refusal(self.name, self.http, self.oauth)
                return "refused"
            limit = self.limits.connect_timeout_s
            self.last_error = describe_failure(self.entry, exc, self._transport, limit)
            logger.info("server %s: %s", self.name, self.last_error, exc_info=not expected(exc))
            return "error"
        finally:
            self._connecting = None
        return reason

    def _connect_limit(self) -> float:
        """A sign-in waits for a person at the browser, which may take longer than a connect."""
        signing_in = self.oauth is not None and self.oauth.allowed
        return (
            max(self.limits.connect_timeout_s, CONSENT_TIMEOUT_S)
            if signing_in
            else self.limits.connect_timeout_s
        )

    async def _connect(self, stack: contextlib.AsyncExitStack) -> Client:
        began = time.perf_counter()
        client = Client(self._open_transport(), client_info=_CLIENT_INFO, **self.handlers.client_options())
        await stack.enter_async_context(client)
        self._session_client = client  # a change notice may come before the session is ready
        stack.callback(setattr, self, "_session_client", None)
        self.timing.spawned = self._transport.spawn_s if self._transport else 0.0
        self.timing.connected = time.perf_counter() - began
        self._adopt(await all_tools(client))
        self.timing.listed = time.perf_counter() - began
        group = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(group.cancel_scope.cancel)  # first out: the stream must not hold the exit
        self.catalog_listed = asyncio.Event()
        group.start_soon(self._list_catalog, client, group)  # tools suffice to be ready; the rest follows
        return client

    def _open_transport(self) -> Transport:
        old, self._transport = self._transport, None
        if self.entry.remote:
            timeout = min(self.limits.connect_timeout_s, REMOTE_REQUEST_S)
            auth = self.oauth.provider() if self.oauth is not None else None
            return remote_transport(
                self.entry, self.http, timeout_s=timeout, auth=auth, on_dropped=self.handlers.dropped
            )
        log = self.log_dir / f"{file_safe(self.name)}.log" if self.log_dir else None
        transport = StdioTransport(
            self.entry.launch_command(),
            env=self.entry.env,
            log_path=log,
            on_exit=self._child_exited,
            on_dropped=self.handlers.dropped,
            adopt=self.adopt,
        )
        self.adopt = None  # started for the first session only
        if old is not None:  # the previous run's last words stay visible after a restart
            transport.stderr_tail.extend(old.stderr_tail)
        self._transport = transport
        return transport

    def _wind_down(self, reason: str) -> None:
        """Say what is happening before the (possibly slow) teardown of the session."""
        self._leave_ready()
        if reason in ("died", "lost", "stuck"):
            self._set_state("crashed")
        if reason == "stuck" and self._transport is not None:
            self._transport.grace_s = 0.0  # it cannot read its stdin; go straight to SIGTERM

    def _child_exited(self, _code: int) -> None:
        # Stop lending the client now: a call made before the owner task wakes
        # should wait for the restart, not fail against a dead pipe.
        self._leave_ready()
        self._wake.set()

    def _go_ready(self, client: Client) -> None:
        self._client, self.last_error = client, ""
        self._set_state("ready")
        self._settle()

    def _leave_ready(self) -> None:
        self._client = None

    async def _serve(self, client: Client) -> str:
        """Wait until the session must end, and say why: stop, restart, died, lost or stuck."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return "stop"
            if self._restart:
                return "restart"
            if self._transport is not None and self._transport.exited:
                self.last_error = exit_message(self.name, self._transport) + stderr_hint(self._transport)
                return "died"
            if self._lost:
                self.last_error = f"the connection to server {self.name} was lost"
                return "lost"
            if self._suspect and not await self._still_answers(client):
                self.last_error = f"server {self.name} stopped answering after a tool call timed out"
                return "stuck"

    async def _still_answers(self, client: Client) -> bool:
        self._suspect = False
        with anyio.move_on_after(self.limits.probe_timeout_s):
            with contextlib.suppress(MCPError):  # an error reply still proves it is alive
                await client.list_tools(cache_mode="bypass")
            return True
        return False

    async def _recover(self, started: float) -> bool:
        """After an unexpected end: wait out the backoff, or give up. False: stop for good."""
        if time.monotonic() - started >= self.backoff.stable_s:
            self._failures = 0
        self._failures += 1
        if self.state != "crashed":
            self._set_state("crashed")
        # A child that keeps dying is given up on; a remote server that went away is reconnected
        # for as long as it takes (at the capped delay): a network or a redeploy comes back.
        if self._failures >= self.backoff.max_failures and not self.entry.remote:
            self._set_state("failed")
            await self._wait_for_request()
        else:
            with anyio.move_on_after(self.backoff.delay(self._failures)):
                await self._wait_for_request()
        if self._restart:
            self._failures = 0
        return not self._stopping

    async def _wait_as(self, state: str) -> str:
        """Stay in ``state`` until the user restarts (after a sign-in, or new headers) or stops."""
        self._set_state(state)
        await self._wait_for_request()
        return "stop" if self._stopping else "restart"

    async def _wait_for_request(self) -> None:
        while not (self._stopping or self._restart):
            await self._wake.wait()
            self._wake.clear()

    # --- lent to calls, in the caller's task ---

    @property
    def transport(self) -> StdioTransport | None:
        return self._transport

    @property
    def ended(self) -> str:
        """Why the current session is ending (stop, restart, died, lost, stuck), once the owner knows."""
        return self._ended

    async def live_client(self) -> Client | None:
        """The ready client; while the server (re)starts, wait for its next attempt to settle, up
        to the tool timeout. One failed attempt ends the wait: a remote server that is gone is
        retried for ever, and a call should say so now, not after the whole timeout."""
        if self._client is not None or self.state in DOWN:  # the common cases, kept free of timers
            return self._client
        if self.state == "idle":
            self.want()
        with anyio.move_on_after(self.limits.tool_timeout_s):
            await self.next_settle()
        return self._client

    def report_suspect(self) -> None:
        """A call timed out: the owner checks whether the server still answers."""
        self._suspect = True
        self._wake.set()

    def report_lost(self) -> None:
        """A call saw the connection close while the child lives on: the owner restarts it."""
        self._lost = True
        self._wake.set()

    def unavailable(self) -> str:
        """Why calls cannot run now, for an error result."""
        why = f": {self.last_error}" if self.last_error else ""
        return f"server {self.name} is not available ({self.state}){why}"

    def _set_state(self, state: str) -> None:
        self.state = state
        if self.oauth is not None:
            self.oauth.track(state)
        if state in DOWN:
            self._settle()  # callers waiting for the server learn it is not coming
        self._changed()

    def _changed(self) -> None:
        self.on_change(self)
