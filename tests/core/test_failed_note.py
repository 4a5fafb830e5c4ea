"""A turn that ends on a failed call says why in its answer, in the error's own words; a turn
whose failed call was followed by one that worked, or that the person declined, does not. The
first answer after a configured server went down names that server and its error, once."""

from __future__ import annotations

import subprocess
import sys

import pytest

from app.core.backend import ToolCallChunk
from app.core.failed_note import (
    DOWN_NOTE,
    FAILED_NOTE,
    UNDONE_NOTE,
    down_note,
    failure_note,
    with_failure_note,
)
from app.core.messages import ToolCall
from app.core.records import CallRecord
from app.core.running import CANCELLED_TEXT
from app.core.session import ChatSession
from app.llm.scripted import ScriptedBackend
from app.mcp.config import ServerEntry
from app.mcp.lifecycle import ServerStatus
from app.mcp.supervisor import Supervisor
from tests.core.files_turn import files_turn
from tests.mcp.helpers import QUICK, EventLog

pytestmark = pytest.mark.anyio
DENIED = "Access denied - path outside allowed directories: /etc/hostname not in /home/me/project"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def call(result: str, *, error: bool) -> CallRecord:
    return CallRecord("filesystem", "read_text_file", {"path": "/etc/hostname"}, result, error, 3.0)


def test_an_answer_after_a_failed_last_call_ends_with_the_errors_first_line() -> None:
    answer = with_failure_note(
        "I'm sorry, but I can't access that file.", [call(DENIED + "\nmore", error=True)]
    )
    first, note = answer.split("\n\n")
    assert first == "I'm sorry, but I can't access that file."
    assert note == f"{FAILED_NOTE} filesystem.read_text_file said `{DENIED}`"


@pytest.mark.parametrize(
    "calls",
    [
        [],
        [call("127.0.0.1 localhost", error=False)],
        [call(DENIED, error=True), call("127.0.0.1 localhost", error=False)],  # fixed afterwards
        [call("Call to read_text_file was not approved: declined", error=True)],  # the person's no
        [call(CANCELLED_TEXT, error=True)],  # the person stopped it
        [call("Not run (no such place was given): path 'path_to_file' is a placeholder", error=True)],
        [call("Arguments do not match the schema of read_text_file: 'path' is required", error=True)],
    ],
)
def test_no_line_where_the_last_call_worked_was_declined_or_was_the_models_mistake(calls) -> None:
    assert failure_note(calls, "Done.") == ""


def test_a_code_fence_the_answer_left_open_is_closed_before_the_line() -> None:
    answer = with_failure_note("Here are the files:\n```\n/home/me/project", [call(DENIED, error=True)])
    assert answer.startswith("Here are the files:\n```\n/home/me/project\n```\n\n" + FAILED_NOTE)
    closed = "Run:\n~~~~\nls\n~~~~"
    assert with_failure_note(closed, [call(DENIED, error=True)]).startswith(closed + "\n\n" + FAILED_NOTE)


def test_a_line_said_again_on_each_restart_is_quoted_once() -> None:
    status = ServerStatus(
        "weather", "failed", last_error="exited; last stderr: no token | no token | no token"
    )
    assert down_note([status], {}) == f"{DOWN_NOTE} weather (failed: `exited; last stderr: no token`)"


def _git(repo, *args: str) -> str:
    run = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)
    return run.stdout


def test_a_commit_refused_over_an_unresolved_merge_is_said_to_be_a_conflict(tmp_path) -> None:
    _git(tmp_path, "init", "-q", "-b", "main")
    _git(tmp_path, "config", "user.email", "a@example.org")
    _git(tmp_path, "config", "user.name", "A")
    notes = tmp_path / "notes.txt"
    notes.write_text("first\n")
    _git(tmp_path, "add", "notes.txt")
    _git(tmp_path, "commit", "-qm", "one")
    _git(tmp_path, "checkout", "-q", "-b", "other")
    notes.write_text("theirs\n")
    _git(tmp_path, "commit", "-qam", "theirs")
    _git(tmp_path, "checkout", "-q", "main")
    notes.write_text("ours\n")
    _git(tmp_path, "commit", "-qam", "ours")
    _git(tmp_path, "merge", "other")  # stops on the conflict
    # what GitPython's commit raises, and the git reference server returns: the entry alone
    entry = _git(tmp_path, "ls-files", "-u").splitlines()[0]
    commit = CallRecord("git", "git_commit", {"repo_path": str(tmp_path)}, entry, True, 3.0)

    note = failure_note([commit], "I'm sorry, but I can't assist with that.")

    assert "notes.txt is at a merge stage, so a merge conflict in it is not resolved" in note
    assert (
        failure_note([call(DENIED, error=True)], "")
        == f"{FAILED_NOTE} filesystem.read_text_file said `{DENIED}`"
    )


