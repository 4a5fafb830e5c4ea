"""A minimal ToolProvider over one real MCP server child, for the turn-loop test.

The app's supervisor does much more (restarts, many servers); this test needs
only list, resolve and call against a real process.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from contextlib import AsyncExitStack
from typing import Any

from mcp import Client, StdioServerParameters

from app.core.tools import ToolInfo, ToolResult


class StdioToolProvider:
    def __init__(self, server: str, module: str) -> None:
        self.server = server
        self.params = StdioServerParameters(command=sys.executable, args=["-m", module])
        self.tools: list[ToolInfo] = []
        self._stack = AsyncExitStack()
        self._client: Client | None = None

    async def __aenter__(self) -> StdioToolProvider:
        self._client = await self._stack.enter_async_context(Client(self.params))
        listing = await self._client.list_tools()
        self.tools = [
            ToolInfo(self.server, t.name, t.name, t.description or "", t.input_schema) for t in listing.tools
        ]
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()

    def list_tools(self) -> list[ToolInfo]:
        return list(self.tools)

    def resolve(self, name: str) -> ToolInfo | None:
        return next((t for t in self.tools if name in (t.name, f"{t.server}.{t.tool}")), None)

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        assert self._client is not None
        result = await self._client.call_tool(name, dict(arguments))
        text = "".join(getattr(block, "text", "") for block in result.content)
        return ToolResult(text, bool(result.is_error), result.structured_content)
