"""An answer that describes a task a tool could do, or gives up after a failed call, is asked
again once with a call required; a question about how to do a thing keeps its explanation.

The model is scripted (its replies are the point); the tool is the real calculator, a child
process behind the real supervisor.
"""

from __future__ import annotations

from collections.abc import Sequence

import anyio
import pytest

from app.core import events as ev
from app.core.acting import ACT_REASK, REFUSAL_REASK, act_reask, opens_with_call, results_reask
from app.core.backend import Chunk, ModelRequest, ToolCallChunk
from app.core.messages import Message, ToolCall, ToolSpec
from app.core.outcome import TurnOutcome
from app.core.prompts import system_prompt
from app.core.records import CallRecord
from app.core.session import ChatSession
from app.llm.gemini.convert import build_config
from app.llm.local.step_rules import StepPolicy, forces_call
from app.llm.openai.convert import request_body
from app.llm.scripted import ScriptedBackend
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import script_entry, started

pytestmark = pytest.mark.anyio
PLAN = "We need to follow these steps: 1. Add the two numbers with the evaluate tool. 2. Report the sum."
ADD = ToolCallChunk(ToolCall("c1", "evaluate", {"expression": "1200 + 3400"}))
READ = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def turn(
    steps: Sequence[Sequence[Chunk | str]], tools: Supervisor, text: str
) -> tuple[TurnOutcome, ScriptedBackend]:
    backend = ScriptedBackend(steps)
    chat = ChatSession(backend, tools, system_prompt=system_prompt(False))
    with anyio.fail_after(30):
        return await chat.run_turn(text), backend


def answers(outcome: TurnOutcome) -> list[str]:
    return [e.text for e in outcome.events if isinstance(e, ev.AnswerReady)]


async def test_a_plan_instead_of_the_call_is_asked_again_to_do_it(calculator) -> None:
    steps = [[PLAN], [ADD], ["The total is 4600."]]
    outcome, backend = await turn(steps, calculator, "Add 1200 and 3400 for me.")
    assert [(c.tool, c.result) for c in outcome.tool_calls] == [("evaluate", "4600")]
    assert answers(outcome) == ["The total is 4600."]
    # the plan named the evaluate tool: the next step must call it, and only it is offered
    assert [r.must_call for r in backend.requests] == [False, True, False]
    assert [t.name for t in backend.requests[1].tools] == ["evaluate"]
    assert backend.requests[1].messages[-1] == Message("user", ACT_REASK)


async def test_a_plan_naming_no_tool_is_asked_again_without_forcing_a_call(calculator) -> None:
    plan = "We need to follow these steps: 1. Add the two numbers. 2. Report the sum."
    steps = [[plan], [ADD], ["The total is 4600."]]
    outcome, backend = await turn(steps, calculator, "Add 1200 and 3400 for me.")
    assert answers(outcome) == ["The total is 4600."]
    # not made to call: forced with every tool, the 1.5B called the converter with its schema's
    # example (12/51 real tasks done asked, 10/51 forced; docs/benchmarks.md)
    assert [r.must_call for r in backend.requests] == [False, False, False]
    assert len(backend.requests[1].tools) > 1


async def test_a_plan_is_asked_again_at_most_twice_and_then_shown(calculator) -> None:
    outcome, backend = await turn([[PLAN], [PLAN], [PLAN]], calculator, "Add 1200 and 3400 for me.")
    assert answers(outcome) == [PLAN]
    assert len(backend.requests) == 3


async def test_a_refusal_before_any_call_is_asked_again_without_forcing_a_call(calculator) -> None:
    refusal = "I'm sorry, but I can't assist with that request."
    steps = [[refusal], [ADD], ["The total is 4600."]]
    outcome, backend = await turn(steps, calculator, "Add 1200 and 3400 for me.")
    assert answers(outcome) == ["The total is 4600."]
    assert backend.requests[1].messages[-1] == Message("user", REFUSAL_REASK)
    assert not any(r.must_call for r in backend.requests)  # the tools offered may not fit


