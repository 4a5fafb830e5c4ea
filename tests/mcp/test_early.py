"""Servers' processes started before the SDK is imported, then adopted by their connections."""

from __future__ import annotations

import dataclasses

import pytest

from app.mcp.early import EarlyStarts
from tests.mcp.helpers import script_entry, wait_until_dead

pytestmark = pytest.mark.anyio


async def test_a_process_started_early_is_the_one_its_connection_serves(supervise):
    entry = script_entry("basic", "basic.py")
    early = await EarlyStarts.start([entry])
    [pid] = early.pids.values()
    try:
        supervisor, _ = supervise(entry, early=early)
        await supervisor.start()
        [status] = supervisor.states()
        assert status.state == "ready" and status.pid == pid and early.pids == {}
        assert (await supervisor.call_tool("add", {"a": 2, "b": 3})).text == "5.0"
        await supervisor.aclose()
        assert await wait_until_dead([pid]) == []
    finally:
        await early.aclose()


async def test_processes_no_connection_adopted_are_stopped_and_an_edited_entry_starts_afresh(supervise):
    entry = script_entry("basic", "basic.py")
    early = await EarlyStarts.start([entry, script_entry("other", "basic.py")])
    pids = early.pids
    edited = dataclasses.replace(entry, env={"EDITED": "1"})
    supervisor, _ = supervise(edited, early=early)
    await supervisor.start()
    assert supervisor.states()[0].pid not in pids.values()  # not the process started for the old entry
    await early.aclose()
    assert early.pids == {} and await wait_until_dead(list(pids.values())) == []


async def test_a_command_that_cannot_start_early_is_left_to_its_connection_to_report(supervise):
    missing = dataclasses.replace(script_entry("gone", "basic.py"), command="/nonexistent/server")
    early = await EarlyStarts.start([missing])
    assert early.pids == {}
    supervisor, _ = supervise(missing, early=early)
    await supervisor.start()
    assert supervisor.states()[0].last_error == "server gone: command not found: /nonexistent/server"
