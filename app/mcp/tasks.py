"""Tool calls a server turns into tasks: the ``io.modelcontextprotocol/tasks`` extension (2026-07-28).

Calculon declares the extension on every request, so a server may answer ``tools/call`` with a
task handle (``resultType: "task"``) instead of a result and go on working. The SDK hands such a
handle to the claim below, inside the caller's call: it polls ``tasks/get`` at the interval the
server asks for (clamped), reports each status to the call's progress receiver (the trace node
and the CLI show it as it changes), and returns the task's ``CallToolResult`` when it completes.
A failed or cancelled task becomes an error result. Cancelling the call (the trace's stop button,
Ctrl+C, the end of the turn) sends ``tasks/cancel`` before it lets go.

The tool timeout bounds each poll, not the task: a task is long by design, and a server that
answers every poll is alive.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal

import anyio
import mcp_types
from mcp import MCPError
from mcp.client.context import ClientRequestContext
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from pydantic import TypeAdapter

from app.core.progress import ProgressUpdate, current_receiver

logger = logging.getLogger(__name__)

IDENTIFIER = "io.modelcontextprotocol/tasks"
TERMINAL = ("completed", "failed", "cancelled")
POLL_S = (0.1, 5.0)  # the server's pollIntervalMs, kept within these bounds
CANCEL_S = 5.0  # how long a tasks/cancel may take on the way out


class TaskHandle(mcp_types.Result):
    """``CreateTaskResult``, and the task ``tasks/get`` returns (with ``result`` or ``error`` at the end)."""

    result_type: Literal["task"] = "task"
    task_id: str
    status: str = "working"
    status_message: str | None = None
    poll_interval_ms: int | None = None
    ttl_ms: int | None = None


class _Task(mcp_types.Result):
    task_id: str
    status: str
    status_message: str | None = None
    poll_interval_ms: int | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = None  # while input_required: what the server asks


class _TaskParams(mcp_types.RequestParams):
    task_id: str


class _UpdateParams(_TaskParams):
    input_responses: dict[str, Any]


class _TaskRequest(mcp_types.Request[_TaskParams, str]):
    name_param = "taskId"  # routed by task id over Streamable HTTP (Mcp-Name)


class _UpdateRequest(
    mcp_types.Request[_UpdateParams, str]
):  # its own: pydantic dumps a field by its declared type
    name_param = "taskId"


_REQUESTS: TypeAdapter[mcp_types.InputRequests] = TypeAdapter(mcp_types.InputRequests)


class TasksExtension(ClientExtension):
    """The client side of the extension, one per connection; ``lift_deadline`` frees the call
    under way from its tool timeout once it is a task."""

    identifier = IDENTIFIER

    def __init__(
        self,
        lift_deadline: Callable[[], None],
        recorder: Callable[[str, str, str, str], None] | None = None,
        poll_timeout_s: float = 30.0,
    ) -> None:
        self.lift_deadline, self.recorder, self.poll_timeout_s = lift_deadline, recorder, poll_timeout_s
        self._recorded: dict[str, tuple[str, str]] = {}  # the last status recorded of each task

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self._follow)]

    async def _follow(self, handle: TaskHandle, ctx: ClaimContext) -> mcp_types.CallToolResult:
        task: _Task | TaskHandle = handle
        answered: set[str] = set()  # input requests already answered (a later poll may repeat them)
        self.lift_deadline()  # the tool timeout now bounds each poll, not the task
        try:
            while task.status not in TERMINAL:
                self._report(ctx.tool_name, task)
                if isinstance(task, _Task) and task.status == "input_required" and task.input_requests:
                    await self._answer(ctx, task, answered)
                await anyio.sleep(_interval(task.poll_interval_ms))
                task = await self._get(ctx, handle.task_id)
        except BaseException:
            if task.status not in TERMINAL:
                with anyio.CancelScope(shield=True), anyio.move_on_after(CANCEL_S):
                    await self._cancel(ctx, handle.task_id)
                    self._record(ctx.tool_name, handle.task_id, "cancelled", "cancelled by Calculon")
            raise
        self._report(ctx.tool_name, task)
        return _outcome(task)

    def _report(self, tool: str, task: _Task | TaskHandle) -> None:
        message = task.status_message or ""
        logger.debug("tool %s: task %s %s", tool, task.task_id, task.status)
        self._record(tool, task.task_id, task.status, message)
        receiver = current_receiver()
        if receiver is not None:
            text = f"task {task.status}" + (f": {message}" if message else "")
            receiver(ProgressUpdate(progress=0.0, message=text))

    def _record(self, tool: str, task_id: str, status: str, message: str) -> None:
        # each poll reports; the task list on disk hears only what changed
        if self.recorder is not None and self._recorded.get(task_id) != (status, message):
            self._recorded[task_id] = (status, message)
            self.recorder(tool, task_id, status, message)

    async def _answer(self, ctx: ClaimContext, task: _Task, answered: set[str]) -> None:
        """Ask the user (or the model, or the roots list) what the task asks, through the same
        handlers as a server's own requests, and send the answers with ``tasks/update``."""
        asked = {k: v for k, v in _REQUESTS.validate_python(task.input_requests).items() if k not in answered}
        if not asked:
            return
        responses: dict[str, Any] = {}
        for key, wanted in asked.items():
            request_ctx = ClientRequestContext(session=ctx.session, request_id=key)
            response = await ctx.session.dispatch_input_request(request_ctx, wanted)
            if isinstance(
                response, mcp_types.ErrorData
            ):  # unanswerable: the call fails, the task is cancelled
                raise MCPError(code=response.code, message=response.message, data=response.data)
            responses[key] = response.model_dump(by_alias=True, mode="json", exclude_none=True)
            answered.add(key)
        params = _UpdateParams(task_id=task.task_id, input_responses=responses)
        request = _UpdateRequest(method="tasks/update", params=params)
        await ctx.session.send_request(
            request, mcp_types.Result, request_read_timeout_seconds=self.poll_timeout_s
        )

    async def _get(self, ctx: ClaimContext, task_id: str) -> _Task:
        request = _TaskRequest(method="tasks/get", params=_TaskParams(task_id=task_id))
        return await ctx.session.send_request(
            request, _Task, request_read_timeout_seconds=self.poll_timeout_s
        )

    async def _cancel(self, ctx: ClaimContext, task_id: str) -> None:
        request = _TaskRequest(method="tasks/cancel", params=_TaskParams(task_id=task_id))
        try:
            await ctx.session.send_request(request, mcp_types.Result, request_read_timeout_seconds=CANCEL_S)
        except (MCPError, anyio.ClosedResourceError, anyio.BrokenResourceError):
            logger.info("task %s could not be cancelled", task_id, exc_info=True)


def _interval(poll_interval_ms: int | None) -> float:
    seconds = (poll_interval_ms or 1000) / 1000
    return min(max(seconds, POLL_S[0]), POLL_S[1])


def _outcome(task: _Task | TaskHandle) -> mcp_types.CallToolResult:
    """The task's end as the call's result: its own result, or an error result saying why not."""
    if isinstance(task, _Task) and task.status == "completed" and task.result is not None:
        return mcp_types.CallToolResult.model_validate(task.result)
    if isinstance(task, _Task) and task.status == "failed":
        why = (task.error or {}).get("message") or task.status_message or "no reason given"
        text = f"the task failed: {why}"
    elif task.status == "cancelled":
        text = "the task was cancelled" + (f": {task.status_message}" if task.status_message else "")
    else:
        text = "the task completed without a result"
    return mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text=text)], is_error=True)
