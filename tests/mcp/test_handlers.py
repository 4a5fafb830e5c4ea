"""The handlers a supervisor gives each connection: what a server tells its client reaches us."""

from __future__ import annotations

import dataclasses

import anyio
import mcp_types
import pytest

from app.core import events as ev
from app.mcp.apps import AppsExtension
from app.mcp.handlers import ClientHandlers, server_handlers
from app.mcp.tasks import TasksExtension
from tests.mcp.helpers import script_entry

pytestmark = pytest.mark.anyio

LOGS = script_entry("logs", "logs.py")


async def test_a_server_log_message_becomes_a_server_log_event(supervise):
    supervisor, log = supervise(LOGS)
    await supervisor.start()
    assert (await supervisor.call_tool("say", {"text": "below the opt-in", "level": "debug"})).text
    assert (await supervisor.call_tool("say", {"text": "warming up", "level": "info"})).text == "warming up"
    logged = await log.wait_for(lambda e: isinstance(e, ev.ServerLog))
    assert isinstance(logged, ev.ServerLog)
    assert (logged.server, logged.level, logged.logger) == ("logs", "info", "logs.say")
    assert logged.message == "warming up"
    assert [e.message for e in log.events if isinstance(e, ev.ServerLog)] == ["warming up"]


async def test_a_handler_the_supervisor_gives_reaches_the_servers_client(supervise):
    seen: list[object] = []
    arrived = anyio.Event()

    async def on_message(message: object) -> None:
        seen.append(message)
        arrived.set()

    def handlers(server: str, sink: ev.EventSink) -> ClientHandlers:
        return dataclasses.replace(server_handlers(server, sink), message_handler=on_message)

    supervisor, _ = supervise(LOGS, handlers=handlers)
    await supervisor.start()
    await supervisor.call_tool("say", {"text": "hello", "level": "warning"})
    with anyio.fail_after(10):
        await arrived.wait()
    (notification,) = seen
    assert isinstance(notification, mcp_types.LoggingMessageNotification)
    assert notification.params.data == "hello"


def test_only_the_handlers_that_are_set_are_passed_to_the_client():
    async def on_log(params: mcp_types.LoggingMessageNotificationParams) -> None: ...

    def without_extensions(options: dict) -> dict:
        # every connection takes tasks (app.mcp.tasks) and MCP Apps (app.mcp.apps)
        tasks, apps = options.pop("extensions")
        assert isinstance(tasks, TasksExtension) and isinstance(apps, AppsExtension)
        return options

    assert without_extensions(ClientHandlers().client_options()) == {}
    options = without_extensions(ClientHandlers(logging_callback=on_log, log_level="info").client_options())
    assert options == {"logging_callback": on_log, "log_level": "info"}
