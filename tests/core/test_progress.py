"""Progress and cancellation of tool calls, through the turn loop, against a real Python server."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from app.core import events as ev
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.running import CANCELLED_TEXT
from app.core.session import ChatSession
from app.llm.scripted import ScriptedBackend
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import EventLog, alive, script_entry, started, until

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def marker(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("slow") / "cancelled"


@pytest.fixture(scope="module")
async def slow(marker: Path) -> AsyncIterator[Supervisor]:
    """One server for the module; each test starts with no cancellation recorded."""
    async with started(script_entry("slow", "slow.py", str(marker)), tool_timeout_s=30) as supervisor:
        yield supervisor


@pytest.fixture(autouse=True)
def no_marker(marker: Path) -> None:
    marker.unlink(missing_ok=True)


def work(steps: int, step_s: float) -> ToolCallChunk:
    return ToolCallChunk(ToolCall("c1", "work", {"steps": steps, "step_s": step_s}))


async def test_each_progress_update_of_a_call_is_an_event_with_value_total_and_message(slow):
    session, log = ChatSession(ScriptedBackend([[work(3, 0.05)], ["Done."]]), slow), EventLog()
    session.subscribe(log)
    await session.run_turn("work")
    updates = [e for e in log.events if isinstance(e, ev.ToolCallProgress)]
    assert [(e.progress, e.total, e.message) for e in updates] == [(i, 3, f"step {i}") for i in (1, 2, 3)]
    started = next(e for e in log.events if isinstance(e, ev.ToolCallStarted))
    assert {e.call_id for e in updates} == {started.call_id}


async def test_cancelling_one_call_tells_the_server_and_the_model_and_the_turn_goes_on(slow, marker):
    session, log = ChatSession(ScriptedBackend([[work(100, 0.1)], ["It was cancelled."]]), slow), EventLog()
    session.subscribe(log)
    turn = asyncio.ensure_future(session.run_turn("work"))
    first = await log.wait_for(lambda e: isinstance(e, ev.ToolCallProgress))
    assert session.cancel_call(first.call_id)  # type: ignore[attr-defined]
    outcome = await turn
    finished = next(e for e in log.events if isinstance(e, ev.ToolCallFinished))
    assert finished.cancelled and finished.is_error and finished.result == CANCELLED_TEXT
    tool_message = session.backend.requests[1].messages[-1]  # type: ignore[attr-defined]
    assert tool_message.is_error and "cancelled by the user" in tool_message.text
    assert outcome.answer == "It was cancelled." and not outcome.cancelled
    await until(lambda: marker.exists(), timeout=10)  # notifications/cancelled arrived


async def test_stopping_the_turn_mid_call_cancels_the_call_and_the_server_keeps_serving(slow, marker):
    session, log = ChatSession(ScriptedBackend([[work(100, 0.1)], ["never"]]), slow), EventLog()
    session.subscribe(log)
    turn = asyncio.ensure_future(session.run_turn("work"))
    await log.wait_for(lambda e: isinstance(e, ev.ToolCallProgress))
    session.cancel()
    outcome = await turn
    assert outcome.cancelled and session.history == []
    finished = next(e for e in log.events if isinstance(e, ev.ToolCallFinished))
    assert finished.cancelled and isinstance(log.events[-1], ev.TurnFinished) and log.events[-1].cancelled
    await until(lambda: marker.exists(), timeout=10)
    with anyio.fail_after(10):
        again = await slow.call_tool("work", {"steps": 1, "step_s": 0.01})
    pid = slow.connections["slow"].pid
    assert again.text == "took 1 steps" and pid is not None and alive(pid)


async def test_a_call_with_no_one_to_report_progress_to_finishes_as_usual(slow):
    with anyio.fail_after(10):
        result = await slow.call_tool("work", {"steps": 2, "step_s": 0.01})
    assert result.text == "took 2 steps" and not result.is_error
