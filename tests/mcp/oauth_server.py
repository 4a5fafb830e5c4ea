"""A small OAuth 2.1 authorization server built on the SDK's server auth parts, in front of
an ``MCPServer``: the SDK serves the metadata, registration, authorize and token endpoints
and checks bearer tokens; this provider only keeps clients, codes and tokens in memory.

``authorize`` grants at once (the consent a person would give), so the scripted browser
step is: fetch the authorization URL, follow its redirect to the app's loopback address.
"""

from __future__ import annotations

import dataclasses
import functools
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
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from tests.mcp.remote_servers import multiplier


@dataclasses.dataclass
class InMemoryAuthorizationServer:
    clients: dict[str, OAuthClientInformationFull] = dataclasses.field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = dataclasses.field(default_factory=dict)
    access: dict[str, AccessToken] = dataclasses.field(default_factory=dict)
    refresh: dict[str, RefreshToken] = dataclasses.field(default_factory=dict)
    consents: int = 0

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        self.consents += 1
        code = AuthorizationCode(
            code=secrets.token_urlsafe(16),
            scopes=params.scopes or [],
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


def protected_app(provider: InMemoryAuthorizationServer) -> functools.partial[Any]:
    """The MCP server with ``provider`` as its authorization server, built once its address is known."""

    def build(base: str) -> Any:
        auth = AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            client_registration_options=ClientRegistrationOptions(enabled=True),
            validate_token_resource=False,
        )
        return multiplier(auth_server_provider=provider, auth=auth).streamable_http_app()

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
