"""The host's side of one rendered MCP App: its JSON-RPC requests answered, nothing more.

The view (app/ui/app_view.py) hands every message the page posts to :meth:`AppBridge.receive`
and posts back what it returns. What the page may do:

- ``ui/initialize`` (host info, capabilities, host context) and ``ping``;
- ``tools/call`` on its own server only, to tools whose visibility includes ``app``, each through
  the same approval policy as the model's calls (the session's :class:`app.core.approvals.Approvals`);
- ``resources/read`` on its own server;
- ``ui/open-link`` for an http(s) address, only once the user agrees (a :class:`UrlRequest`);
- ``ui/message``: put text in the chat as the user, only once the user agrees;
- ``ui/update-model-context``: text and structured content, at most
  :data:`app.core.app_context.MAX_CONTEXT_CHARS`, kept (the latest only) for the model's next turn;
- ``ui/request-display-mode``: inline, or fullscreen where the view can (``on_display_mode``);
- notifications: ``initialized`` (then the call's input and result are sent), ``size-changed``
  (passed to ``on_size``), ``notifications/message`` (logged).

Anything else is a JSON-RPC error; the page never gets an exception or a traceback.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.parse
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import mcp_types
from mcp import MCPError

from app.core import events as ev
from app.core.app_context import MAX_CONTEXT_CHARS, AppContext
from app.core.asking import Asker, FormRequest, UrlRequest
from app.core.toolrun import schema_error
from app.core.tools import ApprovalPolicy
from app.mcp.apps import result_for_app, tool_named, visible_to
from app.mcp.calls import call_tool
from app.mcp.results import tool_info

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = "2026-01-26"
MAX_MESSAGE = 1_000_000  # characters of one message from the page; more is refused unread
MAX_HEIGHT = 600  # pixels; the view grows with size-changed up to this
TEARDOWN_ID = "calculon-teardown"  # the one request the host sends a page
DISPLAY_MODES = ("inline", "fullscreen", "pip")  # the spec's; pip is never granted here
PARSE_ERROR, INVALID_REQUEST, NO_METHOD, BAD_PARAMS, REFUSED = -32700, -32600, -32601, -32602, -32000

Message = dict[str, Any]


class Refused(Exception):
    """A request the host answers with a JSON-RPC error."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _notification(method: str, params: Mapping[str, Any]) -> Message:
    return {"jsonrpc": "2.0", "method": method, "params": dict(params)}


