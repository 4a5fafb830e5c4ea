"""The tool index: the names the model sees, and what each one runs.

A tool name unique across servers is offered bare (``add``). When two servers
expose the same name, both are offered qualified (``a.echo``, ``b.echo``) and
the bare name resolves to neither. ``server.tool`` always resolves.

A name with a dot in it is never offered bare: server names hold no dot, so every
dotted name the model sees splits into one server and one tool at its first dot, and a
tool named ``calculator.add`` on server ``evil`` is ``evil.calculator.add``, never a
second ``calculator.add``.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Sequence

import mcp_types

from app.core.tools import ToolInfo
from app.mcp.results import tool_info


class ToolIndex:
    def __init__(self, servers: Iterable[tuple[str, Sequence[mcp_types.Tool]]] = ()) -> None:
        pairs = [(server, tool) for server, tools in servers for tool in tools]
        counts = collections.Counter(tool.name for _, tool in pairs)
        self.tools: list[ToolInfo] = []
        self._by_name: dict[str, ToolInfo] = {}
        self._qualified: dict[str, ToolInfo] = {}
        self._clashes: dict[str, list[str]] = collections.defaultdict(list)
        for server, tool in pairs:
            qualified = f"{server}.{tool.name}"
            bare = counts[tool.name] == 1 and "." not in tool.name
            info = tool_info(server, tool, tool.name if bare else qualified)
            self.tools.append(info)
            self._by_name.setdefault(info.name, info)
            self._qualified[qualified] = info
            if counts[tool.name] > 1:
                self._clashes[tool.name].append(qualified)

    def resolve(self, name: str) -> ToolInfo | None:
        if "." in name:  # only ever server.tool, whatever bare names the servers chose
            return self._qualified.get(name)
        return self._by_name.get(name)

    def explain_missing(self, name: str) -> str:
        """Why ``name`` resolves to nothing, worded for the model and the user."""
        if name in self._clashes:
            choices = " or ".join(self._clashes[name])
            servers = ", ".join(q.split(".", 1)[0] for q in self._clashes[name])
            return f"tool {name!r} is ambiguous: servers {servers} all have it; call {choices}"
        known = ", ".join(sorted(t.name for t in self.tools)) or "none"
        return f"unknown tool {name!r}; available tools: {known}"
