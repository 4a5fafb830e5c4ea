"""A server whose tool list changes right after the client first lists it: before the client's
``subscriptions/listen`` stream is open, so the notice it publishes reaches nobody (2026-07-28)."""

from mcp.server.mcpserver import MCPServer
from mcp.shared.subscriptions import ToolsListChanged


class Early(MCPServer):
    changed = False

    async def list_tools(self) -> list:  # type: ignore[override]
        listed = await super().list_tools()
        if not self.changed:  # the first listing goes out as it was; then the list grows
            self.changed = True
            self.add_tool(late, description="A tool added once the first listing was sent")
            await self._subscriptions.publish(ToolsListChanged())
        return listed


def late() -> str:
    return "I came late"


app = Early("early")


@app.tool()
def first() -> str:
    """There from the start."""
    return "I was here"


if __name__ == "__main__":
    app.run("stdio")
