"""Calculon mode's re-ask over the wire: the real google-genai SDK against the
local Gemini fixture, with the real calculator child behind the turn loop."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import anyio
import pytest

from app.calculon.provenance import CalculonVerifier
from app.core import events as ev
from app.core.prompts import system_prompt
from app.core.session import ChatSession
from app.llm.gemini import GeminiBackend
from tests.llm import gemini_fixture as g
from tests.llm.gemini_tools import ChildServerTools

pytestmark = pytest.mark.anyio


@pytest.fixture
def wire() -> Iterator[g.GeminiWireServer]:
    with g.GeminiWireServer() as server:
        yield server


@pytest.fixture
async def session(wire) -> AsyncIterator[ChatSession]:
    backend = GeminiBackend("gemini-test", api_key="test-key", base_url=wire.base_url, timeout_s=10)
    async with ChildServerTools.start() as tools:
        yield ChatSession(backend, tools, system_prompt=system_prompt(True), verifier=CalculonVerifier())
    await backend.aclose()


def user_texts(request: g.Recorded) -> list[str]:
    return [
        part["text"]
        for content in request.body["contents"]
        if content["role"] == "user"
        for part in content["parts"]
        if "text" in part
    ]


async def test_an_unbacked_gemini_answer_is_reasked_over_the_wire_until_backed(session, wire):
    multiply = g.call_part("multiply", {"a": 37, "b": 48}, call_id="m-1", sig=g.signature("m"))
    wire.script(
        g.answer("Calculon knows: 37 × 48 = 1786."),
        g.Stream([g.chunk(multiply, finish="STOP")]),
        g.answer("Calculon computes: 37 × 48 = 1776."),
    )

    with anyio.fail_after(30):
        outcome = await session.run_turn("What is 37 times 48?")

    assert len(wire.requests) == 3
    reask = user_texts(wire.requests[1])[-1]
    assert "1786" in reask and "calculator" in reask
    assert wire.requests[0].body["systemInstruction"]["parts"][0]["text"] == system_prompt(True)
    (result,) = g.function_responses(wire.requests[2])
    assert result["response"] == {"result": {"value": "1776", "exact": True}, "text": "1776"}
    verdicts = [(e.verified, e.unbacked) for e in outcome.events if isinstance(e, ev.CheckFinished)]
    assert verdicts == [(False, ("1786",)), (True, ())]
    assert (outcome.answer, outcome.verified) == ("Calculon computes: 37 × 48 = 1776.", True)


async def test_a_gemini_answer_that_stays_unbacked_arrives_marked_unverified(session, wire):
    wire.script(g.answer("It is 1786."), g.answer("Still 1786."), g.answer("Surely 1786."))

    with anyio.fail_after(30):
        outcome = await session.run_turn("What is 37 times 48?")

    assert len(wire.requests) == 3
    ready = next(e for e in outcome.events if isinstance(e, ev.AnswerReady))
    assert (ready.text, ready.verified, ready.unbacked) == ("Surely 1786.", False, ("1786",))
