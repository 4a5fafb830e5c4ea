"""Resources, templates, prompts and completions across the supervised servers.

Which server answers: the one named, else the one whose listing holds the URI or prompt,
else the one whose resource template fits the URI. Every failure is a :class:`SurfaceError`
whose message is for the user (the CLI prints it, the window shows it).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import anyio
import mcp_types
import pydantic
from mcp import Client, MCPError

from app.mcp.catalog import Catalog
from app.mcp.connection import ServerConnection
from app.mcp.supervisor import Supervisor
from app.mcp.uritemplate import matches


class SurfaceError(Exception):
    """Why a resource, prompt or completion could not be had."""


@dataclasses.dataclass(frozen=True)
class Listed:
    """One listed item (a resource, template or prompt) and the server that offers it."""

    server: str
    item: Any


async def listed(supervisor: Supervisor, timeout: float = 10.0) -> None:
    """Until every ready server's resources and prompts are listed (they follow its tools)."""
    waits = [c.catalog_listed.wait() for _, c in _ready(supervisor)]
    with anyio.move_on_after(timeout):
        for wait in waits:
            await wait


def resources(supervisor: Supervisor) -> list[Listed]:
    return [Listed(n, r) for n, c in _ready(supervisor) for r in c.catalog.resources]


def templates(supervisor: Supervisor) -> list[Listed]:
    return [Listed(n, t) for n, c in _ready(supervisor) for t in c.catalog.templates]


def prompts(supervisor: Supervisor) -> list[Listed]:
    return [Listed(n, p) for n, c in _ready(supervisor) for p in c.catalog.prompts]


async def read_resource(supervisor: Supervisor, uri: str, server: str = "") -> Listed:
    """The contents of ``uri`` (``item`` is the ``ReadResourceResult``)."""
    await listed(supervisor)
    name = server or _resource_server(supervisor, uri)
    client = await _client(supervisor, name)
    return Listed(name, await _ask(name, f"read {uri}", client.read_resource(uri, cache_mode="bypass")))


async def subscribe(supervisor: Supervisor, uri: str, server: str = "") -> str:
    """Report updates of ``uri`` from now on (``ResourceUpdated`` events); returns the server's name."""
    await listed(supervisor)  # which server lists it, and its change stream, follow its tools
    name = server or _resource_server(supervisor, uri)
    await _client(supervisor, name)  # waits for a starting server, or says why it is not there
    listening = supervisor.connections[name].listening
    if listening is None:
        raise SurfaceError(f"server {name} is not connected")
    await _ask(name, f"subscribe to {uri}", listening.subscribe(uri))
    return name


async def get_prompt(supervisor: Supervisor, name: str, arguments: dict[str, str]) -> Listed:
    """The messages of prompt ``name`` (or ``server.name``) filled with ``arguments``."""
    server, prompt = _prompt_server(supervisor, name)
    client = await _client(supervisor, server)
    return Listed(server, await _ask(server, f"get prompt {prompt}", client.get_prompt(prompt, arguments)))


async def complete(
    supervisor: Supervisor, server: str, ref: str, argument: str, value: str, context: dict[str, str]
) -> list[str]:
    """Suggestions for one argument of a prompt (``ref`` its name) or a resource template (its URI)."""
    reference: mcp_types.PromptReference | mcp_types.ResourceTemplateReference
    if "{" in ref:
        reference = mcp_types.ResourceTemplateReference(type="ref/resource", uri=ref)
    else:
        reference = mcp_types.PromptReference(type="ref/prompt", name=ref)
    client = await _client(supervisor, server)
    asked = client.complete(reference, {"name": argument, "value": value}, context or None)
    result = await _ask(server, f"complete {argument} of {ref}", asked)
    return list(result.completion.values)


def _ready(supervisor: Supervisor) -> list[tuple[str, ServerConnection]]:
    return [(n, c) for n, c in supervisor.connections.items() if c.state == "ready"]


def _resource_server(supervisor: Supervisor, uri: str) -> str:
    for listed in resources(supervisor):
        if listed.item.uri == uri:
            return listed.server
    fitting = {t.server for t in templates(supervisor) if matches(t.item.uri_template, uri)}
    offering = {n for n, c in _ready(supervisor) if c.catalog.offers("resources")}
    for candidates in (fitting, offering):
        if len(candidates) == 1:
            return candidates.pop()
    raise SurfaceError(f"no single server offers {uri}; name the server (--server NAME)")


def _prompt_server(supervisor: Supervisor, name: str) -> tuple[str, str]:
    server, dot, bare = name.partition(".")
    if dot and server in supervisor.connections:
        return server, bare
    having = sorted({p.server for p in prompts(supervisor) if p.item.name == name})
    if len(having) == 1:
        return having[0], name
    if having:
        raise SurfaceError(f"servers {', '.join(having)} all have a prompt {name}; name it as SERVER.{name}")
    raise SurfaceError(f"no running server has a prompt named {name}")


async def _client(supervisor: Supervisor, name: str) -> Client:
    connection = supervisor.connections.get(name)
    if connection is None:
        raise SurfaceError(f"server {name} is not configured or not running")
    client = await connection.live_client()
    if client is None:
        raise SurfaceError(connection.unavailable())
    return client


async def _ask(server: str, what: str, request: Any) -> Any:
    try:
        return await request
    except MCPError as exc:
        raise SurfaceError(f"server {server} could not {what}: {exc.error.message}") from exc
    except pydantic.ValidationError as exc:
        raise SurfaceError(f"server {server} sent a reply to {what} that cannot be used: {exc}") from exc


class Surface:
    """The functions above bound to one supervisor, for the window (which holds no supervisor)."""

    def __init__(self, supervisor: Supervisor) -> None:
        self.supervisor = supervisor

    def catalog(self, server: str) -> tuple[Catalog, tuple[mcp_types.Tool, ...]] | None:
        """How ``server`` introduced itself and what it offers, with its tools; None if unknown."""
        connection = self.supervisor.connections.get(server)
        return (connection.catalog, connection.tools) if connection is not None else None

    def prompts(self) -> list[Listed]:
        return prompts(self.supervisor)

    async def read(self, server: str, uri: str) -> mcp_types.ReadResourceResult:
        return (await read_resource(self.supervisor, uri, server)).item

    async def prompt(self, name: str, arguments: dict[str, str]) -> mcp_types.GetPromptResult:
        return (await get_prompt(self.supervisor, name, arguments)).item

    async def complete(
        self, server: str, ref: str, argument: str, value: str, context: dict[str, str]
    ) -> list[str]:
        return await complete(self.supervisor, server, ref, argument, value, context)

    async def subscribe(self, server: str, uri: str) -> str:
        return await subscribe(self.supervisor, uri, server)
