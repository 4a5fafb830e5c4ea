"""The parts of a server's life that need no connection: the restart policy,
the status snapshot, startup timings, and the wording of what went wrong."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import mcp_types
from mcp import Client, MCPError

from app.children import Backoff
from app.mcp.config import ServerEntry
from app.mcp.transport import StdioTransport

__all__ = ["Backoff"]  # where the servers' restart policy is imported from

DOWN = ("failed", "stopped", "unauthorized")  # states a server does not leave by itself


@dataclasses.dataclass
class Limits:
    """Time limits, shared by a supervisor and its connections so a change applies at once."""

    tool_timeout_s: float = 30.0
    connect_timeout_s: float = 60.0  # spawn to tools listed; `npx` may download first
    probe_timeout_s: float = 5.0  # after a call timed out, how long the server has to show it lives


@dataclasses.dataclass(frozen=True)
class ServerStatus:
    name: str
    state: str  # idle, starting, ready, crashed, restarting, stopped, failed, unauthorized, disabled
    pid: int | None = None
    tool_count: int = 0
    last_error: str = ""
    stderr_tail: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    remote: bool = False
    skipped: tuple[str, ...] = ()  # tools left out, each with the reason
    icons: tuple[dict[str, Any], ...] = ()  # the server's own, described (app.mcp.icons)


@dataclasses.dataclass
class Timing:
    """Per-session timings (seconds), for the startup benchmark."""

    spawned: float = 0.0  # process created
    connected: float = 0.0  # initialize (or discover) answered
    listed: float = 0.0  # tools/list answered


def exit_message(name: str, transport: StdioTransport) -> str:
    return f"server {name} exited with code {transport.returncode}"


def stderr_hint(transport: StdioTransport) -> str:
    lines = [line for line in transport.stderr_tail if not line.startswith("[process exited")]
    return f"; last stderr: {' | '.join(lines[-5:])}" if lines else ""


def describe_failure(
    entry: ServerEntry, exc: BaseException, transport: StdioTransport | None, connect_timeout_s: float
) -> str:
    """Why a session could not start or broke, in one line for the user."""
    exc = unwrap(exc)
    if isinstance(exc, TimeoutError):
        return f"server {entry.name} did not start within {connect_timeout_s:g} s"
    if isinstance(exc, FileNotFoundError):
        return f"server {entry.name}: command not found: {entry.launch_command()[0]}"
    if transport is not None and transport.exited:
        return exit_message(entry.name, transport) + " during startup" + stderr_hint(transport)
    return f"server {entry.name}: {type(exc).__name__}: {exc}"


async def all_tools(client: Client, *, fresh: bool = False) -> list[mcp_types.Tool]:
    """Every page of the server's tools; ``fresh`` asks the server even when no change notice
    emptied the client's cache (what it answers is cached for the next ask)."""
    tools, cursor = [], None
    for _ in range(100):  # a paginator that never ends must not hang startup
        page = await client.list_tools(cursor=cursor, cache_mode="refresh" if fresh else "use")
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


def file_safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def unwrap(exc: BaseException) -> BaseException:
    """The one real error inside nested single-member exception groups (task groups wrap them)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def expected(exc: BaseException) -> bool:
    """Failures worth one line in the log rather than a traceback."""
    return isinstance(unwrap(exc), OSError | TimeoutError | MCPError)
