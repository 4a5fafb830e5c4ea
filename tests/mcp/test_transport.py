"""The stdio transport with real child processes and the real SDK client."""

from __future__ import annotations

import sys
import time

import anyio
import pytest
from mcp import Client, MCPError

from app.mcp.transport import StdioTransport
from tests.mcp.helpers import SERVERS, alive, wait_until_dead

pytestmark = pytest.mark.anyio


def transport(script: str, **options) -> StdioTransport:
    return StdioTransport([sys.executable, str(SERVERS / script)], **options)


async def test_child_sees_only_safe_variables_and_its_own_env(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "secret-gemini")
    monkeypatch.setenv("GOOGLE_API_KEY", "secret-google")
    monkeypatch.setenv("CALCULON_SOMETHING", "app-only")
    child = transport("basic.py", env={"SERVER_TOKEN": "for-this-server"})
    async with Client(child) as client:
        seen = {}
        for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "CALCULON_SOMETHING", "SERVER_TOKEN", "PATH"):
            result = await client.call_tool("getenv", {"name": name})
            seen[name] = result.content[0].text
    assert seen["GEMINI_API_KEY"] == seen["GOOGLE_API_KEY"] == seen["CALCULON_SOMETHING"] == "<unset>"
    assert seen["SERVER_TOKEN"] == "for-this-server"
    assert seen["PATH"] != "<unset>"


async def test_non_json_stdout_lines_land_in_the_stderr_tail_and_calls_still_work():
    child = transport("noisy.py")
    async with Client(child) as client:
        first = await client.call_tool("shout", {"text": "one"})
        second = await client.call_tool("shout", {"text": "two"})
    assert [first.content[0].text, second.content[0].text] == ["ONE", "TWO"]
    garbage = [line for line in child.stderr_tail if line.startswith("[stdout garbage]")]
    assert garbage == [
        "[stdout garbage] Starting noisy server v1 (this line is not JSON)",
        '[stdout garbage] {"half": "json"}',
        "[stdout garbage] garbage from shout: one",
        "[stdout garbage] garbage from shout: two",
    ]


async def test_child_death_is_noticed_at_once_with_its_exit_code_and_last_words():
    exits: list[int] = []
    child = transport("crashy.py", on_exit=exits.append)
    async with Client(child) as client:
        pid = child.pid
        started = time.monotonic()
        with pytest.raises(MCPError, match="Connection closed"):
            await client.call_tool("crash", {"code": 7})
        assert await child.wait_exited(timeout=5) == 7
        noticed = time.monotonic() - started
    assert noticed < 1.0
    assert exits == [7] and not alive(pid)
    assert "crashy: about to exit with 7" in child.stderr_tail


async def test_stderr_is_also_appended_to_the_log_file(tmp_path):
    log = tmp_path / "logs" / "crashy.log"
    child = transport("crashy.py", log_path=log)
    async with Client(child) as client:
        with pytest.raises(MCPError):
            await client.call_tool("crash", {"code": 4})
        await child.wait_exited(timeout=5)
    text = log.read_text()
    assert f"started pid {child.pid}" in text
    assert "crashy: about to exit with 4" in text and "[process exited with code 4]" in text


async def test_stderr_tail_keeps_only_the_newest_lines():
    child = transport("noisy.py", tail_lines=3)
    async with Client(child) as client:
        for word in ("a", "b", "c", "d"):
            await client.call_tool("shout", {"text": word})
    assert list(child.stderr_tail)[-1] == "[process exited with code 0]"
    assert len(child.stderr_tail) == 3


async def test_leaving_stops_the_whole_process_tree():
    child = transport("basic.py")
    async with Client(child) as client:
        result = await client.call_tool("spawn_helper", {})
        helper = int(result.content[0].text)
        server = child.pid
        assert server is not None and alive(server) and alive(helper)
    assert await wait_until_dead([server, helper]) == []


async def test_server_that_ignores_stdin_closing_is_killed_after_the_grace_period():
    child = transport("stuck.py", grace_s=0.2, kill_after_s=1.0)
    async with Client(child) as client:
        with anyio.move_on_after(0.5):
            await client.call_tool("freeze", {})  # blocks the server's loop: it cannot see stdin close
        pid = child.pid
    assert pid is not None and not alive(pid)
    assert child.returncode is not None and child.returncode < 0  # ended by a signal
