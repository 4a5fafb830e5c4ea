"""Server entries as the edit dialog's text fields, both ways."""

from __future__ import annotations

import pytest

from app.mcp.config import ConfigError, ServerEntry
from app.ui.servers_editor import EntryFields, command_summary, parse_env


def test_an_entry_survives_the_round_trip_through_text_fields():
    entry = ServerEntry("files", command="npx", args=("-y", "@scope/server files"), env={"ROOT": "/tmp/a b"})
    fields = EntryFields.from_entry(entry)
    assert fields.args == "-y '@scope/server files'" and fields.env == "ROOT=/tmp/a b"
    assert fields.to_entry() == entry


def test_roots_are_edited_one_folder_a_line_and_kept_beside_unknown_keys():
    entry = ServerEntry("files", command="npx", extra={"roots": ["/tmp/a", "/srv/b"], "timeout": 5})
    fields = EntryFields.from_entry(entry)
    assert fields.roots == "/tmp/a\n/srv/b"
    fields.roots = "/tmp/c\n\n"
    assert fields.to_entry(dict(entry.extra)).extra == {"roots": ["/tmp/c"], "timeout": 5}
    fields.roots = ""
    assert fields.to_entry(dict(entry.extra)).extra == {"timeout": 5}


def test_a_url_entry_needs_no_command_and_keeps_unknown_keys():
    fields = EntryFields(name="remote", url="https://example.com/mcp", enabled=False)
    entry = fields.to_entry({"timeout": 5})
    assert entry.url == "https://example.com/mcp" and entry.disabled and entry.extra == {"timeout": 5}
    assert command_summary(entry) == "https://example.com/mcp"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        (EntryFields("x", "python", "'unclosed"), "arguments"),
        (EntryFields("x", "python", env="NOEQUALS"), "KEY=VALUE"),
        (EntryFields("x", "", ""), "command"),
        (EntryFields("", "python"), "empty name"),
    ],
)
def test_bad_fields_are_refused_with_a_reason(fields, problem):
    with pytest.raises(ConfigError, match=problem):
        fields.to_entry()


def test_environment_lines_may_hold_equals_signs_and_blank_lines():
    assert parse_env("A=1\n\nB=x=y\n") == {"A": "1", "B": "x=y"}
