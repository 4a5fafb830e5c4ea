"""A machine's own grants: a server entry whose client is a program gets its token with no browser
and no Sign in: client credentials, authenticated with a secret (HTTP basic) or a signed JWT
(RFC 7523 2.2), or the workload's own JWT as the grant (RFC 7523 2.1, workload identity).

The SDK's authorization server has neither grant, so this file serves one beside a real
``MCPServer``: its metadata and a token endpoint that checks what the client sends."""

from __future__ import annotations

import base64
import dataclasses
import functools
import secrets
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from starlette.requests import Request
from starlette.responses import JSONResponse

from app.mcp.config import ServerEntry
from tests.mcp import remote_servers as rs

pytestmark = pytest.mark.anyio
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


@dataclasses.dataclass
class MachineTokens:
    """A token endpoint for the client credentials grant, and the verifier of what it issues."""

    client_id: str
    secret: str = ""
    public_key: Any = None  # for a JWT assertion instead of a secret
    workload_jwt: str = ""  # the grant itself, for the jwt-bearer grant
    issued: set[str] = dataclasses.field(default_factory=set)
    requests: list[dict[str, str]] = dataclasses.field(default_factory=list)

    async def verify_token(self, token: str) -> AccessToken | None:
        return AccessToken(token=token, client_id=self.client_id, scopes=[]) if token in self.issued else None

    def app(self) -> functools.partial[Any]:
        def build(base: str) -> Any:
            auth = AuthSettings(
                issuer_url=base, resource_server_url=f"{base}/mcp", validate_token_resource=False
            )
            server = rs.multiplier(token_verifier=self, auth=auth)
            metadata = {
                "issuer": base,
                "authorization_endpoint": f"{base}/authorize",
                "token_endpoint": f"{base}/token",
                "grant_types_supported": ["client_credentials"],
                "response_types_supported": ["code"],
            }
            server.custom_route("/.well-known/oauth-authorization-server", ["GET"])(
                lambda _request: _json(metadata)
            )
            server.custom_route("/token", ["POST"])(functools.partial(self.token, base))
            return server.streamable_http_app()

        return functools.partial(build)

    async def token(self, base: str, request: Request) -> JSONResponse:
        form = {key: str(value) for key, value in (await request.form()).items()}
        self.requests.append(form)
        if self.workload_jwt:
            if form.get("grant_type") != JWT_BEARER or form.get("assertion") != self.workload_jwt:
                return JSONResponse({"error": "invalid_grant"}, status_code=400)
        elif form.get("grant_type") != "client_credentials" or not self._authenticated(base, request, form):
            return JSONResponse({"error": "invalid_client"}, status_code=401)
        token = secrets.token_urlsafe(16)
        self.issued.add(token)
        return JSONResponse({"access_token": token, "token_type": "Bearer", "expires_in": 3600})

    def _authenticated(self, base: str, request: Request, form: dict[str, str]) -> bool:
        if self.public_key is not None:
            assertion, audience = form.get("client_assertion", ""), [base, f"{base}/"]
            claims = jwt.decode(assertion, self.public_key, algorithms=["ES256"], audience=audience)
            return claims["iss"] == claims["sub"] == self.client_id
        expected = base64.b64encode(f"{self.client_id}:{self.secret}".encode()).decode()
        return request.headers.get("authorization") == f"Basic {expected}"


def _json(data: dict[str, Any]) -> JSONResponse:
    return JSONResponse(data)


