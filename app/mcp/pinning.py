"""Which of a server's tools may be offered, judged against their pins (:mod:`app.mcp.pins`).

A tool seen for the first time is pinned and offered. A tool that matches its pin is offered.
A tool that differs (a "rug pull": a server that says one thing while the user decides to trust
it and another later) is *changed*: the supervisor leaves it out of the index, so the model is
neither offered it nor able to call it, until the user accepts the new version. A tool that
disappears keeps its pin, so coming back unchanged is no change.

Bundled servers are pinned too. Their tools change only when Calculon itself is updated, so a
difference found under a new Calculon version is accepted (re-pinned) without asking: asking
after every update would teach users to accept without reading, and would hold back the
calculator Calculon mode depends on. Under the same version a difference means the installed
code was altered, and it is held back like any other.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import mcp_types

from app.mcp.pins import ChangedTool, Pin, PinStore, app_version

logger = logging.getLogger(__name__)


class Pinning:
    """The pins of every server's tools, and the tools held back now (``changed``, per server)."""

    def __init__(self, store: PinStore | None = None, version: str | None = None) -> None:
        self.store = store if store is not None else PinStore()
        self.version = app_version() if version is None else version
        self.changed: dict[str, dict[str, ChangedTool]] = {}
        self._seen: dict[tuple[str, str], tuple[mcp_types.Tool, Pin]] = {}

    def offered(
        self, server: str, tools: Sequence[mcp_types.Tool], *, bundled: bool = False
    ) -> list[mcp_types.Tool]:
        """``tools`` less the changed ones; tools seen for the first time are pinned now."""
        self.store.refresh()
        kept, new_pins, held = [], {}, {}
        for tool in tools:
            pin, old = self._pin_of(server, tool), self.store.get(server, tool.name)
            if old is not None and old.sha256 == pin.sha256:
                kept.append(tool)
            elif (old is None and self.store.readable) or (bundled and self._ours(old)):
                kept.append(tool)
                if self.store.readable:
                    new_pins[tool.name] = pin
            else:
                held[tool.name] = ChangedTool(server, tool.name, old, pin)
        if new_pins:
            self.store.put(server, new_pins)
        self._hold(server, held)
        return kept

    def _pin_of(self, server: str, tool: mcp_types.Tool) -> Pin:
        """The tool's pin, computed once per listed tool (the index is rebuilt on every state change)."""
        seen = self._seen.get((server, tool.name))
        if seen is not None and seen[0] is tool:
            return seen[1]
        pin = Pin.of(tool, self.version)
        self._seen[(server, tool.name)] = (tool, pin)
        return pin

    def _ours(self, old: Pin | None) -> bool:
        """A bundled tool's difference comes from our own update (or the pins could not be read)."""
        return old is None or old.version != self.version

    def _hold(self, server: str, held: dict[str, ChangedTool]) -> None:
        before = self.changed.get(server, {})
        for name, change in held.items():
            if name not in before or before[name].new != change.new:
                logger.warning(
                    "server %s: tool %s differs from the version first seen; it is not offered to the"
                    " model until you accept it",
                    server,
                    name,
                )
        self.changed[server] = held

    def accept(self, server: str, tool: str = "", sha256: str = "") -> list[str]:
        """Pin the changed ``tool`` of ``server`` as it is now (every changed tool of it without
        ``tool``); with ``sha256``, only if it is still the version the user was shown. Returns
        the names accepted; the caller re-indexes."""
        held = self.changed.get(server, {})
        chosen = [c for c in held.values() if tool in ("", c.tool) and sha256 in ("", c.new.sha256)]
        if chosen:
            self.store.put(server, {c.tool: c.new for c in chosen})
        for change in chosen:
            del held[change.tool]
        return [c.tool for c in chosen]

    def explain(self, name: str) -> str:
        """Why ``name`` (bare or ``server.tool``) cannot be called, if it is a changed tool; else ""."""
        for server, held in self.changed.items():
            for tool in held:
                if name in (tool, f"{server}.{tool}"):
                    return (
                        f"tool {tool} of server {server} changed since it was first seen and is held back"
                        f" until the user accepts it (calculon servers accept {server} {tool})"
                    )
        return ""
