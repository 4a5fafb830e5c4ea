"""Servers offered from their last listing and started on first use (app.mcp.known)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from app.mcp.known import KnownTools, fingerprint, on_demand
from tests.mcp.helpers import script_entry

pytestmark = pytest.mark.anyio


async def _remembered(supervise, entry, known):
    """Run the server once, as the window or an earlier command would, so its list is kept."""
    supervisor, log = supervise(entry, known=known)
    await supervisor.start()
    await log.wait_state(entry.name, "ready")
    await supervisor.aclose()


async def test_a_remembered_server_is_offered_idle_and_starts_on_its_first_call(supervise, tmp_path):
    entry, known = script_entry("basic", "basic.py"), KnownTools(tmp_path / "known.json")
    await _remembered(supervise, entry, known)
    supervisor, log = supervise(entry, known=KnownTools(known.path), on_demand={"basic"})
    await supervisor.start()
    assert supervisor.states()[0].state == "idle" and supervisor.states()[0].pid is None
    assert "add" in {tool.name for tool in supervisor.list_tools()}
    result = await supervisor.call_tool("add", {"a": 2, "b": 40})
    assert (result.text, result.is_error) == ("42.0", False)
    assert log.states("basic") == ["idle", "starting", "ready"]
    assert supervisor.states()[0].pid is not None


async def test_an_idle_server_that_never_gets_a_call_never_starts(supervise, tmp_path):
    entry, known = script_entry("basic", "basic.py"), KnownTools(tmp_path / "known.json")
    await _remembered(supervise, entry, known)
    supervisor, log = supervise(entry, known=KnownTools(known.path), on_demand={"basic"})
    await supervisor.start()
    await supervisor.aclose()
    assert log.states("basic") == ["idle", "stopped"]


async def test_a_remembered_tool_the_live_server_no_longer_has_is_refused(supervise, tmp_path):
    entry, known = script_entry("basic", "basic.py"), KnownTools(tmp_path / "known.json")
    await _remembered(supervise, entry, known)
    body = json.loads(known.path.read_text())
    (record,) = body.values()
    record["tools"].append({**record["tools"][0], "name": "ghost"})
    known.path.write_text(json.dumps(body))
    supervisor, _ = supervise(entry, known=KnownTools(known.path), on_demand={"basic"})
    await supervisor.start()
    assert supervisor.resolve("ghost") is not None  # offered from the remembered list
    result = await supervisor.call_tool("ghost", {"text": "hi"})
    assert result.is_error and "ghost" in result.text
    assert supervisor.resolve("ghost") is None and supervisor.states()[0].state == "ready"


async def test_a_server_without_a_remembered_list_starts_at_once(supervise, tmp_path):
    entry = script_entry("basic", "basic.py")
    supervisor, log = supervise(entry, known=KnownTools(tmp_path / "known.json"), on_demand={"basic"})
    await supervisor.start()
    assert log.states("basic") == ["starting", "ready"]


def test_a_list_kept_for_another_entry_or_too_old_is_not_used(tmp_path):
    import mcp_types

    entry, known = script_entry("basic", "basic.py"), KnownTools(tmp_path / "known.json")
    tool = mcp_types.Tool(name="echo", input_schema={"type": "object"})
    known.remember(entry, [tool])
    assert KnownTools(known.path).knows(entry)
    edited = dataclasses.replace(entry, env={"MODE": "other"})
    assert fingerprint(edited) != fingerprint(entry) and not KnownTools(known.path).knows(edited)
    body = json.loads(known.path.read_text())
    body[fingerprint(entry)]["saved"] -= 8 * 24 * 3600
    known.path.write_text(json.dumps(body))
    assert not KnownTools(known.path).knows(entry)


def test_two_installs_sharing_the_cache_keep_a_list_each(tmp_path):
    import mcp_types

    here, there = script_entry("basic", "basic.py"), script_entry("basic", "basic.py", "other")
    known = KnownTools(tmp_path / "known.json")
    known.remember(here, [mcp_types.Tool(name="echo", input_schema={"type": "object"})])
    known.remember(there, [mcp_types.Tool(name="add", input_schema={"type": "object"})])
    again = KnownTools(known.path)
    assert [t.name for t in again.recall(here) or ()] == ["echo"]
    assert [t.name for t in again.recall(there) or ()] == ["add"]


def test_an_unreadable_file_means_every_server_starts_at_once(tmp_path):
    path = tmp_path / "known.json"
    path.write_bytes(b"\x00not json")
    entry = script_entry("basic", "basic.py")
    assert on_demand([entry], [], KnownTools(path)) == frozenset()


def test_the_eager_ones_and_remote_ones_are_never_left_for_later(tmp_path):
    import mcp_types

    known = KnownTools(tmp_path / "known.json")
    tool = mcp_types.Tool(name="echo", input_schema={"type": "object"})
    calculator, other = script_entry("calculator", "basic.py"), script_entry("other", "basic.py")
    for entry in (calculator, other):
        known.remember(entry, [tool])
    remote = dataclasses.replace(other, name="far", command="", args=(), url="http://127.0.0.1:9/mcp")
    known.remember(remote, [tool])
    assert on_demand([calculator, other, remote], ["calculator"], KnownTools(known.path)) == {"other"}