class AppBridge:
    """One app's requests, answered for the call ``app`` rendered.

        ``post_message(text)`` puts text in the chat as the user (False when it cannot now);
        ``on_size(width, height)`` is told each size the page reports, ``on_torn_down()`` when the page
    has answered :meth:`teardown`.
    """

    def __init__(
        self,
        app: ev.AppReady,
        connections: Mapping[str, Any],
        approve: ApprovalPolicy,
        asker: Asker,
        post_message: Callable[[str], bool] | None = None,
        emit: Callable[[ev.Event], None] = lambda _event: None,
        context: Callable[[AppContext], None] | None = None,
    ) -> None:
        self.app = app
        self.context = context  # keeps what the page sets for the model (Engine.app_contexts)
        self.emit = emit  # the page's tool calls, as events of its turn: traced as the model's are
        self.connections = connections
        self.approve = approve
        self.asker = asker
        self.post_message = post_message
        self.on_size: Callable[[float | None, float | None], None] = lambda _w, _h: None
        self.on_torn_down: Callable[[], None] = lambda: None  # the page answered ui/resource-teardown
        self.torn_down = False
        self.closing = False  # told to tear down: what it sets for the model now belongs to no chat
        self.theme = "light"  # the window's, set by the view: "light" or "dark"
        self.initialized = False
        # The view sets these where it can show the page larger: it switches to the mode asked and
        # returns the one it granted, with the page's container dimensions in that mode.
        self.on_display_mode: Callable[[str], str] | None = None
        self.display_mode = "inline"
        self.dimensions: dict[str, float] = {"maxHeight": MAX_HEIGHT}
        self._app_modes: tuple[str, ...] | None = None  # the modes the page declared it supports
        self._queued: list[Message] = []  # notifications that follow a request's answer
        self._calls_made = 0
        self._requests: dict[str, Callable[[Mapping[str, Any]], Awaitable[Any]]] = {
            "ui/initialize": self._initialize,
            "ping": self._ping,
            "tools/call": self._call_tool,
            "resources/read": self._read_resource,
            "ui/open-link": self._open_link,
            "ui/message": self._message,
            "ui/request-display-mode": self._display_mode,
            "ui/update-model-context": self._update_context,
        }

    @property
    def who(self) -> str:
        return f"the app of {self.app.server}.{self.app.tool}"

    async def receive(self, raw: str) -> list[Message]:
        """What to post back to the page for one message it sent (JSON text); [] for most notifications."""
        if len(raw) > MAX_MESSAGE:
            return [self._error(None, INVALID_REQUEST, f"message over {MAX_MESSAGE:,} characters")]
        try:
            message = json.loads(raw)
        except ValueError:
            return [self._error(None, PARSE_ERROR, "not JSON")]
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return [self._error(None, INVALID_REQUEST, "not a JSON-RPC 2.0 message")]
        method = message.get("method")
        if not isinstance(method, str):
            if message.get("id") == TEARDOWN_ID:
                self.torn_down = True
                self.on_torn_down()
            return []  # a response: only our teardown request gets one
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        if "id" not in message:
            return self._notified(method, params)
        answer = await self._answer(message["id"], method, params)
        queued, self._queued = self._queued, []
        return [answer, *queued]

    def teardown(self, reason: str) -> Message:
        """The request a page gets before its view goes away; its answer calls ``on_torn_down``."""
        params, self.closing = {"reason": reason}, True
        return {"jsonrpc": "2.0", "id": TEARDOWN_ID, "method": "ui/resource-teardown", "params": params}

    async def _answer(self, request_id: Any, method: str, params: Mapping[str, Any]) -> Message:
        handler = self._requests.get(method)
        if handler is None:
            return self._error(request_id, NO_METHOD, f"method {method} is not supported by this host")
        logger.info("%s asks %s", self.who, method)  # view-initiated requests are logged for review
        try:
            return {"jsonrpc": "2.0", "id": request_id, "result": await handler(params)}
        except Refused as exc:
            logger.info("%s: %s refused: %s", self.who, method, exc)
            return self._error(request_id, exc.code, str(exc))

    @staticmethod
    def _error(request_id: Any, code: int, message: str) -> Message:
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}

    def _notified(self, method: str, params: Mapping[str, Any]) -> list[Message]:
        if method == "ui/notifications/initialized" and not self.initialized:
            self.initialized = True  # the call's input and result go only after this, once
            return [
                _notification("ui/notifications/tool-input", {"arguments": dict(self.app.arguments)}),
                _notification("ui/notifications/tool-result", self.app.result),
            ]
        if method == "ui/notifications/size-changed":
            width, height = params.get("width"), params.get("height")
            self.on_size(_number(width), _number(height))
        elif method == "notifications/message":
            logger.info("%s logs: %s", self.who, json.dumps(params.get("data"), default=str)[:500])
        return []

    # --- requests ---

    def host_modes(self) -> tuple[str, ...]:
        return ("inline", "fullscreen") if self.on_display_mode is not None else ("inline",)

    def switched(self, mode: str) -> Message:
        """The view now shows the page in ``mode``: ``ui/notifications/host-context-changed`` says so."""
        self.display_mode = mode
        changed = {"displayMode": mode, "containerDimensions": dict(self.dimensions)}
        return _notification("ui/notifications/host-context-changed", changed)

    async def _initialize(self, params: Mapping[str, Any]) -> dict[str, Any]:
        capabilities = params.get("appCapabilities")
        modes = capabilities.get("availableDisplayModes") if isinstance(capabilities, dict) else None
        if isinstance(modes, list):
            self._app_modes = tuple(m for m in modes if isinstance(m, str))
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "hostInfo": {"name": "calculon", "version": "1"},
            "hostCapabilities": {
                "openLinks": {},
                "serverTools": {},
                "serverResources": {},
                "logging": {},
                **({"updateModelContext": {"text": {}, "structuredContent": {}}} if self.context else {}),
                "sandbox": {"permissions": {}, "csp": {k: list(v) for k, v in self.app.csp.items()}},
            },
            "hostContext": {
                "toolInfo": {"tool": dict(self.app.definition)},
                "theme": self.theme,
                "displayMode": self.display_mode,
                "availableDisplayModes": list(self.host_modes()),
                "containerDimensions": dict(self.dimensions),
                "platform": "desktop",
                "userAgent": "calculon",
            },
        }

    async def _ping(self, _params: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    async def _display_mode(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Switch where the view can and the page declared the mode; the answer is the mode it is
        in now either way, as the spec says (pip is never granted: a chat has no floating layer)."""
        mode = params.get("mode")
        if mode not in DISPLAY_MODES:
            raise Refused(BAD_PARAMS, f"mode must be one of {', '.join(DISPLAY_MODES)}")
        declared = self._app_modes is None or mode in self._app_modes
        if mode != self.display_mode and mode in self.host_modes() and declared and self.on_display_mode:
            granted = self.on_display_mode(mode)
            if granted != self.display_mode:
                changed = self.switched(granted)
                self._queued += [changed] if self.initialized else []  # the spec: nothing before that
        return {"mode": self.display_mode}

    def _connection(self) -> Any:
        connection = self.connections.get(self.app.server)
        if connection is None:
            raise Refused(REFUSED, f"server {self.app.server} is not running")
        return connection

    async def _call_tool(self, params: Mapping[str, Any]) -> dict[str, Any]:
        name, arguments = params.get("name"), params.get("arguments") or {}
        if not isinstance(name, str) or not isinstance(arguments, dict):
            raise Refused(BAD_PARAMS, "tools/call needs a tool name and an arguments object")
        connection = self._connection()
        tool = tool_named(self.connections, self.app.server, name)
        if tool is None:
            raise Refused(BAD_PARAMS, f"server {self.app.server} has no tool {name}")
        if not visible_to(tool, "app"):
            raise Refused(REFUSED, f"tool {name} is not callable from an app")
        info = tool_info(self.app.server, tool, f"{self.app.server}.{name}")
        problem = schema_error(info.input_schema, arguments)
        if problem is not None:
            raise Refused(BAD_PARAMS, f"arguments do not match the schema of {name}: {problem}")
        refusal = await self.approve(info, arguments)  # the very policy the model's calls go through
        if refusal is not None:
            raise Refused(REFUSED, f"call to {name} was not approved: {refusal}")
        finished = await self._traced(name, arguments, lambda: call_tool(connection, name, arguments))
        return result_for_app(finished)

    async def _traced(
        self, name: str, arguments: dict[str, Any], call: Callable[[], Awaitable[Any]]
    ) -> ev.ToolCallFinished:
        self._calls_made += 1
        named: dict[str, Any] = {
            "turn_id": self.app.turn_id,
            "call_id": f"{self.app.call_id}-app{self._calls_made}",
            "server": self.app.server,
            "tool": name,
            "from_app": self.app.call_id,
        }
        self.emit(ev.ToolCallStarted(**named, arguments=arguments))
        started = time.perf_counter()
        result = await call()
        ms = (time.perf_counter() - started) * 1000
        finished = ev.ToolCallFinished(
            **named,
            arguments=arguments,
            result=result.text,
            is_error=result.is_error,
            duration_ms=ms,
            structured=result.structured,
        )
        self.emit(finished)
        return finished

    async def _read_resource(self, params: Mapping[str, Any]) -> dict[str, Any]:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise Refused(BAD_PARAMS, "resources/read needs a uri")
        client = await self._connection().live_client()
        if client is None:
            raise Refused(REFUSED, f"server {self.app.server} is not connected")
        try:
            result: mcp_types.ReadResourceResult = await client.read_resource(uri, cache_mode="bypass")
        except MCPError as exc:
            raise Refused(exc.error.code, exc.error.message) from exc
        return result.model_dump(by_alias=True, exclude_none=True, mode="json")

    async def _open_link(self, params: Mapping[str, Any]) -> dict[str, Any]:
        url = params.get("url")
        if not isinstance(url, str) or urllib.parse.urlsplit(url).scheme.lower() not in ("http", "https"):
            raise Refused(BAD_PARAMS, "Invalid URL: only http and https links are opened")
        asked = UrlRequest(server=self.app.server, message=f"{self.who} asks to open a link", url=url)
        if (await self.asker.ask(asked)).action != "accept":
            raise Refused(REFUSED, "Link opening denied by user")
        return {}

    async def _update_context(self, params: Mapping[str, Any]) -> dict[str, Any]:
        if self.context is None or self.closing:
            raise Refused(REFUSED, "Context update denied: no conversation takes it now")
        self.context(AppContext(self.app.call_id, self.app.server, self.app.tool, context_text(params)))
        return {}

    async def _message(self, params: Mapping[str, Any]) -> dict[str, Any]:
        content = params.get("content")
        blocks = content if isinstance(content, list) else [content]
        texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
        text = "\n".join(t for t in texts if isinstance(t, str)).strip()
        if not text:
            raise Refused(BAD_PARAMS, "Invalid message format: ui/message needs text content")
        if self.post_message is None:
            raise Refused(REFUSED, "this host has no chat to send the message to")
        message = f"{self.who} asks to send this message as you:\n\n{text}"
        asked = FormRequest(
            server=self.app.server, message=message, schema={"type": "object", "properties": {}}
        )
        if (await self.asker.ask(asked)).action != "accept":
            raise Refused(REFUSED, "Message sending denied by user")
        if not self.post_message(text):
            raise Refused(REFUSED, "the chat is busy with a turn; the message was not sent")
        return {}


def context_text(params: Mapping[str, Any]) -> str:
    """A ``ui/update-model-context``'s text blocks, then its structured content as JSON: what the
    model gets. Other content (images, audio, links) is refused, as is more than the limit."""
    content, structured = params.get("content"), params.get("structuredContent")
    blocks = [] if content is None else content
    if not isinstance(blocks, list) or not isinstance(structured, dict | None):
        raise Refused(BAD_PARAMS, "Invalid content format: content is a list, structuredContent an object")
    texts = [b.get("text") if isinstance(b, dict) and b.get("type") == "text" else None for b in blocks]
    if not all(isinstance(t, str) for t in texts):
        raise Refused(BAD_PARAMS, "Invalid content format: only text content and structuredContent are taken")
    parts = [t for t in texts if isinstance(t, str) and t.strip()]
    if structured:
        parts.append(json.dumps(structured, ensure_ascii=False, default=str))
    text = "\n".join(parts).strip()
    if len(text) > MAX_CONTEXT_CHARS:
        raise Refused(REFUSED, f"Context update denied: {len(text):,} characters, over {MAX_CONTEXT_CHARS:,}")
    return text


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
