"""OAuth 2.1 for remote MCP servers through the SDK's ``OAuthClientProvider``.

The SDK does the protocol: discovery from the server's protected resource metadata and
the authorization server's metadata, dynamic client registration, PKCE, the code
exchange and refreshing. Calculon adds where things live and when a person is involved:

* tokens, their expiry and the client registration are kept in the OS keyring, per
  server URL and per issuer (:mod:`app.mcp.oauth_store`), so a sign-in survives a restart,
  an expired token is refreshed, and a server that moves back to an authorization server
  it used before gets that one's credentials again, refreshed without a consent; in a file
  only where the user opted in to the encrypted one (:mod:`app.token_file`);
* the consent page opens only after the user chose Sign in; until then a server that
  wants a sign-in stops at "unauthorized" instead of opening a browser unasked. Once signed
  in and serving, what the server asks for next continues that sign-in without a second
  click: more scopes on a call (a 403 ``insufficient_scope``: the SDK asks for the union of
  the scopes and retries the request once) or a move to another authorization server;
* the authorization code comes back on a loopback redirect (``http://127.0.0.1:PORT/callback``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
)

from app.mcp import client_credentials
from app.mcp.config import ServerEntry
from app.mcp.oauth_store import IssuerBoundProvider, TokenStore, sign_out, signed_in, token_expiry
from app.mcp.remote import expand_headers

logger = logging.getLogger(__name__)
__all__ = ["CONSENT_TIMEOUT_S", "OAuthSignIn", "sign_out", "signed_in", "token_expiry"]

CONSENT_TIMEOUT_S = 300.0  # how long the browser step may take before the sign-in gives up
_DONE_PAGE = b"<html><body><p>Signed in. You can close this window and return to Calculon.</p></body></html>"


class SignInNeeded(OAuthFlowError):
    """The server wants a sign-in and the user has not asked for one yet."""


def _not_sign_in_needed(record: logging.LogRecord) -> bool:
    """The SDK logs every failed flow with a traceback; a sign-in not yet asked for is no failure:
    the server's state says it (unauthorized, with Sign in)."""
    error = record.exc_info[1] if record.exc_info else None
    return not isinstance(error, SignInNeeded)


logging.getLogger("mcp.client.auth.oauth2").addFilter(_not_sign_in_needed)


