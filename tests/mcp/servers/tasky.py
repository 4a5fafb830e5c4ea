"""A server that turns calls of its ``research`` tool into tasks (the 2026-07-28 tasks extension,
``io.modelcontextprotocol/tasks``): when the request declares the extension, the call returns a
task handle at once and the work runs on in the background, stage by stage; ``tasks/get`` reports
its status (with the result once completed) and ``tasks/cancel`` stops it. ``quick`` is never a task.
With ``ask`` the task asks the user on the way (``input_required``). ``tasks_seen`` reports what the
server saw: the tasks it made and the cancels it got."""

from __future__ import annotations

import asyncio
import datetime
import uuid
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolRequestParams, RequestParams

IDENTIFIER = "io.modelcontextprotocol/tasks"
CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
_tasks: dict[str, dict[str, Any]] = {}
_runs: dict[str, asyncio.Task[None]] = {}
_cancels: list[str] = []


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


class TaskParams(RequestParams):
    task_id: str


class UpdateParams(TaskParams):
    input_responses: dict[str, Any]


_answers: dict[str, asyncio.Future[dict[str, Any]]] = {}
ASK = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Whose research is this?",
        "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
    },
}


def _declared(params: CallToolRequestParams) -> bool:
    meta: Any = params.meta or {}
    if not isinstance(meta, dict):
        meta = meta.model_dump(by_alias=True)
    return IDENTIFIER in ((meta.get(CAPABILITIES) or {}).get("extensions") or {})


async def _work(task: dict[str, Any], stages: int, fail: bool, ask: bool) -> None:
    try:
        for stage in range(stages):
            task.update(statusMessage=f"stage {stage + 1} of {stages}", lastUpdatedAt=_now())
            await asyncio.sleep(0.3)
        if ask:  # the user is asked, through tasks/get, and answers through tasks/update
            answer = _answers[task["taskId"]] = asyncio.get_running_loop().create_future()
            task.update(status="input_required", inputRequests={"who": ASK}, lastUpdatedAt=_now())
            response = await answer
            task.pop("inputRequests")
            task.update(status="working", topic=f"{task['topic']} for {response['who']['content']['name']}")
        if fail:
            task.update(status="failed", error={"code": -32603, "message": "the research fell through"})
        else:
            text = f"findings on {task['topic']}"
            task.update(
                status="completed",
                result={"content": [{"type": "text", "text": text}], "structuredContent": {"result": text}},
            )
        task["lastUpdatedAt"] = _now()
    except asyncio.CancelledError:
        task.update(status="cancelled", statusMessage="cancelled by the client", lastUpdatedAt=_now())


class Tasks(Extension):
    identifier = IDENTIFIER

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if params.name != "research" or not _declared(params):
            return await call_next(ctx)
        arguments = params.arguments or {}
        task_id = str(uuid.uuid4())
        task = {"taskId": task_id, "status": "working", "createdAt": _now(), "lastUpdatedAt": _now()}
        task.update(ttlMs=60000, pollIntervalMs=100, topic=arguments.get("topic", ""))
        _tasks[task_id] = task
        flags = bool(arguments.get("fail", False)), bool(arguments.get("ask", False))
        work = _work(task, int(arguments.get("stages", 3)), *flags)
        _runs[task_id] = asyncio.get_running_loop().create_task(work)
        return {"resultType": "task", **_public(task)}

    def methods(self) -> list[MethodBinding]:
        return [
            MethodBinding("tasks/get", TaskParams, _get),
            MethodBinding("tasks/cancel", TaskParams, _cancel),
            MethodBinding("tasks/update", UpdateParams, _update),
        ]


def _public(task: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in task.items() if key != "topic"}


async def _get(ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
    return {"resultType": "complete", **_public(_tasks[params.task_id])}


async def _update(ctx: ServerRequestContext[Any, Any], params: UpdateParams) -> HandlerResult:
    _answers[params.task_id].set_result(params.input_responses)
    return {"resultType": "complete"}


async def _cancel(ctx: ServerRequestContext[Any, Any], params: TaskParams) -> HandlerResult:
    _cancels.append(params.task_id)
    _runs[params.task_id].cancel()
    return {"resultType": "complete"}


app = MCPServer("tasky", extensions=[Tasks()])


@app.tool()
async def research(topic: str, stages: int = 3, fail: bool = False, ask: bool = False) -> str:
    """Research a topic (a task where the client supports tasks, else done in the call)."""
    await asyncio.sleep(0.1 * stages)
    return f"findings on {topic} (no task)"


@app.tool()
def quick(text: str) -> str:
    """Answer at once."""
    return text


@app.tool()
def tasks_seen() -> dict[str, Any]:
    """The tasks made so far and the ids the client cancelled."""
    return {"tasks": {k: v["status"] for k, v in _tasks.items()}, "cancels": list(_cancels)}


if __name__ == "__main__":
    app.run()
