"""A server that reads and writes text files by path, as a filesystem server does (a path argument)."""

from pathlib import Path

from mcp.server.mcpserver import MCPServer

app = MCPServer("files")


@app.tool()
def read_text(path: str) -> str:
    """Read a text file and return its contents."""
    return Path(path).read_text(encoding="utf-8")


@app.tool()
def write_text(path: str, content: str) -> str:
    """Write a text file, replacing what it held."""
    Path(path).write_text(content, encoding="utf-8")
    return f"Successfully wrote to {path}"


if __name__ == "__main__":
    app.run("stdio")
