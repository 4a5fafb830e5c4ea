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
    entry, known = script_entry("basic", "basic.py"), KnownTools(tmp_path / "known")
    await _remembered(supervise, entry, known)
    supervisor, log = supervise(entry, known=KnownTools(known.folder), on_demand={"basic"})
    await supervisor.start()
    assert supervisor.states()[0].state == "idle" and supervisor.states()[0].pid is None
    assert "add" in {tool.name for tool in supervisor.list_tools()}
    result = await supervisor.call_tool("add", {"a": 2, "b": 40})
    assert (result.text, result.is_error) == ("42.0", False)
    assert log.states("basic") == ["idle", "starting", "ready"]
    assert supervisor.states()[0].pid is not None


async def test_an_idle_server_that_never_gets_a_call_never_starts(supervise, tmp_path):
    entry, known = script_entry("basic", "basic.py"), KnownTools(tmp_path / "known")
    await _remembered(supervise, entry, known)
    supervisor, log = supervise(entry, known=KnownTools(known.folder), on_demand={"basic"})
    await supervisor.start()
    await supervisor.aclose()
    assert log.states("basic") == ["idle", "stopped"]


async def test_a_remembered_tool_the_live_server_no_longer_has_is_refused(supervise, tmp_path):
    entry, known = script_entry("basic", "basic.py"), KnownTools(tmp_path / "known")
    await _remembered(supervise, entry, known)
    record = json.loads(known.file_for(entry).read_text())
    record["tools"].append({**record["tools"][0], "name": "ghost"})
    known.file_for(entry).write_text(json.dumps(record))
    supervisor, _ = supervise(entry, known=KnownTools(known.folder), on_demand={"basic"})
    await supervisor.start()
    assert supervisor.resolve("ghost") is not None  # offered from the remembered list
    result = await supervisor.call_tool("ghost", {"text": "hi"})
    assert result.is_error and "ghost" in result.text
    assert supervisor.resolve("ghost") is None and supervisor.states()[0].state == "ready"


async def test_a_server_without_a_remembered_list_starts_at_once(supervise, tmp_path):
    entry = script_entry("basic", "basic.py")
    supervisor, log = supervise(entry, known=KnownTools(tmp_path / "known"), on_demand={"basic"})
    await supervisor.start()
    assert log.states("basic") == ["starting", "ready"]


def test_a_list_kept_for_another_entry_or_too_old_is_not_used(tmp_path):
    import mcp_types

    entry, known = script_entry("basic", "basic.py"), KnownTools(tmp_path / "known")
    tool = mcp_types.Tool(name="echo", input_schema={"type": "object"})
    known.remember(entry, [tool])
    assert KnownTools(known.folder).knows(entry)
    edited = dataclasses.replace(entry, env={"MODE": "other"})
    assert fingerprint(edited) != fingerprint(entry) and not KnownTools(known.folder).knows(edited)
    record = json.loads(known.file_for(entry).read_text())
    record["saved"] -= 8 * 24 * 3600
    known.file_for(entry).write_text(json.dumps(record))
    assert not KnownTools(known.folder).knows(entry)


def test_two_installs_sharing_the_cache_keep_a_list_each(tmp_path):
    import mcp_types

    here, there = script_entry("basic", "basic.py"), script_entry("basic", "basic.py", "other")
    known = KnownTools(tmp_path / "known")
    known.remember(here, [mcp_types.Tool(name="echo", input_schema={"type": "object"})])
    known.remember(there, [mcp_types.Tool(name="add", input_schema={"type": "object"})])
    again = KnownTools(known.folder)
    assert [t.name for t in again.recall(here) or ()] == ["echo"]
    assert [t.name for t in again.recall(there) or ()] == ["add"]


def test_an_unreadable_file_means_every_server_starts_at_once(tmp_path):
    entry, known = script_entry("basic", "basic.py"), KnownTools(tmp_path / "known")
    known.folder.mkdir()
    known.file_for(entry).write_bytes(b"\x00not json")
    assert on_demand([entry], [], KnownTools(known.folder)) == frozenset()


def test_a_list_copied_under_another_servers_name_is_not_used(tmp_path):
    import mcp_types

    here, there = script_entry("basic", "basic.py"), script_entry("basic", "basic.py", "other")
    known = KnownTools(tmp_path / "known")
    known.remember(here, [mcp_types.Tool(name="echo", input_schema={"type": "object"})])
    known.file_for(there).write_bytes(known.file_for(here).read_bytes())  # the file names the key it is for
    assert KnownTools(known.folder).knows(here) and not KnownTools(known.folder).knows(there)


def test_one_servers_list_is_read_without_reading_the_others(tmp_path):
    import mcp_types

    known = KnownTools(tmp_path / "known")
    entries = [dataclasses.replace(script_entry("basic", "basic.py"), env={"N": str(n)}) for n in range(3)]
    for entry in entries:
        known.remember(entry, [mcp_types.Tool(name="echo", input_schema={"type": "object"})])
    for entry in entries[1:]:
        known.file_for(entry).write_bytes(b"\x00damaged")
    assert KnownTools(known.folder).knows(entries[0])


def test_the_one_file_layout_is_removed_once_a_list_is_kept(tmp_path):
    import mcp_types

    legacy = tmp_path / "known-tools.json"
    legacy.write_text("{}")
    known = KnownTools(tmp_path / "known-tools")
    known.remember(
        script_entry("basic", "basic.py"), [mcp_types.Tool(name="echo", input_schema={"type": "object"})]
    )
    assert not legacy.exists()


def test_the_eager_ones_and_remote_ones_are_never_left_for_later(tmp_path):
    import mcp_types

    known = KnownTools(tmp_path / "known")
    tool = mcp_types.Tool(name="echo", input_schema={"type": "object"})
    calculator, other = script_entry("calculator", "basic.py"), script_entry("other", "basic.py")
    for entry in (calculator, other):
        known.remember(entry, [tool])
    remote = dataclasses.replace(other, name="far", command="", args=(), url="http://127.0.0.1:9/mcp")
    known.remember(remote, [tool])
    assert on_demand([calculator, other, remote], ["calculator"], KnownTools(known.folder)) == {"other"}
