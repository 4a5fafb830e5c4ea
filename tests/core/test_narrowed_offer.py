"""What a step offers after what the turn has learnt. After a failed call the model gave up on,
its next step is a call of that server's tools, all of them: told "no such column",
Qwen2.5-Coder-1.5B searched the filesystem for the database, and the look-up that fixes it
(describe_table) was not among the tools retrieval had offered. A named place no call has used
is the next call's place. A deed the request rules out is not offered.

The model is scripted (its replies are the point); the servers are real child processes.
"""

from __future__ import annotations

import asyncio

import pytest

from app.core.acting import FAILED_OPENING
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.unread import UNCHANGED_NOT_RUN, UNREAD_NOT_RUN
from app.core.unstaged import UNSTAGED_NOT_RUN
from app.mcp.retrieval.selector import ToolRetriever
from tests.core.files_turn import files_turn

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_failure_given_up_on_is_fixed_with_every_tool_of_its_server(tmp_path) -> None:
    (tmp_path / "notes.txt").write_text("one\ntwo\n", encoding="utf-8")
    missing = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(tmp_path / "note.txt")}))
    found = ToolCallChunk(ToolCall("c2", "read_text", {"path": str(tmp_path / "notes.txt")}))
    steps = [[missing], ["I'm sorry, but I can't access that file."], [found], ["It says: one, two."]]
    selector = ToolRetriever(threshold=1, top_k=1, dense=False)  # one tool offered: the reading one
    outcome, backend = await files_turn(
        steps, "Read my note and tell me what it says.", tmp_path, selector=selector, server="store"
    )

    first = {t.name for t in backend.requests[0].tools}
    assert first == {"read_text"}
    # after a failure its server's other tools are on offer, for the rest of the turn (each change
    # to the tools offered has a local model read the conversation again)
    assert {t.name for t in backend.requests[1].tools} == {"read_text", "write_text"}
    retry = backend.requests[2]
    assert retry.messages[-1].text.startswith(FAILED_OPENING) and retry.must_call
    assert {t.name for t in retry.tools} == {"read_text", "write_text"}  # the server's own, all of them
    assert {t.name for t in backend.requests[3].tools} == {"read_text", "write_text"}
    assert outcome.answer == "It says: one, two."
    await asyncio.get_running_loop().shutdown_default_executor()  # ranking ran off the loop


async def test_a_deed_the_request_rules_out_is_not_offered(tmp_path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("one\ntwo\n", encoding="utf-8")
    notices: list[str] = []
    asked = f"Show me {notes} without writing anything to it."
    _, backend = await files_turn(
        [["It says: one, two."]], asked, tmp_path, server="store", calculator=False, notices=notices
    )

    assert {t.name for t in backend.requests[0].tools} == {"read_text"}
    assert "write_text" not in {t.name for t in backend.requests[0].prompt_tools}  # nor listed
    assert "Not offered, as your request rules it out: write_text." in notices


async def test_a_named_place_no_call_used_is_the_next_calls_place(tmp_path) -> None:
    log, count = tmp_path / "server.log", tmp_path / "errors.txt"
    log.write_text("INFO a\nERROR b\nERROR c\n", encoding="utf-8")
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(log)}))
    write = ToolCallChunk(ToolCall("c2", "write_text", {"path": str(count), "content": "2"}))
    plan = "Here's how: step 1, count the ERROR lines; step 2, save the count."
    asked = f"Count the ERROR lines in {log} and save the count in a new file {count}."
    _, backend = await files_turn([[read], [plan], [write], ["Saved 2 in errors.txt."]], asked, tmp_path)

    held = backend.requests[2]
    assert held.must_call and {t.name for t in held.tools} == {"read_text", "write_text"}
    # narrowed, the step lists in its prompt every tool the step before listed: a changed list has
    # a local model read the whole conversation again (the calculator joins once a result holds a
    # number, the log's count)
    assert "evaluate" in {t.name for t in held.listed} and "evaluate" not in {t.name for t in held.tools}
    assert all(request.listed == held.listed for request in backend.requests[1:])
    assert all(t.input_schema["properties"]["path"]["enum"] == [str(count)] for t in held.tools)
    later = {t.name: t for t in backend.requests[3].tools}
    assert "enum" not in later["read_text"].input_schema["properties"]["path"]  # for that step only
    assert count.read_text(encoding="utf-8") == "2"


