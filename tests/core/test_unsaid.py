"""In Calculon mode a call's optional numbers that no one said are left out of it: the server's
default stands in for a number the model made up."""

from __future__ import annotations

import pytest

from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.unsaid import unsaid_options
from tests.core.files_turn import files_turn

pytestmark = pytest.mark.anyio
SCHEMA = {"required": ["path"], "properties": {"path": {}, "head": {}, "tail": {}, "deep": {}}}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_an_optional_number_no_text_holds_is_left_out_and_a_said_or_required_one_kept() -> None:
    asked = "How many lines does /w/notes.txt have?"
    left = unsaid_options({"path": "/w/notes.txt", "head": 10, "tail": 10, "deep": True}, SCHEMA, [asked])
    assert left == ({"path": "/w/notes.txt", "deep": True}, ["head", "tail"])
    said = "Show the first 3 lines of /w/notes.txt."
    assert unsaid_options({"path": "/w/notes.txt", "head": 3}, SCHEMA, [said]) is None
    assert unsaid_options({"path": 7}, {"required": ["path"]}, [asked]) is None  # required: the schema's call
    assert unsaid_options({"path": "/w/a", "head": 2.5}, SCHEMA, ["a result of 2.5 lines"]) is None


async def test_a_made_up_pair_the_server_refuses_runs_without_it_and_reads_the_whole_file(tmp_path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("one\ntwo\nthree\n", encoding="utf-8")
    steps = [
        [ToolCallChunk(ToolCall("c1", "read_text", {"path": str(notes), "head": 10, "tail": 10}))],
        ["It has 3 lines."],
    ]
    notices: list[str] = []
    outcome, _ = await files_turn(
        steps, f"How many lines does {notes} have?", tmp_path, calculator=False, notices=notices
    )
    (call,) = outcome.tool_calls
    assert not call.is_error and call.arguments == {"path": str(notes)}
    assert call.result == "one\ntwo\nthree\n"
    assert any("no one said these numbers: head (10), tail (10)" in n for n in notices)
