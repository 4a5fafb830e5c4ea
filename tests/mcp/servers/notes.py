"""A server of short notes, searched as the memory reference server searches: a query must be a
substring of a note, so a whole sentence finds nothing."""

import json

from mcp.server.mcpserver import MCPServer

app = MCPServer("notes")
NOTES = ["Alice: birthday on 14 March", "Bob: moved to Lisbon"]


@app.tool()
def search_notes(query: str) -> str:
    """Find the notes that contain the query."""
    return json.dumps({"notes": [n for n in NOTES if query.lower() in n.lower()]})


@app.tool()
def read_all_notes() -> str:
    """Read every note."""
    return json.dumps({"notes": NOTES})


if __name__ == "__main__":
    app.run("stdio")
