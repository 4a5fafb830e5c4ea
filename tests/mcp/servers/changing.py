"""A server whose lists change while it runs: ``grow`` adds a tool and says so, ``touch`` says a
resource was updated. It announces them the 2026-07-28 way (to ``subscriptions/listen`` streams)."""

from mcp.server.mcpserver import Context, MCPServer

app = MCPServer("changing")


@app.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called ``name`` and tell the client the tools changed."""

    def added() -> str:
        return f"I am {name}"

    app.add_tool(added, name=name, description=f"A tool added at run time: {name}")
    await ctx.notify_tools_changed()
    return f"added {name}"


@app.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Tell subscribers the resource at ``uri`` changed."""
    await ctx.notify_resource_updated(uri)
    return f"touched {uri}"


@app.resource("live://counter", mime_type="text/plain")
def counter() -> str:
    """A resource clients may subscribe to."""
    return "0"


if __name__ == "__main__":
    app.run("stdio")
