"""After a tool's data came back, a calculation that works nothing out is not run, the calculator
is withdrawn for the rest of the turn, and the request is written out again; an apology after
calls that worked is asked again the same way. A word problem's own steps still run.

The model is scripted (its replies are the point); the servers are real child processes: the
bundled calculator and a file reader.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence

import anyio
import pytest

from app.calculon import CalculonMode
from app.core.acting import results_reask
from app.core.backend import Chunk, ToolCallChunk
from app.core.messages import ToolCall
from app.core.outcome import TurnOutcome
from app.core.prompts import system_prompt
from app.core.session import ChatSession
from app.core.toolrun import IDLE_NOT_RUN, OVERUSED_NOT_RUN
from app.llm.scripted import ScriptedBackend
from app.mcp.config import bundled_entry
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import script_entry, started

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def servers(tmp_path_factory) -> AsyncIterator[Supervisor]:
    logs = tmp_path_factory.mktemp("logs")
    async with started(bundled_entry("calculator"), script_entry("files", "files.py"), log_dir=logs) as both:
        yield both


def evaluate(expression: str, call_id: str = "c2") -> ToolCallChunk:
    return ToolCallChunk(ToolCall(call_id, "evaluate", {"expression": expression}))


async def turn(steps: Sequence[Sequence[Chunk | str]], tools: Supervisor, text: str):
    backend = ScriptedBackend(steps)
    chat = ChatSession(backend, tools, system_prompt=system_prompt(True), verifier=CalculonMode())
    with anyio.fail_after(30):
        outcome: TurnOutcome = await chat.run_turn(text)
    return outcome, backend


async def test_a_calculation_after_a_read_that_works_nothing_out_is_not_run(servers, tmp_path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("ship the beta\nhire a designer\nbook the venue\n", encoding="utf-8")
    asked = f"How many lines does {notes} have?"
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(notes)}))
    steps = [[read], [evaluate("3 + 3")], ["The file has 3 lines."]]

    outcome, backend = await turn(steps, servers, asked)

    (first, second) = outcome.tool_calls
    assert (first.tool, first.is_error) == ("read_text", False)
    assert second.tool == "evaluate" and second.is_error and second.result.startswith(IDLE_NOT_RUN)
    assert "adds a number to itself" in second.result
    last = backend.requests[-1]
    assert last.messages[-1].text == results_reask(asked)  # the request again, after the results
    assert "evaluate" not in {t.name for t in last.tools} and "read_text" in {t.name for t in last.tools}
    assert outcome.answer == "The file has 3 lines."


async def test_the_calculator_withdrawn_after_an_idle_call_returns_once_new_data_comes_back(
    servers, tmp_path
) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("x\ny\nz\n", encoding="utf-8")
    second.write_text("w\n", encoding="utf-8")
    steps = [
        [ToolCallChunk(ToolCall("c1", "read_text", {"path": str(first)}))],
        [evaluate("3 + 3")],
        [ToolCallChunk(ToolCall("c3", "read_text", {"path": str(second)}))],
        [evaluate("3 + 1", "c4")],
        ["4 lines together."],
    ]

    outcome, backend = await turn(steps, servers, f"How many lines do {first} and {second} have together?")

    assert "evaluate" not in {t.name for t in backend.requests[2].tools}  # withdrawn after 3 + 3
    assert "evaluate" in {t.name for t in backend.requests[3].tools}  # back after the second read
    assert [(c.tool, c.is_error) for c in outcome.tool_calls][-1] == ("evaluate", False)
    assert outcome.answer == "4 lines together."


async def test_the_last_step_repeated_on_its_own_result_is_not_run(servers, tmp_path) -> None:
    log = tmp_path / "server.log"
    log.write_text("ERROR a\nINFO b\nERROR c\n", encoding="utf-8")
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(log)}))
    steps = [[read], [evaluate("15 - 5")], [evaluate("10 - 5", "c3")], ["2 lines are ERROR lines."]]

    outcome, _ = await turn(steps, servers, f"How many more ERROR lines than INFO lines are in {log}?")

    assert [(c.result.split(":")[0], c.is_error) for c in outcome.tool_calls[1:]] == [
        ("10", False),
        ("Not run (it works nothing out)", True),
    ]


async def test_a_calculation_after_the_apps_count_answers_a_plain_how_many_is_not_run(
    servers, tmp_path
) -> None:
    log = tmp_path / "server.log"
    log.write_text("ERROR a\nINFO b\nERROR c\nWARN d\n", encoding="utf-8")
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(log)}))
    steps = [[read], [evaluate("4 - 2")], ["2 lines are ERROR lines."]]

    outcome, backend = await turn(steps, servers, f"How many lines in {log} are ERROR lines?")

    counted = outcome.tool_calls[1]
    assert counted.is_error and "the app counted what the question asks" in counted.result
    assert "2 lines contain 'ERROR'" in backend.requests[1].messages[-1].text
    assert outcome.answer == "2 lines are ERROR lines."


async def test_a_word_problems_own_steps_run_whatever_their_shape(servers) -> None:
    steps = [[evaluate("5 - 5", "c1")], [evaluate("0 + 0")], ["Ann has 0 apples left."]]

    outcome, backend = await turn(steps, servers, "Ann had 5 apples and gave away all 5. How many are left?")

    assert [(c.result, c.is_error) for c in outcome.tool_calls] == [("0", False), ("0", False)]
    assert "evaluate" in {t.name for t in backend.requests[-1].tools}


async def test_an_apology_after_a_read_that_worked_is_asked_again_with_the_request(servers, tmp_path) -> None:
    notes = tmp_path / "todo.txt"
    notes.write_text("ship the beta\n", encoding="utf-8")
    asked = f"What does {notes} say?"
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(notes)}))
    steps = [[read], ["I'm sorry, but I can't assist with that."], ["It says: ship the beta."]]

    outcome, backend = await turn(steps, servers, asked)

    assert backend.requests[2].messages[-1].text == results_reask(asked)
    assert not backend.requests[2].must_call
    assert outcome.answer == "It says: ship the beta."


async def test_numbers_only_read_where_a_sum_was_asked_must_be_calculated_next(servers, tmp_path) -> None:
    prices = tmp_path / "prices.csv"
    prices.write_text("item,price\napple,1.25\nbread,2.40\n", encoding="utf-8")
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(prices)}))
    steps = [[read], ["Apple is 1.25 and bread 2.40."], [evaluate("1.25 + 2.40")], ["The total is 3.65."]]

    outcome, backend = await turn(steps, servers, f"Add up the prices in {prices}. What is the total?")

    assert [r.must_call for r in backend.requests] == [True, False, True, False]
    assert (outcome.answer, outcome.verdict) == ("The total is 3.65.", "computed")
    # the opening call, made to come first, is of a server that takes the file named
    assert {t.name for t in backend.requests[0].tools} == {"read_text", "write_text"}
    assert {t.name for t in backend.requests[2].tools} >= {"evaluate", "add"}  # made to calculate:
    assert "read_text" not in {t.name for t in backend.requests[2].tools}  # the file is read already


async def test_a_sum_asked_before_any_result_holds_a_number_goes_on_with_the_task(servers, tmp_path) -> None:
    names = tmp_path / "tables.txt"
    names.write_text("products\norders\n", encoding="utf-8")
    asked = f"{names} names the tables. Add up the value of the orders over 20: what is the total?"
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(names)}))
    listed = "It lists the tables products and orders."
    steps = [[read], ["The total is 20."], [listed], [listed], [listed]]

    outcome, backend = await turn(steps, servers, asked)

    # no result holds a number to calculate with: not made to call the calculator
    assert backend.requests[2].messages[-1].text == results_reask(asked)
    assert not backend.requests[2].must_call
    assert "evaluate" in {t.name for t in backend.requests[2].tools}
    # an answer with no total to a question for one is asked again, at most twice
    assert [r.messages[-1].text == results_reask(asked) for r in backend.requests[3:]] == [True, True]
    assert outcome.answer == listed


async def test_refused_twice_where_the_question_names_a_server_its_tool_is_called(servers, tmp_path) -> None:
    from app.mcp.retrieval.selector import ToolRetriever

    notes = tmp_path / "beta.txt"
    notes.write_text("ship the beta\n", encoding="utf-8")
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(notes)}))
    refusal = "I'm sorry, but I can't assist with that."
    steps = [[refusal], [refusal], [read], ["They say: ship the beta."]]
    backend = ScriptedBackend(steps)
    selector = ToolRetriever(threshold=100, dense=False)  # every tool offered; the naming is the point
    chat = ChatSession(
        backend, servers, system_prompt=system_prompt(True), verifier=CalculonMode(), selector=selector
    )
    with anyio.fail_after(30):
        outcome = await chat.run_turn("What do my files say about the beta?")

    assert [r.must_call for r in backend.requests] == [False, False, True, False]
    # the files server's tools only, and of those only the one that reads: the message only asks
    assert {t.name for t in backend.requests[2].tools} == {"read_text"}
    assert outcome.answer == "They say: ship the beta."
    await asyncio.get_running_loop().shutdown_default_executor()  # ranking ran off the loop


async def test_a_note_with_a_date_to_remember_is_not_made_to_calculate(servers, tmp_path) -> None:
    notes = tmp_path / "dates.txt"
    notes.write_text("Dana: 3 October\n", encoding="utf-8")
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(notes)}))
    steps = [[read], ["Dana's birthday is on 3 October."], ["Noted: 3 October."]]

    _, backend = await turn(steps, servers, f"Check {notes}: is Dana's birthday on 3 October?")

    assert [r.must_call for r in backend.requests] == [True, False, False]  # asked, not made, to calculate


async def test_a_data_value_used_more_often_than_read_is_refused_and_the_calculator_stays(
    servers, tmp_path
) -> None:
    visits = tmp_path / "visitors.csv"
    visits.write_text("day,visitors\nMon,120\nTue,95\nWed,143\n", encoding="utf-8")
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(visits)}))
    steps = [
        [read],
        [evaluate("((120 + 95 + 143) / 3) * 143")],  # one day's count, used twice
        [evaluate("(120 + 95 + 143) / 3", "c3")],
        ["The average is 119.33 visitors a day."],
    ]

    outcome, backend = await turn(
        steps, servers, f"What is the average number of visitors per day in {visits}?"
    )

    refused, mean = outcome.tool_calls[1:]
    assert refused.is_error and refused.result.startswith(OVERUSED_NOT_RUN)
    assert "uses 143 twice, and what was read holds it once" in refused.result
    assert "evaluate" in {t.name for t in backend.requests[2].tools}  # not withdrawn: to be written again
    assert (mean.is_error, mean.result.split()[0]) == (False, "358/3")
