"""An argument that copies its schema's own description is refused before the server sees it;
a value that merely shares words with it runs."""

from __future__ import annotations

import pytest

from app.core.backend import ToolCallChunk
from app.core.described import DESCRIBED_NOT_RUN, described_result, described_value
from app.core.messages import ToolCall
from tests.core.files_turn import files_turn

pytestmark = pytest.mark.anyio

# the sqlite reference server's read_query, as it lists it
READ_QUERY = {
    "type": "object",
    "properties": {"query": {"type": "string", "description": "SELECT SQL query to execute"}},
    "required": ["query"],
}


@pytest.mark.parametrize(
    "value", ["SELECT SQL query to execute", "select sql query to execute.", "  SELECT SQL query to execute "]
)
def test_the_descriptions_own_words_are_refused_naming_the_argument(value) -> None:
    why = described_value({"query": value}, READ_QUERY)
    assert "query" in why and "description" in why
    assert described_result(why).startswith(DESCRIBED_NOT_RUN) and "Write the query" in described_result(why)


@pytest.mark.parametrize(
    ("arguments", "schema"),
    [
        ({"query": "SELECT COUNT(*) FROM products"}, READ_QUERY),
        ({"query": "SELECT SQL query to execute"}, {"type": "object"}),  # nothing described
        ({"query": ""}, {"type": "object", "properties": {"query": {"description": ""}}}),
        ({"limit": 5}, {"type": "object", "properties": {"limit": {"description": "5"}}}),  # not text
    ],
)
def test_a_value_of_its_own_runs(arguments, schema) -> None:
    assert described_value(arguments, schema) == ""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_copied_description_never_reaches_the_server_and_the_model_is_told(tmp_path) -> None:
    steps = [
        [ToolCallChunk(ToolCall("c1", "read_query", {"query": "SELECT SQL query to execute"}))],
        [ToolCallChunk(ToolCall("c2", "read_query", {"query": "SELECT COUNT(*) FROM products"}))],
        ["It ran."],
    ]
    asked = "How many products are in the shop database?"
    outcome, backend = await files_turn(
        steps, asked, tmp_path, server="query", script="query.py", calculator=False
    )

    refused, ran = outcome.tool_calls
    assert refused.is_error and refused.result.startswith(DESCRIBED_NOT_RUN)
    assert "Write the query" in backend.requests[1].messages[-1].text
    assert ran.result == "ran: SELECT COUNT(*) FROM products"


# the git reference server's git_branch, as it lists it (descriptions shortened)
GIT_BRANCH = {
    "type": "object",
    "properties": {
        "repo_path": {"type": "string"},
        "branch_type": {"type": "string", "description": "local, remote or all"},
        "contains": {"type": "string"},
    },
}


@pytest.mark.parametrize(
    ("arguments", "echoed"),
    [
        ({"repo_path": "/tmp/p", "branch_type": "git_branch"}, "branch_type 'git_branch' is the tool's"),
        (
            {"repo_path": "/tmp/p", "branch_type": "local", "contains": "contains"},
            "contains 'contains' is the argument's",
        ),
        (
            {"repo_path": "/tmp/p", "branch_type": ["all", "GIT_BRANCH"]},
            "branch_type 'GIT_BRANCH' is the tool's",
        ),
    ],
)
def test_the_tools_or_the_arguments_own_name_as_a_value_is_refused(arguments, echoed) -> None:
    why = described_value(
        arguments, GIT_BRANCH, "git.git_branch", "Which branches does the repository at /tmp/p have?"
    )
    assert why.startswith(echoed)


def test_a_name_the_user_wrote_runs() -> None:
    said = "Does a branch called git_branch contain the commit abc123 in /tmp/p?"
    arguments = {"repo_path": "/tmp/p", "branch_type": "local", "contains": "git_branch"}
    assert described_value(arguments, GIT_BRANCH, "git_branch", said) == ""


def test_another_tool_of_the_server_as_a_file_is_refused() -> None:
    arguments = {"repo_path": "/tmp/p", "files": ["git_commit", "git_commit_log"]}
    siblings = ["git_status", "git_add", "git_commit", "git_log"]
    why = described_value(arguments, {}, "git.git_add", "Commit the changes in /tmp/p.", siblings)
    assert why == "files 'git_commit' is another tool's name, not a value"
    assert (
        described_value({"files": ["notes.txt"]}, {}, "git_add", "Stage notes.txt in /tmp/p.", siblings) == ""
    )
