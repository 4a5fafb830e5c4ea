"""The built-in's one call a message, on the real SmolLM2: after a call its server answered, with
a result or an error, it answers; where the turn requires a call and the app refused the only one
(no server said anything), it calls."""

from __future__ import annotations

import pytest

from app.core.backend import ModelRequest, ToolCallChunk
from app.core.messages import Message, ToolCall, ToolSpec

pytestmark = pytest.mark.anyio

ASKED = "How many products are in the products table of the shop database?"
READ_QUERY = ToolSpec(
    "read_query",
    "Execute a SELECT query on the SQLite database",
    {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "SELECT SQL query to execute"}},
        "required": ["query"],
    },
)
LIST_TABLES = ToolSpec(
    "list_tables", "List all tables in the SQLite database", {"type": "object", "properties": {}}
)
REFUSED = (
    "Not run (it copies the tool's description): query 'SELECT SQL query to execute' is the schema's"
    " description of query, not a value. Write the query the request needs."
)
REASK = f"The last tool call failed: {REFUSED} Do what I asked with a tool call now: {ASKED}"


def after_one_call(result: str, is_error: bool) -> ModelRequest:
    call = ToolCall("c1", "read_query", {"query": "SELECT SQL query to execute"})
    history = (
        Message("user", ASKED),
        Message("assistant", "", (call,)),
        Message("tool", result, tool_call_id="c1", tool_name="read_query", is_error=is_error),
        Message("user", REASK),
    )
    return ModelRequest("", history, (READ_QUERY, LIST_TABLES), backed=(ASKED,), must_call=True)


async def calls_made(smol, request: ModelRequest) -> list[ToolCall]:
    return [c.call async for c in smol.stream(request) if isinstance(c, ToolCallChunk)]


async def test_a_required_call_is_made_when_the_only_call_so_far_was_refused(smol) -> None:
    (call,) = await calls_made(smol, after_one_call(REFUSED, is_error=True))
    assert call.name in {"read_query", "list_tables"}
    assert call.arguments != {"query": "SELECT SQL query to execute"}  # not the refused call again


@pytest.mark.parametrize(
    ("result", "is_error"), [("[{'COUNT(*)': 5}]", False), ("Database error: database is locked", True)]
)
async def test_after_a_call_its_server_answered_the_one_call_cap_still_holds(smol, result, is_error) -> None:
    assert await calls_made(smol, after_one_call(result, is_error)) == []
