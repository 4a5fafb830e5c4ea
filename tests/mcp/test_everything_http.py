"""The official reference server over its streamable HTTP mode on 127.0.0.1, configured as a remote
server the way a user adds one (a ``url``): one server and one supervisor for the whole module.

It speaks the 2025-11-25 protocol there: what it sends outside a request (log messages, resource
updates, list changes) comes on the GET event stream, not beside a request as over stdio.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from app.core import events as ev
from app.core.progress import ProgressUpdate, reporting_to
from app.mcp import remote, surface
from app.mcp.supervisor import Supervisor
from tests.everything import everything_over_http
from tests.mcp.helpers import EventLog, started, until

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

ARCHITECTURE = "demo://resource/static/document/architecture.md"


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


class Wire:
    """Every JSON-RPC message the client POSTs, read off the real HTTP client's requests."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def request(self, request: Any) -> None:
        if request.method == "POST" and request.content:
            self.sent.append(json.loads(request.content))

    def cancelled(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if m.get("method") == "notifications/cancelled"]

    def client(self, **options: Any) -> Any:
        made = create_http_client(**options)
        made.event_hooks["request"].append(self.request)
        return made


create_http_client = remote.create_mcp_http_client


@pytest.fixture(scope="module")
async def wire() -> AsyncIterator[Wire]:
    watching = Wire()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(remote, "create_mcp_http_client", watching.client)
        yield watching


@pytest.fixture(scope="module")
async def hosted(wire: Wire) -> AsyncIterator[tuple[Supervisor, EventLog]]:
    log = EventLog()
    async with everything_over_http() as entry, started(entry, tool_timeout_s=30) as supervisor:
        supervisor.subscribe(log)
        await surface.listed(supervisor)
        yield supervisor, log


async def test_over_http_it_introduces_itself_and_lists_resources_templates_and_prompts(hosted):
    supervisor, _ = hosted
    connection = supervisor.connections["everything"]
    catalog = connection.catalog
    assert connection.state == "ready" and connection.entry.remote
    assert catalog.protocol_version == "2025-11-25" and catalog.server_name == "mcp-servers/everything"
    assert ARCHITECTURE in [r.uri for r in catalog.resources]
    assert "demo://resource/dynamic/text/{resourceId}" in [t.uri_template for t in catalog.templates]
    assert [p.name for p in catalog.prompts] == [
        "simple-prompt",
        "args-prompt",
        "completable-prompt",
        "resource-prompt",
    ]


async def test_over_http_a_listed_resource_is_read_and_a_template_is_expanded(hosted):
    supervisor, _ = hosted
    document = (await surface.read_resource(supervisor, ARCHITECTURE)).item.contents[0]
    assert document.mime_type == "text/markdown" and "Architecture" in document.text
    templated = (await surface.read_resource(supervisor, "demo://resource/dynamic/text/3")).item
    assert "3" in templated.contents[0].text


async def test_over_http_a_subscribed_resource_reports_its_updates(hosted):
    supervisor, log = hosted
    since = len(log.events)
    await surface.subscribe(supervisor, ARCHITECTURE)
    started = await supervisor.call_tool("toggle-subscriber-updates", {})
    try:
        assert started.text.startswith("Started")
        updated = await log.wait_for(lambda e: isinstance(e, ev.ResourceUpdated), since=since, timeout=10)
        assert (updated.server, updated.uri) == ("everything", ARCHITECTURE)  # type: ignore[attr-defined]
    finally:
        await supervisor.call_tool("toggle-subscriber-updates", {})  # it would go on every 5 s


async def test_over_http_each_prompt_is_filled_in_and_the_completable_one_completes(hosted):
    supervisor, _ = hosted
    paris = (await surface.get_prompt(supervisor, "args-prompt", {"city": "Paris"})).item
    assert "Paris" in paris.messages[0].content.text
    assert (await surface.get_prompt(supervisor, "simple-prompt", {})).item.messages
    resource = (
        await surface.get_prompt(supervisor, "resource-prompt", {"resourceType": "Text", "resourceId": "2"})
    ).item
    assert any(m.content.type == "resource" for m in resource.messages)
    departments = await surface.complete(
        supervisor, "everything", "completable-prompt", "department", "E", {}
    )
    assert departments == ["Engineering"]
    names = await surface.complete(
        supervisor, "everything", "completable-prompt", "name", "", {"department": "Engineering"}
    )
    assert names and all(isinstance(n, str) for n in names)
    filled = await surface.get_prompt(
        supervisor, "completable-prompt", {"department": "Engineering", "name": names[0]}
    )
    assert names[0] in filled.item.messages[0].content.text


