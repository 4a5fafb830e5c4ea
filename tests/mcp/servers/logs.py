"""A server that logs to its client: ``say`` sends a log message at any level, then returns."""

from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("logs")


@app.tool()
async def say(text: str, level: str, ctx: Context) -> str:
    """Send ``text`` to the client as a log message at ``level``, then return it."""
    await ctx.log(level, text, logger_name="logs.say")
    return text


if __name__ == "__main__":
    app.run("stdio")
