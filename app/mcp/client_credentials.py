"""A machine's own OAuth credentials: a server entry whose client is a program, not a person,
gets its token without a browser or Sign in. Two grants, each an MCP extension:

* client credentials (``io.modelcontextprotocol/oauth-client-credentials``):
  ``"grant": "client_credentials"``, a ``client_id``, and either ``"client_secret": "${NAME}"``
  (sent with HTTP basic auth, or in the form with ``"token_endpoint_auth_method":
  "client_secret_post"``) or a private key that signs a JWT assertion (RFC 7523 2.2):
  ``"private_key": "${NAME}"`` (the PEM) or ``"private_key_file": PATH``, with
  ``"signing_algorithm"`` (RS256 unless it says);
* workload identity federation (``io.modelcontextprotocol/auth/wif``): ``"grant": "jwt_bearer"``,
  a ``client_id`` and the JWT the workload's platform issued it, which is the grant itself
  (RFC 7523 2.1): ``"assertion": "${NAME}"`` or ``"assertion_file": PATH``, read afresh for each
  token, since platforms rotate that file.

``"issuer"`` pins the authorization server client credentials may be sent to; ``"scope"`` is
what to ask for. ``${NAME}`` comes from the environment or the keyring, like a header's. The
tokens stay in memory, since getting another needs no one. A refused token request is final:
no retry, no other grant.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import httpx2
from mcp import MCPDeprecationWarning
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from app.mcp.remote import expand_headers

GRANT = "client_credentials"
WORKLOAD = "jwt_bearer"


class ClientCredentialsError(ValueError):
    """The entry asks for the client credentials grant but lacks what it needs; worded for the user."""


class MemoryTokens:
    """The SDK's ``TokenStorage`` for one run: nothing is written anywhere."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        return None


def wanted(client: Mapping[str, Any] | None) -> bool:
    return client is not None and client.get("grant") in (GRANT, WORKLOAD)


class WorkloadIdentityProvider(OAuthClientProvider):
    """RFC 7523 2.1 through the SDK's flow: discovery as usual, then the workload's JWT as the grant
    where the authorization code would go (the SDK's client credentials providers do the same)."""

    def __init__(
        self,
        server_url: str,
        storage: MemoryTokens,
        client_id: str,
        assertion: Callable[[], str],
        scope: str | None,
    ) -> None:
        metadata = OAuthClientMetadata(
            redirect_uris=None,
            grant_types=[JWT_BEARER_GRANT_TYPE],
            token_endpoint_auth_method="none",
            scope=scope,
        )
        super().__init__(server_url, metadata, storage)
        self._assertion = assertion
        self._client = OAuthClientInformationFull(
            redirect_uris=None, client_id=client_id, grant_types=[JWT_BEARER_GRANT_TYPE], scope=scope
        )

    async def _initialize(self) -> None:
        self.context.current_tokens = await self.context.storage.get_tokens()
        self.context.client_info = self._client
        self._initialized = True

    async def _perform_authorization(self) -> httpx2.Request:
        data = {"grant_type": JWT_BEARER_GRANT_TYPE, "assertion": self._assertion()}
        data["client_id"] = self._client.client_id or ""
        if self.context.should_include_resource_param(self.context.protocol_version):
            data["resource"] = self.context.get_resource_url()
        if self.context.client_metadata.scope:
            data["scope"] = self.context.client_metadata.scope
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        return httpx2.Request("POST", self._get_token_endpoint(), data=data, headers=headers)


def provider(server_url: str, client: Mapping[str, Any], storage: MemoryTokens) -> OAuthClientProvider:
    """The SDK provider for the entry's client (raises ClientCredentialsError or MissingSecret)."""
    client_id = _text(client, "client_id")
    grant = client.get("grant")
    if client_id is None:
        raise ClientCredentialsError(f'"grant": "{grant}" needs a "client_id" in the entry\'s "oauth"')
    issuer, scope = _text(client, "issuer"), _text(client, "scope")
    if grant == WORKLOAD:
        if _text(client, "assertion_file") is None and _text(client, "assertion") is None:
            raise ClientCredentialsError(
                f'"grant": "{WORKLOAD}" needs an "assertion" or an "assertion_file" in the entry\'s "oauth"'
            )
        return WorkloadIdentityProvider(server_url, storage, client_id, lambda: _assertion(client), scope)
    with warnings.catch_warnings():
        # Without an issuer the SDK warns that the server's metadata picks where the secret goes;
        # the entry's author chose that, and the README says how to pin it.
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        key = _private_key(client)
        if key is not None:
            signer = SignedJWTParameters(
                issuer=client_id,
                subject=client_id,
                signing_key=key,
                signing_algorithm=_text(client, "signing_algorithm") or "RS256",
            )
            assertion = signer.create_assertion_provider()
            return PrivateKeyJWTOAuthProvider(server_url, storage, client_id, assertion, scope, issuer)
        secret = _expanded(client, "client_secret")
        if secret is None:
            raise ClientCredentialsError(
                '"grant": "client_credentials" needs a "client_secret", a "private_key" or a '
                '"private_key_file" in the entry\'s "oauth"'
            )
        post = client.get("token_endpoint_auth_method") == "client_secret_post"
        method: Literal["client_secret_basic", "client_secret_post"] = (
            "client_secret_post" if post else "client_secret_basic"
        )
        return ClientCredentialsOAuthProvider(server_url, storage, client_id, secret, method, scope, issuer)


def _assertion(client: Mapping[str, Any]) -> str:
    if (path := _text(client, "assertion_file")) is not None:
        try:
            return Path(path).expanduser().read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ClientCredentialsError(f"cannot read the assertion file {path}: {exc.strerror}") from None
    return _expanded(client, "assertion") or ""


def _private_key(client: Mapping[str, Any]) -> str | None:
    if (path := _text(client, "private_key_file")) is not None:
        try:
            return Path(path).expanduser().read_text(encoding="utf-8")
        except OSError as exc:
            raise ClientCredentialsError(f"cannot read the private key file {path}: {exc.strerror}") from None
    return _expanded(client, "private_key")


def _expanded(client: Mapping[str, Any], name: str) -> str | None:
    value = _text(client, name)
    return None if value is None else expand_headers({name: value})[name]


def _text(client: Mapping[str, Any], name: str) -> str | None:
    value = client.get(name)
    return value if isinstance(value, str) and value else None
