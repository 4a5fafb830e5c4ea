"""A server whose deed fails until another of its tools has run, and whose error names that tool,
as git's commit does ("No changes staged for commit. Use git_add to stage changes first")."""

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

app = MCPServer("stager")
staged: list[str] = []


@app.tool()
def commit_changes(message: str) -> str:
    """Record the staged changes with a message."""
    if not staged:
        raise ToolError("Nothing staged. Use stage_file to stage it first; list_staged shows what is staged.")
    return f"Committed {', '.join(staged)}: {message}"


@app.tool()
def stage_file(name: str) -> str:
    """Stage a file for the next commit."""
    staged.append(name)
    return f"Staged {name}"


@app.tool()
def list_staged() -> str:
    """List the staged files."""
    return ", ".join(staged) or "nothing staged"


if __name__ == "__main__":
    app.run("stdio")
