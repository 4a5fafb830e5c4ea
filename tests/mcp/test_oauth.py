"""OAuth 2.1 sign-in to a remote MCP server, end to end on 127.0.0.1: discovery, dynamic
registration, PKCE, the browser step (scripted), the loopback redirect, tokens in the keyring."""

from __future__ import annotations

import dataclasses

import anyio
import pytest
from keyring.backends import fail
from mcp.shared.auth import OAuthClientInformationFull

from app import secrets, token_file
from app.mcp.config import ServerEntry
from app.mcp.handlers import server_handlers
from tests.keyrings import InMemoryKeyringForTests, keyring_backend
from tests.mcp import oauth_server as oa
from tests.mcp import remote_servers as rs

pytestmark = pytest.mark.anyio


@pytest.fixture
def keyring_store():
    """The OS keyring's stand-in, in memory: what it holds outlives any one supervisor."""
    backend = InMemoryKeyringForTests()
    with keyring_backend(backend):
        yield backend


def with_browser(browser: oa.ScriptedBrowser):
    def handlers(server, sink):
        return dataclasses.replace(server_handlers(server, sink), open_browser=browser)

    return handlers


async def signed_in_once(supervise, entry: ServerEntry, browser: oa.ScriptedBrowser) -> None:
    """A supervisor that signs in to ``entry`` and closes, as an app run that ends."""
    first, _ = supervise(entry, handlers=with_browser(browser))
    await first.start()
    assert (await first.sign_in(entry.name, timeout=30)).state == "ready"
    await first.aclose()


async def test_sign_in_completes_and_the_token_survives_a_restart(supervise, keyring_store):
    provider, browser = oa.InMemoryAuthorizationServer(), oa.ScriptedBrowser()
    async with rs.serving(oa.protected_app(provider)) as base:
        entry = ServerEntry("hosted", url=f"{base}/mcp")
        first, _ = supervise(entry, handlers=with_browser(browser))
        await first.start()
        (status,) = first.states()
        assert status.state == "unauthorized" and "needs you to sign in" in status.last_error
        assert browser.opened == []  # nothing opens before the user asks

        status = await first.sign_in("hosted", timeout=30)
        assert status.state == "ready", status.last_error
        assert len(browser.opened) == 1 and "code_challenge_method=S256" in browser.opened[0]
        assert (await first.call_tool("multiply", {"a": 12, "b": 7})).text == "84"
        await first.aclose()
        stored = [user for (service, user) in keyring_store.entries if service == secrets.SERVICE]
        assert sorted(stored) == [f"oauth:{base}/mcp:{what}" for what in ("client", "expires", "tokens")]

        second, _ = supervise(entry, handlers=with_browser(browser))  # as after restarting the app
        await second.start()
        assert [s.state for s in second.states()] == ["ready"]
        assert (await second.call_tool("multiply", {"a": 6, "b": 7})).text == "42"
        assert len(browser.opened) == 1 and provider.consents == 1  # no second consent
        await second.aclose()


async def test_an_expired_token_is_refreshed_after_a_restart_without_a_new_consent(supervise, keyring_store):
    provider, browser = oa.InMemoryAuthorizationServer(), oa.ScriptedBrowser()
    async with rs.serving(oa.protected_app(provider)) as base:
        entry = ServerEntry("hosted", url=f"{base}/mcp")
        await signed_in_once(supervise, entry, browser)
        # An hour later: the server forgot the access token, and the stored expiry has passed.
        provider.access.clear()
        keyring_store.entries[(secrets.SERVICE, f"oauth:{base}/mcp:expires")] = "1"  # 1970
        old_refresh = set(provider.refresh)

        second, _ = supervise(entry, handlers=with_browser(browser))
        await second.start()
        assert [s.state for s in second.states()] == ["ready"], second.states()
        assert provider.consents == 1 and set(provider.refresh).isdisjoint(old_refresh)
        await second.aclose()


