"""A commit of a file the request names, before anything staged it, is refused, naming the fix."""

from __future__ import annotations

from app.core.messages import Message, ToolCall
from app.core.records import CallRecord, records_of
from app.core.unstaged import unstaged_commit

ASKED = "Commit draft.txt in the git repository at /w/project with the message 'Add launch draft'."
GIT = [
    ("git_status", "Shows the working tree status"),
    ("git_add", "Adds file contents to the staging area"),
    ("git_commit", "Records changes to the repository"),
    ("git_log", "Shows the commit logs"),
]


def call(tool: str, failed: bool = False) -> CallRecord:
    return CallRecord("git", tool, {"repo_path": "/w/project"}, "error" if failed else "ok", failed, 2.0)


def test_a_commit_of_a_named_file_waits_for_a_call_that_staged_it_and_names_the_tool_that_does():
    reason = unstaged_commit("git_commit", ASKED, [call("git_status")], GIT)
    assert "no call has staged draft.txt yet. Use git_add to stage it first" in reason
    assert unstaged_commit("git_commit", ASKED, [call("git_add", failed=True)], GIT)  # staging that failed
    assert unstaged_commit("git_commit", ASKED, [call("git_status"), call("git_add")], GIT) == ""


def test_a_file_staged_in_an_earlier_message_and_not_committed_since_may_be_committed():
    # "Stage draft.txt", then in the next message "Commit draft.txt ...": staged, though not this turn
    assert unstaged_commit("git_commit", ASKED, [], GIT, earlier=[call("git_status"), call("git_add")]) == ""
    # a commit since took what was staged; a staging that failed staged nothing
    assert unstaged_commit("git_commit", ASKED, [], GIT, earlier=[call("git_add"), call("git_commit")])
    assert unstaged_commit("git_commit", ASKED, [], GIT, earlier=[call("git_add", failed=True)])
    assert (
        unstaged_commit(
            "git_commit", ASKED, [], GIT, earlier=[call("git_add"), call("git_commit", failed=True)]
        )
        == ""
    )


def test_an_earlier_turns_calls_are_read_from_the_conversation_in_order():
    made = [ToolCall("a", "git.git_add", {"files": ["draft.txt"]}), ToolCall("b", "git.git_commit", {})]
    history = [
        Message("user", "Stage draft.txt."),
        Message("assistant", "", (made[0],)),
        Message("tool", "Files staged successfully", tool_call_id="a", tool_name="git_add"),
        Message("assistant", "", (made[1],)),
        Message("tool", "Not run (nothing is staged for it yet): ...", tool_call_id="b", is_error=True),
        Message("assistant", "Staged."),
    ]
    records = records_of(history)
    assert [(r.tool, r.is_error) for r in records] == [("git_add", False), ("git_commit", True)]
    assert unstaged_commit("git_commit", ASKED, [], GIT, earlier=records) == ""


def test_a_commit_the_request_says_is_staged_or_names_no_file_is_left_alone():
    assert unstaged_commit("git_commit", "I staged draft.txt already. Commit it.", [], GIT) == ""
    assert unstaged_commit("git_commit", "Commit everything in the repository at /w/project.", [], GIT) == ""
    assert unstaged_commit("git_add", ASKED, [], GIT) == ""  # staging itself


def test_a_commit_on_a_server_with_no_staging_tool_is_left_to_the_server():
    # a store whose commit takes the files it is given: nothing here could stage them first
    assert (
        unstaged_commit("commit_files", ASKED, [], [("commit_files", "Commit files"), ("list_files", "")])
        == ""
    )
    # "add" names other deeds too: a tool that adds rows stages nothing
    assert (
        unstaged_commit("commit_rows", ASKED, [], [("commit_rows", ""), ("add_row", "Add a row to a table")])
        == ""
    )
