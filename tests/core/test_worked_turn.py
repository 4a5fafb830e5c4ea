"""A worked answer in the turn loop: its calculations run inline, and it is judged as one answer.

The model is scripted, as a local backend streams a worked answer: text up to each "=", then an
inline call of the calculator's ``evaluate``, then the result the calculator gave and the rest.
The calculator is the real one, a child process behind the real supervisor.
"""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import pytest

from app.calculon import CalculonMode
from app.core import events as ev
from app.core.backend import Chunk, ToolCallChunk
from app.core.messages import ToolCall
from app.core.outcome import TurnOutcome
from app.core.prompts import system_prompt
from app.core.session import MAX_INLINE_CALLS, ChatSession
from app.llm.scripted import ScriptedBackend

pytestmark = pytest.mark.anyio

MUFFINS = "A baker made 48 muffins and sold 3 boxes of 12. How many muffins are left?"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


def inline(expression: str, n: int) -> ToolCallChunk:
    return ToolCallChunk(ToolCall(f"inline-{n}", "evaluate", {"expression": expression}, inline=True))


def session_of(steps: Sequence[Sequence[Chunk | str]], tools, max_rounds: int = 1) -> ChatSession:
    backend = ScriptedBackend(steps)
    return ChatSession(
        backend, tools, system_prompt=system_prompt(True), verifier=CalculonMode(), max_rounds=max_rounds
    )


async def turn(session: ChatSession, text: str) -> TurnOutcome:
    with anyio.fail_after(30):
        return await session.run_turn(text)


async def test_a_worked_answers_steps_join_into_one_answer_and_count_as_one_round(calculator):
    steps = [
        ["She sold 3 * 12 ", inline("3 * 12", 1)],
        ["= 36 muffins, so 48 - 36 ", inline("48 - 36", 2)],
        ["= 12 are left. Answer: 12"],
    ]
    session = session_of(steps, calculator, max_rounds=1)  # two inline steps and the answer: one round

    outcome = await turn(session, MUFFINS)

    assert not outcome.error
    assert outcome.answer == "She sold 3 * 12 = 36 muffins, so 48 - 36 = 12 are left. Answer: 12"
    assert [c.result for c in outcome.tool_calls] == ["36", "12"]
    assert outcome.verdict in ("verified", "computed")  # backed by the calculator, never unverified
    requests = session.backend.requests
    assert [r.worked.inserted for r in requests[1:]] == [("= 36",), ("= 36", "= 12")]
    (ready,) = [e for e in outcome.events if isinstance(e, ev.AnswerReady)]
    assert ready.text == outcome.answer


async def test_a_worked_answer_that_never_ends_fails_with_a_sentence_not_a_hang(calculator):
    steps = [[f"{n} + 1 ", inline(f"{n} + 1", n)] for n in range(MAX_INLINE_CALLS + 2)]
    session = session_of(steps, calculator, max_rounds=3)

    outcome = await turn(session, "Count up from 0 by ones.")

    assert outcome.error is not None and str(MAX_INLINE_CALLS) in outcome.error
    assert session.history == []  # a failed turn leaves the history as it was


async def test_a_refused_calculation_written_again_sets_the_worked_answer_aside_and_asks_to_calculate(
    calculator,
):
    # The 0.5B model wrote a malformed calculation again after each refusal until the cap of 24
    # ended its turn. The second identical refusal sets the worked answer aside instead.
    steps = [
        ["So 50 ) - ( 36 ", inline("50 ) - ( 36", 1)],
        ["= so 50 ) - ( 36 ", inline("50 ) - ( 36", 2)],
        ["50 - 3 * 12 ", inline("50 - 3 * 12", 3)],
        ["= 14 muffins are left. Answer: 14"],
    ]
    session = session_of(steps, calculator, max_rounds=2)

    outcome = await turn(session, MUFFINS.replace("48", "50"))

    assert not outcome.error
    assert [c.failed for c in outcome.tool_calls] == [True, True, False]
    assert outcome.answer == "50 - 3 * 12 = 14 muffins are left. Answer: 14"
    notices = [e.message for e in outcome.events if isinstance(e, ev.Notice)]
    assert any("set aside" in message for message in notices)
    asked = session.backend.requests[2]
    assert asked.reading_due and asked.messages[-1].role == "user"
    assert asked.worked is None or not asked.worked.inserted  # the set-aside text is not continued
    assert outcome.verdict in ("verified", "computed")


async def test_a_refused_calculation_written_again_after_being_asked_ends_the_turn_with_a_sentence(
    calculator,
):
    steps = [[f"{n} ) - ( 1 ", inline("48 ) - ( 1", n)] for n in range(1, 6)]
    session = session_of(steps, calculator, max_rounds=3)

    outcome = await turn(session, MUFFINS)

    assert outcome.error is not None and "refused" in outcome.error
    assert len(outcome.tool_calls) == 3  # refused, refused again and set aside, then once more: not 24
    assert session.history == []


async def test_a_division_with_a_remainder_stands_with_its_whole_groups_where_asked(calculator):
    asked = "A baker has 29 rolls and packs them in bags of 3. How many full bags can she fill?"
    steps = [["She fills 29 / 3 ", inline("29 / 3", 1)], [" Answer: 9 full bags"]]
    session = session_of(steps, calculator)

    await turn(session, asked)

    (inserted,) = session.backend.requests[1].worked.inserted
    assert inserted.startswith("≈ 9.666") and inserted.endswith(": 9 whole, 2 left over")


async def test_an_answer_with_no_calculation_is_asked_again_with_the_readings_calculon_sees(calculator):
    asked = "Twelve birds sat on a wire and five flew away. How many are left?"
    steps = [
        ["Twelve birds are left."],
        [ToolCallChunk(ToolCall("c1", "evaluate", {"expression": "12 - 5"}))],
    ]
    steps.append(["7 birds are left."])
    session = session_of(steps, calculator, max_rounds=4)

    outcome = await turn(session, asked)

    reask = session.backend.requests[1].messages[-1]
    assert reask.role == "user" and "12 - 5" in reask.text  # the likeliest reading, offered
    notices = [e.message for e in outcome.events if isinstance(e, ev.Notice)]
    assert any("asked to calculate" in n for n in notices)
    assert outcome.answer == "7 birds are left." and outcome.tool_calls[0].result == "7"
    assert outcome.verdict in ("verified", "computed")


async def test_a_story_that_computed_nothing_is_asked_once_to_calculate_with_the_readings(calculator):
    # with only calculating tools on offer, the re-ask to act came first, twice: the 0.5B model
    # wrote the same words each time, 2.5 s each, before it was asked to calculate
    eggs = "A box holds 331 eggs. How many eggs are in 18 boxes?"
    steps = [
        ["We need to multiply the eggs in a box by the number of boxes."],
        ["331 * 18 ", inline("331 * 18", 1)],
        ["= 5958 eggs. Answer: 5958"],
    ]
    session = session_of(steps, calculator, max_rounds=3)

    outcome = await turn(session, eggs)

    assert not outcome.error and outcome.verdict == "computed"
    asked = [r for r in session.backend.requests if r.messages[-1].role == "user"]
    assert [r.messages[-1].text.split(".")[0] for r in asked] == [
        eggs.split(".")[0],
        "Your answer states no calculated result",
    ]
    assert "331 * 18" in asked[1].messages[-1].text and asked[1].reading_due
