"""A saved conversation restores the model's history exactly as the turn loop built it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from app.core import events as ev
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.session import ChatSession
from app.history.restore import earlier_result, model_history
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


async def test_a_reopened_conversation_keeps_its_verified_result_for_that(tmp_path):
    from app.calculon import CalculonMode
    from app.mcp.config import bundled_entry

    times = ToolCallChunk(ToolCall("c1", "evaluate", {"expression": "12 * 7"}))
    supervisor = Supervisor([bundled_entry("calculator")], tool_timeout_s=10, log_dir=tmp_path)
    await supervisor.start()
    try:
        first = ChatSession(ScriptedBackend([[times], ["12 × 7 = 84."]]), supervisor, verifier=CalculonMode())
        log = EventLog()
        first.subscribe(log)
        outcome = await first.run_turn("What is 12 times 7?")
        assert outcome.shown_verdict == "verified"
        assert earlier_result(log.events) == 84

        backend = ScriptedBackend([["86."]])
        reopened = ChatSession(backend, supervisor, verifier=CalculonMode())
        reopened.restore(*model_history(log.events), earlier_result(log.events))
        await reopened.run_turn("Now add 2 to that.")
        # the call a live session makes: "that" is 84, as it was when the answer was verified
        hint = backend.requests[0].formula
        assert hint is not None and hint.source == "transcription" and hint.expression == "84 + 2"
    finally:
        await supervisor.aclose()


def test_a_failed_turn_leaves_the_earlier_result_and_an_unverified_one_clears_it():
    def answered(turn: str, verdict: str, value: str, failed: bool = False) -> list[ev.Event]:
        return [
            ev.TurnStarted(turn_id=turn, text="q"),
            ev.AnswerReady(turn_id=turn, text="a", verdict=verdict, value=value),
            ev.TurnFinished(turn_id=turn, failed=failed),
        ]

    verified = answered("t1", "verified", "84")
    assert earlier_result([*verified, *answered("t2", "verified", "3/4", failed=True)]) == 84
    assert earlier_result([*verified, *answered("t2", "computed", "")]) is None
    assert earlier_result([*verified, ev.TurnStarted(turn_id="t3", text="killed")]) == 84
    assert earlier_result(answered("t1", "verified", "garbage")) is None
