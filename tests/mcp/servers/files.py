"""A server that reads and writes text files by path, as a filesystem server does (a path argument)."""

from pathlib import Path

from mcp.server.mcpserver import MCPServer

app = MCPServer("files")


@app.tool()
def read_text(path: str, head: int | None = None, tail: int | None = None) -> str:
    """Read a text file and return its contents; head or tail: only the first or last N lines."""
    if head is not None and tail is not None:  # as the filesystem reference server refuses the pair
        raise ValueError("Cannot specify both head and tail parameters simultaneously")
    lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
    return "".join(lines[:head] if head is not None else lines[-tail:] if tail is not None else lines)


@app.tool()
def write_text(path: str, content: str) -> str:
    """Write a text file, replacing what it held."""
    Path(path).write_text(content, encoding="utf-8")
    return f"Successfully wrote to {path}"


if __name__ == "__main__":
    app.run("stdio")
