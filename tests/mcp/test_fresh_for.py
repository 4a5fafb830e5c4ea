"""Caching hints (2026-07-28): a list the server says stays fresh (``ttlMs``) is not asked for again
before it runs out, unless the server says the list changed. Against a real SDK server that counts
the list requests it answers (tests/mcp/servers/fresh_for.py)."""

from __future__ import annotations

import json

import pytest

from app.mcp import surface
from app.mcp.changes import ListChanges
from tests.mcp.helpers import script_entry

pytestmark = pytest.mark.anyio


async def _served(supervisor) -> dict[str, int]:
    return json.loads((await supervisor.call_tool("served", {})).text)


@pytest.mark.parametrize("ttl_ms, asked_again", [(60_000, False), (0, True)])
async def test_a_catch_up_listing_asks_the_server_only_once_its_lists_are_stale(
    supervise, ttl_ms, asked_again
):
    supervisor, _ = supervise(script_entry("fresh_for", "fresh_for.py", str(ttl_ms)))
    await supervisor.start()
    await surface.listed(supervisor)
    connection = supervisor.connections["fresh_for"]
    before = await _served(supervisor)
    for what in ("tools", "resources", "prompts"):
        assert await connection._relist(what, fresh=False) is not None  # what a catch-up does
    after = await _served(supervisor)
    changed = {method for method in after if after[method] != before.get(method)}
    expected = {"tools/list", "resources/list", "resources/templates/list", "prompts/list"}
    assert changed == (expected if asked_again else set())


async def test_a_change_notice_asks_the_server_even_while_its_list_is_fresh(supervise):
    supervisor, _ = supervise(script_entry("fresh_for", "fresh_for.py", "60000"))
    await supervisor.start()
    await surface.listed(supervisor)
    before = (await _served(supervisor))["tools/list"]
    await supervisor.connections["fresh_for"]._relist("tools")  # what a tools/list_changed does
    assert (await _served(supervisor))["tools/list"] == before + 1


async def test_catching_up_lists_each_kind_without_forcing_the_server():
    asked: list[tuple[str, bool]] = []

    async def relist(what: str, *, fresh: bool = True) -> None:
        asked.append((what, fresh))

    changes = ListChanges("s", lambda event: None, relist)
    await changes.catch_up(["tools", "prompts"])
    assert asked == [("tools", False), ("prompts", False)]
