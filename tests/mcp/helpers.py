"""Shared by the MCP, session, engine and CLI tests: test servers and event waits."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio

from app.core import events as ev
from app.mcp.config import ServerEntry
from app.mcp.lifecycle import Backoff
from app.mcp.supervisor import Supervisor

SERVERS = Path(__file__).parent / "servers"
QUICK = Backoff(first_s=0.05, cap_s=0.2, stable_s=60, max_failures=3)  # restarts fast enough for a test


def script_entry(name: str, script: str, *args: str, **fields: object) -> ServerEntry:
    """A config entry that runs ``tests/mcp/servers/<script>`` with this Python."""
    return ServerEntry(name, command=sys.executable, args=(str(SERVERS / script), *args), **fields)  # type: ignore[arg-type]


def alive(pid: int) -> bool:
    """Whether the process runs; a zombie waiting to be reaped counts as dead."""
    stat = Path(f"/proc/{pid}/stat")
    if Path("/proc/self/stat").exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (FileNotFoundError, ProcessLookupError):
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class EventLog:
    """An event sink that remembers everything and lets a test wait for a match."""

    def __init__(self) -> None:
        self.events: list[ev.Event] = []
        self._new = asyncio.Event()

    def __call__(self, event: ev.Event) -> None:
        self.events.append(event)
        self._new.set()

    def states(self, server: str) -> list[str]:
        return [e.state for e in self.events if isinstance(e, ev.ServerStateChanged) and e.server == server]

    async def wait_for(
        self, match: Callable[[ev.Event], bool], *, since: int = 0, timeout: float = 20
    ) -> ev.Event:
        """The first event from index ``since`` on that matches, waiting for it if needed."""
        with anyio.fail_after(timeout):
            while True:
                for event in self.events[since:]:
                    if match(event):
                        return event
                since = len(self.events)
                self._new.clear()
                await self._new.wait()

    async def wait_state(
        self, server: str, state: str, *, since: int = 0, timeout: float = 20
    ) -> ev.ServerStateChanged:
        event = await self.wait_for(
            lambda e: isinstance(e, ev.ServerStateChanged) and e.server == server and e.state == state,
            since=since,
            timeout=timeout,
        )
        assert isinstance(event, ev.ServerStateChanged)
        return event


async def until(condition: Callable[[], object], timeout: float = 20) -> None:
    """Wait for a condition no event announces, checking it every few milliseconds."""
    with anyio.fail_after(timeout):
        while not condition():
            await anyio.sleep(0.01)


async def wait_until_dead(pids: list[int], timeout: float = 10) -> list[int]:
    """The pids still alive after ``timeout`` (empty when all died in time)."""
    with anyio.move_on_after(timeout):
        while any(alive(pid) for pid in pids):
            await anyio.sleep(0.02)
    return [pid for pid in pids if alive(pid)]


@contextlib.asynccontextmanager
async def started(*entries: ServerEntry, **options: Any) -> AsyncIterator[Supervisor]:
    """A supervisor over ``entries``, started, and closed on the way out: for module-wide fixtures."""
    supervisor = Supervisor(list(entries), **options)
    await supervisor.start()
    try:
        yield supervisor
    finally:
        await supervisor.aclose()
