"""An MCP server that serves BFCL function docs as tools, for ``bench/bfcl_quality.py``.

BFCL's types are Python-flavoured ("dict", "float", "tuple", "any"); they are
mapped to JSON Schema here, so clients see ordinary MCP tool schemas. BFCL
reuses some names with different parameters across entries, so one server
serves one *shard*: the entries whose name is seen for the N-th time.
A call answers with its arguments echoed back.

    python bench/_bfcl_server.py DATA.jsonl SHARD LIMIT
"""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

_TYPES = {"dict": "object", "float": "number", "tuple": "array"}


def json_schema(node: Any) -> Any:
    """BFCL's parameter description as JSON Schema (recursively)."""
    if isinstance(node, list):
        return [json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            if value != "any":  # "any" means no type constraint
                out[key] = _TYPES.get(value, value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: json_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf"):
            out[key] = json_schema(value)
        else:
            out[key] = value
    return out


def entries(data: Path, limit: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[:limit]


def shard_of(rows: list[dict[str, Any]]) -> list[int]:
    """For each entry, how many earlier entries used the same function name."""
    seen: collections.Counter[str] = collections.Counter()
    shards = []
    for row in rows:
        name = row["function"][0]["name"]
        shards.append(seen[name])
        seen[name] += 1
    return shards


def tools_for(rows: list[dict[str, Any]], shard: int) -> list[types.Tool]:
    return [
        types.Tool(
            name=row["function"][0]["name"],
            description=row["function"][0].get("description", ""),
            input_schema=json_schema(row["function"][0]["parameters"]),
        )
        for row, n in zip(rows, shard_of(rows), strict=True)
        if n == shard
    ]


async def serve(tools: list[types.Tool]) -> None:
    async def list_tools(_ctx: Any, _params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        echo = json.dumps({"called": params.name, "arguments": params.arguments or {}})
        return types.CallToolResult(content=[types.TextContent(type="text", text=echo)])

    server: Server[Any] = Server("bfcl", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    path, shard, limit = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    anyio.run(serve, tools_for(entries(path, limit), shard))
