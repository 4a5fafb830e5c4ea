"""A request to a server the question names, answered with its own numbers and no call, is made
to call that server: not asked to calculate ("Add a product ... price 19.99, 6 in stock" once
made the 1.5B model send the calculator 19.99 + 6).

The model is scripted (its replies are the point); the servers are real child processes.
"""

from __future__ import annotations

import asyncio

import pytest

from app.core.acting import REFUSAL_REASK
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from tests.core.files_turn import files_turn

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_request_to_a_named_server_answered_without_a_call_is_made_to_call_it(tmp_path) -> None:
    notes = tmp_path / "lamp.txt"
    write = ToolCallChunk(
        ToolCall("c1", "write_text", {"path": str(notes), "content": "lamp 19.99, 6 in stock"})
    )
    steps = [["The lamp costs 19.99."], [write], ["Saved: the lamp costs 19.99, 6 in stock."]]
    asked = "Save in my files that the lamp costs 19.99, with 6 in stock."
    outcome, backend = await files_turn(steps, asked, tmp_path)

    # not made to calculate (no operation is named): made to call the files server instead
    assert backend.requests[1].messages[-1].text == REFUSAL_REASK and backend.requests[1].must_call
    assert {t.name for t in backend.requests[1].tools} == {"read_text", "write_text"}
    assert outcome.answer == "Saved: the lamp costs 19.99, 6 in stock."
    assert notes.read_text(encoding="utf-8") == "lamp 19.99, 6 in stock"
    await asyncio.get_running_loop().shutdown_default_executor()  # ranking ran off the loop


async def test_a_plan_naming_no_tool_for_a_named_server_is_made_to_call_it(tmp_path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("lamp 19.99\n", encoding="utf-8")
    plan = "We need to follow these steps: 1. Open the note. 2. Read what it says."
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(notes)}))
    steps = [[plan], [read], ["It says: lamp 19.99."]]
    outcome, backend = await files_turn(steps, "What do my files hold about the lamp?", tmp_path)

    assert backend.requests[1].must_call
    assert {t.name for t in backend.requests[1].tools} == {"read_text"}  # it only asks: no write_text
    assert outcome.answer == "It says: lamp 19.99."
