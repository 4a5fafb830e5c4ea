"""Real MCP servers on 127.0.0.1 for the remote transports: an ``MCPServer`` served by uvicorn
in the test's own event loop (no thread, no process), over Streamable HTTP or legacy SSE, and
optionally protected by a bearer token checked through the SDK's own auth middleware."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer

TOKEN = "remote-test-token"


class StaticTokenVerifier:
    """Accepts exactly one token: the test's."""

    def __init__(self, token: str = TOKEN) -> None:
        self.token = token

    async def verify_token(self, token: str) -> AccessToken | None:
        return AccessToken(token=token, client_id="tests", scopes=[]) if token == self.token else None


def multiplier(*, protected: bool = False, **options: Any) -> MCPServer:
    """One tool, ``multiply``; with ``protected``, every request needs ``Bearer TOKEN``;
    ``options`` go to ``MCPServer`` (an authorization server, its settings)."""
    if protected:
        options["token_verifier"] = StaticTokenVerifier()
        options["auth"] = AuthSettings(issuer_url="http://127.0.0.1:9", resource_server_url=None)
    options.setdefault("log_level", "WARNING")  # not a line per HTTP request
    server = MCPServer("remote-multiplier", **options)

    @server.tool()
    def multiply(a: int, b: int) -> int:
        """Multiply two integers."""
        return a * b

    return server


def chatterbox() -> MCPServer:
    """One tool, ``chatter``: ``n`` log notifications as fast as it can send them, then "done"."""
    server = MCPServer("remote-chatterbox", log_level="WARNING")

    @server.tool()
    async def chatter(n: int, ctx: Context) -> str:
        """Log n lines, then answer."""
        for _ in range(n):
            await ctx.log("info", "x")
        return "done"

    return server


@contextlib.asynccontextmanager
async def serving(app: Any, port: int = 0) -> AsyncIterator[str]:
    """``app`` (or ``app(base_url)`` when it is a factory) on a port of its own; yields
    ``http://127.0.0.1:PORT``. The socket is listening before the server task starts, so a
    client that connects at once is queued, not refused."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # the same port again, for a comeback
    listener.bind(("127.0.0.1", port))
    listener.listen(16)
    port = listener.getsockname()[1]
    if isinstance(app, functools.partial):
        app = app(f"http://127.0.0.1:{port}")
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[listener]))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        listener.close()


def http_app(server: MCPServer) -> Any:
    return server.streamable_http_app()


def sse_app(server: MCPServer) -> Any:
    return server.sse_app()


def without_result_type(app: Any) -> Any:
    """``app`` with ``resultType`` taken out of its tools/call results, as a server written before
    2026-07-28 sends them (the field is new there, and its absence means complete). The server
    stays real: only the field is removed from each reply, JSON or event stream."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        asked: list[bytes] = []
        start: dict[str, Any] = {}
        body: list[bytes] = []

        async def reading() -> Any:
            message = await receive()
            asked.append(message.get("body", b""))
            return message

        async def sending(message: dict[str, Any]) -> None:
            if b'"tools/call"' not in b"".join(asked):
                return await send(message)
            if message["type"] == "http.response.start":
                start.update(message)
                return None
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return None
            text = _strip_result_type(b"".join(body))
            headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            await send({**start, "headers": [*headers, (b"content-length", str(len(text)).encode())]})
            await send({"type": "http.response.body", "body": text})
            return None

        return await app(scope, reading, sending)

    return wrapped


def _strip_result_type(raw: bytes) -> bytes:
    """Each JSON-RPC message in a JSON body or in an event stream's data lines, less resultType."""

    def strip(text: str) -> str:
        message = json.loads(text)
        if isinstance(message, dict) and isinstance(message.get("result"), dict):
            message["result"].pop("resultType", None)
        return json.dumps(message)

    lines = raw.decode().split("\n")
    if lines and lines[0].lstrip().startswith("{"):
        return strip(raw.decode()).encode()
    lines = [f"data: {strip(line[6:])}" if line.startswith("data: {") else line for line in lines]
    return "\n".join(lines).encode()
