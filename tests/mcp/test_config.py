"""The servers file: defaults, validation, editing, import."""

from __future__ import annotations

import json
import sys

import pytest

from app.mcp import config
from app.mcp.config import ConfigError, ServerEntry


def write(path, data) -> None:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")


def test_missing_file_means_the_bundled_servers_under_the_config_dir(isolated_dirs):
    loaded = config.load_config()
    assert loaded.path == isolated_dirs / "config" / "servers.json"
    assert list(loaded.servers) == ["calculator", "converter", "clock"]
    assert all(e.command == "calculon" and e.args == ("serve", e.name) for e in loaded.servers.values())
    assert not loaded.path.exists()


def test_first_save_writes_a_file_the_user_can_edit(isolated_dirs):
    path = config.save_config(config.load_config())
    on_disk = json.loads(path.read_text())
    assert on_disk["mcpServers"]["clock"] == {"command": "calculon", "args": ["serve", "clock"]}
    assert config.load_config().servers == config.default_config().servers


def test_calculon_command_runs_this_python_from_source():
    entry = config.bundled_entry("calculator")
    assert entry.launch_command() == [sys.executable, "-m", "app", "serve", "calculator"]


def test_calculon_command_runs_the_executable_itself_when_frozen(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert config.bundled_entry("clock").launch_command() == [sys.executable, "serve", "clock"]


def test_other_commands_run_as_written():
    entry = ServerEntry("files", command="npx", args=("-y", "server-files"))
    assert entry.launch_command() == ["npx", "-y", "server-files"]


def test_entries_round_trip_with_unknown_keys_and_disabled_kept(tmp_path):
    path = tmp_path / "servers.json"
    body = {
        "mcpServers": {
            "local": {"command": "srv", "args": ["--x"], "env": {"K": "v"}, "cwd": "/tmp"},
            "remote": {"url": "https://example.com/mcp", "disabled": True},
        }
    }
    write(path, body)
    loaded = config.load_config(path)
    assert loaded.servers["local"].env == {"K": "v"}
    assert loaded.servers["remote"].remote and loaded.servers["remote"].disabled
    assert [e.name for e in loaded.enabled()] == ["local"]
    config.save_config(loaded)
    assert json.loads(path.read_text()) == body


def test_bad_json_error_names_the_file_line_and_column(tmp_path):
    path = tmp_path / "servers.json"
    write(path, '{"mcpServers": {\n  "a": {"command": "x",}\n}}')
    with pytest.raises(ConfigError) as caught:
        config.load_config(path)
    assert str(path) in str(caught.value)
    assert "line 2, column" in str(caught.value)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"command": "x", "url": "https://a/mcp"}, 'both "command" and "url"'),
        ({"args": ["x"]}, 'needs a "command"'),
        ({"command": ""}, '"command" must be a non-empty string'),
        ({"command": "x", "args": "--flag"}, '"args" must be a list of strings'),
        ({"command": "x", "env": {"N": 1}}, '"env" must be an object of string values'),
        ({"url": "ftp://a"}, '"url" must be an http(s):// address'),
        ({"command": "x", "disabled": "yes"}, '"disabled" must be true or false'),
        ({"url": "https://a/mcp", "headers": {"X": 1}}, '"headers" must be an object of string values'),
        ({"url": "https://a/sse", "type": "websocket"}, '"type" must be "http", "streamable-http", "sse"'),
        ({"command": "x", "headers": {"X": "y"}}, '"headers" and "type" are for a remote server'),
        ("calc", "must be an object"),
    ],
)
def test_malformed_entry_error_names_file_server_and_problem(tmp_path, body, problem):
    path = tmp_path / "servers.json"
    write(path, {"mcpServers": {"calc": body}})
    with pytest.raises(ConfigError) as caught:
        config.load_config(path)
    message = str(caught.value)
    assert str(path) in message and "'calc'" in message and problem in message


def test_mcp_servers_must_be_an_object(tmp_path):
    path = tmp_path / "servers.json"
    write(path, {"mcpServers": ["calc"]})
    with pytest.raises(ConfigError, match='"mcpServers" must be an object'):
        config.load_config(path)


def test_entries_can_be_added_disabled_and_removed(tmp_path):
    start = config.default_config(tmp_path / "servers.json")
    added = config.add_server(start, ServerEntry("remote", url="https://example.com/mcp"))
    disabled = config.set_enabled(added, "calculator", False)
    removed = config.remove_server(disabled, "clock")
    assert list(removed.servers) == ["calculator", "converter", "remote"]
    assert removed.servers["calculator"].disabled
    assert not config.set_enabled(removed, "calculator", True).servers["calculator"].disabled
    assert list(start.servers) == ["calculator", "converter", "clock"]  # the original is untouched


def test_adding_an_invalid_entry_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="'broken'"):
        config.add_server(config.default_config(tmp_path / "s.json"), ServerEntry("broken", command=" "))


def test_removing_an_unknown_server_names_it(tmp_path):
    with pytest.raises(ConfigError, match="'nope': no such server"):
        config.remove_server(config.default_config(tmp_path / "s.json"), "nope")


def test_claude_desktop_config_is_merged_in(tmp_path):
    source = tmp_path / "claude_desktop_config.json"
    write(
        source,
        {
            "globalShortcut": "Ctrl+Space",
            "mcpServers": {
                "clock": {"command": "uvx", "args": ["mcp-server-time"]},
                "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]},
            },
        },
    )
    merged, names = config.import_claude_desktop(config.default_config(tmp_path / "s.json"), source)
    assert names == ["clock", "fetch"]
    assert list(merged.servers) == ["calculator", "converter", "clock", "fetch"]
    assert merged.servers["clock"].command == "uvx"


def test_importing_a_broken_claude_config_names_that_file(tmp_path):
    source = tmp_path / "claude.json"
    write(source, "{oops")
    with pytest.raises(ConfigError, match=r"claude\.json holds invalid JSON at line 1"):
        config.import_claude_desktop(config.default_config(tmp_path / "s.json"), source)
