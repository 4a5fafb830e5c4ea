"""A server with one query tool whose argument is described, as the sqlite reference server's is."""

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

app = MCPServer("query")


@app.tool()
def read_query(query: Annotated[str, Field(description="SELECT SQL query to execute")]) -> str:
    """Execute a SELECT query on the database."""
    return f"ran: {query}"


if __name__ == "__main__":
    app.run("stdio")
