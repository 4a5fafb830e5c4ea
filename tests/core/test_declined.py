"""A deed the request rules out ("without committing", "do not delete") is not offered."""

from __future__ import annotations

from app.core.declined import changes_things, declined_verbs, only_asks, rules_out
from app.core.tools import ToolInfo


def tool(server: str, name: str) -> ToolInfo:
    return ToolInfo(server, name, name, "", {"type": "object"})


def test_a_deed_the_request_declines_rules_out_the_tools_named_for_it() -> None:
    staged = declined_verbs("Stage config.json in the repository at /w, without committing.")
    assert staged == {"commit"}
    assert rules_out(tool("git", "git_commit"), staged)
    assert not rules_out(tool("git", "git_add"), staged)
    kept = declined_verbs("List the files, but do not delete anything.")
    assert rules_out(tool("fs", "delete_file"), kept) and not rules_out(tool("fs", "list_directory"), kept)
    assert rules_out(tool("git", "git_push"), declined_verbs("Don't push the branch."))
    assert rules_out(tool("fs", "write_file"), declined_verbs("Read it without writing anything."))


def test_a_deed_the_user_says_they_did_is_not_offered_again() -> None:
    # "I edited notes.txt ... Commit that change": the 1.5B model edited the folder, twice
    done = declined_verbs("I edited notes.txt in the git repository at /w. Commit that change.")
    assert rules_out(tool("fs", "edit_file"), done) and not rules_out(tool("git", "git_commit"), done)
    assert rules_out(tool("git", "git_commit"), declined_verbs("I've already committed it; now push it."))
    assert declined_verbs("Add a line to todo.md; I added one yesterday.") == frozenset()  # too short
    assert declined_verbs("I edited notes.txt. Now fix the typo in its first line.") == frozenset()


def test_a_request_that_declines_nothing_rules_nothing_out() -> None:
    for asked in (
        "Commit draft.txt with the message 'Add draft'.",
        "Read the file without any changes.",  # no deed in -ing
        "How many lines do notes.txt and todo.md have together?",
        "Do not go there.",  # too short to name a tool
        "Save in notes.txt that Bob never writes tests.",  # someone else's habit, not the user's wish
        "Bob edited notes.txt. Commit it.",  # someone else's deed: the user's own may still be asked
    ):
        assert declined_verbs(asked) == frozenset(), asked


def test_a_message_that_only_asks_rules_out_the_tools_marked_as_changing_things() -> None:
    commit = ToolInfo("git", "git_commit", "git_commit", "", {"type": "object"}, {"readOnlyHint": False})
    log = ToolInfo("git", "git_log", "git_log", "", {"type": "object"}, {"readOnlyHint": True})
    assert only_asks("How many commits are in the git repository at /w/task1?")
    assert only_asks("What port is set in config.json? Which file sets it?")
    assert changes_things(commit) and not changes_things(log)
    # no hint: the name's verb says it, and "add" sums
    assert changes_things(tool("sqlite", "write_query")) and changes_things(tool("sqlite", "create_table"))
    assert not changes_things(tool("sqlite", "read_query")) and not changes_things(tool("calculator", "add"))


def test_a_request_for_a_deed_does_not_only_ask() -> None:
    for asked in (
        "Commit draft.txt with the message 'Add draft'.",
        "Can you commit draft.txt?",  # a question in form, a request for a deed
        "How many ERROR lines are in server.log? Save the count in errors.txt.",
        "Count the lines of notes.txt",
    ):
        assert not only_asks(asked), asked
