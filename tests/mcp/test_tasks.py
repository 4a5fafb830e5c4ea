"""Tool calls a server turns into tasks (app.mcp.tasks), against a real server process on the SDK
that implements the 2026-07-28 tasks extension (tests/mcp/servers/tasky.py)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import anyio
import pytest

from app.core import events as ev
from app.core.asking import Asker, FormAnswer, FormRequest
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.progress import ProgressUpdate, reporting_to
from app.core.sampling import SamplingGate
from app.core.scripted_user import ScriptedUser
from app.core.session import ChatSession
from app.llm.scripted import ScriptedBackend
from app.mcp import task_log
from app.mcp.asking import AskingHandlers
from tests.core.models import RecordingModel
from tests.mcp.helpers import EventLog, script_entry, until

pytestmark = pytest.mark.anyio


async def _seen(supervisor) -> dict:
    return json.loads((await supervisor.call_tool("tasks_seen", {})).text)


async def test_a_call_that_becomes_a_task_returns_the_tasks_result_and_shows_its_stages(supervise):
    supervisor, _ = supervise(script_entry("tasky", "tasky.py"))
    await supervisor.start()
    updates: list[ProgressUpdate] = []
    with reporting_to(updates.append):
        result = await supervisor.call_tool("research", {"topic": "otters", "stages": 3})
    assert (result.text, result.is_error) == ("findings on otters", False)  # the task's, not "(no task)"
    messages = [u.message for u in updates]
    assert "task working: stage 1 of 3" in messages and "task working: stage 3 of 3" in messages
    assert messages[-1].startswith("task completed")
    assert list((await _seen(supervisor))["tasks"].values()) == ["completed"]


async def test_a_failed_task_is_an_error_result_with_the_servers_reason(supervise):
    supervisor, _ = supervise(script_entry("tasky", "tasky.py"))
    await supervisor.start()
    result = await supervisor.call_tool("research", {"topic": "otters", "stages": 1, "fail": True})
    assert result.is_error and result.text == "the task failed: the research fell through"


async def test_a_task_may_run_longer_than_the_tool_timeout(supervise):
    supervisor, _ = supervise(script_entry("tasky", "tasky.py"), tool_timeout_s=0.5)
    await supervisor.start()
    result = await supervisor.call_tool("research", {"topic": "otters", "stages": 5})  # 1.5 s of work
    assert (result.text, result.is_error) == ("findings on otters", False)


async def test_cancelling_the_call_cancels_the_task_on_the_server(supervise):
    supervisor, _ = supervise(script_entry("tasky", "tasky.py"))
    await supervisor.start()
    updates: list[ProgressUpdate] = []
    async with anyio.create_task_group() as group:

        async def call() -> None:
            with reporting_to(updates.append):
                await supervisor.call_tool("research", {"topic": "otters", "stages": 50})

        group.start_soon(call)
        await until(lambda: any((u.message or "").startswith("task working") for u in updates))
        group.cancel_scope.cancel()
    seen = await _seen(supervisor)
    (task_id,) = seen["tasks"]
    assert seen["cancels"] == [task_id]
    with anyio.fail_after(10):  # the server's own work winds down after it acknowledged the cancel
        while (await _seen(supervisor))["tasks"][task_id] != "cancelled":
            await anyio.sleep(0.05)


async def test_other_tools_of_a_task_server_answer_as_usual(supervise):
    supervisor, _ = supervise(script_entry("tasky", "tasky.py"))
    await supervisor.start()
    assert (await supervisor.call_tool("quick", {"text": "hi"})).text == "hi"


async def test_in_a_turn_the_task_shows_on_its_call_and_stopping_the_call_cancels_the_task(supervise):
    supervisor, _ = supervise(script_entry("tasky", "tasky.py"))
    await supervisor.start()
    research = ToolCallChunk(ToolCall("c1", "research", {"topic": "otters", "stages": 50}))
    session, log = ChatSession(ScriptedBackend([[research], ["It was stopped."]]), supervisor), EventLog()
    session.subscribe(log)
    turn = asyncio.ensure_future(session.run_turn("research otters"))
    working = await log.wait_for(
        lambda e: isinstance(e, ev.ToolCallProgress) and e.message.startswith("task working")
    )
    assert session.cancel_call(working.call_id)  # type: ignore[attr-defined]
    outcome = await turn
    finished = next(e for e in log.events if isinstance(e, ev.ToolCallFinished))
    assert finished.cancelled and outcome.answer == "It was stopped."
    seen = await _seen(supervisor)
    assert seen["cancels"] == list(seen["tasks"])


async def test_a_task_that_asks_the_user_gets_the_answer_through_the_usual_form(supervise):
    user, events = ScriptedUser([FormAnswer("accept", {"name": "Ada"})]), []
    asker = Asker(user, sink=events.append)
    handlers = AskingHandlers(asker, SamplingGate(asker, RecordingModel()), lambda _server: [])
    supervisor, _ = supervise(script_entry("tasky", "tasky.py"), handlers=handlers)
    await supervisor.start()
    result = await supervisor.call_tool("research", {"topic": "otters", "stages": 1, "ask": True})
    assert (result.text, result.is_error) == ("findings on otters for Ada", False)
    (request,) = user.asked
    assert isinstance(request, FormRequest) and request.message == "Whose research is this?"


async def test_each_status_a_task_reached_is_kept_for_the_tasks_listing(supervise):
    supervisor, _ = supervise(script_entry("tasky", "tasky.py"))
    await supervisor.start()
    await supervisor.call_tool("research", {"topic": "otters", "stages": 2})
    (kept,) = task_log.records()
    assert (kept["server"], kept["tool"], kept["status"]) == ("tasky", "research", "completed")
    listed = await anyio.to_thread.run_sync(lambda: _calculon("tasks", "--json"))
    assert json.loads(listed.stdout)[0]["task_id"] == kept["task_id"]
    text = await anyio.to_thread.run_sync(lambda: _calculon("tasks"))
    assert text.returncode == 0 and f"tasky.research  {kept['task_id']}  completed" in text.stdout


def _calculon(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=60)
