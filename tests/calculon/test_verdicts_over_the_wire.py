"""The same verdicts from the Gemini and OpenAI-compatible paths: the real SDKs against local
wire fixtures, the real calculator child behind the turn loop. A formula from a large model is
"computed" unless the user's words spell it out."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest

from app.calculon import CalculonMode
from app.core.prompts import system_prompt
from app.core.session import ChatSession
from app.llm.gemini import GeminiBackend
from app.llm.openai import OpenAIBackend
from tests.calculon.stories import PAIGE
from tests.llm import gemini_fixture as g
from tests.llm import openai_fixture as o
from tests.llm.gemini_tools import ChildServerTools

pytestmark = pytest.mark.anyio


@pytest.fixture
def gemini_wire() -> Iterator[g.GeminiWireServer]:
    with g.GeminiWireServer() as server:
        yield server


@pytest.fixture
def openai_wire() -> Iterator[o.FakeOpenAIServer]:
    with o.FakeOpenAIServer() as server:
        yield server


@pytest.fixture
async def tools() -> AsyncIterator[ChildServerTools]:
    async with ChildServerTools.start() as started:
        yield started


def session(backend: Any, tools: ChildServerTools) -> ChatSession:
    return ChatSession(backend, tools, system_prompt=system_prompt(True), verifier=CalculonMode())


async def gemini_turn(
    wire: g.GeminiWireServer, tools: ChildServerTools, call: Any, answer: str, asked: str
) -> Any:
    """One turn over the Gemini wire: the model calls ``call``, then answers ``answer``."""
    wire.script(g.Stream([g.chunk(call, finish="STOP")]), g.answer(answer))
    backend = GeminiBackend("gemini-test", api_key="test-key", base_url=wire.base_url, timeout_s=10)
    try:
        with anyio.fail_after(30):
            return await session(backend, tools).run_turn(asked)
    finally:
        await backend.aclose()


async def test_gemini_written_out_arithmetic_is_verified(gemini_wire, tools):
    multiply = g.call_part("multiply", {"a": 12, "b": 7}, call_id="m-1")
    outcome = await gemini_turn(gemini_wire, tools, multiply, "12 × 7 = 84.", "What is 12 times 7?")
    assert (outcome.verdict, outcome.verified, outcome.formula) == ("verified", True, "84 = 12 × 7")


async def test_gemini_reading_of_a_story_is_computed_with_its_formula_labelled(gemini_wire, tools):
    subtract = g.call_part("subtract", {"a": 15, "b": 5}, call_id="s-1")
    outcome = await gemini_turn(gemini_wire, tools, subtract, "10 goldfish remained.", PAIGE)
    assert (outcome.verdict, outcome.verified) == ("computed", False)
    assert (
        outcome.formula.startswith("10 = 15 (Paige raised goldfish") and "5 (were eaten)" in outcome.formula
    )
    assert outcome.to_dict()["verdict"] == "computed"


def _openai_call(name: str, arguments: str) -> Any:
    return o.streamed(
        o.delta(
            tool_calls=[o.call_piece(0, call_id="c0", name=name, arguments=arguments)], finish="tool_calls"
        )
    )


async def test_openai_compatible_verdicts_match(openai_wire, tools):
    backend = OpenAIBackend(openai_wire.base_url, o.FAKE_MODEL, api_key="test-key", timeout_s=10)
    openai_wire.script(
        _openai_call("multiply", '{"a": 12, "b": 7}'),
        o.streamed(o.delta(content="It is 84."), o.delta(finish="stop")),
        _openai_call("subtract", '{"a": 15, "b": 5}'),
        o.streamed(o.delta(content="10 goldfish."), o.delta(finish="stop")),
    )
    chat = session(backend, tools)
    with anyio.fail_after(30):
        explicit = await chat.run_turn("What is 12 times 7?")
        chat.reset()
        story = await chat.run_turn(PAIGE)
    await backend.aclose()
    assert explicit.verdict == "verified"
    assert story.verdict == "computed" and story.formula.startswith("10 = 15 (")
