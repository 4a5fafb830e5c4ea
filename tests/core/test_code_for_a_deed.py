"""A deed asked for and answered with code (a program that would do it) is asked to be done with
a tool; code again after that is no answer: the turn says so, and nothing is shown as done."""

from __future__ import annotations

import pytest

from app.core.act_check import CODE_FAILURE
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from tests.core.files_turn import files_turn

pytestmark = pytest.mark.anyio

CODE = (
    "You can use the following code to add it:\n\n```\n# Add a line to the list\n"
    'append_line_to_file("todo.md", "todo.md", "todo.md", "todo.md", "'
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_code_after_being_asked_to_use_a_tool_ends_the_turn_with_no_answer(tmp_path) -> None:
    todo = tmp_path / "todo.md"
    todo.write_text("- [ ] order the cake\n")
    asked = f"Add the line '- [ ] call the plumber' to the file {todo}."
    outcome, backend = await files_turn([[CODE], [CODE], [CODE], ["unused"]], asked, tmp_path)

    assert outcome.error == CODE_FAILURE and not outcome.answer
    assert len(backend.requests) == 3 and not outcome.tool_calls
    assert todo.read_text() == "- [ ] order the cake\n"


async def test_code_then_the_call_when_asked_does_the_deed(tmp_path) -> None:
    todo = tmp_path / "todo.md"
    todo.write_text("- [ ] order the cake\n")
    asked = f"Add the line '- [ ] call the plumber' to the file {todo}."
    content = "- [ ] order the cake\n- [ ] call the plumber\n"
    write = ToolCall("c1", "write_text", {"path": str(todo), "content": content})
    steps = [[CODE], [ToolCallChunk(write)], ["The line was added to todo.md."]]
    outcome, _ = await files_turn(steps, asked, tmp_path)

    assert not outcome.error and outcome.answer.startswith("The line was added")
    assert todo.read_text() == content
