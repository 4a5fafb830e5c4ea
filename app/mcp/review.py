"""What about a server needs the user's eye: its tools held back since they changed (with diffs,
:mod:`app.mcp.pinning`) and its flagged descriptions (:mod:`app.mcp.flags`). The window and the CLI
both read it here."""

from __future__ import annotations

import dataclasses

from app.mcp.flags import Flag, flags_of
from app.mcp.pins import ChangedTool
from app.mcp.supervisor import Supervisor


@dataclasses.dataclass(frozen=True)
class ServerReview:
    server: str
    changed: tuple[ChangedTool, ...] = ()
    flags: tuple[Flag, ...] = ()
    problem: str = ""  # the pins file cannot be read or written

    def to_json(self) -> dict[str, list[dict[str, object]]]:
        """The ``changed_tools`` and ``flags`` of ``calculon servers --json``."""
        return {
            "changed_tools": [c.to_json() for c in self.changed],
            "flags": [f.to_json() for f in self.flags],
        }


class Review:
    """The review of each server of one supervisor, and accepting its changed tools."""

    def __init__(self, supervisor: Supervisor) -> None:
        self.supervisor = supervisor

    def of(self, server: str) -> ServerReview:
        pinning = self.supervisor.pinning
        changed = tuple(pinning.changed.get(server, {}).values())
        connection = self.supervisor.connections.get(server)
        flags = tuple(flags_of(connection.catalog, connection.tools)) if connection is not None else ()
        return ServerReview(server, changed, flags, pinning.store.problem)

    def accept(self, server: str, tool: str = "", sha256: str = "") -> list[str]:
        return self.supervisor.accept(server, tool, sha256)
