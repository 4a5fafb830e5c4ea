"""A small OAuth 2.1 authorization server built on the SDK's server auth parts, in front of
an ``MCPServer``: the SDK serves the metadata, registration, authorize and token endpoints
and checks bearer tokens; this provider only keeps clients, codes and tokens in memory.

``authorize`` grants at once (the consent a person would give), so the scripted browser
step is: fetch the authorization URL, follow its redirect to the app's loopback address.
With ``call_scope`` the server asks for more on a tool call (a 403 ``insufficient_scope``),
as a server does whose reading tools need less than its writing ones.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import secrets
import time
from typing import Any

import httpx2
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.routes import create_auth_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.responses import JSONResponse

from tests.mcp.remote_servers import multiplier


@dataclasses.dataclass
class InMemoryAuthorizationServer:
    clients: dict[str, OAuthClientInformationFull] = dataclasses.field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = dataclasses.field(default_factory=dict)
    access: dict[str, AccessToken] = dataclasses.field(default_factory=dict)
    refresh: dict[str, RefreshToken] = dataclasses.field(default_factory=dict)
    consents: int = 0
    scopes: list[str] = dataclasses.field(default_factory=list)  # any client may ask for these
    withheld: set[str] = dataclasses.field(default_factory=set)  # asked for, never granted

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        if self.scopes:
            client_info.scope = " ".join(self.scopes)
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.consents += 1
        code = AuthorizationCode(
            code=secrets.token_urlsafe(16),
            scopes=[scope for scope in params.scopes or [] if scope not in self.withheld],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.codes[code.code] = code
        return construct_redirect_uri(str(params.redirect_uri), code=code.code, state=params.state)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> Any:
        return self.codes.get(code)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull, code: Any) -> OAuthToken:
        del self.codes[code.code]
        return self._issue(code.client_id, code.scopes, code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> Any:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: Any, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        return self._issue(refresh_token.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(getattr(token, "token", ""), None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(16), secrets.token_urlsafe(16)
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes, resource=resource)
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=3600, refresh_token=refresh)


def protected_app(provider: InMemoryAuthorizationServer, call_scope: str = "") -> functools.partial[Any]:
    """The MCP server with ``provider`` as its authorization server, built once its address is
    known; every request needs the provider's first scope, a tool call ``call_scope`` too."""

    def build(base: str) -> Any:
        auth = AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=provider.scopes or None
            ),
            required_scopes=provider.scopes[:1] or None,
            validate_token_resource=False,
        )
        app = multiplier(auth_server_provider=provider, auth=auth).streamable_http_app()
        return StepUp(app, provider, call_scope, base) if call_scope else app

    return functools.partial(build)


@dataclasses.dataclass
class StepUp:
    """ASGI in front of the server: a ``tools/call`` whose token lacks ``scope`` is answered 403."""

    app: Any
    provider: InMemoryAuthorizationServer
    scope: str
    base: str
    refused: int = 0

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        messages, body = [], b""
        while True:  # read the whole request, then hand the server the same messages
            message = await receive()
            messages.append(message)
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if self._lacks_scope(scope, body):
            self.refused += 1
            challenge = (
                f'Bearer error="insufficient_scope", scope="{self.scope}", '
                f'resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"'
            )
            headers = [(b"www-authenticate", challenge.encode()), (b"content-length", b"0")]
            await send({"type": "http.response.start", "status": 403, "headers": headers})
            return await send({"type": "http.response.body", "body": b""})
        replay = iter(messages)
        await self.app(scope, lambda: _next(replay, receive), send)

    def _lacks_scope(self, scope: Any, body: bytes) -> bool:
        try:
            method = json.loads(body).get("method")
        except (ValueError, AttributeError):
            return False
        headers = dict(scope["headers"])
        token = headers.get(b"authorization", b"").decode().removeprefix("Bearer ")
        granted = self.provider.access.get(token)
        return method == "tools/call" and granted is not None and self.scope not in granted.scopes


async def _next(replay: Any, receive: Any) -> Any:
    return next(replay, None) or await receive()


def authorization_server(provider: InMemoryAuthorizationServer) -> functools.partial[Any]:
    """``provider`` alone, as an authorization server apart from any resource server."""

    def build(base: str) -> Any:
        options = ClientRegistrationOptions(enabled=True)
        return Starlette(
            routes=create_auth_routes(provider, AnyHttpUrl(base), client_registration_options=options)
        )

    return functools.partial(build)


@dataclasses.dataclass
class MovingResource:
    """An MCP server whose protected resource metadata names one authorization server of several,
    the one at ``current``, and which takes only that one's tokens: a server that moves."""

    servers: dict[str, InMemoryAuthorizationServer]
    current: str

    async def verify_token(self, token: str) -> AccessToken | None:
        return self.servers[self.current].access.get(token)

    def app(self) -> functools.partial[Any]:
        def build(base: str) -> Any:
            auth = AuthSettings(issuer_url=self.current, resource_server_url=None)
            server = multiplier(token_verifier=self, auth=auth)

            @server.custom_route("/.well-known/oauth-protected-resource/mcp", ["GET"])
            async def metadata(_request: Any) -> JSONResponse:
                return JSONResponse(
                    {"resource": f"{base}/mcp", "authorization_servers": [f"{self.current}/"]}
                )

            return server.streamable_http_app()

        return functools.partial(build)


@dataclasses.dataclass
class ScriptedBrowser:
    """Plays the person at the browser: opens the consent URL and follows it back to the app."""

    opened: list[str] = dataclasses.field(default_factory=list)

    async def __call__(self, url: str) -> None:
        self.opened.append(url)
        async with httpx2.AsyncClient() as browser:
            consent = await browser.get(url)
            assert consent.status_code in (302, 303, 307), consent.text
            await browser.get(consent.headers["location"])