class OAuthSignIn:
    """One remote server's OAuth: builds the SDK provider for each connection attempt."""

    def __init__(
        self,
        server_url: str,
        open_browser: Callable[[str], Awaitable[None]],
        client: Mapping[str, Any] | None = None,
    ) -> None:
        self.server_url = server_url
        self.open_browser = open_browser
        self.client = client  # the entry's "oauth": a pre-registered client_id and client_secret
        self.storage = TokenStore(server_url)
        self.allowed = False  # set by Sign in, until that connection attempt is over
        self.live = False  # signed in and serving (set by the connection while it is ready)
        self.failure = ""  # why the last consent came to nothing
        self._machine_tokens = client_credentials.MemoryTokens()  # the client credentials grant's
        self.port = self.storage.registered_port() or _free_port()
        self._loopback: LoopbackRedirect | None = None

    @classmethod
    def for_entry(
        cls, entry: ServerEntry, open_browser: Callable[[str], Awaitable[None]]
    ) -> OAuthSignIn | None:
        """Remote servers sign in with OAuth unless their entry sends credentials itself."""
        if not entry.remote or any(name.lower() == "authorization" for name in entry.headers):
            return None
        client = entry.extra.get("oauth")
        return cls(entry.url, open_browser, client if isinstance(client, Mapping) else None)

    @property
    def machine(self) -> bool:
        """The entry's client gets its token by itself (client credentials): no one signs in."""
        return client_credentials.wanted(self.client)

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}/callback"

    def provider(self) -> OAuthClientProvider:
        if self.machine:  # a machine's own credentials: no browser
            assert self.client is not None
            return client_credentials.provider(self.server_url, self.client, self._machine_tokens)
        metadata = OAuthClientMetadata(
            client_name="Calculon",
            redirect_uris=[self.redirect_uri],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",  # a desktop app keeps no client secret
        )
        self.failure = ""  # a new connection attempt: the last one's failure is history
        provider = IssuerBoundProvider(
            self.server_url,
            metadata,
            self.storage,
            redirect_handler=self._consent,
            callback_handler=self._code,
            # A Client ID Metadata Document the user hosts (an HTTPS URL): the client id where the
            # authorization server says it takes one; elsewhere the SDK registers dynamically.
            client_metadata_url=self._client_field("client_metadata_url"),
        )
        provider.on_failure = self._failed
        self.storage.pre_registered = self._pre_registered()
        # A token stored before a restart: the SDK refreshes it first when this says it expired.
        provider.context.token_expiry_time = self.storage.expires_at()
        return provider

    def _client_field(self, name: str) -> str | None:
        value = self.client.get(name) if self.client is not None else None
        return value if isinstance(value, str) else None

    def _pre_registered(self) -> OAuthClientInformationFull | None:
        """The entry's client, its secret's ``${NAME}`` read from the environment or the keyring
        (raises MissingSecret, worded, when neither has it); basic auth when it has a secret."""
        if self.client is None or not isinstance(self.client.get("client_id"), str):
            return None
        secret = self.client.get("client_secret")
        if isinstance(secret, str):
            secret = expand_headers({"client_secret": secret})["client_secret"]
        return OAuthClientInformationFull(
            client_id=self.client["client_id"],
            client_secret=secret if isinstance(secret, str) else None,
            redirect_uris=[self.redirect_uri],  # type: ignore[list-item]
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="client_secret_basic" if isinstance(secret, str) else "none",
        )

    def track(self, state: str) -> None:
        """The connection's state: a Sign in lasts until its attempt is ready or has failed."""
        self.live = state == "ready"
        if state in ("ready", "unauthorized", "crashed", "failed", "stopped"):
            self.allowed = False

    async def _consent(self, authorization_url: str) -> None:
        # Allowed for the whole attempt: an authorization server that changes during it (its
        # first token already refused) needs a second consent within the same sign-in.
        if not (self.allowed or self.live):
            raise SignInNeeded("the server needs a sign-in")
        if self.live:
            logger.warning(
                "server %s asks to sign in again (more access, or another authorization server); "
                "if no browser opens, open %s",
                self.server_url,
                authorization_url,
            )
        # Listening before the browser opens: the redirect may come back at once.
        self._loopback = loopback = await LoopbackRedirect.listen(self.port)
        try:
            await self.open_browser(authorization_url)
        except BaseException:
            loopback.close()
            self._loopback = None
            raise

    def _failed(self, exc: Exception) -> None:
        """Why the sign-in failed, for the server's state; a sign-in not yet asked for is no failure."""
        if not isinstance(exc, SignInNeeded) and not self.failure:
            self.failure = f"the sign-in failed: {exc or type(exc).__name__}"

    async def _code(self) -> AuthorizationCodeResult:
        loopback, self._loopback = self._loopback, None
        if loopback is None:
            raise OAuthFlowError("the sign-in asked for its code before opening the browser")
        self.failure = ""
        try:
            return await loopback.result(CONSENT_TIMEOUT_S)
        except OAuthFlowError as exc:  # kept for the call it cut short: the SDK only closes the stream
            self.failure = str(exc)
            raise


class LoopbackRedirect:
    """Answers ``GET /callback?code=...&state=...`` on 127.0.0.1 (RFC 8252's loopback redirect)."""

    def __init__(self) -> None:
        self.arrived: asyncio.Future[AuthorizationCodeResult] = asyncio.get_running_loop().create_future()
        self.server: asyncio.Server | None = None

    @classmethod
    async def listen(cls, port: int) -> LoopbackRedirect:
        redirect = cls()
        redirect.server = await asyncio.start_server(redirect._answer, "127.0.0.1", port)
        return redirect

    def close(self) -> None:
        if self.server is not None:
            self.server.close()

    async def result(self, timeout: float) -> AuthorizationCodeResult:
        assert self.server is not None
        async with self.server:
            try:
                return await asyncio.wait_for(self.arrived, timeout)
            except TimeoutError:
                raise OAuthFlowError(f"no sign-in arrived within {timeout:g} s") from None

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.closing(writer):
            request_line = (await reader.readline()).decode("latin-1").split()
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n" + _DONE_PAGE
            )
            await writer.drain()
        query = parse_qs(urlsplit(request_line[1]).query) if len(request_line) > 1 else {}
        first = {key: values[0] for key, values in query.items()}
        if self.arrived.done():
            return
        if "code" in first:
            self.arrived.set_result(
                AuthorizationCodeResult(code=first["code"], state=first.get("state"), iss=first.get("iss"))
            )
        elif "error" in first:  # RFC 6749 4.1.2.1: refused (invalid_scope, access_denied...)
            why = ": ".join(filter(None, (first["error"], first.get("error_description"))))
            self.arrived.set_exception(OAuthFlowError(f"the authorization server refused the sign-in: {why}"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
