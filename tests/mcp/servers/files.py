"""A server that reads text files by path, as a filesystem server does (a path argument)."""

from pathlib import Path

from mcp.server.mcpserver import MCPServer

app = MCPServer("files")


@app.tool()
def read_text(path: str) -> str:
    """Read a text file and return its contents."""
    return Path(path).read_text(encoding="utf-8")


if __name__ == "__main__":
    app.run("stdio")
