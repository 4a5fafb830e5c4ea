"""MCP Apps (``io.modelcontextprotocol/ui``): a tool names a ``ui://`` resource, the host shows it.

Calculon advertises the extension with the one content type it renders. When a call to a tool
whose metadata names a ``ui://`` resource finishes, :class:`AppOpener` reads that resource from
the same server (checked: the MCP App content type, at most :data:`MAX_BYTES`) and emits
``AppReady`` with the page, its declared CSP and the call's input and result; the window renders
it sandboxed (app/ui/app_view.py) and talks to it through :class:`app.mcp.app_bridge.AppBridge`.
A resource that cannot be had is a ``Notice`` saying why; the call's text result stands either way.

Events: ``AppReady`` per rendered call, ``Notice`` when the app cannot be shown.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import dataclasses
import logging
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

import mcp_types
from mcp import Client, MCPError
from mcp.client.extension import ClientExtension

from app.core import events as ev

logger = logging.getLogger(__name__)

IDENTIFIER = "io.modelcontextprotocol/ui"
MIME_TYPE = "text/html;profile=mcp-app"
MAX_BYTES = 2_000_000  # a page bigger than this is not rendered: a chat is no place for it
CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")


class AppsExtension(ClientExtension):
    """Advertises MCP Apps in the client's capabilities: servers register UI tools only then."""

    identifier = IDENTIFIER

    def settings(self) -> dict[str, Any]:
        return {"mimeTypes": [MIME_TYPE]}


class AppError(Exception):
    """Why a tool's app cannot be shown, in words for the user."""


def _ui_meta(tool: mcp_types.Tool) -> Mapping[str, Any]:
    ui = (tool.meta or {}).get("ui")
    return ui if isinstance(ui, Mapping) else {}


def resource_uri(tool: mcp_types.Tool) -> str:
    """The ``ui://`` resource ``tool`` names (``_meta.ui.resourceUri``, or the older flat key); ""."""
    uri = _ui_meta(tool).get("resourceUri") or (tool.meta or {}).get("ui/resourceUri")
    return uri if isinstance(uri, str) and uri.startswith("ui://") else ""


def visible_to(tool: mcp_types.Tool, who: str) -> bool:
    """Whether the model (``who="model"``) or an app (``"app"``) may call ``tool``; both by default."""
    visibility = _ui_meta(tool).get("visibility")
    if not isinstance(visibility, list | tuple):
        return True
    return who in visibility


@dataclasses.dataclass(frozen=True)
class AppPage:
    """A ``ui://`` resource as read: the HTML and what its ``_meta.ui`` declares."""

    html: str
    csp: Mapping[str, tuple[str, ...]]
    permissions: Mapping[str, Any]
    prefers_border: bool | None = None


def _csp(declared: Any) -> dict[str, tuple[str, ...]]:
    """The declared domains, only the known keys and only strings: the view builds its policy from these."""
    if not isinstance(declared, Mapping):
        return {}
    csp = {}
    for key in CSP_KEYS:
        values = declared.get(key)
        if isinstance(values, list | tuple):
            csp[key] = tuple(v for v in values if isinstance(v, str) and v.strip())
    return csp


def _same_type(mime_type: str | None) -> bool:
    return (mime_type or "").replace(" ", "").lower() == MIME_TYPE


