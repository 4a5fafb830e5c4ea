"""OAuth's client credentials grant (the ``io.modelcontextprotocol/oauth-client-credentials``
extension): a server entry whose client is a machine, not a person, gets its token without a
browser.

The entry asks for it in its ``"oauth"``: ``"grant": "client_credentials"``, a ``client_id``,
and either ``"client_secret": "${NAME}"`` (sent with HTTP basic auth, or in the form with
``"token_endpoint_auth_method": "client_secret_post"``) or a private key that signs a JWT
assertion (RFC 7523): ``"private_key": "${NAME}"`` (the PEM) or ``"private_key_file": PATH``,
with ``"signing_algorithm"`` (RS256 unless it says). ``"issuer"`` names the authorization
server the credentials belong to, so they are sent nowhere else; ``"scope"`` what to ask for.
``${NAME}`` comes from the environment or the keyring, like a header's. The SDK's providers
do the grant; the tokens stay in memory, since getting another needs no one.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from mcp import MCPDeprecationWarning
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from app.mcp.remote import expand_headers

GRANT = "client_credentials"


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
    return client is not None and client.get("grant") == GRANT


def provider(server_url: str, client: Mapping[str, Any], storage: MemoryTokens) -> OAuthClientProvider:
    """The SDK provider for the entry's client (raises ClientCredentialsError or MissingSecret)."""
    client_id = _text(client, "client_id")
    if client_id is None:
        raise ClientCredentialsError(f'"grant": "{GRANT}" needs a "client_id" in the entry\'s "oauth"')
    issuer, scope = _text(client, "issuer"), _text(client, "scope")
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
