"""Text from servers and models printed by the CLI: escapes and hidden characters shown, not acted on."""

from __future__ import annotations

import json
import re

import pytest

from app import cli
from app.cli.visible import visible, visible_json, visible_line
from tests.mcp.helpers import script_entry

# What must never reach a terminal raw: controls, bidi, zero-width, BOM, tags, lone surrogates.
RAW = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\U000e0000-\U000e007f\ud800-\udfff]"
)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2Jclear", "\\x1b[2Jclear"),
        ("evil\u202etxt.exe", "evil\\u202etxt.exe"),
        ("calcu\u200blator", "calcu\\u200blator"),
        ("bell\x07 del\x7f csi\x9b", "bell\\x07 del\\x7f csi\\x9b"),
        ("back\rover", "back\\rover".replace("\\r", "\\x0d")),
        ("tag\U000e0041", "tag\\U000e0041"),
        ("lone\ud800", "lone\\ud800"),
        ("two\nlines\tand tab, ünïcödé, 漢字, emoji 🎉", "two\nlines\tand tab, ünïcödé, 漢字, emoji 🎉"),
    ],
)
def test_hidden_and_controlling_characters_are_written_as_escapes(text, shown):
    assert visible(text) == shown
    assert not RAW.search(visible(text))


def test_a_one_line_field_shows_its_newlines_and_tabs_too():
    assert visible_line("a\nb\tc") == "a\\x0ab\\x09c"


@pytest.mark.parametrize(
    "text", ["\x1b[2J", "evil\u202etxt", "\x9b31m", "tag\U000e0041", "lone\udc80", "ok é"]
)
def test_json_output_keeps_meaning_the_same_text_and_hides_nothing(text):
    dumped = json.dumps({"name": text}, ensure_ascii=False)
    shown = visible_json(dumped)
    assert json.loads(shown) == {"name": text}
    assert not RAW.search(shown)


@pytest.fixture
def hostile_file(tmp_path):
    path = tmp_path / "servers.json"
    entries = [script_entry("evil", "hostile.py", "names"), script_entry("replies", "hostile.py", "replies")]
    path.write_text(json.dumps({"mcpServers": {e.name: e.to_json() for e in entries}}))
    return path


def test_tools_output_from_a_hostile_server_holds_no_raw_escape(hostile_file, capsys):
    assert cli.run(["--config", str(hostile_file), "tools"]) == 0
    captured = capsys.readouterr()
    assert "\\x1b[31mred\\x1b[0m" in captured.out and "\\u202eesrever" in captured.out
    assert "tool '\\x1b[2J\\x1b]0;pwned\\x07clear' skipped" in captured.err
    assert not RAW.search(captured.out.replace("\n", "")) and not RAW.search(captured.err.replace("\n", ""))


@pytest.mark.parametrize("as_json", [False, True])
def test_a_call_result_with_escapes_is_shown_not_acted_on(hostile_file, capsys, as_json):
    text = "a\x1b[2Jb\u202ec"
    options = ["--json"] if as_json else []
    assert (
        cli.run(["--config", str(hostile_file), "call", "describe", json.dumps({"text": text}), *options])
        == 0
    )
    out = capsys.readouterr().out
    assert not RAW.search(out.replace("\n", ""))
    assert (json.loads(out)["result"] if as_json else out) == (text if as_json else "a\\x1b[2Jb\\u202ec\n")


@pytest.mark.parametrize("tool", ["evil.", ".add", "a b", "evil.\x1b[2J", ""])
def test_call_refuses_a_tool_name_that_names_no_tool(tool, capsys):
    assert cli.run(["call", tool]) == 2
    err = capsys.readouterr().err
    assert err.startswith("calculon: TOOL must be a tool name or SERVER.TOOL, not ") and "\x1b" not in err
