"""A tool result without ``resultType`` is a complete one (2026-07-28), from a real server that
leaves the field out, though the SDK's check of the negotiated version calls it malformed."""

from __future__ import annotations

import pytest

from app.mcp.config import ServerEntry
from tests.mcp import remote_servers as rs

pytestmark = pytest.mark.anyio


async def test_a_tool_result_without_result_type_is_taken_as_complete(supervise):
    app = rs.without_result_type(rs.http_app(rs.multiplier()))
    async with rs.serving(app) as base:
        supervisor, _ = supervise(ServerEntry("older", url=f"{base}/mcp"))
        await supervisor.start()
        result = await supervisor.call_tool("multiply", {"a": 12, "b": 7})
        await supervisor.aclose()
    assert not result.is_error and result.text == "84"
