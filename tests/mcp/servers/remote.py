"""A server spoken to over Streamable HTTP: ``remote.py PORT`` serves on 127.0.0.1:PORT/mcp."""

import sys

from mcp.server.mcpserver import MCPServer

app = MCPServer("remote")


@app.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    return a + b


if __name__ == "__main__":
    app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