def test_asking_the_user_for_what_a_tool_could_fetch_is_asked_again_before_any_call() -> None:
    asked = "Add up the prices in prices.csv."
    for back in (
        "I'm ready to help! Please provide the CSV file contents.",
        "I'm ready to help you with that!",
        "Could you share the file's contents?",
        "I would need the date of Alice's birthday.",
    ):
        assert act_reask(back, asked, [READ], []) == (REFUSAL_REASK, False), back
    read = CallRecord("fs", "read_file", {"path": "prices.csv"}, "item,price\npen,0.99", False, 1.0)
    # after a call that worked, a question back may be the honest answer (which column?)
    assert act_reask("Please specify which column to add up.", asked, [READ], [read]) is None
    assert act_reask("The prices add up to 15.74.", asked, [READ], []) is None


def test_an_answer_with_no_number_to_a_question_for_one_is_asked_again_after_calls() -> None:
    asked = "What is the average number of visitors per day in visitors.csv?"
    read = CallRecord(
        "fs", "read_file", {"path": "visitors.csv"}, "day,visitors\nMon,120\nTue,95", False, 1.0
    )
    told = act_reask("This is the final answer.", asked, [READ], [read])
    assert told is not None and told[0].startswith("Using the tool results above") and told[1] is False
    assert act_reask("About 107.5 visitors a day.", asked, [READ], [read]) is None
    assert act_reask("There are five files.", "How many files are there?", [READ], [read]) is None
    graph = CallRecord("memory", "read_graph", {}, '{"observations": ["birthday is 14 March"]}', False, 1.0)
    day = "On what day of March is Alice's birthday? Check my memory."
    assert act_reask("I found Alice's birthday in March.", day, [READ], [graph]) is not None
    assert act_reask("Alice's birthday is on 14 March.", day, [READ], [graph]) is None
    assert act_reask("Saturday.", "Which day had the most visitors?", [READ], [read]) is None  # a name
    assert act_reask("Monday.", "What day of the week was it?", [READ], [read]) is None
    # a request for a deed, not a number, is answered in words
    saved = CallRecord(
        "fs", "write_file", {"path": "notes.txt", "content": "a"}, "Wrote notes.txt", False, 1.0
    )
    assert act_reask("Saved the list.", "Save the list in notes.txt", [READ], [saved]) is None


def test_an_answer_after_a_failed_call_whose_cause_was_fixed_is_reminded_of_it() -> None:
    asked = "Commit draft.txt in the repository at /r with the message Add draft"
    commit = CallRecord("git", "git_commit", {"repo_path": "/r"}, "No changes staged for commit.", True, 1.0)
    add = CallRecord("git", "git_add", {"repo_path": "/r", "files": ["draft.txt"]}, "Staged", False, 1.0)
    again = CallRecord("git", "git_commit", {"repo_path": "/r"}, "Committed 1a2b3c", False, 1.0)
    specs = [READ]
    told = act_reask("Files staged successfully", asked, specs, [commit, add])
    assert told is not None and "the git_commit call failed (No changes staged for commit.)" in told[0]
    assert told[1] is False
    assert act_reask("Committed.", asked, specs, [commit, add, again]) is None  # made again
    # the old error's text as the answer, naming git_add (a plan, read alone): the deed is asked for
    git = [ToolSpec("git_add", "", {}), ToolSpec("git_commit", "", {})]
    copied = act_reask(
        "No changes staged for commit. Use git_add to stage changes first.", asked, git, [commit, add]
    )
    assert copied is not None and copied[0].startswith("Earlier the git_commit call failed")
    plain = "Commit the staged changes in the repository at /r"
    assert act_reask("The commit failed: nothing staged.", plain, specs, [commit]) is None  # nothing fixed