async def test_a_client_secret_gets_the_token_with_no_browser_and_no_sign_in(supervise, monkeypatch):
    monkeypatch.setenv("ROBOT_SECRET", "s3cret")
    machine = MachineTokens("robot", secret="s3cret")
    async with rs.serving(machine.app()) as base:
        oauth = {"grant": "client_credentials", "client_id": "robot", "client_secret": "${ROBOT_SECRET}"}
        supervisor, _ = supervise(ServerEntry("hosted", url=f"{base}/mcp", extra={"oauth": oauth}))
        await supervisor.start()  # no open_browser is ever called: the default would open one
        assert [s.state for s in supervisor.states()] == ["ready"], supervisor.states()
        assert (await supervisor.call_tool("multiply", {"a": 6, "b": 7})).text == "42"
        await supervisor.aclose()
    assert [form["grant_type"] for form in machine.requests] == ["client_credentials"]
    assert "client_secret" not in machine.requests[0]  # basic auth: the secret is in the header only


async def test_a_private_key_signs_the_assertion_instead_of_a_secret(supervise, tmp_path):
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    (tmp_path / "robot.pem").write_bytes(pem)
    machine = MachineTokens("robot", public_key=key.public_key())
    async with rs.serving(machine.app()) as base:
        oauth = {
            "grant": "client_credentials",
            "client_id": "robot",
            "private_key_file": str(tmp_path / "robot.pem"),
            "signing_algorithm": "ES256",
        }
        supervisor, _ = supervise(ServerEntry("hosted", url=f"{base}/mcp", extra={"oauth": oauth}))
        await supervisor.start()
        assert (await supervisor.call_tool("multiply", {"a": 3, "b": 5})).text == "15"
        await supervisor.aclose()
    (form,) = machine.requests
    assert form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


async def test_a_wrong_secret_leaves_the_server_unauthorized_saying_so(supervise, monkeypatch):
    monkeypatch.setenv("ROBOT_SECRET", "not it")
    machine = MachineTokens("robot", secret="s3cret")
    async with rs.serving(machine.app()) as base:
        oauth = {"grant": "client_credentials", "client_id": "robot", "client_secret": "${ROBOT_SECRET}"}
        supervisor, _ = supervise(ServerEntry("hosted", url=f"{base}/mcp", extra={"oauth": oauth}))
        await supervisor.start()
        (status,) = supervisor.states()
        assert status.state == "unauthorized"
        assert 'no token for the credentials in its entry\'s "oauth" (401)' in status.last_error
        await supervisor.aclose()
    assert len(machine.requests) >= 1 and not machine.issued


async def test_an_entry_asking_for_the_grant_without_a_secret_or_key_says_what_is_missing(supervise):
    oauth = {"grant": "client_credentials", "client_id": "robot"}
    supervisor, _ = supervise(ServerEntry("hosted", url="http://127.0.0.1:9/mcp", extra={"oauth": oauth}))
    await supervisor.start()
    (status,) = supervisor.states()
    assert 'needs a "client_secret", a "private_key" or a "private_key_file"' in status.last_error
    await supervisor.aclose()


@pytest.mark.parametrize("platform_jwt", ["issued.by.platform", "stale.or.foreign"])
async def test_a_workload_presents_its_platform_jwt_from_a_file_as_the_grant_once(
    supervise, tmp_path, platform_jwt
):
    machine = MachineTokens("workload", workload_jwt="issued.by.platform")
    (tmp_path / "token").write_text(platform_jwt + "\n")  # as a platform mounts it
    async with rs.serving(machine.app()) as base:
        oauth = {"grant": "jwt_bearer", "client_id": "workload", "assertion_file": str(tmp_path / "token")}
        supervisor, _ = supervise(ServerEntry("hosted", url=f"{base}/mcp", extra={"oauth": oauth}))
        await supervisor.start()
        (status,) = supervisor.states()
        if platform_jwt == "issued.by.platform":
            assert status.state == "ready", status
            assert (await supervisor.call_tool("multiply", {"a": 4, "b": 5})).text == "20"
        else:  # refused: said, and neither retried nor tried with another grant
            assert status.state == "unauthorized" and "no token for the credentials" in status.last_error
        await supervisor.aclose()
    (form,) = machine.requests
    assert form["grant_type"] == JWT_BEARER and form["assertion"] == platform_jwt
    assert form["client_id"] == "workload" and "client_secret" not in form
