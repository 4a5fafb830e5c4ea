"""A saved conversation restores the model's history exactly as the turn loop built it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.core import events as ev
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.session import ChatSession
from app.history.restore import model_history
from app.llm.scripted import ScriptedBackend
from app.mcp.supervisor import Supervisor
from tests.history.turns import call_events
from tests.mcp.helpers import EventLog, script_entry

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def tools() -> AsyncIterator[Supervisor]:
    supervisor = Supervisor([script_entry("basic", "basic.py")], tool_timeout_s=10)
    await supervisor.start()
    yield supervisor
    await supervisor.aclose()


def add(a: int, b: int, call_id: str = "c1") -> ToolCallChunk:
    return ToolCallChunk(ToolCall(call_id, "add", {"a": a, "b": b}))


async def test_restored_history_equals_the_sessions_own(tools):
    steps = [[add(2, 40)], ["It is ", "42."], ["Thinking ", add(1, 1, "c2")], ["Two."]]
    session = ChatSession(ScriptedBackend(steps), tools)
    log = EventLog()
    session.subscribe(log)
    await session.run_turn("2 + 40?")
    await session.run_turn("1 + 1?")
    messages, sources = model_history(log.events)
    assert messages == session.history
    assert sources == session._sources


async def test_a_cancelled_turn_is_left_out_and_an_unfinished_one_keeps_its_answered_calls(tools):
    session = ChatSession(ScriptedBackend([["Fine."]]), tools)
    log = EventLog()
    session.subscribe(log)
    await session.run_turn("hello")
    cancelled = [ev.TurnStarted(turn_id="x", text="never mind"), ev.TurnFinished(turn_id="x", cancelled=True)]
    unfinished = [
        ev.TurnStarted(turn_id="k", text="3 + 4?"),
        ev.StepStarted(turn_id="k", step=1),
        ev.StepFinished(turn_id="k", step=1),
        *call_events("k", "c1", {"a": 3, "b": 4}, "7.0", server="basic"),
        call_events("k", "c2", {"a": 1, "b": 1}, "2.0", server="basic")[0],
    ]
    messages, _ = model_history([*log.events, *cancelled, *unfinished])
    assert [(m.role, m.text) for m in messages] == [
        ("user", "hello"),
        ("assistant", "Fine."),
        ("user", "3 + 4?"),
        ("assistant", ""),
        ("tool", "7.0"),
    ]
    assert [c.id for c in messages[3].tool_calls] == ["c1"]  # the call killed before its result is dropped


def test_a_steps_record_comes_back_with_its_message_unless_a_call_of_it_has_no_result():
    record = {"role": "model", "parts": [{"text": "x", "thought_signature": "c2ln"}]}
    started = [ev.TurnStarted(turn_id="t", text="2 + 40 and 1 + 1?"), ev.StepStarted(turn_id="t", step=1)]
    first, second = call_events("t", "c1", {"a": 2, "b": 40}, "42"), call_events("t", "c2", {"a": 1}, "2")
    finished = ev.StepFinished(turn_id="t", step=1, provider_data=record)
    answered, _ = model_history([*started, first[0], second[0], finished, first[1], second[1]])
    assert answered[1].role == "assistant" and answered[1].provider_data == record
    killed, _ = model_history([*started, first[0], second[0], finished, first[1]])  # c2 never finished
    assert [c.id for c in killed[1].tool_calls] == ["c1"] and killed[1].provider_data is None
