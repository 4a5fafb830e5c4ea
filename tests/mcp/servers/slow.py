"""A server whose ``work`` reports progress step by step; a cancelled ``work`` writes the file
named on the command line, so a test sees that ``notifications/cancelled`` reached it."""

import sys
from pathlib import Path

import anyio
from mcp.server.mcpserver import Context, MCPServer

MARKER = Path(sys.argv[1]) if len(sys.argv) > 1 else None
app = MCPServer("slow")


@app.tool()
async def work(steps: int, step_s: float, ctx: Context) -> str:
    """Take ``steps`` steps of ``step_s`` seconds, reporting each one."""
    try:
        for done in range(1, steps + 1):
            await anyio.sleep(step_s)
            await ctx.report_progress(done, steps, f"step {done}")
    except anyio.get_cancelled_exc_class():
        if MARKER is not None:
            MARKER.write_text("cancelled")
        raise
    return f"took {steps} steps"


if __name__ == "__main__":
    app.run("stdio")
