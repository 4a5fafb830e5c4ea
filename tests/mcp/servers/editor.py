"""A server that reads a text file and replaces text in it, as the filesystem server's edit_file does."""

from pathlib import Path

from mcp.server.mcpserver import MCPServer

app = MCPServer("editor")


@app.tool()
def read_text(path: str) -> str:
    """Read a text file and return its contents."""
    return Path(path).read_text(encoding="utf-8")


@app.tool()
def replace_text(path: str, old_text: str, new_text: str) -> str:
    """Replace the first occurrence of old_text in a text file with new_text."""
    file = Path(path)
    file.write_text(file.read_text(encoding="utf-8").replace(old_text, new_text, 1), encoding="utf-8")
    return f"Edited {path}"


if __name__ == "__main__":
    app.run("stdio")
