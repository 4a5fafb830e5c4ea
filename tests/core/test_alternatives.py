"""Arguments a tool's description offers as alternatives ("head ... or ... tail") are never sent
together, and an address field that must hold a URI gets one: both are answered by the app."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.alternatives import both_alternatives
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.toolrun import schema_error
from tests.core.files_turn import files_turn


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


REFERENCE = Path(__file__).parent.parent / "mcp" / "retrieval" / "data" / "reference_tools.json"


def reference_tool(name: str) -> dict:
    """A reference server's tool as it lists itself (the filesystem server's read_text_file)."""
    tools = json.loads(REFERENCE.read_text(encoding="utf-8"))
    return next(t for t in (tools if isinstance(tools, list) else tools["tools"]) if t["name"] == name)


def test_head_and_tail_together_are_refused_as_the_filesystem_servers_description_offers_one() -> None:
    read = reference_tool("read_text_file")
    both = {"path": "/w/notes.txt", "head": 2, "tail": 2}
    why = both_alternatives([read["description"]], read["input_schema"], both)
    assert "'head' and 'tail'" in why and "give one" in why
    for one in ({"path": "/w/notes.txt", "head": 2}, {"path": "/w/notes.txt", "tail": 2}, {"path": "/w/n"}):
        assert both_alternatives([read["description"]], read["input_schema"], one) == ""


def test_an_alias_whose_description_says_nothing_is_held_to_its_siblings_words() -> None:
    alias, original = reference_tool("read_file"), reference_tool("read_text_file")
    both = {"path": "/w/notes.txt", "head": 2, "tail": 2}
    assert both_alternatives([alias["description"]], alias["input_schema"], both) == ""
    assert "give one" in both_alternatives(
        [alias["description"], original["description"]], alias["input_schema"], both
    )


@pytest.mark.parametrize(
    "description",
    [
        "Give 'a' and 'b' to add them.",  # both asked for
        "Use 'a' for the start. Or use 'b' for the end and 'a' for the start.",  # "and" between them
        "Choose 'a' or 'c'.",  # 'c' is no parameter
    ],
)
def test_parameters_the_description_does_not_offer_as_alternatives_go_together(description) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}
    assert both_alternatives([description], schema, {"a": 1, "b": 2}) == ""


def test_a_uri_field_takes_an_address_and_not_a_file_path() -> None:
    schema = {
        "type": "object",
        "properties": {"url": {"type": "string", "format": "uri"}},
        "required": ["url"],
    }
    assert "url" in (schema_error(schema, {"url": "/w/project/LATEST.txt"}) or "")
    assert schema_error(schema, {"url": "http://127.0.0.1:8000/LATEST.txt"}) is None
    dated = {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}}
    assert schema_error(dated, {"when": "tomorrow"}) is None  # other formats are the server's to judge


@pytest.mark.anyio
async def test_a_call_with_both_alternatives_never_reaches_the_server_and_the_next_one_runs(tmp_path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("a\nb\nc\n", encoding="utf-8")
    steps = [
        [ToolCallChunk(ToolCall("c1", "read_text", {"path": str(notes), "head": 2, "tail": 2}))],
        [ToolCallChunk(ToolCall("c2", "read_text", {"path": str(notes), "head": 2}))],
        ["The first two lines are a and b."],
    ]
    asked = f"Show me the first 2 lines and the last 2 lines of {notes}."
    outcome, backend = await files_turn(steps, asked, tmp_path, calculator=False)

    both, one = outcome.tool_calls
    assert both.is_error and both.result.startswith("Arguments for read_text were not sent")
    assert "give one" in backend.requests[1].messages[-1].text
    assert not one.is_error and one.result == "a\nb\n"
