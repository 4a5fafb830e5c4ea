"""A server whose ``crash`` tool kills the process in the middle of the call."""

import os
import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("crashy")


@app.tool()
def crash(code: int = 3) -> str:
    """Exit the whole process at once with ``code``, after a last word on stderr."""
    print(f"crashy: about to exit with {code}", file=sys.stderr, flush=True)
    os._exit(code)


@app.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


if __name__ == "__main__":
    app.run("stdio")
