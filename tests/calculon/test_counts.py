"""Lines counted by the app in a tool's text, where the question counts lines: a note the model
reads and a source that backs the count, so the model never counts (or guesses) itself."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from app.calculon import CalculonMode
from app.calculon.counts import answers_by_count, count_note, gathered_counts
from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.prompts import system_prompt
from app.core.session import ChatSession
from app.llm.scripted import ScriptedBackend
from app.mcp.supervisor import Supervisor
from tests.mcp.helpers import script_entry, started

LOG = "ERROR disk full\nINFO started\nERROR timeout\nINFO done\n"


def test_a_question_about_lines_gets_the_lines_and_those_holding_its_own_words_counted() -> None:
    note = count_note("How many lines in server.log are ERROR lines?", LOG)
    assert "has 4 lines; 2 lines contain 'ERROR'" in note
    assert "3 lines (2 not empty)" in count_note("How many lines does notes.txt have?", "a\n\nb")


def test_how_many_of_a_listing_counts_the_entries_of_the_kind_asked_for() -> None:
    listing = "[FILE] app.py\n[FILE] test_app.py\n[DIR] docs\n[FILE] notes.txt\n[DIR] tmp"
    note = count_note("How many Python files are in /work/tmp?", listing)
    assert "has 2 lines contain '.py'; 3 lines contain '[FILE]'; 5 lines." in note  # what it asks first
    assert "'tmp'" not in note  # a word of the path asked about is no kind of entry
    assert "2 lines contain '[DIR]'" in count_note("How many folders does /work hold?", listing)


def test_how_many_of_a_list_of_rows_counts_its_items() -> None:
    rows = "[{'name': 'pen', 'price': 1.5}, {'name': 'ink', 'price': 2.0}, {'name': 'pad', 'price': 3}]"
    assert "this result lists 3 items" in count_note("How many products are in the shop?", rows)
    assert count_note("How many products are in the shop?", '[{"count(*)": 3}]') == ""  # the count itself
    assert count_note("How many products are there?", "[__import__('os')]") == ""  # never evaluated


def test_a_task_lists_open_and_ticked_boxes_are_counted() -> None:
    todo = "# Party\n\n- [x] book the venue\n- [ ] send invites\n* [ ] get cake\n1. [X] pick a day\n"
    note = count_note("How many items in todo.md are still open (not ticked)?", todo)
    assert "2 open (not ticked) '[ ]' items; 2 ticked '[x]'" in note
    assert "ticked" not in count_note("How many lines does notes.txt have?", "a\nb [ ] c\n")
    assert "ticked" not in count_note("How many lines do notes.txt and todo.md have together?", todo)


def test_a_plain_how_many_is_answered_by_the_count_and_one_naming_an_operation_is_not() -> None:
    assert answers_by_count("How many lines in /x/server.log are ERROR lines?", LOG)
    assert answers_by_count("How many Python (.py) files are under /x/src?", "[FILE] a.py\n[FILE] b.py")
    assert not answers_by_count("How many lines do /x/a.txt and /x/b.txt have together?", LOG)
    assert not answers_by_count("How many more ERROR lines than INFO lines are there?", LOG)
    assert not answers_by_count("What is the average of the visitors in /x/visitors.csv?", LOG)
    assert not answers_by_count("How many lines does it have?", "one line")  # nothing counted


def test_results_are_left_alone_where_the_question_counts_no_lines_or_there_is_one_line() -> None:
    assert count_note("What does server.log say?", LOG) == ""
    assert count_note("How many lines does it have?", "just one line\n") == ""
    # a word every line holds, or none does, says nothing
    assert "contain" not in count_note("How many INFO or ERROR lines are there?", "INFO a\nINFO b")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def basic() -> AsyncIterator[Supervisor]:
    async with started(script_entry("basic", "basic.py"), tool_timeout_s=10) as supervisor:
        yield supervisor


@pytest.mark.anyio
async def test_a_count_of_lines_in_a_tool_result_backs_the_answer_in_calculon_mode(basic) -> None:
    read = ToolCallChunk(ToolCall("c1", "echo", {"text": LOG}))
    backend = ScriptedBackend([[read], ["2 lines are ERROR lines."]])
    chat = ChatSession(backend, basic, system_prompt=system_prompt(True), verifier=CalculonMode())
    outcome = await chat.run_turn("How many lines in the log are ERROR lines?")
    shown = backend.requests[1].messages[-1]
    assert shown.role == "tool" and "2 lines contain 'ERROR'" in shown.text
    assert outcome.unbacked == () and outcome.verdict == "verified"
    assert "what echo returned" in outcome.basis  # a lookup: the count is the app's, read from the result


@pytest.mark.anyio
async def test_outside_calculon_mode_a_result_reaches_the_model_as_the_server_wrote_it(basic) -> None:
    read = ToolCallChunk(ToolCall("c1", "echo", {"text": LOG}))
    backend = ScriptedBackend([[read], ["Two."]])
    chat = ChatSession(backend, basic, system_prompt=system_prompt(False))
    await chat.run_turn("How many lines in the log are ERROR lines?")
    assert backend.requests[1].messages[-1].text == f"basic:{LOG}"


def test_a_folders_tree_is_counted_whole_subfolders_included() -> None:
    tree = [
        {"name": "app.py", "type": "file"},
        {"name": "lib", "type": "directory", "children": [
            {"name": "a.py", "type": "file"},
            {"name": "b.txt", "type": "file"},
            {"name": "deep", "type": "directory", "children": [{"name": "c.py", "type": "file"}]},
        ]},
    ]  # fmt: skip
    asked = "How many Python (.py) files are there under /w/src, subfolders included?"
    note = count_note(asked, json.dumps(tree, indent=2))
    assert "this tree holds 4 files and 2 folders, subfolders included; 3 file names end in '.py'." in note


def test_counts_gathered_by_the_question_are_offered_as_one_sum() -> None:
    asked = "How many lines do /w/notes.txt and /w/todo.md have together?"
    notes = "a\nb" + count_note(asked, "a\nb\nc")
    todo = "x" + count_note(asked, "x\ny")
    assert gathered_counts(asked, [notes, todo]) == "3 + 2"
    assert CalculonMode().readings(asked, [notes, todo])[0] == "3 + 2"
    assert gathered_counts(asked, [notes]) == ""  # one count is no sum
    assert gathered_counts("How many lines does /w/notes.txt have?", [notes, todo]) == ""


def test_things_a_result_labels_are_counted_by_their_label_and_come_before_the_lines() -> None:
    log = (
        "Commit history:\nCommit: 'a1b2'\nAuthor: Ana\nMessage: Initial commit\n\n"
        "Commit: 'c3d4'\nAuthor: Ben\nMessage: Fix typo\n"
    )
    asked = "How many commits are in the git repository at /work/repo?"
    note = count_note(asked, log)
    # the header and a message that says "commit" are no commits; the 1.5B model, told only the
    # lines (29 of them), answered 29
    assert "has 2 entries labelled 'Commit:'; 8 lines (7 not empty)." in note
    assert "'at'" not in note
    assert answers_by_count(asked, log)
