"""A server whose lists say how long they stay fresh (2026-07-28 caching hints): ``fresh_for.py MS``
sets ``ttlMs`` on its tools, resources and prompts lists. ``served`` counts the list requests it
has answered, so a test can see whether the client asked again."""

import collections
import sys
from typing import Any

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import MCPServer

TTL_MS = int(sys.argv[1]) if len(sys.argv) > 1 else 0
LISTS = ("tools/list", "resources/list", "resources/templates/list", "prompts/list")
_served: collections.Counter[str] = collections.Counter()


async def count(ctx: Any, call_next: Any) -> Any:
    if ctx.method in LISTS:
        _served[ctx.method] += 1
    return await call_next(ctx)


hints = {method: CacheHint(ttl_ms=TTL_MS) for method in LISTS}
app = MCPServer("fresh_for", cache_hints=hints, middleware=[count])  # type: ignore[arg-type]


@app.tool()
def served() -> dict[str, int]:
    """How many times each list was answered."""
    return dict(_served)


@app.resource("memo://one", mime_type="text/plain")
def one() -> str:
    """A resource, so the resources list is asked for."""
    return "1"


@app.prompt()
def greet(name: str) -> str:
    """A prompt, so the prompts list is asked for."""
    return f"Hello {name}"


if __name__ == "__main__":
    app.run("stdio")
