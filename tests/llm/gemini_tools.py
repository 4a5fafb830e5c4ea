"""A ToolProvider over one real MCP server child: the bundled calculator, over stdio.

The Gemini session tests need real tools behind the turn loop; this is the
smallest honest provider (the real SDK ``Client``, a real child process)
without depending on the supervisor's restart logic.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Mapping
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from app.core.tools import ToolInfo, ToolResult


class ChildServerTools:
    def __init__(self, client: Client, server: str, tools: list[ToolInfo]) -> None:
        self.client = client
        self.server = server
        self.tools = tools
        self.calls: list[tuple[str, dict[str, Any]]] = []  # what actually reached the server

    @classmethod
    @contextlib.asynccontextmanager
    async def start(cls, module: str = "app.servers.calculator") -> AsyncIterator[ChildServerTools]:
        params = StdioServerParameters(command=sys.executable, args=["-m", module])
        async with Client(params) as client:
            listing = await client.list_tools()
            server = module.rsplit(".", 1)[-1]
            tools = [
                ToolInfo(server, t.name, t.name, t.description or "", dict(t.input_schema))
                for t in listing.tools
            ]
            yield cls(client, server, tools)

    def list_tools(self) -> list[ToolInfo]:
        return list(self.tools)

    def resolve(self, name: str) -> ToolInfo | None:
        bare = name.removeprefix(f"{self.server}.")
        return next((t for t in self.tools if t.name == bare), None)

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        self.calls.append((name, dict(arguments)))
        result = await self.client.call_tool(name, dict(arguments))
        text = "\n".join(c.text for c in result.content if isinstance(c, TextContent))
        return ToolResult(text, is_error=bool(result.is_error), structured=result.structured_content)
