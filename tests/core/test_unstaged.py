"""A commit of a file the request names, before anything staged it, is refused with what to do."""

from __future__ import annotations

from app.core.records import CallRecord
from app.core.unstaged import unstaged_commit

ASKED = "Commit draft.txt in the git repository at /w/project with the message 'Add launch draft'."


def call(tool: str, failed: bool = False) -> CallRecord:
    return CallRecord("git", tool, {"repo_path": "/w/project"}, "error" if failed else "ok", failed, 2.0)


def test_a_commit_of_a_named_file_waits_for_a_call_that_staged_it():
    reason = unstaged_commit("git_commit", ASKED, [call("git_status")])
    assert "no call has staged draft.txt yet" in reason
    assert unstaged_commit("git_commit", ASKED, [call("git_add", failed=True)])  # staging that failed
    assert unstaged_commit("git_commit", ASKED, [call("git_status"), call("git_add")]) == ""


def test_a_commit_the_request_says_is_staged_or_names_no_file_is_left_alone():
    assert unstaged_commit("git_commit", "I staged draft.txt already. Commit it.", []) == ""
    assert unstaged_commit("git_commit", "Commit everything in the repository at /w/project.", []) == ""
    assert unstaged_commit("git_add", ASKED, []) == ""  # staging itself
