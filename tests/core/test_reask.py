"""Calculon mode in the turn loop: check, re-ask, verdict.

The model is scripted (no model is the point here); the tools are the real
calculator, a child process behind the real supervisor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio
import pytest

from app.calculon.provenance import CalculonVerifier
from app.core import events as ev
from app.core.backend import Chunk, ToolCallChunk
from app.core.messages import ToolCall
from app.core.outcome import TurnOutcome
from app.core.prompts import REASK_TEMPLATE, system_prompt
from app.core.session import ChatSession
from app.llm.scripted import ScriptedBackend
from app.mcp.supervisor import Supervisor

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def call(name: str, **arguments: Any) -> list[Chunk | str]:
    return [ToolCallChunk(ToolCall(f"call-{name}", name, arguments))]


def strict_session(steps: Sequence[Sequence[Chunk | str]], tools: Supervisor) -> ChatSession:
    backend = ScriptedBackend(steps)
    return ChatSession(backend, tools, system_prompt=system_prompt(True), verifier=CalculonVerifier())


async def turn(session: ChatSession, text: str) -> TurnOutcome:
    with anyio.fail_after(30):
        return await session.run_turn(text)


def checks(outcome: TurnOutcome) -> list[ev.CheckFinished]:
    return [e for e in outcome.events if isinstance(e, ev.CheckFinished)]


def answer_event(outcome: TurnOutcome) -> ev.AnswerReady:
    (ready,) = [e for e in outcome.events if isinstance(e, ev.AnswerReady)]
    return ready


def requests_of(session: ChatSession) -> list[Any]:
    assert isinstance(session.backend, ScriptedBackend)
    return session.backend.requests


async def test_an_unbacked_number_is_reasked_by_name_and_the_backed_retry_is_verified(calculator):
    steps = [["37 × 48 = 1786."], call("multiply", a=37, b=48), ["37 × 48 = 1776."]]
    session = strict_session(steps, calculator)

    outcome = await turn(session, "What is 37 times 48?")

    first, second = checks(outcome)
    assert (first.verified, first.unbacked, first.will_reask) == (False, ("1786",), True)
    assert (second.verified, second.unbacked, second.will_reask) == (True, (), False)
    reask = requests_of(session)[1].messages[-1]
    assert reask.role == "user" and "1786" in reask.text
    assert outcome.tool_calls[0].result == "1776"
    ready = answer_event(outcome)
    assert (ready.text, ready.verified, ready.unbacked) == ("37 × 48 = 1776.", True, ())


async def test_an_answer_still_unbacked_after_every_reask_is_delivered_unverified(calculator):
    steps = [call("multiply", a=37, b=48), ["It is 1786."], ["It is 1787."], ["It is 1,786 and 1787."]]
    session = strict_session(steps, calculator)

    outcome = await turn(session, "What is 37 times 48?")

    assert [c.will_reask for c in checks(outcome)] == [True, True, False]
    reasks = [r.messages[-1].text for r in requests_of(session)[2:]]
    assert reasks == [REASK_TEMPLATE.format(numbers="1786"), REASK_TEMPLATE.format(numbers="1787")]
    ready = answer_event(outcome)
    assert (ready.verified, ready.unbacked) == (False, ("1,786", "1787"))
    assert (outcome.verified, outcome.unbacked) == (False, ("1,786", "1787"))


async def test_a_correctly_rounded_tool_result_passes_without_a_reask(calculator):
    steps = [call("divide", a=1, b=3), ["1 ÷ 3 ≈ 0.333, or 33.3%."]]
    session = strict_session(steps, calculator)

    outcome = await turn(session, "What is 1 divided by 3?")

    (check,) = checks(outcome)
    assert check.verified and outcome.verified
    assert len(requests_of(session)) == 2


async def test_numbers_from_an_earlier_turn_still_back_the_answer(calculator):
    steps = [call("multiply", a=37, b=48), ["1776."], call("add", a=1776, b=24), ["1776 + 24 = 1800."]]
    session = strict_session(steps, calculator)

    await turn(session, "What is 37 times 48?")
    outcome = await turn(session, "And plus 24?")

    assert outcome.verified is True


async def test_a_failed_tool_call_backs_no_number_in_its_error_text(calculator):
    # "I cannot tell." after the failed call is asked twice to fix the call (app.core.acting), then stands
    cannot = ["I cannot tell."]
    steps = [call("multiply", a="lots", b=48), ["It is 42."], cannot, cannot, cannot]
    session = strict_session(steps, calculator)

    outcome = await turn(session, "What is lots times 48?")

    (failed,) = outcome.tool_calls
    assert failed.is_error and "42" in failed.result  # the error's example numbers
    first, second = checks(outcome)
    assert first.unbacked == ("42",) and second.verified
