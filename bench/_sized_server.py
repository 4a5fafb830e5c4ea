"""The server both sides of ``bench big_result`` call: ``sized`` returns ``mb`` megabytes of text."""

from mcp.server.mcpserver import MCPServer

app = MCPServer("sized")


@app.tool()
def sized(mb: float) -> str:
    """Return mb megabytes of the letter y."""
    return "y" * int(mb * 1024 * 1024)


if __name__ == "__main__":
    app.run("stdio")
