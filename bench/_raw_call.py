"""The raw SDK side of ``bench call_beside_hung``: start the bundled calculator with
``mcp.Client`` over the SDK's stdio client, call ``add`` once, print the text, exit."""

import sys

import anyio
from mcp import Client, StdioServerParameters


async def main() -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "app", "serve", "calculator"])
    async with Client(params) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
    print(result.content[0].text)  # type: ignore[union-attr]


anyio.run(main)