async def test_over_http_a_long_running_operation_reports_each_step(hosted):
    supervisor, _ = hosted
    updates: list[ProgressUpdate] = []
    with reporting_to(updates.append):
        result = await supervisor.call_tool("trigger-long-running-operation", {"duration": 0.4, "steps": 4})
    assert not result.is_error and "Steps: 4" in result.text
    assert [(u.progress, u.total) for u in updates] == [(i, 4) for i in (1, 2, 3, 4)]


async def test_over_http_cancelling_a_running_operation_tells_the_server_and_it_serves_on(hosted, wire):
    supervisor, _ = hosted
    first = asyncio.Event()
    updates: list[ProgressUpdate] = []

    def seen(update: ProgressUpdate) -> None:
        updates.append(update)
        first.set()

    with reporting_to(seen):
        call = asyncio.ensure_future(
            supervisor.call_tool("trigger-long-running-operation", {"duration": 20, "steps": 100})
        )
    with anyio.fail_after(10):
        await first.wait()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    asked = [m for m in wire.sent if m.get("params", {}).get("name") == "trigger-long-running-operation"]
    await until(lambda: wire.cancelled(), timeout=10)
    assert [m["params"]["requestId"] for m in wire.cancelled()] == [asked[-1]["id"]]
    seen_then = len(updates)
    with anyio.fail_after(10):
        assert (await supervisor.call_tool("get-sum", {"a": 2, "b": 3})).text.endswith("5.")
    assert len(updates) == seen_then  # nothing more of the cancelled call reached us
    assert supervisor.connections["everything"].state == "ready"


async def test_over_http_simulated_logging_arrives_as_server_log_events(hosted):
    supervisor, log = hosted
    since = len(log.events)
    assert (await supervisor.call_tool("toggle-simulated-logging", {})).text.startswith("Started")
    try:
        # One at once, then one every 5 s at a random level: debug ones are below the level we ask for.
        logged = await log.wait_for(lambda e: isinstance(e, ev.ServerLog), since=since, timeout=25)
        assert logged.server == "everything" and "message - SessionId" in logged.message  # type: ignore[attr-defined]
        assert logged.level != "debug"  # type: ignore[attr-defined]
    finally:
        await supervisor.call_tool("toggle-simulated-logging", {})


async def test_over_http_structured_content_is_checked_and_kept(hosted):
    supervisor, _ = hosted
    result = await supervisor.call_tool("get-structured-content", {"location": "New York"})
    assert not result.is_error
    assert result.structured == {"temperature": 33, "conditions": "Cloudy", "humidity": 82}


async def test_over_http_the_tiny_image_is_a_checked_png(hosted):
    supervisor, _ = hosted
    result = await supervisor.call_tool("get-tiny-image", {})
    (image,) = [p for p in result.parts if p["type"] == "image"]
    assert image["mime_type"] == "image/png" and base64.b64decode(image["data"])[:4] == b"\x89PNG"


async def test_over_http_resource_links_and_embedded_resources_are_parts_by_type(hosted):
    supervisor, _ = hosted
    links = await supervisor.call_tool("get-resource-links", {"count": 2})
    assert [p["type"] for p in links.parts] == ["resource_link", "resource_link"]
    assert all(p["uri"].startswith("demo://resource/dynamic/") for p in links.parts)
    embedded = await supervisor.call_tool("get-resource-reference", {"resourceType": "Text", "resourceId": 4})
    (resource,) = [p for p in embedded.parts if p["type"] == "resource"]
    assert resource["uri"] == "demo://resource/dynamic/text/4" and resource["text"]


async def test_over_http_a_resource_the_server_adds_is_listed_again_and_reported(hosted):
    """A session resource (a gzipped copy of a data: URI) makes it say its resources changed."""
    supervisor, log = hosted
    since = len(log.events)
    before = len(supervisor.connections["everything"].catalog.resources)
    data = "data:text/plain;base64," + base64.b64encode(b"hello over http").decode()
    result = await supervisor.call_tool("gzip-file-as-resource", {"name": "hello.gz", "data": data})
    assert not result.is_error, result.text
    changed = await log.wait_for(
        lambda e: isinstance(e, ev.ServerListChanged) and e.what == "resources", since=since, timeout=10
    )
    assert changed.count == before + 1  # type: ignore[attr-defined]
    uris = [r.uri for r in supervisor.connections["everything"].catalog.resources]
    assert "demo://resource/session/hello.gz" in uris