async def test_a_pre_registered_client_from_the_entry_signs_in_with_its_secret_and_registers_nothing(
    supervise, keyring_store, monkeypatch
):
    provider, browser = oa.InMemoryAuthorizationServer(), oa.ScriptedBrowser()
    monkeypatch.setenv("HOSTED_CLIENT_SECRET", "s3cret")
    async with rs.serving(oa.protected_app(provider)) as base:
        oauth = {"client_id": "calculon-desk", "client_secret": "${HOSTED_CLIENT_SECRET}"}
        entry = ServerEntry("hosted", url=f"{base}/mcp", extra={"oauth": oauth})
        supervisor, _ = supervise(entry, handlers=with_browser(browser))
        await supervisor.start()
        sign_in = supervisor.connections["hosted"].oauth
        assert sign_in is not None
        # Registered with the authorization server beforehand, as its administrator would.
        provider.clients["calculon-desk"] = OAuthClientInformationFull(
            client_id="calculon-desk",
            client_secret="s3cret",
            redirect_uris=[sign_in.redirect_uri],  # type: ignore[list-item]
            token_endpoint_auth_method="client_secret_basic",
        )
        status = await supervisor.sign_in("hosted", timeout=30)
        assert status.state == "ready", status.last_error
        assert (await supervisor.call_tool("multiply", {"a": 3, "b": 5})).text == "15"
        await supervisor.aclose()
    assert list(provider.clients) == ["calculon-desk"] and "client_id=calculon-desk" in browser.opened[0]
    stored = [user for (service, user) in keyring_store.entries if service == secrets.SERVICE]
    assert sorted(stored) == [f"oauth:{base}/mcp:{what}" for what in ("expires", "tokens")]  # no client


async def test_a_client_metadata_url_falls_back_to_registration_where_the_server_does_not_take_one(
    supervise, keyring_store
):
    # The URL-based client id itself is exercised by the conformance suite's auth/basic-cimd.
    provider, browser = oa.InMemoryAuthorizationServer(), oa.ScriptedBrowser()
    async with rs.serving(oa.protected_app(provider)) as base:
        oauth = {"client_metadata_url": "https://calculon.example/oauth/client.json"}
        entry = ServerEntry("hosted", url=f"{base}/mcp", extra={"oauth": oauth})
        supervisor, _ = supervise(entry, handlers=with_browser(browser))
        await supervisor.start()
        assert (await supervisor.sign_in("hosted", timeout=30)).state == "ready"
        await supervisor.aclose()
    (registered,) = provider.clients
    assert not registered.startswith("https://") and f"client_id={registered}" in browser.opened[0]


async def test_a_call_that_needs_more_scope_signs_in_again_for_all_of_them_and_runs_once(
    supervise, keyring_store
):
    provider, browser = oa.InMemoryAuthorizationServer(scopes=["read", "write"]), oa.ScriptedBrowser()
    app = oa.protected_app(provider, call_scope="write")
    async with rs.serving(app) as base:
        supervisor, _ = supervise(ServerEntry("hosted", url=f"{base}/mcp"), handlers=with_browser(browser))
        await supervisor.start()
        assert (await supervisor.sign_in("hosted", timeout=30)).state == "ready"
        assert "scope=read&" in browser.opened[0] or browser.opened[0].endswith("scope=read")

        # Signed in and serving: the 403 continues that sign-in, no second Sign in needed.
        assert (await supervisor.call_tool("multiply", {"a": 6, "b": 7})).text == "42"
        assert provider.consents == 2 and "scope=read+write" in browser.opened[1]
        assert (await supervisor.call_tool("multiply", {"a": 2, "b": 5})).text == "10"
        assert provider.consents == 2  # the wider token is kept
        await supervisor.aclose()


