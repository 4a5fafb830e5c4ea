"""Helpers for talking to a bundled server in a child process."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult, TextContent

REPO_ROOT = Path(__file__).resolve().parents[2]
CALL_LIMIT_S = 20


def server_params(*args: str) -> StdioServerParameters:
    """Start a server from this checkout with this interpreter."""
    return StdioServerParameters(command=sys.executable, args=list(args), cwd=REPO_ROOT)


async def call(client: Client, tool: str, **arguments: Any) -> CallToolResult:
    with anyio.fail_after(CALL_LIMIT_S):
        return await client.call_tool(tool, arguments)


def text_of(result: CallToolResult) -> str:
    """The single text block every bundled tool returns."""
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text
