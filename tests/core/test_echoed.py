"""A call that hands a tool its own earlier reply is not run: the model overwrote a total it had
just written with the server's "Successfully wrote to ..." reply. The file keeps the total.

The model is scripted (its replies are the point); the file server is a real child process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from app.core import events as ev
from app.core.backend import ToolCallChunk
from app.core.echoed import echoed_reply
from app.core.messages import ToolCall
from app.core.records import CallRecord
from app.core.session import ChatSession
from app.core.toolrun import ECHO_NOT_RUN
from app.llm.scripted import ScriptedBackend
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import script_entry, started

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def files(tmp_path_factory) -> AsyncIterator[Supervisor]:
    async with started(script_entry("files", "files.py"), log_dir=tmp_path_factory.mktemp("logs")) as tools:
        yield tools


def write(call_id: str, path: str, content: str) -> ToolCallChunk:
    return ToolCallChunk(ToolCall(call_id, "write_text", {"path": path, "content": content}))


async def test_a_write_of_the_tools_own_reply_is_not_run_and_the_file_keeps_its_content(
    files, tmp_path
) -> None:
    total = tmp_path / "total.txt"
    reply = f"Successfully wrote to {total}"
    steps = [
        [write("c1", str(total), "15.74")],
        [write("c2", str(total), reply)],
        ["The total 15.74 is saved."],
    ]
    backend = ScriptedBackend(steps)
    with anyio.fail_after(30):
        outcome = await ChatSession(backend, files).run_turn(f"Write 15.74 into {total}")

    assert total.read_text(encoding="utf-8") == "15.74"
    first, second = outcome.tool_calls
    assert (first.result, first.is_error) == (reply, False)
    assert second.is_error and second.result.startswith(ECHO_NOT_RUN) and "content repeats" in second.result
    assert any(isinstance(e, ev.Notice) and "a reply, not content" in e.message for e in outcome.events)
    assert outcome.answer == "The total 15.74 is saved."


def test_short_replies_and_other_tools_replies_may_be_passed_on() -> None:
    read = CallRecord(
        "files", "read_text", {"path": "/x"}, "The launch is on Friday at the usual place.", False, 1
    )
    calc = CallRecord("calc", "evaluate", {"expression": "1 + 2"}, "3", False, 1)
    copy = {"path": "/y", "content": "The launch is on Friday at the usual place."}
    assert echoed_reply("write_text", copy, [read, calc]) == ""  # another tool's text: a copy
    assert echoed_reply("evaluate", {"expression": "3"}, [calc]) == ""  # too short to be a reply
    assert echoed_reply("read_text", {"path": "The launch is on Friday at the usual place."}, [read]) != ""
