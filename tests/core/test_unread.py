"""An edit runs only where the text it replaces was read: in a tool result, or quoted by the user."""

from __future__ import annotations

from app.core.unread import nearest_text, unchanged_edit, unread_edit

CONFIG = '{\n  "name": "shop",\n  "port": 8080\n}\n'


def edit(old: str) -> dict[str, object]:
    return {"path": "/w/config.json", "edits": [{"oldText": old, "newText": '"port": 9090'}], "dryRun": False}


def test_an_edit_of_text_no_result_holds_is_refused_with_what_to_do() -> None:
    reason = unread_edit("edit_file", edit("port"), [], "Change the port in /w/config.json to 9090.")
    assert "'port' is in no result of this conversation" in reason
    assert "Read the file first" in reason
    # read, but the text to replace is not the file's
    assert unread_edit("edit_file", edit('"port": 9000'), [CONFIG], "Change the port to 9090.")


def test_an_edit_of_text_read_in_a_result_or_quoted_by_the_user_runs() -> None:
    assert unread_edit("edit_file", edit('"port": 8080'), [CONFIG], "Change the port to 9090.") == ""
    typo = {"path": "a.txt", "old_string": "teh"}
    assert unread_edit("edit", typo, [], "Replace 'teh' with 'the' in a.txt.") == ""


def test_a_call_with_no_text_to_replace_is_no_edit() -> None:
    write = {"path": "/w/a.txt", "content": "hello"}
    assert unread_edit("write_file", write, [], "Write hello to a.txt.") == ""


def test_an_edit_near_text_read_is_told_the_exact_text_read() -> None:
    config = '{\n  "name": "demo",\n  "port": 8080,\n  "debug": false\n}\n'
    edit = {"path": "config.json", "edits": [{"oldText": "port: 8080", "newText": "port: 9090"}]}

    why = unread_edit("edit_file", edit, [config], "Change the port in config.json to 9090.")

    assert "the nearest text read is '\"port\": 8080,'" in why
    # text like nothing read is told to read first, naming no line
    far = {"edits": [{"oldText": "old content", "newText": "new"}]}
    assert "Read the file first" in unread_edit("edit_file", far, [config], "Add my notes.")
    assert "nearest" not in unread_edit("edit_file", far, [config], "Add my notes.")


def test_the_nearest_text_spans_as_many_lines_as_the_edit() -> None:
    read = "# Notes\n- buy milk\n- call mom\n- pay rent\n"
    assert nearest_text("- buy milk\n- call mum", [read]) == "- buy milk\n- call mom"
    assert nearest_text("completely different words", [read]) == ""


def test_an_edit_that_replaces_a_text_with_itself_is_refused_with_how_to_add_a_line() -> None:
    same = {"path": "/w/todo.md", "edits": [{"oldText": "call the plumber", "newText": "call the plumber"}]}
    reason = unchanged_edit("edit_file", same)
    assert "'call the plumber' with the same text, which changes nothing" in reason
    assert "replace a line that is in the file with that line followed by the new one" in reason
    assert unchanged_edit("edit_file", edit('"port": 8080')) == ""
    assert unchanged_edit("write_file", {"path": "/w/a.txt", "content": "hello"}) == ""
