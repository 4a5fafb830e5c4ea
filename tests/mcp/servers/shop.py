"""A shop database server with a write tool, as the sqlite reference server has: real SQLite in memory."""

import sqlite3

from mcp.server.mcpserver import MCPServer

app = MCPServer("shop")
db = sqlite3.connect(":memory:", check_same_thread=False)  # tools run in worker threads
db.execute("CREATE TABLE products (name TEXT, category TEXT, price REAL, stock INTEGER)")


@app.tool()
def write_query(query: str) -> str:
    """Execute an INSERT, UPDATE or DELETE query on the shop database."""
    changed = db.execute(query).rowcount
    db.commit()
    return f"{changed} rows affected"


@app.tool()
def read_query(query: str) -> str:
    """Execute a SELECT query on the shop database."""
    return "\n".join(" | ".join(str(v) for v in row) for row in db.execute(query))


if __name__ == "__main__":
    app.run("stdio")
