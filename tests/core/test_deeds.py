"""The deed a request opens with, the tools that do it, and whether a call has (app.core.deeds)."""

from __future__ import annotations

from app.core.deeds import asked_deed, deed_tools, undone_deed
from app.core.records import CallRecord
from app.core.tools import ToolInfo


def _tool(name: str, description: str, read_only: bool | None = None) -> ToolInfo:
    hints = {} if read_only is None else {"readOnlyHint": read_only}
    return ToolInfo("s", name, name, description, {"type": "object"}, hints)


WRITE = _tool("write_file", "Create a new file or completely overwrite an existing file.", read_only=False)
FOLDER = _tool("create_directory", "Create a new directory.", read_only=False)
READ = _tool("read_text_file", "Read the complete contents of a file.", read_only=True)
COMMIT = _tool("git_commit", "Records changes to the repository.", read_only=False)


def test_a_request_opens_with_its_deed_and_a_question_has_none() -> None:
    assert asked_deed("Please commit draft.txt with the message 'Add draft'.") == "commit"
    assert asked_deed("How many commits are in the repository?") == ""


def test_the_tools_that_do_a_deed_are_named_after_it_or_say_it_first_and_change_things() -> None:
    tools = [WRITE, FOLDER, READ, COMMIT]
    assert deed_tools("create", tools) == [WRITE, FOLDER]
    assert deed_tools("read", tools) == []  # reading changes nothing: no deed to hold the turn to
    assert deed_tools("count", tools) == []


def test_a_deed_is_undone_until_a_call_of_a_tool_that_does_it_worked() -> None:
    asked = "Create a file /w/shopping.txt listing eggs, flour and sugar."
    read = CallRecord("s", "read_text_file", {"path": "/w/shopping.txt"}, "Error: ENOENT", True, 1.0)
    wrote = CallRecord("s", "write_file", {"path": "/w/shopping.txt"}, "Successfully wrote", False, 1.0)
    tools = [WRITE, FOLDER, READ]
    assert undone_deed(asked, [read], tools) == [WRITE, FOLDER]
    assert undone_deed(asked, [read, wrote], tools) == []
    assert undone_deed(asked, [], tools) == []  # no call yet: the plan and refusal re-asks are for that


def test_only_the_servers_the_turn_called_owe_a_deed() -> None:
    stage = _tool("git_add", "Adds file contents to the staging area.", read_only=False)
    git_add = ToolInfo(
        "git", "git_add", "git_add", stage.description, {"type": "object"}, {"readOnlyHint": False}
    )
    edit = CallRecord("s", "edit_file", {"path": "/w/todo.md"}, "diff ...", False, 1.0)
    assert undone_deed("Add an open item 'call the plumber' to /w/todo.md.", [edit], [git_add, WRITE]) == []


def test_a_change_is_owed_by_the_tool_that_writes_not_by_one_that_creates_a_table() -> None:
    def sqlite(name: str, description: str) -> ToolInfo:
        return ToolInfo("sqlite", name, name, description, {"type": "object"}, {"readOnlyHint": False})

    write = sqlite("write_query", "Execute an INSERT, UPDATE, or DELETE query on the SQLite database")
    create = sqlite("create_table", "Create a new table in the SQLite database")
    made = CallRecord(
        "sqlite", "create_table", {"query": "CREATE TABLE IF NOT EXISTS shop"}, "Table created", False, 1
    )
    updated = CallRecord(
        "sqlite", "write_query", {"query": "UPDATE products SET price = 24.5"}, "1 row", False, 1
    )
    asked = "Change the price of the kettle in the shop database to 24.50."
    assert undone_deed(asked, [made], [write, create]) == [write]
    assert undone_deed(asked, [made, updated], [write, create]) == []
