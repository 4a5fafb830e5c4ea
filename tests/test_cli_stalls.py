"""One bad server never stalls the CLI: ``call`` waits only for the server with the tool, and
``tools``/``servers`` wait at most the start-up wait, reporting slow servers as starting."""

from __future__ import annotations

import json
import time

import pytest

from app import cli
from app.mcp.config import bundled_entry
from app.settings import settings_path
from tests.mcp.helpers import script_entry


@pytest.fixture
def with_hung_server(tmp_path):
    """The bundled calculator beside a server that never answers initialize."""
    entries = [bundled_entry("calculator"), script_entry("hung", "hostile.py", "hung")]
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": {e.name: e.to_json() for e in entries}}))
    return path


def wait_setting(seconds: float) -> None:
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"startup_wait_s": seconds}))


def test_call_add_answers_without_waiting_for_a_hung_server(with_hung_server, capsys):
    wait_setting(60)  # were the call to wait for every server, it would wait this long
    began = time.monotonic()
    assert cli.run(["--config", str(with_hung_server), "call", "add", '{"a": 1, "b": 2}']) == 0
    elapsed = time.monotonic() - began
    assert capsys.readouterr().out == "3\n"
    assert elapsed < 8, elapsed  # start the calculator, call, stop both: about 1.5 s when the machine is idle


@pytest.mark.parametrize("command", ["servers", "tools"])
def test_listings_wait_only_the_start_up_wait_and_call_the_slow_server_starting(
    with_hung_server, capsys, command
):
    wait_setting(5)  # the default
    began = time.monotonic()
    assert cli.run(["--config", str(with_hung_server), command]) == 0
    elapsed = time.monotonic() - began
    captured = capsys.readouterr()
    assert 5 <= elapsed < 15, elapsed  # the hung server's own connect limit is 60 s
    if command == "servers":
        assert [line.split()[:2] for line in captured.out.splitlines()] == [
            ["calculator", "ready"],
            ["hung", "starting"],
        ]
    else:
        assert "add  [calculator]" in captured.out
        assert "calculon: server hung is still starting; its tools are not listed" in captured.err


def test_an_unknown_tool_waits_for_every_server_at_most_the_start_up_wait(with_hung_server, capsys):
    wait_setting(1)
    began = time.monotonic()
    assert cli.run(["--config", str(with_hung_server), "call", "nope"]) == 1
    elapsed = time.monotonic() - began
    assert "unknown tool 'nope'" in capsys.readouterr().err
    assert 1 <= elapsed < 10, elapsed  # the start-up wait, not the hung server's 60 s connect limit
