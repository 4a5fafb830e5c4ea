"""Servers' processes started before the MCP SDK is imported, so their start-up and ours overlap.

Importing the SDK takes most of a second, and a Python server spends about as long importing
the same SDK before it can answer. Started one after the other, a one-shot command waits for
both; here the command line starts the children first and imports the SDK while they start,
and each server's connection adopts its process for its first session. Nothing here imports
the SDK.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from anyio.abc import Process

from app.children import spawn, stop_tree
from app.mcp.config import ServerEntry
from app.mcp.process import child_environment

logger = logging.getLogger(__name__)


class EarlyStarts:
    """The started processes by server name; :meth:`take` hands one over, once."""

    def __init__(self, entries: Sequence[ServerEntry]) -> None:
        self.entries = list(entries)
        self._processes: dict[str, tuple[ServerEntry, Process]] = {}

    @classmethod
    async def start(cls, entries: Sequence[ServerEntry]) -> EarlyStarts:
        early = cls(entries)
        for entry in entries:
            if entry.remote or entry.disabled:
                continue
            try:
                argv, env = entry.launch_command(), child_environment(entry.env)
                early._processes[entry.name] = (entry, await spawn(argv, env))
            except OSError:  # its connection tries again and says why it cannot
                logger.debug("server %s: not started early", entry.name, exc_info=True)
        return early

    @property
    def pids(self) -> dict[str, int]:
        """The processes not yet handed over, by server name."""
        return {name: process.pid for name, (_, process) in self._processes.items()}

    def take(self, entry: ServerEntry) -> Process | None:
        """The process started for exactly this entry, if any (an edited entry gets none)."""
        started = self._processes.get(entry.name)
        if started is None or started[0] != entry:
            return None
        return self._processes.pop(entry.name)[1]

    async def aclose(self) -> None:
        """Stop every process no connection adopted."""
        processes, self._processes = list(self._processes.values()), {}
        for _, process in processes:
            await stop_tree(process, 0.0, 2.0)
