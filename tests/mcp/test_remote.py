"""Remote MCP servers on 127.0.0.1 through the supervisor: Streamable HTTP and legacy SSE,
bearer tokens from ``${NAME}`` headers, and the state a refused or absent server is left in."""

from __future__ import annotations

import anyio
import pytest

from app.core import events as ev
from app.mcp.config import ServerEntry, parse_entry
from app.mcp.flood import PER_SECOND
from app.mcp.remote import MissingSecret, expand_headers
from tests.mcp import remote_servers as rs

pytestmark = pytest.mark.anyio

BEARER = {"Authorization": "Bearer ${REMOTE_TEST_TOKEN}"}


@pytest.fixture
def token(monkeypatch):
    monkeypatch.setenv("REMOTE_TEST_TOKEN", rs.TOKEN)


async def test_a_bearer_protected_server_over_streamable_http_lists_and_calls(supervise, token):
    async with rs.serving(rs.http_app(rs.multiplier(protected=True))) as base:
        supervisor, _ = supervise(ServerEntry("hosted", url=f"{base}/mcp", headers=BEARER))
        await supervisor.start()
        assert [t.name for t in supervisor.list_tools()] == ["multiply"]
        assert (await supervisor.call_tool("multiply", {"a": 12, "b": 7})).text == "84"
        await supervisor.aclose()


async def test_the_same_server_over_legacy_sse_lists_and_calls(supervise, token):
    async with rs.serving(rs.sse_app(rs.multiplier(protected=True))) as base:
        supervisor, _ = supervise(ServerEntry("older", url=f"{base}/sse", headers=BEARER, type="sse"))
        await supervisor.start()
        assert [t.name for t in supervisor.list_tools()] == ["multiply"]
        assert (await supervisor.call_tool("multiply", {"a": 6, "b": 7})).text == "42"
        await supervisor.aclose()


async def test_a_remote_servers_flood_of_notifications_is_cut_to_the_budget_and_the_result_arrives(
    supervise,
):
    sent = 3_000
    async with rs.serving(rs.http_app(rs.chatterbox())) as base:
        supervisor, log = supervise(ServerEntry("chatty", url=f"{base}/mcp"))
        await supervisor.start()
        result = await supervisor.call_tool("chatter", {"n": sent})
        assert not result.is_error and result.text == "done"
        await supervisor.aclose()
    logs = [e for e in log.events if isinstance(e, ev.ServerLog)]
    notes = [e for e in logs if e.logger == "calculon"]
    passed = len(logs) - len(notes)
    dropped = sum(int(e.message.split()[0].replace(",", "")) for e in notes)
    assert passed + dropped == sent and notes, f"{passed} passed, {dropped} dropped"
    assert PER_SECOND <= passed < sent  # within the budget of the second(s) the flood took
    assert notes[0].level == "warning" and "notifications dropped" in notes[0].message


async def test_a_wrong_token_leaves_the_server_down_with_the_reason(supervise, monkeypatch):
    monkeypatch.setenv("REMOTE_TEST_TOKEN", "wrong")
    async with rs.serving(rs.http_app(rs.multiplier(protected=True))) as base:
        supervisor, _ = supervise(ServerEntry("hosted", url=f"{base}/mcp", headers=BEARER))
        await supervisor.start()
        (status,) = supervisor.states()
        assert status.state == "unauthorized", status
        assert "refused the credentials (401 Unauthorized)" in status.last_error
        await supervisor.aclose()


async def test_a_missing_secret_says_where_to_put_it(supervise):
    supervisor, _ = supervise(ServerEntry("hosted", url="http://127.0.0.1:9/mcp", headers=BEARER))
    await supervisor.start()
    (status,) = supervisor.states()
    assert "set the environment variable REMOTE_TEST_TOKEN" in status.last_error


def test_headers_are_filled_from_the_environment_and_saved_as_written(token):
    entry = parse_entry("hosted", {"url": "https://example.com/mcp", "headers": BEARER})
    assert expand_headers(entry.headers) == {"Authorization": f"Bearer {rs.TOKEN}"}
    assert entry.to_json()["headers"] == BEARER  # the placeholder, never the token
    with pytest.raises(MissingSecret):
        expand_headers({"X-Key": "${NOT_SET_ANYWHERE}"})


async def test_a_server_that_goes_away_fails_the_call_clearly_and_is_reconnected_when_back(supervise, token):
    app = rs.http_app(rs.multiplier(protected=True))
    async with rs.serving(app) as base:
        supervisor, log = supervise(ServerEntry("hosted", url=f"{base}/mcp", headers=BEARER))
        await supervisor.start()
    with anyio.fail_after(10):  # one failed reconnect ends the call's wait, not the 30 s tool timeout
        failed = await supervisor.call_tool("multiply", {"a": 2, "b": 3})
    assert failed.is_error and "hosted" in failed.text and "ConnectError" in failed.text, failed.text
    since = len(log.events)
    async with rs.serving(rs.http_app(rs.multiplier(protected=True)), port=int(base.rsplit(":", 1)[1])):
        await log.wait_state("hosted", "ready", since=since, timeout=20)
        assert (await supervisor.call_tool("multiply", {"a": 2, "b": 3})).text == "6"
        await supervisor.aclose()


def test_a_header_secret_not_in_the_environment_comes_from_the_keyring():
    from app import secrets
    from tests.keyrings import InMemoryKeyringForTests, keyring_backend

    store = InMemoryKeyringForTests()
    store.entries[(secrets.SERVICE, "REMOTE_TEST_TOKEN")] = "from-keyring"
    with keyring_backend(store):
        assert expand_headers(BEARER) == {"Authorization": "Bearer from-keyring"}
