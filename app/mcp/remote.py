"""Transports for remote MCP servers: Streamable HTTP, or the legacy HTTP+SSE, through the SDK.

A remote entry's headers are filled in here, at connect time: ``${NAME}`` becomes the
environment variable ``NAME`` or, failing that, the keyring entry ``NAME`` (service
``calculon``), so a token never sits in the servers file. A placeholder with no value
fails the connection with a message that says where to put it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Protocol

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from app import secrets
from app.mcp.config import ServerEntry
from app.mcp.flood import NotificationBudget, budgeted

PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
STREAM_READ_S = 300.0  # a server may hold an event stream open this long between events


@dataclasses.dataclass
class HttpWatch:
    """What the last HTTP exchanges with a remote server said: the SDK turns a refused request
    into a bare "error response", so the status and any auth challenge are kept here."""

    status: int = 0  # of the last response that failed, 0 while none has
    challenge: str = ""  # its WWW-Authenticate header

    async def response(self, response: httpx2.Response) -> None:
        # A refusal outranks what follows it: an OAuth discovery probes several addresses.
        if response.status_code in (401, 403) or (response.status_code >= 400 and not self.refused):
            self.status = response.status_code
            self.challenge = response.headers.get("www-authenticate", "")

    @property
    def refused(self) -> bool:
        return self.status in (401, 403)

    def clear(self) -> None:
        self.status, self.challenge = 0, ""

    def watched(self, client: httpx2.AsyncClient) -> httpx2.AsyncClient:
        client.event_hooks["response"].append(self.response)
        return client


class MissingSecret(LookupError):
    """A header names a ``${NAME}`` that neither the environment nor the keyring holds."""


def expand_headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {name: PLACEHOLDER.sub(_secret, value) for name, value in headers.items()}


def _secret(match: re.Match[str]) -> str:
    name = match.group(1)
    value = secrets.get_secret(name)
    if value is None:
        raise MissingSecret(
            f"a header needs ${{{name}}}: set the environment variable {name}, or store it in the "
            f"system keyring (service {secrets.SERVICE!r}, user {name!r})"
        )
    return value


@contextlib.asynccontextmanager
async def remote_transport(
    entry: ServerEntry,
    watch: HttpWatch,
    *,
    timeout_s: float,
    auth: httpx2.Auth | None = None,
    on_dropped: Callable[[int], None] | None = None,
) -> AsyncIterator[Any]:
    """``(read, write)`` streams to ``entry.url``; ``timeout_s`` bounds connecting and each request.
    Its notifications are held to a budget per second; ``on_dropped`` is told what a flood lost."""
    budget = NotificationBudget(on_dropped or _ignore)
    async with _transport(entry, watch, timeout_s, auth) as streams, budgeted(streams, budget) as held:
        yield held


def _ignore(count: int) -> None:
    pass


@contextlib.asynccontextmanager
async def _transport(
    entry: ServerEntry, watch: HttpWatch, timeout_s: float, auth: httpx2.Auth | None
) -> AsyncIterator[Any]:
    headers = expand_headers(entry.headers)
    watch.clear()

    def client_factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        return watch.watched(create_mcp_http_client(headers=headers, timeout=timeout, auth=auth))

    if entry.sse:
        async with sse_client(
            entry.url,
            headers=headers,
            timeout=timeout_s,
            sse_read_timeout=STREAM_READ_S,
            httpx_client_factory=client_factory,
            auth=auth,
        ) as streams:
            yield streams
        return
    timeout = httpx2.Timeout(timeout_s, read=STREAM_READ_S)
    async with (
        client_factory(headers=headers, timeout=timeout, auth=auth) as client,
        streamable_http_client(entry.url, http_client=client) as streams,
    ):
        yield streams


class SignsIn(Protocol):
    """The server's OAuth (app.mcp.oauth.OAuthSignIn), as far as a refusal's wording needs it."""

    @property
    def machine(self) -> bool: ...

    @property
    def failure(self) -> str: ...


def refusal(name: str, watch: HttpWatch, oauth: SignsIn | None = None) -> str:
    """Why server ``name`` turned us away, for its last error. With ``oauth`` its entry sends no
    credentials of its own, so a 401 (whose challenge may name no metadata: that is found at a
    well-known address) asks for an OAuth sign-in; unless the entry's own client credentials got
    no token, which no sign-in can mend."""
    signs_in = oauth is not None
    if oauth is not None and oauth.machine:
        return (
            f'server {name}: no token for the credentials in its entry\'s "oauth" ({watch.status}): '
            "check its client_id and its secret, private key or assertion"
        )
    bearer = "bearer" in watch.challenge.lower()
    if (bearer and "resource_metadata" in watch.challenge) or (signs_in and (bearer or watch.status == 401)):
        if problem := secrets.token_file_problem():  # Sign in would come back here: say what stops it
            return f"server {name} needs you to sign in ({watch.status}), but {problem}"
        if not secrets.tokens_storable():
            return (
                f"server {name} needs you to sign in ({watch.status}), and there is no system keyring to "
                "keep the sign-in: install and unlock a Secret Service (GNOME Keyring or KWallet), or keep "
                f"it in an encrypted file with `calculon auth login {name} --token-store file`"
            )
        if oauth is not None and oauth.failure:  # a sign-in was tried and failed: its cause, not "sign in"
            return (
                f"server {name} refused us ({watch.status}): {oauth.failure}; `calculon auth login {name}`, "
                "or Sign in in the servers panel, tries again"
            )
        return (
            f"server {name} needs you to sign in ({watch.status}): run `calculon auth login {name}`, "
            "or use Sign in in the servers panel"
        )
    return (
        f"server {name} refused the credentials ({watch.status} "
        f"{'Unauthorized' if watch.status == 401 else 'Forbidden'}): check the headers of its entry"
    )
