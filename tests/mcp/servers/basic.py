"""A well-behaved server: arithmetic, an echo tagged with the server's name, and
a look at its own environment. ``basic.py NAME`` names the server NAME."""

import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

NAME = sys.argv[1] if len(sys.argv) > 1 else "basic"
app = MCPServer(NAME)
_calls: list[str] = []  # every tool call this process has run, so tests can see what arrived


@app.tool()
def add(a: float, b: float) -> float:
    """Add two numbers."""
    _calls.append("add")
    return a + b


@app.tool()
def echo(text: str) -> str:
    """Return the text, prefixed with this server's name."""
    _calls.append("echo")
    return f"{NAME}:{text}"


@app.tool()
def getenv(name: str) -> str:
    """The value of an environment variable in this server, or <unset>."""
    return os.environ.get(name, "<unset>")


@app.tool()
def calls() -> list[str]:
    """The tools this process has run so far (this one not included)."""
    return list(_calls)


@app.tool()
def fail(message: str) -> str:
    """Always fails, so the call comes back as a tool error with ``message``."""
    raise ToolError(message)


@app.tool()
def spawn_helper() -> int:
    """Start a long-lived helper process in this server's group; return its pid."""
    import subprocess

    helper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    return helper.pid


if __name__ == "__main__":
    app.run("stdio")
