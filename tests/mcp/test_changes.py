"""list_changed and resource updates, from a 2026-07-28 Python server and the reference server."""

from __future__ import annotations

import pytest

from app.core import events as ev
from app.mcp import surface
from tests.everything import everything_entry
from tests.mcp.helpers import script_entry

pytestmark = pytest.mark.anyio


async def test_a_tool_added_at_run_time_is_listed_again_indexed_and_reported(supervise):
    supervisor, log = supervise(script_entry("changing", "changing.py"))
    await supervisor.start()
    await surface.listed(supervisor)  # the change stream opens once the catalog is listed
    assert supervisor.resolve("fresh") is None
    assert (await supervisor.call_tool("grow", {"name": "fresh"})).text == "added fresh"
    changed = await log.wait_for(lambda e: isinstance(e, ev.ServerListChanged) and e.what == "tools")
    assert (changed.server, changed.what, changed.count) == ("changing", "tools", 3)  # type: ignore[attr-defined]
    assert supervisor.resolve("fresh") is not None
    assert (await supervisor.call_tool("fresh", {})).text == "I am fresh"


async def test_a_subscribed_resource_reports_its_updates(supervise):
    supervisor, log = supervise(script_entry("changing", "changing.py"))
    await supervisor.start()
    await surface.subscribe(supervisor, "live://counter")
    await supervisor.call_tool("touch", {"uri": "live://other"})  # not subscribed: not reported
    await supervisor.call_tool("touch", {"uri": "live://counter"})
    updated = await log.wait_for(lambda e: isinstance(e, ev.ResourceUpdated))
    assert (updated.server, updated.uri) == ("changing", "live://counter")  # type: ignore[attr-defined]
    assert [e.uri for e in log.events if isinstance(e, ev.ResourceUpdated)] == ["live://counter"]


async def test_the_reference_servers_tool_list_change_after_start_is_followed(supervise):
    """server-everything registers more tools once initialized, and says so (a handshake-era notice)."""
    supervisor, log = supervise(everything_entry())
    await supervisor.start()
    changed = await log.wait_for(lambda e: isinstance(e, ev.ServerListChanged) and e.what == "tools")
    assert changed.count == len(supervisor.connections["everything"].tools)  # type: ignore[attr-defined]


async def test_a_tool_list_change_before_the_change_stream_opens_is_caught_up_on(supervise):
    """early.py adds a tool right after our first listing, when no stream is open to hear of it."""
    supervisor, log = supervise(script_entry("early", "early.py"))
    await supervisor.start()
    await surface.listed(supervisor)
    assert [t.name for t in supervisor.connections["early"].tools] == ["first", "late"]
    changed = [e for e in log.events if isinstance(e, ev.ServerListChanged) and e.what == "tools"]
    assert [(e.server, e.count) for e in changed] == [("early", 2)]
    assert (await supervisor.call_tool("late", {})).text == "I came late"


async def test_catching_up_when_the_stream_opens_reports_nothing_when_nothing_changed(supervise):
    supervisor, log = supervise(script_entry("changing", "changing.py"))
    await supervisor.start()
    await surface.listed(supervisor)
    assert supervisor.connections["changing"].listening is not None
    assert not [e for e in log.events if isinstance(e, ev.ServerListChanged) and e.what == "tools"]
