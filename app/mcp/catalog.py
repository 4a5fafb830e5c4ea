"""What a server offers besides tools: resources, resource templates and prompts, and how it
introduced itself (protocol version, capabilities, instructions).

Listed once when the server connects (only what its capabilities announce) and again when
it says a list changed (:mod:`app.mcp.changes`). Each listing is followed to its last page.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import mcp_types
from mcp import Client, MCPError
from mcp.client import CacheMode

logger = logging.getLogger(__name__)

_MAX_PAGES = 100  # a server that keeps handing out cursors is not followed for ever

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Catalog:
    protocol_version: str = ""
    server_name: str = ""
    server_version: str = ""
    instructions: str = ""
    icons: tuple[mcp_types.Icon, ...] = ()  # the server's own, from its serverInfo
    capabilities: dict[str, Any] = dataclasses.field(default_factory=dict)
    resources: tuple[mcp_types.Resource, ...] = ()
    templates: tuple[mcp_types.ResourceTemplate, ...] = ()
    prompts: tuple[mcp_types.Prompt, ...] = ()

    def offers(self, capability: str) -> bool:
        return capability in self.capabilities


def listing(catalog: Catalog, tools: tuple[mcp_types.Tool, ...], what: str) -> tuple[Any, ...]:
    """One kind as listed (tools, resources with their templates, or prompts), to compare a relisting with."""
    return {"tools": tools, "resources": (*catalog.resources, *catalog.templates)}.get(what, catalog.prompts)


async def catalog_of(client: Client) -> Catalog:
    """The server's introduction and its resources, templates and prompts, where it has them."""
    caps = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
    info = client.server_info
    base = Catalog(
        protocol_version=client.protocol_version,
        server_name=info.name if info else "",
        server_version=info.version if info else "",
        instructions=client.instructions or "",
        icons=tuple(info.icons or ()) if info else (),
        capabilities=caps,
    )
    return await relisted(client, base, resources="resources" in caps, prompts="prompts" in caps)


async def relisted(
    client: Client, catalog: Catalog, *, resources: bool, prompts: bool, fresh: bool = True
) -> Catalog:
    """``catalog`` with its resources and templates, or its prompts, listed again: from the server
    (``fresh``), or from the client's cache while the server's ``ttlMs`` says it is still fresh."""
    mode: CacheMode = "refresh" if fresh else "use"
    changes: dict[str, Any] = {}
    if resources:
        changes["resources"] = tuple(await _pages(lambda c: client.list_resources(cursor=c, cache_mode=mode)))
        changes["templates"] = tuple(
            await _pages(lambda c: client.list_resource_templates(cursor=c, cache_mode=mode))
        )
    if prompts:
        changes["prompts"] = tuple(await _pages(lambda c: client.list_prompts(cursor=c, cache_mode=mode)))
    return dataclasses.replace(catalog, **changes)


async def _pages(fetch: Callable[[str | None], Awaitable[Any]]) -> list[Any]:
    """Every item of a paginated listing; a server that fails to list gets an empty one, logged."""
    items: list[Any] = []
    cursor: str | None = None
    try:
        for _ in range(_MAX_PAGES):
            page = await fetch(cursor)
            items.extend(_items(page))
            cursor = page.next_cursor
            if not cursor:
                break
    except MCPError:
        logger.info("a listing failed; keeping the %d items listed so far", len(items), exc_info=True)
    return items


def _items(page: Any) -> list[Any]:
    for field in ("resources", "resource_templates", "prompts"):
        if hasattr(page, field):
            return list(getattr(page, field))
    return []