async def test_a_give_up_after_a_result_that_holds_nothing_is_a_call_of_that_server(tmp_path) -> None:
    found = tmp_path / "found.json"
    found.write_text("[]", encoding="utf-8")
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(found)}))
    steps = [[read], ["I'm sorry, but I can't help with that."], [read], ["Nothing was found."]]
    selector = ToolRetriever(threshold=1, top_k=1, dense=False)
    outcome, backend = await files_turn(steps, "Read my search results.", tmp_path, selector=selector)

    told = backend.requests[2]
    assert told.messages[-1].text.startswith(
        "The last tool call found or changed nothing: read_text returned []"
    )
    assert told.must_call and {t.name for t in told.tools} == {"read_text", "write_text"}
    assert outcome.answer == "Nothing was found."


async def test_a_search_that_found_nothing_twice_gives_way_to_a_look_up_not_made_yet(tmp_path) -> None:
    def search(query: str) -> list[ToolCallChunk]:
        return [ToolCallChunk(ToolCall(f"c{len(query)}", "search_notes", {"query": query}))]

    steps = [
        search("Alice's birthday in March"),
        ["I'm sorry, but I can't find it."],
        search("Alice's birthday in March 2024"),
        ["I'm sorry, but I can't find it."],
        [ToolCallChunk(ToolCall("c9", "read_all_notes", {}))],
        ["Alice's birthday is on 14 March."],
    ]
    asked = "On what day of March is Alice's birthday? Check my notes."
    outcome, backend = await files_turn(steps, asked, tmp_path, server="notes", script="notes.py")

    assert (
        backend.requests[2].must_call and "read_all_notes can show" in backend.requests[2].messages[-1].text
    )
    forced = backend.requests[4]
    assert forced.must_call and [t.name for t in forced.tools] == ["read_all_notes"]
    assert outcome.answer == "Alice's birthday is on 14 March."


async def test_an_edit_of_text_never_read_is_refused_and_the_edit_after_reading_runs(tmp_path) -> None:
    config = tmp_path / "config.json"
    config.write_text('{"port": 8080}\n', encoding="utf-8")
    blind = ToolCallChunk(
        ToolCall("c1", "replace_text", {"path": str(config), "old_text": "port", "new_text": "9090"})
    )
    read = ToolCallChunk(ToolCall("c2", "read_text", {"path": str(config)}))
    fixed = {"path": str(config), "old_text": '"port": 8080', "new_text": '"port": 9090'}
    steps = [
        [blind],
        [read],
        [ToolCallChunk(ToolCall("c3", "replace_text", fixed))],
        ["The port is now 9090."],
    ]
    asked = f"Change the port in {config} to 9090."
    outcome, backend = await files_turn(steps, asked, tmp_path, server="editor", script="editor.py")

    refused = backend.requests[1].messages[-1]
    assert (
        refused.is_error and refused.text.startswith(UNREAD_NOT_RUN) and "Read the file first" in refused.text
    )
    assert config.read_text(encoding="utf-8") == '{"port": 9090}\n'  # the blind edit never reached it
    assert outcome.answer == "The port is now 9090."


