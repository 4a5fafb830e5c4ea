"""Whole turns: ChatSession + GeminiBackend (real SDK, wire fixture) + the real calculator child."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest

from app.core import events as ev
from app.core.outcome import TurnOutcome
from app.core.session import ChatSession
from app.core.trace import TraceStore
from app.llm.gemini import GeminiBackend
from tests.llm import gemini_fixture as g
from tests.llm.gemini_tools import ChildServerTools

pytestmark = pytest.mark.anyio


@pytest.fixture
def wire() -> Iterator[g.GeminiWireServer]:
    with g.GeminiWireServer() as server:
        yield server


@pytest.fixture
async def tools() -> AsyncIterator[ChildServerTools]:
    async with ChildServerTools.start() as provider:
        yield provider


@pytest.fixture
async def session(wire, tools) -> AsyncIterator[ChatSession]:
    backend = GeminiBackend("gemini-test", api_key="test-key", base_url=wire.base_url, timeout_s=10)
    chat = ChatSession(backend, tools, system_prompt="Use the calculator for every step.")
    yield chat
    await backend.aclose()


async def turn(session: ChatSession, text: str) -> TurnOutcome:
    with anyio.fail_after(30):
        return await session.run_turn(text)


def of_kind(outcome: TurnOutcome, kind: type[ev.Event]) -> list[Any]:
    return [e for e in outcome.events if isinstance(e, kind)]


async def test_thought_then_call_then_answer_replays_the_signed_content_and_one_result(session, wire):
    signed_call = g.call_part("add", {"a": 2, "b": 3}, call_id="c-1", sig=g.signature("step-1"))
    first_step = [g.text_part("Add with the tool.", thought=True), signed_call]
    wire.script(g.Stream([g.chunk(*first_step, finish="STOP")]), g.answer("2 + 3 = 5."))

    outcome = await turn(session, "What is 2 + 3?")

    assert [e.text for e in of_kind(outcome, ev.ThoughtDelta)] == ["Add with the tool."]
    (finished,) = of_kind(outcome, ev.ToolCallFinished)
    assert (finished.tool, dict(finished.arguments), finished.is_error) == ("add", {"a": 2, "b": 3}, False)
    assert "".join(e.text for e in of_kind(outcome, ev.TextDelta)) == outcome.answer == "2 + 3 = 5."
    user, model, results = wire.requests[1].body["contents"]
    assert user["parts"] == [{"text": "What is 2 + 3?"}]
    assert model == {"role": "model", "parts": first_step}  # verbatim, signature included
    assert results["role"] == "user"
    # The calculator's structured result goes as JSON, its text beside it (the text says "5", not the JSON).
    response = {"result": {"value": "5", "exact": True}, "text": finished.result}
    assert results["parts"] == [{"functionResponse": {"id": "c-1", "name": "add", "response": response}}]


async def test_parallel_calls_send_back_one_content_with_both_results_in_order(session, wire):
    calls = [g.call_part("add", {"a": 2, "b": 3}, call_id="p-1"), g.call_part("multiply", {"a": 4, "b": 5})]
    wire.script(g.Stream([g.chunk(*calls, finish="STOP")]), g.answer("5 and 20."))

    outcome = await turn(session, "2 + 3 and 4 * 5?")

    results = [e.result for e in of_kind(outcome, ev.ToolCallFinished)]
    assert len(results) == 2
    last = wire.requests[1].body["contents"][-1]
    assert last["role"] == "user"
    responses = [part["functionResponse"] for part in last["parts"]]
    assert [(r.get("id"), r["name"], r["response"]) for r in responses] == [
        ("p-1", "add", {"result": {"value": "5", "exact": True}, "text": results[0]}),
        (
            None,
            "multiply",
            {"result": {"value": "20", "exact": True}, "text": results[1]},
        ),  # no id from Gemini
    ]


async def test_schema_invalid_arguments_come_back_to_the_model_as_an_error_response(session, wire, tools):
    wire.script(
        g.Stream([g.chunk(g.call_part("add", {"a": 2}, call_id="bad"), finish="STOP")]),
        g.Stream([g.chunk(g.call_part("add", {"a": 2, "b": 3}, call_id="good"), finish="STOP")]),
        g.answer("It is 5."),
    )

    outcome = await turn(session, "2 + 3?")

    rejected, accepted = of_kind(outcome, ev.ToolCallFinished)
    assert rejected.is_error and "'b' is a required property" in rejected.result
    assert not accepted.is_error
    assert tools.calls == [("add", {"a": 2, "b": 3})]  # the bad call never reached the server
    (error_response,) = g.function_responses(wire.requests[1])
    assert error_response == {"id": "bad", "name": "add", "response": {"error": rejected.result}}
    assert outcome.answer == "It is 5."


async def test_quota_error_is_announced_then_retried_after_the_servers_delay(session, wire):
    quota = g.error_body(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", [g.retry_info("0.2s")])
    wire.script(g.Error(429, quota), g.answer("Hello."))

    outcome = await turn(session, "Hi")

    (notice,) = of_kind(outcome, ev.Notice)
    assert "quota" in notice.message and "Retrying" in notice.message
    assert outcome.answer == "Hello." and not outcome.error
    assert len(wire.requests) == 2
    assert [m.role for m in session.history] == ["user", "assistant"]


@pytest.mark.parametrize(
    ("reply", "category", "words"),
    [
        (g.Error(401, g.error_body(401, "UNAUTHENTICATED", "Invalid credentials.")), "auth", "API key"),
        (g.Error(500, g.error_body(500, "INTERNAL", "Internal error.")), "error", "server error"),
        (
            g.Stream([g.chunk(g.text_part("Sure, first")), g.chunk(finish="STOP")], break_after=1),
            "network",
            "cut off",
        ),
        (g.Stream([g.chunk(g.text_part("Here is"), finish="SAFETY")]), "blocked", "safety"),
        (g.Stream([g.chunk(finish="STOP")]), "blocked", "empty"),
    ],
    ids=["401", "500", "broken-stream", "safety", "empty-candidate"],
)
async def test_a_failed_turn_shows_the_error_and_keeps_earlier_history(session, wire, reply, category, words):
    trace = TraceStore()  # as the window keeps it: built from the session's events
    session.subscribe(trace.apply)
    wire.script(g.answer("Hello."), reply)
    await turn(session, "Hi")
    before = list(session.history)

    outcome = await turn(session, "And now?")

    (error,) = of_kind(outcome, ev.TurnError)
    assert error.category == category and words in error.message
    assert outcome.error == error.message
    assert of_kind(outcome, ev.TurnFinished)[0].failed
    assert session.history == before
    errors = [n for n in trace.walk() if n.kind == "error"]
    assert [n.status for n in trace.roots] == ["ok", "error"]
    assert len(errors) == 1 and words in errors[0].details()


async def test_the_next_turn_replays_the_previous_answer_with_its_signature(session, wire):
    wire.script(g.answer("Hello.", sig=g.signature("answer")), g.answer("Again."))

    await turn(session, "Hi")
    await turn(session, "Once more")

    _, model, _ = wire.requests[1].body["contents"]
    assert model["parts"] == [{"text": "Hello.", "thoughtSignature": g.signature("answer")}]
    assert wire.requests[1].body["systemInstruction"]["parts"] == [
        {"text": "Use the calculator for every step."}
    ]


async def test_a_call_written_as_the_answer_is_run_and_sent_back_as_a_function_call(session, wire, tools):
    wire.script(g.answer('{"name": "add", "arguments": {"a": 2, "b": 3}}'), g.answer("2 + 3 = 5."))

    outcome = await turn(session, "What is 2 + 3?")

    assert tools.calls == [("add", {"a": 2, "b": 3})]
    assert outcome.answer == "2 + 3 = 5."
    assert [e.text for e in of_kind(outcome, ev.AnswerReady)] == ["2 + 3 = 5."]
    _user, model, results = wire.requests[1].body["contents"]
    assert [part["functionCall"]["name"] for part in model["parts"]] == ["add"]
    assert results["parts"][0]["functionResponse"]["name"] == "add"