async def test_a_server_that_never_grants_enough_scope_is_asked_once_per_call_not_in_a_loop(
    supervise, keyring_store
):
    # The person at the browser grants "read" only, however often "write" is asked for.
    provider = oa.InMemoryAuthorizationServer(scopes=["read", "write"], withheld={"write"})
    browser = oa.ScriptedBrowser()
    async with rs.serving(oa.protected_app(provider, call_scope="write")) as base:
        supervisor, _ = supervise(ServerEntry("hosted", url=f"{base}/mcp"), handlers=with_browser(browser))
        await supervisor.start()
        assert (await supervisor.sign_in("hosted", timeout=30)).state == "ready"
        result = await supervisor.call_tool("multiply", {"a": 6, "b": 7})
        assert result.is_error and provider.consents == 2  # the sign-in, one step-up, no more
        await supervisor.aclose()


async def test_a_server_needing_a_sign_in_at_start_still_waits_for_sign_in_after_one_was_used(
    supervise, keyring_store
):
    provider, browser = oa.InMemoryAuthorizationServer(), oa.ScriptedBrowser()
    async with rs.serving(oa.protected_app(provider)) as base:
        entry = ServerEntry("hosted", url=f"{base}/mcp")
        await signed_in_once(supervise, entry, browser)
        provider.access.clear()
        provider.refresh.clear()  # revoked: only a new consent can help

        second, _ = supervise(entry, handlers=with_browser(browser))
        await second.start()
        assert [s.state for s in second.states()] == ["unauthorized"]
        assert len(browser.opened) == 1  # the browser opens only when the user signs in again
        await second.aclose()


async def test_an_authorization_server_refusing_the_step_up_fails_the_call_at_once_saying_why(
    supervise, keyring_store
):
    # "write" is no scope this authorization server knows: it redirects back with invalid_scope.
    provider, browser = oa.InMemoryAuthorizationServer(scopes=["read"]), oa.ScriptedBrowser()
    async with rs.serving(oa.protected_app(provider, call_scope="write")) as base:
        supervisor, _ = supervise(ServerEntry("hosted", url=f"{base}/mcp"), handlers=with_browser(browser))
        await supervisor.start()
        assert (await supervisor.sign_in("hosted", timeout=30)).state == "ready"
        with anyio.fail_after(10):  # not the consent timeout's 300 s, nor the call's 30 s
            result = await supervisor.call_tool("multiply", {"a": 6, "b": 7})
        assert result.is_error and len(browser.opened) == 2
        assert "refused the sign-in: invalid_scope" in result.text, result.text
        await supervisor.aclose()


@pytest.mark.parametrize("refresh_kept", [True, False])
async def test_a_server_that_moves_back_to_an_earlier_authorization_server_needs_no_second_consent(
    supervise, keyring_store, refresh_kept
):
    """Unless that server no longer takes its refresh token: then the sign-in is asked for again."""
    first, second, browser = (
        oa.InMemoryAuthorizationServer(),
        oa.InMemoryAuthorizationServer(),
        oa.ScriptedBrowser(),
    )
    async with (
        rs.serving(oa.authorization_server(first)) as at_first,
        rs.serving(oa.authorization_server(second)) as at_second,
    ):
        resource = oa.MovingResource({at_first: first, at_second: second}, current=at_first)
        async with rs.serving(resource.app()) as base:
            supervisor, log = supervise(
                ServerEntry("hosted", url=f"{base}/mcp"), handlers=with_browser(browser)
            )
            await supervisor.start()
            assert (await supervisor.sign_in("hosted", timeout=30)).state == "ready"
            assert (await supervisor.call_tool("multiply", {"a": 6, "b": 7})).text == "42"

            resource.current = at_second  # the first server's tokens are refused from now on
            assert (await supervisor.call_tool("multiply", {"a": 2, "b": 5})).text == "10"
            assert (first.consents, second.consents) == (1, 1)
            assert set(first.clients).isdisjoint(second.clients)  # registered afresh, nothing carried over

            resource.current = at_first  # and back: the first one's refresh token still works there
            if refresh_kept:
                assert (await supervisor.call_tool("multiply", {"a": 3, "b": 3})).text == "9"
                assert (first.consents, second.consents) == (1, 1) and len(browser.opened) == 2
            else:
                first.refresh.clear()
                since = len(log.events)
                assert (await supervisor.call_tool("multiply", {"a": 3, "b": 3})).is_error
                await log.wait_state("hosted", "unauthorized", since=since)  # the refresh refused: sign in
                assert (await supervisor.sign_in("hosted", timeout=30)).state == "ready"
                assert (await supervisor.call_tool("multiply", {"a": 3, "b": 4})).text == "12"
                assert (first.consents, second.consents) == (2, 1) and len(browser.opened) == 3
            await supervisor.aclose()
    stored = {user for (service, user) in keyring_store.entries if service == secrets.SERVICE}
    assert f"oauth:{base}/mcp:issuers" in stored  # the second server's credentials, kept apart