async def test_an_edit_that_changes_nothing_never_reaches_the_server_and_the_real_edit_runs(tmp_path) -> None:
    todo = tmp_path / "todo.md"
    todo.write_text("- buy milk\n", encoding="utf-8")
    same = {"path": str(todo), "old_text": "call the plumber", "new_text": "call the plumber"}
    added = {"path": str(todo), "old_text": "- buy milk", "new_text": "- buy milk\n- call the plumber"}
    steps = [
        [ToolCallChunk(ToolCall("c1", "replace_text", same))],
        [ToolCallChunk(ToolCall("c2", "read_text", {"path": str(todo)}))],
        [ToolCallChunk(ToolCall("c3", "replace_text", added))],
        ["Added."],
    ]
    asked = f"Add 'call the plumber' to {todo}."
    outcome, backend = await files_turn(steps, asked, tmp_path, server="editor", script="editor.py")

    refused = backend.requests[1].messages[-1]
    assert refused.is_error and refused.text.startswith(UNCHANGED_NOT_RUN)
    assert todo.read_text(encoding="utf-8") == "- buy milk\n- call the plumber\n"
    assert [c.is_error for c in outcome.tool_calls] == [True, False, False]


async def test_the_calculator_is_offered_only_once_the_turn_holds_a_number(tmp_path) -> None:
    prices = tmp_path / "prices.csv"
    prices.write_text("item,price\napple,1.25\nbread,2.40\n", encoding="utf-8")
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(prices)}))
    add = ToolCallChunk(ToolCall("c2", "evaluate", {"expression": "1.25 + 2.40"}))
    asked = f"Add up the prices in {prices}."  # no number in the words, nor in the path's digits
    outcome, backend = await files_turn([[read], [add], ["They come to 3.65."]], asked, tmp_path)

    assert "evaluate" in {t.name for t in backend.requests[1].tools}  # the prices hold numbers
    assert outcome.answer == "They come to 3.65."
    # with nothing to calculate with, a small model opened evaluate and went round in a loop in it
    _, backend = await files_turn([["Done."]], "Tidy up my notes folder, please.", tmp_path)
    offered = {t.name for t in backend.requests[0].tools}
    assert "evaluate" not in offered and "read_text" in offered
    assert "evaluate" not in {t.name for t in backend.requests[0].listed}  # nor listed: it cannot be called


@pytest.mark.parametrize(
    ("asked", "refused_here"),
    [
        ("Commit draft.txt with the message 'Add draft'.", True),  # a named file: the app refuses it
        ("Commit my changes with the message 'Add draft'.", False),  # the server's own error
    ],
    ids=["refused-by-the-app", "refused-by-the-server"],
)
async def test_a_failed_deed_whose_error_names_its_fix_has_that_call_made_next(
    tmp_path, asked, refused_here
) -> None:
    commit = ToolCallChunk(ToolCall("c1", "commit_changes", {"message": "Add draft"}))
    looked = ToolCallChunk(ToolCall("c2", "list_staged", {}))
    plan = "You would stage draft.txt and then commit it."
    stage = ToolCallChunk(ToolCall("c3", "stage_file", {"name": "draft.txt"}))
    again = ToolCallChunk(ToolCall("c4", "commit_changes", {"message": "Add draft"}))
    steps = [[commit], [looked], [plan], [stage], ["Staged."], [again], ["Committed draft.txt."]]
    outcome, backend = await files_turn(steps, asked, tmp_path, server="stager", script="stager.py")

    first = outcome.tool_calls[0].result
    assert first.startswith(UNSTAGED_NOT_RUN) == refused_here  # no server saw the app's refusal
    assert ("Use stage_file" in first) and outcome.tool_calls[0].failed
    fix = backend.requests[3]
    assert "its error names what to do first: make the stage_file call now" in fix.messages[-1].text
    assert fix.must_call and {t.name for t in fix.tools} == {"stage_file"}
    retry = backend.requests[5]
    assert "make the commit_changes call again" in retry.messages[-1].text
    assert retry.must_call and {t.name for t in retry.tools} == {"commit_changes"}  # the deed, undone
    assert outcome.tool_calls[-1].result == "Committed draft.txt: Add draft"


async def test_a_file_staged_in_an_earlier_message_is_committed_without_a_refusal(tmp_path) -> None:
    stage = ToolCallChunk(ToolCall("c1", "stage_file", {"name": "draft.txt"}))
    commit = ToolCallChunk(ToolCall("c2", "commit_changes", {"message": "Add draft"}))
    steps = [[stage], ["Staged draft.txt."], [commit], ["Committed draft.txt."]]
    asked = "Commit draft.txt with the message 'Add draft'."
    outcome, _ = await files_turn(
        steps, asked, tmp_path, server="stager", script="stager.py", before=["Stage draft.txt."]
    )
    # the app used to refuse this commit: no call of this turn had staged the file
    assert [c.result for c in outcome.tool_calls] == ["Committed draft.txt: Add draft"]


