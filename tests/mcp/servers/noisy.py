"""A server that prints lines that are not JSON-RPC on its stdout, at start and
between messages."""

import os

from mcp.server.mcpserver import MCPServer

app = MCPServer("noisy")
_WIRE = os.dup(1)  # the real stdout: the SDK diverts fd 1 to stderr while serving


@app.tool()
def shout(text: str) -> str:
    """Print a garbage line on stdout, then return the text in upper case."""
    os.write(_WIRE, f"garbage from shout: {text}\n".encode())
    return text.upper()


if __name__ == "__main__":
    os.write(1, b'Starting noisy server v1 (this line is not JSON)\n{"half": "json"}\n')
    app.run("stdio")
