"""Running a CLI command's body: an event loop that SIGTERM or SIGHUP cancels, and the configured
servers started around it and stopped on the way out. Shared by :mod:`app.cli.commands` and
:mod:`app.cli.surface`, so neither imports the other for it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import AsyncIterator, Collection, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.visible import show
from app.mcp.config import ServerEntry, load_config
from app.mcp.early import EarlyStarts
from app.settings import strict_settings

if TYPE_CHECKING:  # the SDK loads only once the servers' processes are started (app.mcp.early)
    from app.mcp.supervisor import HandlersFactory, Supervisor


# Signals that end the CLI: handled, so the servers are stopped (Windows has no such handlers).
_ENDING = () if sys.platform == "win32" else (signal.SIGTERM, signal.SIGHUP)
LEFTOVER_S = 3.0  # how long tasks the body left may take to end once cancelled
logger = logging.getLogger(__name__)


def run(main: Coroutine[Any, Any, int]) -> int:
    """Run a command's body; SIGTERM or SIGHUP cancels it, so its servers are stopped on the way out."""

    async def body() -> int:
        task, loop = asyncio.current_task(), asyncio.get_running_loop()
        assert task is not None
        for signum in _ENDING:
            loop.add_signal_handler(signum, task.cancel)
        try:
            return await main
        except asyncio.CancelledError:
            return 128 + signal.SIGTERM
        finally:
            for signum in _ENDING:
                loop.remove_signal_handler(signum)

    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(body())
    finally:
        try:
            _cancel_leftovers(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            loop.close()


def _cancel_leftovers(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the tasks the body left (a model load it never awaited), waiting a bounded time.
    ``asyncio.run`` waits for them without end: a CLI sent SIGTERM while the model's process was
    being started stayed up, its load task cancelled inside asyncio's own process start, which
    then waited on that process (seen under load, about one run in six). The body has stopped
    what it started by now; the guard of any process still starting ends it with us."""
    tasks = asyncio.all_tasks(loop)
    if not tasks:
        return
    for task in tasks:
        task.cancel()
    done, pending = loop.run_until_complete(asyncio.wait(tasks, timeout=LEFTOVER_S))
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            logger.debug("a task ended with %r on the way out", task.exception())
    if pending:
        logger.warning("%d task(s) still running on the way out; leaving them", len(pending))


@contextlib.asynccontextmanager
async def running_servers(
    path: Path | None, only: str = "", handlers: HandlersFactory | None = None, *, wait: bool = True
) -> AsyncIterator[Supervisor]:
    """The configured servers (or just ``only``), started, and stopped on the way out. With
    ``wait``, for the start-up wait at most: slower servers are still "starting"."""
    async with early_servers(path, only) as early, supervising(early, handlers, wait=wait) as supervisor:
        yield supervisor


@contextlib.asynccontextmanager
async def early_servers(
    path: Path | None, only: str = "", *, later: Collection[str] = ()
) -> AsyncIterator[EarlyStarts]:
    """The configured servers' (or just ``only``'s) processes, started before the SDK is imported
    so their start-up and ours overlap; any no supervisor adopted are stopped on the way out.
    Those named in ``later`` are left to start on first use."""
    entries: list[ServerEntry] = list(load_config(path).servers.values())
    early = await EarlyStarts.start(
        [e for e in entries if (not only or e.name == only) and e.name not in later]
    )
    try:
        yield early
    finally:
        await early.aclose()


@contextlib.asynccontextmanager
async def supervising(
    early: EarlyStarts, handlers: HandlersFactory | None = None, *, wait: bool = True
) -> AsyncIterator[Supervisor]:
    """A supervisor over the servers ``early`` started, adopting their processes."""
    from app.mcp.handlers import server_handlers
    from app.mcp.supervisor import Supervisor

    settings = strict_settings()
    supervisor = Supervisor(
        early.entries,
        tool_timeout_s=settings.tool_timeout_s,
        handlers=handlers or server_handlers,
        early=early,
    )
    try:
        await supervisor.start(wait=wait, timeout=settings.startup_wait_s)
        yield supervisor
    finally:
        await supervisor.aclose()


def warn_unavailable(supervisor: Supervisor) -> None:
    """Say on stderr which servers are not ready, what they skipped, and any pinning problem."""
    for status in supervisor.states():
        if status.state == "starting":
            show(f"calculon: server {status.name} is still starting; its tools are not listed", sys.stderr)
        elif status.state not in ("ready", "disabled"):
            show(f"calculon: server {status.name} is {status.state}: {status.last_error}", sys.stderr)
        for reason in status.skipped:
            show(f"calculon: server {status.name}: {reason}", sys.stderr)
    if problem := supervisor.pinning.store.problem:
        show(f"calculon: {problem}", sys.stderr)
