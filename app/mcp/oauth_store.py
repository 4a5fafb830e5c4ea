"""Where a remote server's OAuth credentials live: the SDK's ``TokenStorage`` over the keyring
(or the opted-in token file, :func:`app.secrets.store_token`), per server URL, and per issuer.

The current credentials are users ``oauth:URL:tokens``, ``:expires``, ``:client`` (the
client registration, which records the issuer it belongs to) and ``:dpop`` (the DPoP proof key
the tokens are bound to, where the authorization server binds them: :mod:`app.mcp.dpop`).
When the server's authorization server changes and a new registration replaces them, the old
ones are not thrown away but shelved under their issuer (``oauth:URL:issuer:ISSUER:...``,
listed in ``oauth:URL:issuers``), so that a server that names that issuer again gets them back
(:meth:`TokenStore.unshelve`) and their refresh token spares the user a second consent. They
are never sent to another issuer.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncGenerator, Callable
from typing import TypeVar
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.client.auth.utils import issuers_match
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from app import secrets
from app.mcp import dpop

logger = logging.getLogger(__name__)
_Stored = TypeVar("_Stored", OAuthToken, OAuthClientInformationFull)
_PARTS = ("tokens", "expires", "client", "dpop")


class TokenStore:
    """The SDK's ``TokenStorage`` for one server URL."""

    def __init__(self, server_url: str) -> None:
        self.prefix = f"oauth:{server_url}"
        # A client registered beforehand (the entry's "oauth"): used as it is, never stored.
        self.pre_registered: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return _read(f"{self.prefix}:tokens", OAuthToken)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        secrets.store_token(f"{self.prefix}:tokens", tokens.model_dump_json(), "the sign-in token")
        if tokens.expires_in is not None:  # the SDK keeps the expiry in memory only
            expires_at = str(time.time() + tokens.expires_in)
            secrets.store_token(f"{self.prefix}:expires", expires_at, "the sign-in token's expiry")

    def forget_tokens(self) -> None:
        for what in ("tokens", "expires"):
            secrets.delete_token(f"{self.prefix}:{what}", "the sign-in token")

    def expires_at(self) -> float | None:
        """When the stored access token expires (seconds since the epoch), if the server said."""
        try:
            return float(secrets.stored_token(f"{self.prefix}:expires") or "")
        except ValueError:
            return None

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.pre_registered or self.client()

    def proof_key(self) -> str | None:
        return secrets.stored_token(f"{self.prefix}:dpop")

    def keep_proof_key(self, kept: str) -> None:
        secrets.store_token(f"{self.prefix}:dpop", kept, "the DPoP proof key")

    def client(self) -> OAuthClientInformationFull | None:
        return _read(f"{self.prefix}:client", OAuthClientInformationFull)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if self.pre_registered is not None:
            return
        held = self.client()
        if held is not None and held.issuer and held.issuer != client_info.issuer:
            self.shelve()  # another authorization server's registration: keep the old one's apart
        secrets.store_token(f"{self.prefix}:client", client_info.model_dump_json(), "the client registration")

    # --- credentials per issuer ---

    def shelved(self) -> list[str]:
        try:
            listed = json.loads(secrets.stored_token(f"{self.prefix}:issuers") or "[]")
        except ValueError:
            return []
        return [str(issuer) for issuer in listed] if isinstance(listed, list) else []

    def shelve(self) -> None:
        """Keep the current credentials under their issuer (the SDK is about to replace them)."""
        held = self.client()
        if held is None or not held.issuer:
            return
        self._copy(self.prefix, f"{self.prefix}:issuer:{held.issuer}")
        self._list([*(i for i in self.shelved() if i != held.issuer), held.issuer])

    def unshelve(self, advertised: str) -> bool:
        """Make the credentials shelved for the ``advertised`` issuer current (shelving the current
        ones); False when none are kept for it."""
        issuer = next((i for i in self.shelved() if issuers_match(i, advertised)), None)
        if issuer is None:
            return False
        self.shelve()
        self._copy(f"{self.prefix}:issuer:{issuer}", self.prefix)
        self._forget_shelf(issuer)
        return True

    def sign_out(self) -> None:
        for issuer in self.shelved():
            self._forget_shelf(issuer)
        for what in _PARTS:
            secrets.delete_token(f"{self.prefix}:{what}", "the sign-in")
        secrets.delete_token(f"{self.prefix}:issuers", "the sign-in")

    def _copy(self, source: str, target: str) -> None:
        for what in _PARTS:
            value = secrets.stored_token(f"{source}:{what}")
            if value is None:
                secrets.delete_token(f"{target}:{what}", "the sign-in")
            else:
                secrets.store_token(f"{target}:{what}", value, "the sign-in")

    def _forget_shelf(self, issuer: str) -> None:
        for what in _PARTS:
            secrets.delete_token(f"{self.prefix}:issuer:{issuer}:{what}", "the sign-in")
        self._list([i for i in self.shelved() if i != issuer])

    def _list(self, issuers: list[str]) -> None:
        secrets.store_token(f"{self.prefix}:issuers", json.dumps(issuers), "the sign-in")

    def registered_port(self) -> int | None:
        """The loopback port of an earlier registration, so it stays valid for the next sign-in."""
        client = self.client()
        uris = client.redirect_uris if client is not None else None
        return urlsplit(str(uris[0])).port if uris else None