def test_a_failure_written_in_an_ordinary_result_is_a_failed_call() -> None:
    query = ToolSpec("write_query", "", {"type": "object"})
    tables = ToolSpec("list_tables", "", {"type": "object"})
    update = CallRecord(
        "sqlite", "write_query", {"query": "UPDATE shop"}, "Database error: no such table", False, 1
    )
    assert update.failed and not CallRecord("s", "t", {}, "3 rows; no error", False, 1).failed
    told = act_reask(
        "I'm sorry, but I can't help with that.", "Set the kettle's price", [query, tables], [update]
    )
    assert told is not None and told[0].startswith("The last tool call failed: Database error") and told[1]
    assert "(list_tables can show what exists)" in told[0]


def test_a_named_place_no_call_has_used_is_asked_for_with_a_call() -> None:
    asked = "How many lines do /w/notes.txt and /w/todo.md have together?"
    notes = CallRecord("fs", "read_file", {"path": "/w/notes.txt"}, "a\nb", False, 1.0)
    todo = CallRecord("fs", "read_file", {"path": "/w/todo.md"}, "c", False, 1.0)
    told = act_reask("13", asked, [READ], [notes])
    assert told == (
        f"Your request also names /w/todo.md, and no tool call has used it yet. Do what I asked: {asked}",
        True,
    )
    assert act_reask("3", asked, [READ], [notes, todo]) is None
    # a folder holding the file counts as used; "km/h" is no place
    repo = CallRecord("git", "git_add", {"repo_path": "/w", "files": ["a.txt"]}, "Staged", False, 1.0)
    assert act_reask("Staged.", "Stage /w/a.txt", [READ], [repo]) is None
    assert act_reask("60 km/h", "Convert 60 km/h to m/s", [READ], [notes]) is None
    assert act_reask("He has 5.", "Mr.Smith read /w/notes.txt. How many?", [READ], [notes]) is None


def test_a_question_naming_a_file_opens_with_a_call_where_a_tool_takes_a_path() -> None:
    add = ToolSpec("add", "Add", {"type": "object", "properties": {"a": {"type": "number"}}})
    url = {"url": {"type": ["string", "null"]}}
    fetch = ToolSpec("fetch", "Fetch", {"type": "object", "properties": url})
    asked = "What is the average number of visitors per day in /srv/site/visitors.csv?"
    assert opens_with_call(asked, [add, READ])
    assert opens_with_call("Add up the prices in prices.csv.", [READ])
    assert opens_with_call("What does http://127.0.0.1:8000/news.html say?", [fetch])
    assert not opens_with_call(asked, [add])  # nothing on offer takes a path
    assert not opens_with_call("How do I read notes.txt?", [READ])  # the explanation is the answer
    assert not opens_with_call("What is 3/4 of 12, e.g. as a fraction?", [READ])  # no place named


async def test_the_first_step_of_a_turn_naming_a_file_must_call_and_the_next_need_not(tmp_path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("ship the beta\n", encoding="utf-8")
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(notes)}))
    async with started(script_entry("files", "files.py"), tool_timeout_s=10) as files:
        steps = [[read], ["The notes say: ship the beta."]]
        outcome, backend = await turn(steps, files, f"What do {notes} say?")
        assert [(c.tool, c.result) for c in outcome.tool_calls] == [("read_text", "ship the beta\n")]
        assert [r.must_call for r in backend.requests] == [True, False]
        # no place named: the model may answer without a call
        _, backend = await turn([["Hello."]], files, "Say hello.")
        assert [r.must_call for r in backend.requests] == [False]


async def test_a_question_about_how_to_do_it_keeps_its_explanation(calculator) -> None:
    outcome, backend = await turn([[PLAN]], calculator, "How do I add 1200 and 3400 with the calculator?")
    assert answers(outcome) == [PLAN]
    assert [r.must_call for r in backend.requests] == [False]


