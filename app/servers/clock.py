"""The bundled clock: a greeting and the current time in any IANA time zone, over stdio.

Run it with ``python -m app.servers.clock`` (or ``calculon serve clock``).
"""

from __future__ import annotations

import datetime
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field
from typing_extensions import TypedDict

from app.servers.common import text_result, tool

MAX_NAME_CHARS = 200

server: MCPServer = MCPServer(
    "clock",
    log_level="WARNING",
    instructions="Greetings and the current date and time in any time zone.",
)


class TimeOut(TypedDict):
    time: str
    timezone: str
    utc_offset: str


@tool(server, structured_output=False)
def say_hello(name: Annotated[str, Field(description="Who to greet.")]) -> str:
    """Greet someone by name."""
    name = " ".join(name.split())[:MAX_NAME_CHARS]
    return f"Hello, {name}!" if name else "Hello!"


@tool(server)
def get_time(
    timezone: Annotated[
        str, Field(description="An IANA time zone name such as 'UTC', 'Europe/London' or 'America/New_York'.")
    ] = "UTC",
) -> Annotated[CallToolResult, TimeOut]:
    """The current date and time (ISO 8601, to the second) in a time zone; UTC when none is given."""
    zone = _zone(timezone.strip() or "UTC")
    now = datetime.datetime.now(zone).replace(microsecond=0)
    offset = now.strftime("%z")
    offset = f"{offset[:3]}:{offset[3:]}"
    return text_result(
        f"{now.isoformat()} ({zone.key})",
        {"time": now.isoformat(), "timezone": zone.key, "utc_offset": offset},
    )


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        # ValueError covers keys that are not even well-formed paths, such as '../x'.
        raise ToolError(
            f"unknown time zone {name[:60]!r}; use an IANA name such as 'UTC', 'Europe/London' "
            "or 'America/New_York'"
        ) from error


def main() -> None:
    server.run("stdio")


if __name__ == "__main__":
    main()