async def test_a_plan_after_its_calculation_ran_is_asked_for_the_answer(tmp_path) -> None:
    times = ToolCallChunk(ToolCall("c1", "evaluate", {"expression": "15 * 6"}))
    plan = "We need to multiply the cost per user by the number of users."
    asked = "What would the Team plan cost per month for 6 users, at 15 dollars a user?"
    outcome, backend = await files_turn([[times], [plan], ["It would cost 90 dollars."]], asked, tmp_path)

    # the result (90) is above: the request again, not "do the task with the next tool call"
    assert backend.requests[2].messages[-1].text == f"Using the tool results above, do what I asked: {asked}"
    assert outcome.answer == "It would cost 90 dollars."


async def test_a_tool_the_step_cannot_call_gives_its_place_to_the_next_ranked(tmp_path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("one\ntwo\n", encoding="utf-8")
    notices: list[str] = []
    selector = ToolRetriever(threshold=1, top_k=1, dense=False)  # "write" ranks write_text first
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(notes)}))
    asked = f"What did I write in {notes}?"  # a question: nothing that changes things is offered
    outcome, backend = await files_turn(
        [[read], ["It says: one, two."]], asked, tmp_path, selector=selector, server="store", notices=notices
    )

    assert [t.name for t in backend.requests[0].tools] == ["read_text"]  # not an empty offer
    assert "Not offered, as your request only asks, and these change things: write_text." in notices
    assert outcome.answer == "It says: one, two."
    await asyncio.get_running_loop().shutdown_default_executor()


async def test_the_deed_a_request_opens_with_is_asked_for_until_a_call_has_done_it(tmp_path) -> None:
    stage = ToolCallChunk(ToolCall("c1", "stage_file", {"name": "draft.txt"}))
    commit = ToolCallChunk(ToolCall("c2", "commit_changes", {"message": "Add draft"}))
    steps = [[stage], ["Files staged successfully."], [commit], ["Committed draft.txt."]]
    asked = "Commit draft.txt with the message 'Add draft'."
    outcome, backend = await files_turn(steps, asked, tmp_path, server="stager", script="stager.py")

    asked_again = backend.requests[2]
    assert asked_again.messages[-1].text.startswith("Your request asks to commit, and no tool call has done")
    assert asked_again.must_call and {t.name for t in asked_again.tools} == {"commit_changes"}
    assert outcome.tool_calls[-1].result == "Committed draft.txt: Add draft"
    assert outcome.answer == "Committed draft.txt."


async def test_an_edit_that_differs_from_the_text_read_only_in_punctuation_is_fitted_to_it(tmp_path) -> None:
    config = tmp_path / "config.json"
    config.write_text('{\n  "name": "tinyshop",\n  "port": 8080,\n  "debug": false\n}\n', encoding="utf-8")
    read = ToolCallChunk(ToolCall("c1", "read_text", {"path": str(config)}))
    loose = {"path": str(config), "old_text": "port: 8080", "new_text": "port: 9090"}
    steps = [[read], [ToolCallChunk(ToolCall("c2", "replace_text", loose))], ["The port is now 9090."]]
    notices: list[str] = []
    asked = f"Change the port in {config} to 9090."
    outcome, _ = await files_turn(
        steps, asked, tmp_path, server="editor", script="editor.py", notices=notices
    )

    assert (
        config.read_text(encoding="utf-8")
        == '{\n  "name": "tinyshop",\n  "port": 9090,\n  "debug": false\n}\n'
    )
    assert outcome.tool_calls[-1].arguments["old_text"] == '"port": 8080,'  # what ran, as the trace shows it
    assert any(n.startswith("The edit was fitted to the text read: 'port: 8080'") for n in notices)
