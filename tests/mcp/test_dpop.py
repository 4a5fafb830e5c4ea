"""DPoP (RFC 9449): the proof JWT checked by an independent implementation (PyJWT, from the
public key the proof carries), and a provider whose bound token goes to a real HTTP server on
127.0.0.1 that asks for a nonce, as the conformance suite's DPoP servers do."""

from __future__ import annotations

import base64
import hashlib
import json
import time

import httpx2
import jwt
import pytest
from mcp.shared.auth import OAuthClientMetadata, OAuthToken
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from app.mcp import dpop
from app.mcp.oauth_store import IssuerBoundProvider, TokenStore
from tests.keyrings import InMemoryKeyringForTests, keyring_backend
from tests.mcp import remote_servers as rs

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def verified(proof: str) -> tuple[dict, dict]:
    """The proof's header and claims, its signature checked with the key in its own header."""
    header = jwt.get_unverified_header(proof)
    key = jwt.PyJWK(header["jwk"], algorithm="ES256")
    return header, jwt.decode(proof, key.key, algorithms=["ES256"])


def sha256_b64(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()


def test_a_proof_names_the_request_without_its_query_and_verifies_with_the_public_key_it_carries():
    key = dpop.ProofKey.generate()
    proof = key.proof("post", "https://as.example.com/token?x=1#part")
    header, claims = verified(proof)
    assert header["typ"] == "dpop+jwt" and header["alg"] == "ES256"
    assert set(header["jwk"]) == {"kty", "crv", "x", "y"}  # the public key only, never "d"
    assert claims["htm"] == "POST" and claims["htu"] == "https://as.example.com/token"
    assert abs(claims["iat"] - time.time()) < 5
    assert "ath" not in claims and "nonce" not in claims
    assert verified(key.proof("POST", "https://as.example.com/token"))[1]["jti"] != claims["jti"]


def test_a_proof_for_a_bound_token_carries_the_tokens_hash_and_the_servers_nonce():
    proof = dpop.ProofKey.generate().proof("GET", "https://rs/mcp", access_token="tok.en", nonce="n-1")
    _, claims = verified(proof)
    assert claims["ath"] == sha256_b64("tok.en") and claims["nonce"] == "n-1"


def test_another_key_does_not_verify_a_proof():
    proof = dpop.ProofKey.generate().proof("POST", "https://rs/mcp")
    other = jwt.PyJWK(dpop.ProofKey.generate().public_jwk(), algorithm="ES256")
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(proof, other.key, algorithms=["ES256"])


def test_the_kept_key_comes_back_the_same_and_a_damaged_entry_reads_as_none():
    kept: dict[str, str] = {}
    binding = dpop.Binding(lambda: kept.get("entry"), lambda value: kept.__setitem__("entry", value))
    binding.sign(httpx2.Request("POST", "https://as/token"))  # the first proof makes and keeps the key
    binding.keep(True)
    again = dpop.Binding(lambda: kept.get("entry"), lambda value: None)
    again.load()
    assert again.bound and again.key is not None and binding.key is not None
    assert again.key.thumbprint() == binding.key.thumbprint()
    kept["entry"] = '{"key": "not a key"}'
    again.load()
    assert again.key is None and not again.bound


async def test_a_token_response_of_type_dpop_is_read_as_bound():
    request = httpx2.Request("POST", "https://as/token")
    body = {"access_token": "a.b.c", "token_type": "DPoP", "expires_in": 60}
    shaped, bound = await dpop.bound_token_type(httpx2.Response(200, json=body, request=request))
    assert bound and OAuthToken.model_validate_json(shaped.content).access_token == "a.b.c"
    plain = httpx2.Response(200, json={**body, "token_type": "Bearer"}, request=request)
    assert await dpop.bound_token_type(plain) == (plain, False)


async def test_a_nonce_refusal_is_recognised_from_either_server_and_any_nonce_is_kept():
    binding = dpop.Binding(lambda: None, lambda value: None)
    token = httpx2.Request("POST", "https://as.example/token")
    refusal = {"error": "use_dpop_nonce"}
    refused = httpx2.Response(400, json=refusal, headers={"DPoP-Nonce": "a1"}, request=token)
    assert await binding.wants_again(refused) and binding.nonces == {"https://as.example": "a1"}
    mcp = httpx2.Request("POST", "https://rs.example:8443/mcp")
    challenge = {"WWW-Authenticate": 'DPoP error="use_dpop_nonce"', "DPoP-Nonce": "r1"}
    assert await binding.wants_again(httpx2.Response(401, headers=challenge, request=mcp))
    assert binding.nonces["https://rs.example:8443"] == "r1"
    assert not await binding.wants_again(httpx2.Response(200, headers={"DPoP-Nonce": "r2"}, request=mcp))
    assert binding.nonces["https://rs.example:8443"] == "r2"  # a new one on a success is used next
    no_nonce = httpx2.Response(401, headers={"WWW-Authenticate": "DPoP"}, request=mcp)
    assert not await binding.wants_again(no_nonce)


class NonceServer:
    """An MCP endpoint that takes a DPoP-bound token only with a fresh proof naming its nonce."""

    NONCE = "server-nonce-1"

    def __init__(self, token: str) -> None:
        self.token = token
        self.seen: list[dict] = []  # each request's verified proof claims
        self.app = Starlette(routes=[Route("/mcp", self.mcp, methods=["POST"])])

    async def mcp(self, request: Request) -> JSONResponse:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        _, claims = verified(request.headers["dpop"])
        self.seen.append(claims)
        assert (scheme, token) == ("DPoP", self.token) and claims["ath"] == sha256_b64(token)
        assert claims["htm"] == "POST" and claims["htu"] == str(request.url)
        if claims.get("nonce") != self.NONCE:
            challenge = {"WWW-Authenticate": 'DPoP error="use_dpop_nonce"', "DPoP-Nonce": self.NONCE}
            return JSONResponse({"error": "use_dpop_nonce"}, status_code=401, headers=challenge)
        return JSONResponse({"ok": True})


async def test_a_bound_token_goes_with_a_proof_and_a_nonce_refusal_is_answered_once_without_a_sign_in():
    server = NonceServer("bound.access.token")
    with keyring_backend(InMemoryKeyringForTests()):
        async with rs.serving(server.app) as base:
            url = f"{base}/mcp"
            store = TokenStore(url)
            await store.set_tokens(OAuthToken(access_token=server.token, expires_in=600))
            kept = dpop.Binding(store.proof_key, store.keep_proof_key)
            kept.sign(httpx2.Request("POST", f"{base}/token"))  # as the sign-in's token request did
            kept.keep(True)

            async def no_sign_in(address: str) -> None:
                raise AssertionError(f"a sign-in was started: {address}")

            metadata = OAuthClientMetadata(redirect_uris=["http://127.0.0.1:9/callback"])  # type: ignore[list-item]
            provider = IssuerBoundProvider(url, metadata, store, redirect_handler=no_sign_in)
            provider.context.token_expiry_time = store.expires_at()
            async with httpx2.AsyncClient(auth=provider) as client:
                first = await client.post(url, json={})
                second = await client.post(url, json={})
        assert json.loads(store.proof_key() or "{}")["bound"] is True  # the key stays kept
    assert first.status_code == second.status_code == 200
    # Refused once for the nonce, sent again with it, and the next request carries it from the start.
    assert [claims.get("nonce") for claims in server.seen] == [None, server.NONCE, server.NONCE]
    assert len({claims["jti"] for claims in server.seen}) == 3
    assert kept.key is not None and provider.dpop.key is not None
    assert provider.dpop.key.thumbprint() == kept.key.thumbprint()


async def test_dpop_is_offered_only_by_metadata_that_lists_es256_which_the_sdks_model_drops():
    binding = dpop.Binding(lambda: None, lambda value: None)
    for issuer, algorithms in (("http://as-a", ["ES256"]), ("http://as-b", ["RS256"]), ("http://as-c", None)):
        where = httpx2.Request("GET", f"{issuer}/.well-known/oauth-authorization-server")
        body = {"issuer": issuer, "dpop_signing_alg_values_supported": algorithms}
        await binding.read_metadata(httpx2.Response(200, json=body, request=where))
    assert binding.offered_by("http://as-a/")  # as the SDK renders a root issuer
    assert not binding.offered_by("http://as-b") and not binding.offered_by("http://as-c")
    elsewhere = httpx2.Request("GET", "http://as-d/somewhere")
    await binding.read_metadata(httpx2.Response(200, json={"issuer": "http://as-d"}, request=elsewhere))
    assert "http://as-d" not in binding.offered
