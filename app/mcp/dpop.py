"""DPoP (RFC 9449): access tokens bound to a key the client holds, where the authorization server
advertises them (``dpop_signing_alg_values_supported`` naming ES256).

Each remote server gets its own proof key, an EC P-256 key made at its first DPoP token request
and kept with that server's other credentials (``oauth:URL:dpop`` in the keyring, or in the
opted-in token file), so a token bound to it in one process is usable in the next, and a refresh
token, which the authorization server binds to the same key for a public client, still works.
Every token request, and while the access token is bound every request to the MCP server,
carries a fresh proof: a JWT signed with that key, naming the request's method and URI, and
for the MCP server a hash of the token. A server that answers ``use_dpop_nonce`` gets the same
request once more with the nonce it named (RFC 9449 sections 8 and 9); later proofs to that
server carry its latest nonce.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from mcp.client.auth.utils import issuers_match

logger = logging.getLogger(__name__)

ALGORITHM = "ES256"
NONCE_ERROR = "use_dpop_nonce"
_METADATA_PATHS = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")
_COORDINATE = 32  # bytes in a P-256 coordinate, and in each half of an ES256 signature


class ProofKey:
    """An EC P-256 key that signs DPoP proofs."""

    def __init__(self, private: ec.EllipticCurvePrivateKey) -> None:
        self._private = private

    @classmethod
    def generate(cls) -> ProofKey:
        return cls(ec.generate_private_key(ec.SECP256R1()))

    @classmethod
    def from_pem(cls, pem: str) -> ProofKey:
        key = serialization.load_pem_private_key(pem.encode("ascii"), password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
            raise ValueError("a DPoP proof key must be an EC P-256 private key")
        return cls(key)

    def pem(self) -> str:
        return self._private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode("ascii")

    def public_jwk(self) -> dict[str, str]:
        numbers = self._private.public_key().public_numbers()
        x, y = (_b64(n.to_bytes(_COORDINATE, "big")) for n in (numbers.x, numbers.y))
        return {"kty": "EC", "crv": "P-256", "x": x, "y": y}

    def thumbprint(self) -> str:
        """RFC 7638: what the authorization server binds the token to (its ``cnf.jkt``)."""
        jwk = self.public_jwk()
        canonical = json.dumps({name: jwk[name] for name in ("crv", "kty", "x", "y")}, separators=(",", ":"))
        return _b64(hashlib.sha256(canonical.encode("ascii")).digest())

    def proof(
        self, method: str, url: str, *, access_token: str | None = None, nonce: str | None = None
    ) -> str:
        """A proof JWT for one request (RFC 9449 section 4.2), never to be sent twice (its ``jti``)."""
        header = {"typ": "dpop+jwt", "alg": ALGORITHM, "jwk": self.public_jwk()}
        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(24),
            "htm": method.upper(),
            "htu": target_uri(url),
            "iat": int(time.time()),
        }
        if access_token:
            claims["ath"] = _b64(hashlib.sha256(access_token.encode("ascii")).digest())
        if nonce:
            claims["nonce"] = nonce
        signing_input = f"{_b64_json(header)}.{_b64_json(claims)}"
        der = self._private.sign(signing_input.encode("ascii"), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        # JWS wants the two integers side by side (RFC 7518 3.4), not the DER that cryptography gives.
        return f"{signing_input}.{_b64(r.to_bytes(_COORDINATE, 'big') + s.to_bytes(_COORDINATE, 'big'))}"


def target_uri(url: str) -> str:
    """The proof's ``htu``: the request's URI without its query and fragment."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class Binding:
    """One server's DPoP state in this process: its proof key, whether the current access token
    is bound to it, and the nonces its servers supplied. ``load`` and ``save`` read and write
    the kept entry (JSON: the key's PEM and whether the token is bound)."""

    def __init__(self, load: Callable[[], str | None], save: Callable[[str], None]) -> None:
        self._load, self._save = load, save
        self.key: ProofKey | None = None
        self.bound = False
        self.nonces: dict[str, str] = {}  # origin -> the DPoP-Nonce it sent last
        self.offered: dict[str, bool] = {}  # issuer -> whether its metadata offers ES256 proofs

    def load(self) -> None:
        self.key, self.bound = None, False
        raw = self._load()
        if raw is None:
            return
        try:
            kept = json.loads(raw)
            self.key = ProofKey.from_pem(kept["key"])
            self.bound = kept.get("bound") is True
        except (ValueError, TypeError, KeyError):
            # A damaged entry: the next token request makes a new key and the old token, bound to
            # the lost one, is refused, so the user signs in again.
            logger.warning("ignoring an unreadable DPoP proof key; a new one is made at the next sign-in")

    async def read_metadata(self, response: httpx2.Response) -> None:
        """Note what an authorization server's metadata says of DPoP: the SDK's model of it drops
        ``dpop_signing_alg_values_supported``, so it is read here from the response itself."""
        if response.request.method != "GET" or response.status_code != 200:
            return
        if not any(name in response.request.url.path for name in _METADATA_PATHS):
            return
        try:
            body = json.loads(await response.aread())
        except ValueError:
            return
        if isinstance(body, dict) and isinstance(issuer := body.get("issuer"), str):
            algorithms = body.get("dpop_signing_alg_values_supported")
            self.offered[issuer] = isinstance(algorithms, list) and ALGORITHM in algorithms

    def offered_by(self, issuer: str) -> bool:
        return any(offers and issuers_match(known, issuer) for known, offers in self.offered.items())

    def keep(self, bound: bool) -> None:
        """Record whether the token just received is bound to the key (with the key itself)."""
        self.bound = bound
        if self.key is not None:
            self._save(json.dumps({"key": self.key.pem(), "bound": bound}))

    def sign(self, request: httpx2.Request) -> None:
        """Put a fresh proof on the request; for one that carries a DPoP token, with its hash."""
        if self.key is None:
            # Kept before the token request goes out: the token it brings back is bound to this key.
            self.key = ProofKey.generate()
            self.keep(self.bound)
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        request.headers["DPoP"] = self.key.proof(
            request.method,
            str(request.url),
            access_token=token if scheme.lower() == "dpop" else None,
            nonce=self.nonces.get(_origin(request.url)),
        )

    async def wants_again(self, response: httpx2.Response) -> bool:
        """Note a nonce the server sent; True when it refused the request for want of it."""
        nonce = response.headers.get("DPoP-Nonce")
        if not nonce:
            return False
        self.nonces[_origin(response.request.url)] = nonce
        if response.status_code == 401:  # the MCP server (section 9): in WWW-Authenticate
            return NONCE_ERROR in response.headers.get("WWW-Authenticate", "")
        if response.status_code == 400:  # the authorization server (section 8): in the error body
            try:
                return bool(json.loads(await response.aread()).get("error") == NONCE_ERROR)
            except (ValueError, AttributeError):
                return False
        return False


async def bound_token_type(response: httpx2.Response) -> tuple[httpx2.Response, bool]:
    """A token response as the SDK takes it (its model knows only ``Bearer``), and whether the
    token in it is DPoP-bound (``token_type`` DPoP, RFC 9449 section 5)."""
    if response.status_code not in (200, 201):
        return response, False
    try:
        body = json.loads(await response.aread())
    except ValueError:
        return response, False
    if not isinstance(body, dict) or str(body.get("token_type", "")).lower() != "dpop":
        return response, False
    body["token_type"] = "Bearer"
    return httpx2.Response(response.status_code, json=body, request=response.request), True


def _origin(url: httpx2.URL) -> str:
    return f"{url.scheme}://{url.netloc.decode('ascii')}"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64_json(value: dict[str, Any]) -> str:
    return _b64(json.dumps(value, separators=(",", ":")).encode("utf-8"))