class IssuerBoundProvider(OAuthClientProvider):
    """The SDK's provider, choosing among the authorization servers a server names the one whose
    credentials it holds: the current ones' issuer, else a shelved one's, made current again and
    tried with its refresh token before any browser opens. The SDK's own client credentials
    providers override the same two steps (which server, which token request).

    It also does DPoP where the authorization server offers it (:mod:`app.mcp.dpop`): a proof on
    each token request and on each request that carries a bound token, and one more try of a
    request a server refused for want of its nonce."""

    def __init__(
        self, server_url: str, client_metadata: OAuthClientMetadata, storage: TokenStore, **kwargs: object
    ) -> None:
        super().__init__(server_url, client_metadata, storage, **kwargs)  # type: ignore[arg-type]
        self.store = store = storage
        self._refresh_first = self._refreshing = False
        self.dpop = dpop.Binding(store.proof_key, store.keep_proof_key)
        # Told why a flow failed: the SDK only logs it, and the connection would see a bare 401.
        self.on_failure: Callable[[Exception], None] = lambda _exc: None

    async def _initialize(self) -> None:
        await super()._initialize()
        self.dpop.load()

    def _select_authorization_server(self, advertised: list[str]) -> str:
        if not secrets.tokens_storable() or secrets.token_file_problem():  # before registering
            raise OAuthFlowError(
                "a sign-in could not be kept"
            )  # what could not be kept; the refusal says why
        held = self.context.client_info.issuer if self.context.client_info is not None else None
        if held and (same := [server for server in advertised if issuers_match(server, held)]):
            return same[0]
        for server in advertised:
            if self.store.pre_registered is None and self.store.unshelve(server):
                self.context.client_info = self.store.client()
                self.context.current_tokens = _read(f"{self.store.prefix}:tokens", OAuthToken)
                self.context.token_expiry_time = self.store.expires_at()
                self.dpop.load()
                self._refresh_first = True
                return server
        return advertised[0]

    async def _perform_authorization(self) -> httpx2.Request:
        if self._refresh_first and self.context.can_refresh_token():
            self._refreshing = True
            return await self._refresh_token()
        return await super()._perform_authorization()

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        refreshing, self._refresh_first, self._refreshing = self._refreshing, False, False
        if refreshing and response.status_code != 200:
            # That issuer no longer takes its refresh token: the next attempt asks for consent.
            self.context.clear_tokens()
            self.store.forget_tokens()
        response, bound = await dpop.bound_token_type(response)
        await super()._handle_token_response(response)
        self.dpop.keep(bound)

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        response, bound = await dpop.bound_token_type(response)
        refreshed = await super()._handle_refresh_response(response)
        if refreshed:
            self.dpop.keep(bound)
        return refreshed

    # --- DPoP ---

    def _dpop_wanted(self) -> bool:
        """The authorization server offers DPoP; before its metadata is read (a refresh at start),
        the kept token says whether it did."""
        metadata = self.context.oauth_metadata
        if metadata is None:
            return self.dpop.bound
        return self.dpop.offered_by(str(metadata.issuer))

    async def _exchange_token_authorization_code(self, auth_code: str, code_verifier: str) -> httpx2.Request:
        request = await super()._exchange_token_authorization_code(auth_code, code_verifier)
        if self._dpop_wanted():
            self.dpop.sign(request)
        return request

    async def _refresh_token(self) -> httpx2.Request:
        request = await super()._refresh_token()
        if self._dpop_wanted():
            self.dpop.sign(request)
        return request

    def _add_auth_header(self, request: httpx2.Request) -> None:
        tokens = self.context.current_tokens
        if not (self.dpop.bound and tokens is not None and tokens.access_token):
            request.headers.pop("DPoP", None)
            super()._add_auth_header(request)
            return
        request.headers["Authorization"] = f"DPoP {tokens.access_token}"
        self.dpop.sign(request)

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The SDK's flow, with a request that a server refused for want of a DPoP nonce sent once
        more, with the nonce, before the flow sees the refusal (a 401 would start a sign-in); and why
        the flow failed, told to ``on_failure``."""
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                await self.dpop.read_metadata(response)
                if "DPoP" in outgoing.headers and await self.dpop.wants_again(response):
                    self.dpop.sign(outgoing)
                    response = yield outgoing
                    await self.dpop.wants_again(response)  # a nonce it sends with the answer is kept
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except Exception as exc:
            self.on_failure(exc)
            raise
        finally:
            await flow.aclose()


def _read(user: str, model: type[_Stored]) -> _Stored | None:
    raw = secrets.stored_token(user)
    if raw is None:
        return None
    try:
        return model.model_validate_json(raw)
    except ValueError:  # a damaged entry reads as none: signing in again replaces it
        logger.warning("ignoring an unreadable keyring entry %s", user)
        return None


def signed_in(server_url: str) -> bool:
    """Whether a sign-in's tokens are kept for this server URL."""
    return secrets.stored_token(f"oauth:{server_url}:tokens") is not None


def token_expiry(server_url: str) -> float | None:
    return TokenStore(server_url).expires_at()


def sign_out(server_url: str) -> None:
    """Forget the server's tokens and client registrations (raises SecretStoreError, worded)."""
    TokenStore(server_url).sign_out()
