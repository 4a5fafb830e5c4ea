"""A read of a folder, or of the new file the request asks to write, is answered by the app with
what the request said: the server never sees it. Once a call has made the file, it is read."""

from __future__ import annotations

import pytest

from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.no_file import NO_FILE_NOT_RUN, no_file_read
from app.core.records import CallRecord
from tests.core.files_turn import files_turn

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def listed(path: str, failed: bool = False) -> CallRecord:
    return CallRecord("fs", "list_directory", {"path": path}, "[FILE] a.txt", failed, 2.0)


def test_a_path_the_request_calls_a_folder_or_repository_is_not_read_as_a_file() -> None:
    asked = "I edited notes.txt in the git repository at /w/repo. Commit that change."
    reason = no_file_read("read_text_file", {"path": "/w/repo"}, asked, [])
    assert "/w/repo is a folder, not a file" in reason
    assert no_file_read("read_text_file", {"path": "/w/repo/notes.txt"}, asked, []) == ""
    assert no_file_read("git_status", {"repo_path": "/w/repo"}, asked, []) == ""


def test_a_folder_a_listing_took_is_a_folder_but_not_one_whose_listing_failed() -> None:
    asked = "What is in my docs?"
    assert no_file_read("read_file", {"path": "/w/docs/"}, asked, [listed("/w/docs")])
    assert no_file_read("read_file", {"path": "/w/docs"}, asked, [listed("/w/docs", True)]) == ""


def test_the_new_file_to_write_is_not_read_until_a_call_made_it() -> None:
    asked = "Count the ERROR lines in /w/server.log and save the count in a new file /w/errors.txt."
    reason = no_file_read("read_text_file", {"path": "/w/errors.txt"}, asked, [])
    assert "/w/errors.txt is the new file the request asks for" in reason
    assert no_file_read("read_multiple_files", {"paths": ["/w/server.log", "errors.txt"]}, asked, [])
    assert no_file_read("read_text_file", {"path": "/w/server.log"}, asked, []) == ""
    written = CallRecord("fs", "write_file", {"path": "/w/errors.txt", "content": "3"}, "ok", False, 2.0)
    assert no_file_read("read_text_file", {"path": "/w/errors.txt"}, asked, [written]) == ""


def test_words_that_only_look_alike_leave_a_read_alone() -> None:
    asked = "Create a summary of /w/report.txt, then put it in the folder /w/out."
    assert no_file_read("read_text_file", {"path": "/w/report.txt"}, asked, []) == ""
    assert no_file_read("read_query", {"query": "SELECT 1"}, asked, []) == ""
    assert no_file_read("read_text_file", {"path": "/w/out"}, asked, [])


async def test_a_read_of_the_file_still_to_write_never_reaches_the_server(tmp_path) -> None:
    log, target = tmp_path / "server.log", tmp_path / "errors.txt"
    log.write_text("ERROR a\nINFO b\nERROR c\n", encoding="utf-8")
    steps = [
        [ToolCallChunk(ToolCall("c1", "read_text", {"path": str(log)}))],
        [ToolCallChunk(ToolCall("c2", "read_text", {"path": str(target)}))],
        [ToolCallChunk(ToolCall("c3", "write_text", {"path": str(target), "content": "2"}))],
        [ToolCallChunk(ToolCall("c4", "read_text", {"path": str(target)}))],
        ["Saved: 2 ERROR lines."],
    ]
    asked = f"Count the ERROR lines in {log} and save the count in a new file {target}."
    notices: list[str] = []
    outcome, backend = await files_turn(steps, asked, tmp_path, calculator=False, notices=notices)

    refused = outcome.tool_calls[1]
    assert refused.is_error and refused.result.startswith(NO_FILE_NOT_RUN)
    assert "then write it" in backend.requests[2].messages[-1].text
    assert any("is the new file the request asks for" in n for n in notices)
    assert [c.is_error for c in outcome.tool_calls[2:]] == [False, False]  # written, then read as it is
    assert target.read_text(encoding="utf-8") == "2"
