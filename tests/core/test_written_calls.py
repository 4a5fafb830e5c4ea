"""A tool call written as text in the turn loop: run as the call or refused, never the answer.

The model is scripted (its replies are the point); the tools are the real calculator, a
child process behind the real supervisor, in Calculon mode and out of it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import anyio
import pytest

from app.calculon.provenance import CalculonVerifier
from app.core import events as ev
from app.core.backend import Chunk, ToolCallChunk
from app.core.messages import ToolCall
from app.core.outcome import TurnOutcome
from app.core.prompts import system_prompt
from app.core.session import ChatSession
from app.core.text_calls import WRITTEN_FAILURE, WRITTEN_REASK
from app.llm.scripted import ScriptedBackend
from app.mcp.supervisor import Supervisor

pytestmark = pytest.mark.anyio
DIVIDE = json.dumps({"name": "evaluate", "arguments": {"expression": "51 / 3"}})


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def session(steps: Sequence[Sequence[Chunk | str]], tools: Supervisor, *, strict: bool) -> ChatSession:
    verifier = CalculonVerifier() if strict else None
    return ChatSession(ScriptedBackend(steps), tools, system_prompt=system_prompt(strict), verifier=verifier)


async def turn(chat: ChatSession, text: str) -> TurnOutcome:
    with anyio.fail_after(30):
        return await chat.run_turn(text)


def answers(outcome: TurnOutcome) -> list[str]:
    return [e.text for e in outcome.events if isinstance(e, ev.AnswerReady)]


@pytest.mark.parametrize("strict", [True, False], ids=["calculon-mode", "plain"])
async def test_a_call_written_as_the_answer_is_run_as_the_call(calculator, strict) -> None:
    chat = session([[DIVIDE], ["Each box holds 17 cookies."]], calculator, strict=strict)
    outcome = await turn(chat, "51 cookies go equally into 3 boxes. How many in each box?")
    assert [(c.tool, c.result) for c in outcome.tool_calls] == [("evaluate", "17")]
    assert answers(outcome) == ["Each box holds 17 cookies."]
    notices = [e for e in outcome.events if isinstance(e, ev.Notice)]
    (written,) = [n for n in notices if "wrote its call to evaluate as text; it was run" in n.message]
    assert written.text_was_call  # a window retitles the text it streamed: it was no answer
    replayed = chat.history[1]
    assert replayed.role == "assistant" and replayed.text == "" and replayed.tool_calls[0].name == "evaluate"


async def test_a_call_written_again_as_text_is_refused_and_the_model_asked_for_its_answer(calculator) -> None:
    made = ToolCallChunk(ToolCall("c1", "evaluate", {"expression": "51 / 3"}))
    steps = [[made], [f"```json\n{DIVIDE}\n```"], ["Each box holds 17 cookies."]]
    chat = session(steps, calculator, strict=True)
    outcome = await turn(chat, "51 cookies go equally into 3 boxes. How many in each box?")
    assert len(outcome.tool_calls) == 1
    assert answers(outcome) == ["Each box holds 17 cookies."]
    assert outcome.verified is not None
    assert any(m.role == "user" and m.text == WRITTEN_REASK for m in chat.history)


async def test_a_model_that_only_writes_calls_as_text_gets_no_answer_shown(calculator) -> None:
    made = ToolCallChunk(ToolCall("c1", "evaluate", {"expression": "51 / 3"}))
    again = f"<tool_call>\n{DIVIDE}\n</tool_call>"
    chat = session([[made], [again], [again], [again]], calculator, strict=True)
    outcome = await turn(chat, "51 cookies go equally into 3 boxes. How many in each box?")
    assert answers(outcome) == []
    assert outcome.error == WRITTEN_FAILURE
    assert outcome.verified is None and outcome.answer == ""


async def test_a_call_of_a_tool_not_offered_goes_back_to_the_model_as_an_error(calculator) -> None:
    steps = [['{"name": "get_time", "arguments": {}}'], ["It is 17."]]
    chat = session(steps, calculator, strict=False)
    outcome = await turn(chat, "51 / 3?")
    assert [(c.tool, c.is_error) for c in outcome.tool_calls] == [("get_time", True)]
    assert "not an offered tool" in outcome.tool_calls[0].result
    assert answers(outcome) == ["It is 17."]
