"""A server that never answers some calls.

``hang`` waits forever but can be cancelled; ``freeze`` blocks the server's
event loop, so it cannot answer anything any more.
"""

import time

import anyio
from mcp.server.mcpserver import MCPServer

app = MCPServer("stuck")


@app.tool()
async def hang() -> str:
    """Never returns."""
    await anyio.sleep_forever()
    return "unreachable"


@app.tool()
async def freeze() -> str:
    """Blocks the whole server."""
    time.sleep(3600)
    return "unreachable"


@app.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


if __name__ == "__main__":
    app.run("stdio")
