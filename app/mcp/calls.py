"""One tool call on a server, in the caller's task, and the wording of each way it can fail.

The call borrows the client the owner task lends (:meth:`ServerConnection.live_client`)
and never touches the owner's state machine: a timeout or a connection closing under
the call is reported to the owner, which decides whether to restart.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import anyio
import mcp_types
import pydantic
from mcp import Client, MCPError
from mcp.shared.dispatcher import ProgressFnT

from app.core.progress import ProgressUpdate, current_receiver
from app.core.tools import ToolResult
from app.mcp.connection import ServerConnection
from app.mcp.inbound import BAD_REPLY
from app.mcp.kept import KeptResults, new_call_id
from app.mcp.lifecycle import exit_message, stderr_hint
from app.mcp.results import MAX_TEXT, full_text, tool_result, untagged_complete
from app.mcp.transport import StdioTransport

logger = logging.getLogger(__name__)

_ON_PURPOSE = {"stop": "stopped", "restart": "restarted", "stuck": "restarted"}


async def call_tool(
    connection: ServerConnection, tool: str, arguments: Mapping[str, Any], keep: KeptResults | None = None
) -> ToolResult:
    """Run ``tool``; every failure comes back as an error result worded for the model and the user.
    With ``keep``, a result cut for the model is kept whole there."""
    client = await connection.live_client()
    if client is None:
        return ToolResult(connection.unavailable(), is_error=True)
    transport = connection.transport  # the owner may replace it while we wait
    name = connection.name
    limit = connection.limits.tool_timeout_s
    try:
        # Our deadline, not the SDK's read timeout: it stands still while the user is asked.
        with connection.handlers.clock.deadline(limit) as deadline:
            result = await _call(client, tool, arguments, name)
    except MCPError as exc:
        return await _call_error(connection, tool, exc, transport)
    except pydantic.ValidationError as exc:
        return ToolResult(f"tool {tool} on server {name} returned a malformed result: {exc}", True)
    except RuntimeError as exc:
        if _schema_mismatch(exc):
            why = str(exc).split("\n\n", 1)[0]  # jsonschema's report goes on to quote the schema
            return ToolResult(f"tool {tool} on server {name} failed its output schema check: {why}", True)
        return _closed_before(name, tool)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
        return _closed_before(name, tool)
    if deadline.cancelled_caught:
        return _timed_out(connection, tool)
    return await _kept_if_cut(result, keep)


async def _call(
    client: Client, tool: str, arguments: Mapping[str, Any], server: str
) -> mcp_types.CallToolResult:
    try:
        return await client.call_tool(tool, dict(arguments), progress_callback=_progress_to(server, tool))
    except pydantic.ValidationError as exc:
        # A result without resultType is complete (2026-07-28); the SDK's version check says
        # malformed. Taken as complete here, it gets the output-schema check the SDK skipped.
        result = untagged_complete(exc)
        if result is None:
            raise
        if not result.is_error:
            await client.session.validate_tool_result(tool, result)
        return result


async def _kept_if_cut(result: mcp_types.CallToolResult, keep: KeptResults | None) -> ToolResult:
    """A result too long for the model is kept whole on disk (in a worker: it may be 50 MB)."""
    text = full_text(result)
    kept = None
    if keep is not None and len(text) > MAX_TEXT:
        kept = await anyio.to_thread.run_sync(keep.keep, new_call_id(), text)
    return tool_result(result, text=text, kept=kept)


def _schema_mismatch(exc: RuntimeError) -> bool:
    """The SDK checks structuredContent against the tool's outputSchema and says so in a RuntimeError,
    the same type it raises for a closed client: the wording is what tells them apart."""
    text = str(exc)
    return "structured content" in text or "Invalid schema for tool" in text


def _closed_before(name: str, tool: str) -> ToolResult:
    # The owner closed this client between our lookup and the send (a restart or stop).
    return ToolResult(f"the connection to server {name} closed before tool {tool} ran", True)


def _progress_to(server: str, tool: str) -> ProgressFnT:
    """Every call carries a progress token; the updates go to whoever started the call, if anyone."""
    receiver = current_receiver()  # read now: the SDK calls back from its own task

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        logger.debug("server %s, tool %s: progress %s/%s %s", server, tool, progress, total, message or "")
        if receiver is not None:
            receiver(ProgressUpdate(progress, total, message))

    return on_progress


def _timed_out(connection: ServerConnection, tool: str) -> ToolResult:
    connection.report_suspect()
    limit = connection.limits.tool_timeout_s
    return ToolResult(f"tool {tool} on server {connection.name} did not answer within {limit:g} s", True)


async def _call_error(
    connection: ServerConnection, tool: str, exc: MCPError, transport: StdioTransport | None
) -> ToolResult:
    code, name = exc.error.code, connection.name
    if code == mcp_types.REQUEST_TIMEOUT:
        return _timed_out(connection, tool)
    if code == mcp_types.CONNECTION_CLOSED:
        return ToolResult(await _closed_during(connection, tool, transport), True)
    if code == BAD_REPLY:
        return ToolResult(
            f"tool {tool} on server {name} sent a reply that cannot be used: {exc.error.message}", True
        )
    return ToolResult(f"server {name} rejected {tool}: {exc.error.message}", True)


async def _closed_during(connection: ServerConnection, tool: str, transport: StdioTransport | None) -> str:
    name = connection.name
    if connection.ended in _ON_PURPOSE:
        why = f": {connection.last_error}" if connection.last_error else ""
        return f"server {name} was {_ON_PURPOSE[connection.ended]} while running tool {tool}{why}"
    if transport is None or await transport.wait_exited(2.0) is None:
        connection.report_lost()
        if connection.oauth is not None and connection.oauth.failure:  # a sign-in again, refused
            return f"server {name} could not run tool {tool}: {connection.oauth.failure}"
        return f"the connection to server {name} closed while running tool {tool}"
    return f"{exit_message(name, transport)} while running tool {tool}" + stderr_hint(transport)