async def test_without_a_keyring_the_server_says_sign_in_cannot_be_kept_and_names_both_fixes(supervise):
    provider, browser = oa.InMemoryAuthorizationServer(), oa.ScriptedBrowser()
    with keyring_backend(fail.Keyring()):
        async with rs.serving(oa.protected_app(provider)) as base:
            entry = ServerEntry("hosted", url=f"{base}/mcp")
            supervisor, _ = supervise(entry, handlers=with_browser(browser))
            await supervisor.start()
            status = await supervisor.sign_in("hosted", timeout=30)  # the window's Sign in, as the CLI's
            await supervisor.aclose()
    assert status.state == "unauthorized" and "no system keyring to keep the sign-in" in status.last_error
    assert "`calculon auth login hosted --token-store file`" in status.last_error
    assert browser.opened == [] and provider.clients == {}  # nothing half-done at the server either


async def test_an_opted_in_token_file_without_its_passphrase_is_named_with_the_variable_to_set(
    supervise, monkeypatch
):
    monkeypatch.setenv(token_file.PASSPHRASE_ENV, "correct horse")
    token_file.TokenFile(token_file.path()).create()  # `auth login --token-store file` ran before
    monkeypatch.delenv(token_file.PASSPHRASE_ENV)
    secrets._files.clear()  # a new run, the passphrase not given to it
    provider, browser = oa.InMemoryAuthorizationServer(), oa.ScriptedBrowser()
    with keyring_backend(fail.Keyring()):
        async with rs.serving(oa.protected_app(provider)) as base:
            supervisor, _ = supervise(
                ServerEntry("hosted", url=f"{base}/mcp"), handlers=with_browser(browser)
            )
            await supervisor.start()
            status = await supervisor.sign_in("hosted", timeout=30)
            await supervisor.aclose()
    assert status.state == "unauthorized" and f"set {token_file.PASSPHRASE_ENV}" in status.last_error
    assert browser.opened == [] and provider.clients == {}


class RefusesRegistration(oa.InMemoryAuthorizationServer):
    """An authorization server that takes no new clients."""

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        from mcp.server.auth.provider import RegistrationError

        raise RegistrationError("invalid_client_metadata", "this server takes no new clients")


async def test_a_sign_in_that_fails_says_why_instead_of_asking_to_sign_in_again(supervise, keyring_store):
    browser = oa.ScriptedBrowser()
    async with rs.serving(oa.protected_app(RefusesRegistration())) as base:
        supervisor, _ = supervise(ServerEntry("hosted", url=f"{base}/mcp"), handlers=with_browser(browser))
        await supervisor.start()
        status = await supervisor.sign_in("hosted", timeout=30)
        assert status.state == "unauthorized"
        assert "this server takes no new clients" in status.last_error, status.last_error
        assert "needs you to sign in" not in status.last_error
        assert "`calculon auth login hosted`" in status.last_error  # what tries again
        assert browser.opened == []  # it failed before any consent
