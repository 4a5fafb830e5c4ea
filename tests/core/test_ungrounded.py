"""A place that cannot be the one meant (a placeholder, a Windows path on this machine, the user's
address with its scheme changed) is answered by the app, naming the nearest place given; the
server never sees it. A place from the conversation, or a new one a model may choose, runs."""

from __future__ import annotations

import sys

import pytest

from app.core.backend import ToolCallChunk
from app.core.messages import ToolCall
from app.core.ungrounded import UNGROUNDED_NOT_RUN, ungrounded_place
from tests.core.files_turn import files_turn

pytestmark = pytest.mark.anyio
ASKED = (
    "Commit the draft in the git repository at /w/project, count the lines of /w/project/notes.txt, and read"
    " http://127.0.0.1:8000/pricing.html."
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize(
    ("tool", "arguments", "said"),
    [
        ("git_commit", {"repo_path": "git_repository_path", "message": "Add"}, "a placeholder"),
        ("git_add", {"repo_path": "git_add", "files": ["draft.txt"]}, "a placeholder"),
        ("git_add", {"repo_path": "git-add", "files": ["draft.txt"]}, "a placeholder"),
        ("search_files", {"path": "path_to_search_files", "pattern": "*.md"}, "a placeholder"),
        ("get_file_info", {"path": "path_to_file_info.csv"}, "a placeholder"),
        ("git_branch", {"repo_path": "https://github.com/someone/project"}, "a web address"),
        # the address given, as a local path: still not a place on this machine
        ("write_file", {"path": "http://127.0.0.1:8000/pricing.html", "content": "2.1.0"}, "a web address"),
        ("fetch", {"url": "https://127.0.0.1:8000/pricing.html"}, "changes the address given"),
        ("fetch", {"url": "http://127.0.0.1:9000/pricing.html"}, "changes the address given"),
        ("fetch", {"url": "https://example.com/api/v2/prices"}, "a name kept for examples"),
        (
            "search_files",
            {"path": "/w/project/notes.txt", "pattern": "*.md"},
            "the folder it is in is '/w/project'",
        ),
        ("directory_tree", {"path": "/w/project/notes.txt"}, "names a file"),
        ("git_add", {"repo_path": "project/prices.csv", "files": ["prices.csv"]}, "names a file"),
        ("list_directory_with_sizes", {"path": "file_path_to_project_file_sizes"}, "a placeholder"),
        ("create_directory", {"path": "/w/project.json"}, "outside every folder given"),
        ("write_file", {"path": "/tmp/summary.txt", "content": "x"}, "outside every folder given"),
        # below a given place, as the built-in wrote them once the grammar held it to one
        ("list_directory", {"path": "/w/project/lisst_directory/lisst_directory"}, "below '/w/project'"),
        ("fetch", {"url": "http://127.0.0.1:8000/fetch"}, "below 'http://127.0.0.1:8000'"),
    ],
)
def test_a_place_that_cannot_be_meant_is_refused_saying_why(tool, arguments, said) -> None:
    reason = ungrounded_place(tool, arguments, [ASKED])
    assert said in reason, reason


@pytest.mark.skipif(sys.platform == "win32", reason="a Windows path is a place there")
def test_a_windows_path_on_this_machine_is_refused_naming_the_place_given() -> None:
    reason = ungrounded_place("read_file", {"path": "c:\\Users\\user\\project\\draft.txt"}, [ASKED])
    assert "a Windows path" in reason and "/w/project" in reason


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("git_commit", {"repo_path": "/w/project", "message": "Add"}),  # as given
        ("write_file", {"path": "/w/project/summary.txt", "content": "x"}),  # a new file in it
        ("write_file", {"path": "new_file.txt", "content": "x"}),  # a name a model chose
        ("fetch", {"url": "http://127.0.0.1:8000/about.html"}),  # another page of the site given
        ("fetch", {"url": "https://www.python.org/downloads/"}),  # an address it knew
        ("search_files", {"path": "/w/project", "pattern": "*.md"}),
        ("read_query", {"query": "SELECT path FROM files"}),  # no place argument
        ("read_text_file", {"path": "/w/project/notes.txt"}),  # a file, read as one
        ("create_directory", {"path": "/w/project/site.old"}),  # a new folder may be named so
        ("list_directory", {"path": "-"}),  # no words at all: nothing to call a placeholder
        ("list_directory", {"path": "/w/project/src/listing"}),  # a folder of its own below the place
        ("search_files", {"path": "/w/project/files", "pattern": "*.md"}),  # one tool word, no place word
        ("create_directory", {"path": "/w/project/new_directory"}),  # a folder made may be named so
    ],
)
def test_a_place_given_or_one_a_model_may_choose_runs(tool, arguments) -> None:
    assert ungrounded_place(tool, arguments, [ASKED]) == ""


def test_a_new_place_is_made_anywhere_inside_a_folder_given_or_anywhere_where_none_was() -> None:
    allowed = "Allowed directories:\n/data/notes"
    assert ungrounded_place("write_file", {"path": "/data/notes/2026/plan.md"}, [ASKED, allowed]) == ""
    assert ungrounded_place("create_directory", {"path": "/w/project/a/b"}, [ASKED]) == ""
    assert ungrounded_place("create_directory", {"path": "/home/me/reports"}, ["Make a reports dir."]) == ""
    named = "Make a folder for the project's notes in /w/project."
    assert ungrounded_place("create_directory", {"path": "project_notes_folder"}, [named]) == ""


def test_a_place_that_stands_in_the_words_or_a_result_runs_whatever_it_looks_like() -> None:
    listing = "[DIR] repo_path\n[FILE] notes.txt"
    assert ungrounded_place("list_directory", {"path": "repo_path"}, ["List my folders.", listing]) == ""
    said = "Read c:\\temp\\notes.txt"
    assert ungrounded_place("read_file", {"path": "c:\\temp\\notes.txt"}, [said]) == ""


async def test_a_placeholder_path_never_reaches_the_server_and_the_model_is_told(tmp_path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("a\nb\n", encoding="utf-8")
    steps = [
        [ToolCallChunk(ToolCall("c1", "read_text", {"path": "path_to_read_text"}))],
        [ToolCallChunk(ToolCall("c2", "read_text", {"path": str(notes)}))],
        ["notes.txt has 2 lines."],
    ]
    notices: list[str] = []
    asked = f"How many lines does {notes} have?"
    outcome, backend = await files_turn(steps, asked, tmp_path, calculator=False, notices=notices)

    refused, read = outcome.tool_calls
    assert refused.is_error and refused.result.startswith(UNGROUNDED_NOT_RUN)
    assert str(notes) in backend.requests[1].messages[-1].text  # the nearest place given, named
    assert any("a placeholder" in n for n in notices)
    assert not read.is_error and "a\nb" in read.result