def _text_of(contents: mcp_types.TextResourceContents | mcp_types.BlobResourceContents) -> str:
    if isinstance(contents, mcp_types.TextResourceContents):
        if len(contents.text) > MAX_BYTES:  # characters first: encoding 50 MB only to refuse it is waste
            raise AppError(f"it is over {MAX_BYTES:,} bytes")
        return contents.text
    if len(contents.blob) > MAX_BYTES * 4 // 3 + 4:
        raise AppError(f"it is over {MAX_BYTES:,} bytes")
    try:
        return base64.b64decode(contents.blob, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise AppError(f"its content is not base64-encoded UTF-8 HTML ({exc})") from exc


def page_from(result: mcp_types.ReadResourceResult, uri: str) -> AppPage:
    """The page in a ``resources/read`` result, or :class:`AppError` saying what is wrong with it."""
    contents = [c for c in result.contents if c.uri == uri] or list(result.contents[:1])
    if not contents:
        raise AppError("the server returned no content for it")
    first = contents[0]
    if not _same_type(first.mime_type):
        raise AppError(f"it is served as {first.mime_type or 'no type'!r}, not {MIME_TYPE!r}")
    html = _text_of(first)
    size = len(html.encode("utf-8"))
    if size > MAX_BYTES:
        raise AppError(f"it is {size:,} bytes; the limit is {MAX_BYTES:,}")
    ui = (first.meta or {}).get("ui")
    ui = ui if isinstance(ui, Mapping) else {}
    permissions = ui.get("permissions")
    border = ui.get("prefersBorder")
    return AppPage(
        html=html,
        csp=_csp(ui.get("csp")),
        permissions=dict(permissions) if isinstance(permissions, Mapping) else {},
        prefers_border=border if isinstance(border, bool) else None,
    )


async def read_page(client: Client, uri: str) -> AppPage:
    try:
        result = await client.read_resource(uri, cache_mode="bypass")
    except MCPError as exc:
        raise AppError(f"the server could not read it: {exc.error.message}") from exc
    return page_from(result, uri)


def result_for_app(event: ev.ToolCallFinished) -> dict[str, Any]:
    """The call's result as ``ui/notifications/tool-result`` carries it (a ``CallToolResult``)."""
    result: dict[str, Any] = {"content": [{"type": "text", "text": event.result}], "isError": event.is_error}
    if event.structured is not None:
        result["structuredContent"] = event.structured
    return result


def tool_named(connections: Mapping[str, Any], server: str, name: str) -> mcp_types.Tool | None:
    """Server ``server``'s tool ``name`` as it listed it, if it is connected and has one."""
    connection = connections.get(server)
    tools = connection.tools if connection is not None else ()
    return next((t for t in tools if t.name == name), None)


class AppOpener:
    """An engine event sink: after a call to a tool with an app, reads the app and emits ``AppReady``.

    ``connections`` maps a server's name to its connection (the supervisor's), whose ``tools``
    and ``live_client()`` it uses.
    """

    def __init__(self, connections: Mapping[str, Any], sink: ev.EventSink) -> None:
        self.connections = connections
        self.sink = sink
        self._reading: set[asyncio.Task[None]] = set()

    def tool(self, server: str, name: str) -> mcp_types.Tool | None:
        return tool_named(self.connections, server, name)

    def __call__(self, event: ev.Event) -> None:
        if not isinstance(event, ev.ToolCallFinished) or event.cancelled or event.from_app:
            return  # an app's own calls fill in its page; they open no second one
        tool = self.tool(event.server, event.tool)
        uri = resource_uri(tool) if tool is not None else ""
        if tool is None or not uri:
            return
        task = asyncio.get_running_loop().create_task(self._open(event, tool, uri))
        self._reading.add(task)
        task.add_done_callback(self._reading.discard)

    async def wait_idle(self) -> None:
        """Until every app being read has been emitted (for tests and a clean close)."""
        while self._reading:
            await asyncio.gather(*self._reading, return_exceptions=True)

    async def aclose(self) -> None:
        """Stop reading apps: the servers are going away."""
        for task in self._reading:
            task.cancel()
        await asyncio.gather(*self._reading, return_exceptions=True)

    async def _open(self, event: ev.ToolCallFinished, tool: mcp_types.Tool, uri: str) -> None:
        try:
            page = await self._page(event.server, uri)
        except AppError as exc:
            message = f"the app of {event.server}.{event.tool} ({uri}) is not shown: {exc}"
            logger.info(message)
            self.sink(ev.Notice(turn_id=event.turn_id, message=message))
            return
        logger.info("app %s of %s declares CSP %s", uri, event.server, dict(page.csp))  # the audit trail
        self.sink(
            ev.AppReady(
                turn_id=event.turn_id,
                call_id=event.call_id,
                server=event.server,
                tool=event.tool,
                uri=uri,
                html=page.html,
                csp=page.csp,
                permissions=page.permissions,
                prefers_border=page.prefers_border,
                arguments=event.arguments,
                result=result_for_app(event),
                definition=tool.model_dump(by_alias=True, exclude_none=True, mode="json"),
            )
        )

    async def _page(self, server: str, uri: str) -> AppPage:
        connection = self.connections.get(server)
        client = await connection.live_client() if connection is not None else None
        if client is None:
            raise AppError(f"server {server} is not connected")
        return await read_page(client, uri)


# --- the policy a page runs under (the view enforces it twice: a CSP and a request filter) ---

# An origin as the spec's examples write them; anything else (a quote, a ';', a path) could
# smuggle a directive into the policy, so it is dropped.
_ORIGIN = re.compile(r"^(https?|wss?)://(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$")
_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


def origins(domains: tuple[str, ...]) -> tuple[str, ...]:
    kept = tuple(d.rstrip("/") for d in domains if _ORIGIN.match(d.rstrip("/")))
    if len(kept) != len(domains):
        logger.info("an app's CSP names origins that are not plain origins; ignored: %s", domains)
    return kept


def content_security_policy(csp: Mapping[str, tuple[str, ...]]) -> str:
    """The page's Content-Security-Policy, built from what it declares as the spec says; with
    nothing declared, no network at all and inline script and style only."""
    resources = " ".join(origins(csp.get("resourceDomains", ())))
    connect = " ".join(origins(csp.get("connectDomains", ()))) or "'none'"
    frames = " ".join(origins(csp.get("frameDomains", ()))) or "'none'"
    bases = " ".join(origins(csp.get("baseUriDomains", ()))) or "'self'"
    directives = [
        "default-src 'none'",
        f"script-src 'self' 'unsafe-inline' {resources}",
        f"style-src 'self' 'unsafe-inline' {resources}",
        f"img-src 'self' data: {resources}",
        f"font-src 'self' {resources}",
        f"media-src 'self' data: {resources}",
        f"connect-src {connect}",
        f"frame-src {frames}",
        "object-src 'none'",
        f"base-uri {bases}",
    ]
    return "; ".join(" ".join(d.split()) for d in directives)


def allows(csp: Mapping[str, tuple[str, ...]], url: str) -> bool:
    """Whether a request for ``url`` goes to an origin the page declared (any of its lists)."""
    return allowed_by(declared_origins(csp), url)


def declared_origins(csp: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Every origin the page declares, in any of its lists (worked out once per page: a view asks
    for each request it makes)."""
    return tuple(origin for key in CSP_KEYS for origin in origins(csp.get(key, ())))


def allowed_by(declared: tuple[str, ...], url: str) -> bool:
    parts = urllib.parse.urlsplit(url)
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    try:
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        return False
    return any(_matches(origin, scheme, host, port) for origin in declared)


def _matches(origin: str, scheme: str, host: str, port: int | None) -> bool:
    parts = urllib.parse.urlsplit(origin.replace("://*.", "://wildcard."))
    wildcard = "://*." in origin
    want = (parts.hostname or "").lower()
    if wildcard:
        want = want.removeprefix("wildcard")  # ".example.com": any subdomain, not the bare domain
    host_ok = host.endswith(want) if wildcard else host == want
    return parts.scheme == scheme and host_ok and (parts.port or _DEFAULT_PORTS.get(parts.scheme)) == port


def with_policy(html: str, policy: str) -> str:
    """``html`` with the policy as its first ``<meta>``, so no script of the page runs before it."""
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    head = re.search(r"<head[^>]*>", html, re.IGNORECASE)
    if head is not None:
        return html[: head.end()] + meta + html[head.end() :]
    return meta + html