def test_no_line_where_the_answer_already_quotes_the_error() -> None:
    assert failure_note([call(DENIED, error=True)], f"The server said: {DENIED.lower()}.") == ""
    zero = CallRecord(
        "calculator",
        "evaluate",
        {"expression": "134 / 0"},
        "division by zero (at '/', character 5)",
        True,
        1.0,
    )
    assert failure_note([zero], "134 ÷ 0 has no value (division by zero).") == ""
    assert failure_note([zero], "I could not work that out.").endswith(
        "`division by zero (at '/', character 5)`"
    )


async def test_a_failed_read_reaches_the_answer_in_the_servers_words(tmp_path) -> None:
    missing = tmp_path / "notes.txt"
    steps = [
        [ToolCallChunk(ToolCall("c1", "read_text", {"path": str(missing)}))],
        *[["I could not read the file."]] * 4,  # however often the app asks again
    ]
    outcome, _ = await files_turn(steps, f"How many lines does {missing} have?", tmp_path, calculator=False)

    assert [c.failed for c in outcome.tool_calls] == [True]
    model_words, note = outcome.answer.split("\n\n")
    assert model_words == "I could not read the file."
    said = outcome.tool_calls[0].result.strip().splitlines()[0]  # the SDK's words for the exception
    assert note == f"{FAILED_NOTE} files.read_text said `{said}`"


def test_the_next_answer_names_each_server_down_and_its_error_once_a_session() -> None:
    states = [
        ServerStatus("filesystem", "failed", last_error="npm error 404 '@x/server-nope' could not be found"),
        ServerStatus("calculator", "ready"),
        ServerStatus("notes", "stopped", last_error="stopped by you"),  # the person's choice
    ]
    told: dict[str, str] = {}
    note = down_note(states, told)
    assert note == f"{DOWN_NOTE} filesystem (failed: `npm error 404 '@x/server-nope' could not be found`)"
    assert down_note(states, told) == ""  # told once
    states[0] = ServerStatus("filesystem", "failed", last_error="npm error ETIMEDOUT")
    assert "ETIMEDOUT" in down_note(states, told)  # failed again, another way: told again


async def test_a_server_that_cannot_start_is_named_under_the_next_answer(tmp_path):
    exits = "import sys; sys.exit('no such package')"
    broken = ServerEntry("files", command=sys.executable, args=("-c", exits))
    servers, log = Supervisor([broken], backoff=QUICK, log_dir=tmp_path), EventLog()
    servers.subscribe(log)
    await servers.start()
    try:
        await log.wait_state("files", "failed")
        chat = ChatSession(ScriptedBackend([["Here are the files: a.txt"], ["Hello!"]]), servers)
        listed = await chat.run_turn("List the files in /home/me/project.")
        again = await chat.run_turn("Hi")
    finally:
        await servers.aclose()

    words, note = listed.answer.split("\n\n")
    assert words == "Here are the files: a.txt"
    assert note.startswith(f"{DOWN_NOTE} files (failed: `") and "no such package" in note
    assert again.answer == "Hello!"  # the same error is not told at every turn


async def test_a_calculation_the_calculator_refused_is_not_asked_for_again(tmp_path) -> None:
    steps = [
        [ToolCallChunk(ToolCall("c1", "evaluate", {"expression": "10 / 0"}))],
        ["Division by zero is undefined, so 10 ÷ 0 has no value."],
        ["10 / 0 = 0"],  # what a model made to calculate again would have said
    ]
    outcome, backend = await files_turn(steps, "What is 10 divided by 0?", tmp_path)

    assert [c.failed for c in outcome.tool_calls] == [True]
    assert len(backend.requests) == 2  # the refusal is the answer's subject: no third step
    assert outcome.answer.startswith("Division by zero is undefined")


def test_a_deed_not_done_names_the_failure_a_later_call_did_not_fix() -> None:
    locked = CallRecord("sqlite", "list_tables", {}, "Database error: database is locked", True, 1.0)
    junk = CallRecord(
        "sqlite", "append_insight", {"insight": "add_insight"}, "Insight added to memo", False, 1.0
    )
    answer = "The list_tables call has been made again."
    assert failure_note([locked, junk], answer, undone=True) == (
        f"{UNDONE_NOTE} sqlite.list_tables said `Database error: database is locked`"
    )
    assert failure_note([locked, junk], answer) == ""  # the deed done (or none asked): the call worked last
    fixed = CallRecord("sqlite", "list_tables", {}, "[{'name': 'products'}]", False, 1.0)
    assert failure_note([locked, fixed, junk], answer, undone=True) == ""  # fixed by a later call