async def test_giving_up_after_a_failed_call_is_asked_again_with_the_error(calculator) -> None:
    broken = ToolCallChunk(ToolCall("c1", "evaluate", {"expression": "1200 +* 3400"}))
    steps = [[broken], ["I'm sorry, but I can't do that calculation."], [ADD], ["The total is 4600."]]
    outcome, backend = await turn(steps, calculator, "Add 1200 and 3400 for me.")
    assert [c.is_error for c in outcome.tool_calls] == [True, False]
    assert answers(outcome) == ["The total is 4600."]
    told = backend.requests[2].messages[-1].text
    assert told.startswith("The last tool call failed: ") and backend.requests[2].must_call


def test_a_failed_call_is_told_which_offered_tools_show_what_exists() -> None:
    def spec(name: str) -> ToolSpec:
        return ToolSpec(name, "", {"type": "object"})

    specs = [spec(n) for n in ("write_query", "read_query", "list_tables", "describe_table", "create_table")]
    update = CallRecord(
        "sqlite", "write_query", {"query": "UPDATE shop SET x=1"}, "no such table: shop", True, 1.0
    )
    told = act_reask("I'm sorry, I can't.", "Change the kettle's price", specs, [update])
    assert told is not None and told[1] is True
    assert "(read_query or list_tables or describe_table can show what exists)" in told[0]
    # a look-up that already worked comes last; the failed server's own tools are named where
    # retrieval offered only some of them
    tables = CallRecord("sqlite", "list_tables", {}, "[{'name': 'products'}]", False, 1.0)
    told = act_reask("I'm sorry, I can't.", "Change the kettle's price", specs, [tables, update])
    assert told is not None and "(read_query or describe_table or list_tables can show" in told[0]
    offered = [spec("write_query"), spec("search_files")]
    told = act_reask("I'm sorry, I can't.", "Change the kettle's price", offered, [update], specs)
    assert told is not None and "search_files" not in told[0] and "describe_table" in told[0]


def test_instructions_for_the_user_after_a_call_are_a_plan() -> None:
    asked = "Add every item in /w/prices.csv to the products table, with a stock of 0."
    read = CallRecord("fs", "read_file", {"path": "/w/prices.csv"}, "item,price\napple,1.25", False, 1.0)
    sql = "To add every item, you can use the following SQL query:\n\n```sql\nINSERT INTO products ...\n```"
    assert act_reask(sql, asked, [READ], [read]) == (ACT_REASK, False)
    assert act_reask("Here is the query: INSERT ...", asked, [READ], [read]) == (ACT_REASK, False)
    assert act_reask("Added 5 items.", asked, [READ], [read]) is None


async def test_a_plan_after_a_good_call_is_asked_again_for_the_next_call(calculator) -> None:
    steps = [[ADD], ["Next we need to add 100 to it with the evaluate tool."], [ADD], ["The total is 4600."]]
    outcome, backend = await turn(steps, calculator, "Add 1200 and 3400 for me.")
    assert len(outcome.tool_calls) == 2 and answers(outcome) == ["The total is 4600."]
    # it named evaluate, which already ran: the request again, not a forced call
    assert [r.must_call for r in backend.requests] == [False, False, False, False]
    assert backend.requests[2].messages[-1].text == results_reask("Add 1200 and 3400 for me.")


async def test_a_plain_answer_after_a_good_call_stands(calculator) -> None:
    closing = "The total is 4600. You can use it for your budget."
    outcome, backend = await turn([[ADD], [closing]], calculator, "Add 1200 and 3400 for me.")
    assert answers(outcome) == [closing]
    assert not any(r.must_call for r in backend.requests)


def test_naming_an_offered_tool_instead_of_calling_it_is_a_plan() -> None:
    assert act_reask("Use read_file on notes.txt to see it.", "Show me notes.txt", [READ], []) == (
        ACT_REASK,
        False,
    )
    assert act_reask("Here it is: the notes say hello.", "Show me notes.txt", [READ], []) is None
    add = ToolSpec("add", "Add two numbers", {"type": "object"})
    read = CallRecord("fs", "read_file", {"path": "prices.csv"}, "item,price\npen,0.99", False, 1.0)
    told = act_reask(
        "To add up the prices, we can use the add function: [...]", "Add up prices.csv", [add], [read]
    )
    assert told == (ACT_REASK, False)  # a tool described after a good call: the next call is asked for
    assert act_reask("The sum is 3, added up.", "Add up prices.csv", [add], [read]) is None
    python = "We can use Python. Here's how you can do it: with open('prices.csv') as f: ..."
    assert act_reask(python, "Add up prices.csv", [add], [read]) == (ACT_REASK, False)
    assert act_reask(PLAN, "Show me notes.txt", [], []) is None  # nothing on offer to do it with
    failed = CallRecord("fs", "read_file", {"path": "x"}, "ENOENT: no such file", True, 1.0)
    assert (
        act_reask("The file x does not exist.", "Show me x", [READ], [failed]) is None
    )  # reports, not gives up
    declined = CallRecord("asking", "wipe", {}, "Call to wipe was not approved: declined", True, 1.0)
    assert act_reask("I could not wipe it.", "wipe the disk", [READ], [declined]) is None  # the user said no
    zero = CallRecord("calculator", "divide", {"a": 858, "b": 0}, "division by zero", True, 1.0)
    undefined = "That cannot be done: it is undefined."
    assert (
        act_reask(undefined, "What is 858 divided by 0?", [READ], [zero]) is None
    )  # the error is the answer


def test_every_backend_is_told_the_step_must_be_a_call() -> None:
    request = ModelRequest("", (Message("user", ACT_REASK),), (READ,), must_call=True)
    assert request_body("m", request)["tool_choice"] == "required"
    config = build_config(request, include_thoughts=False)
    assert config.tool_config is not None and config.tool_config.function_calling_config.mode == "ANY"
    assert forces_call(request, StepPolicy(call_policy="auto"))
    free = ModelRequest("", (Message("user", "hi"),), (READ,))
    assert request_body("m", free)["tool_choice"] == "auto"
    assert build_config(free, include_thoughts=False).tool_config is None
    assert not forces_call(free, StepPolicy(call_policy="auto"))


async def test_a_fixed_failure_is_asked_for_beyond_the_budget_and_then_made_a_call(calculator) -> None:
    divide = ToolCallChunk(ToolCall("c1", "divide", {"a": 1200, "b": 0}))
    again = ToolCallChunk(ToolCall("c3", "divide", {"a": 1200, "b": 3400}))
    steps = [
        [divide],
        ["I'm sorry, but I can't do that."],  # a give-up after the failure: re-ask 1
        [ADD],
        [PLAN],  # divide failed and was not made since: asked for (re-ask 2, the budget's last)
        ["The total is 4600."],  # asked again over budget, the call now required
        [again],
        ["1200 / 3400 is about 0.35."],
    ]
    outcome, backend = await turn(steps, calculator, "Divide 1200 by the sum of 1200 and 3400.")
    assert [c.tool for c in outcome.tool_calls] == ["divide", "evaluate", "divide"]
    assert outcome.tool_calls[0].failed and not outcome.tool_calls[2].failed
    assert backend.requests[4].messages[-1].text.startswith("Earlier the divide call failed")
    assert [r.must_call for r in backend.requests[3:6]] == [False, False, True]
    assert "divide" in {t.name for t in backend.requests[5].tools}  # its server's tools
    assert answers(outcome)[-1] == "1200 / 3400 is about 0.35."


async def test_the_apps_re_asks_spend_no_step_of_the_limit(calculator) -> None:
    steps = [[PLAN], ["I'm sorry, I can't."], [ADD], ["The total is 4600."]]
    backend = ScriptedBackend(steps)
    chat = ChatSession(backend, calculator, system_prompt=system_prompt(False), max_rounds=2)
    with anyio.fail_after(30):
        outcome = await chat.run_turn("Add 1200 and 3400 for me.")
    assert not outcome.error and answers(outcome) == ["The total is 4600."]
    assert len(backend.requests) == 4  # two re-asks, then a call and its answer: two rounds
