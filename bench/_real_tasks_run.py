"""Running one task on each side and judging what it left: Calculon's engine, and the raw peer.

Calculon runs in-process on one warm :class:`app.engine.Engine`: each task writes its own
servers file (the workspace differs, so the servers whose arguments name it restart), the
conversation is new, and a bench user approves every call it is asked about, one call at a
time, as a person clicking "Allow" would. A call that changes something and ran with no
approval asked for it fails the task, as does a call written as text where a value was asked for.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.core.failed_note import DOWN_NOTE, FAILED_NOTE, UNDONE_NOTE
from bench import _real_tasks_servers as servers
from bench import _real_tasks_workspace as ws
from bench._raw_peer import written_call
from bench._real_tasks_task import Task, changes

# Refusals made before a call reaches its server (app/core/toolrun.py's wording).
# How the app words a call it refused before any server saw it (a bad schema, an unknown tool, a
# declined approval, a calculation that works nothing out: app.core.toolrun)
_NOT_SENT = ("Arguments do not match the schema", "Unknown tool", "Arguments for ", "Call to ", "Not run (")
_CALL_TEXT = re.compile(r'<tool_call>|\{\s*"name"\s*:\s*"[^"]+"\s*,\s*"(?:arguments|parameters)"')
# A call in a programming language's form: get_time(timezone="Asia/Tokyo")
_CODE_CALL = re.compile(r"\b[a-z][a-z0-9]*_[a-z0-9_]+\(\s*(?:\)|[a-z_]+\s*=|[\"'{])")


@dataclasses.dataclass
class Run:
    task: str
    side: str  # "calculon" or "raw"
    done: bool
    answer: str
    calls: list[str]
    wrong_tool: int
    invalid: int  # calls that came back as an error
    written: bool  # the answer is (or holds) a call written as text
    unapproved: int  # calls that changed something with no approval asked
    seconds: float
    schema_tokens: float  # tool schemas the prompt lists, per step (median)
    verdict: str | None = None
    error: str = ""
    offered: list[str] = dataclasses.field(default_factory=list)  # the first step's tools (server.tool)
    right_offered: bool = True  # a tool of the task's own servers was among them (the raw peer offers all)
    trace: list[str] = dataclasses.field(default_factory=list)  # what the turn did, step by step (ours)
    refused: int = 0  # of the invalid calls, those the app refused before any server saw them (ours)


def trace_lines(events: list[Any]) -> list[str]:
    """The turn's steps, notices, calls and answer in a line each: why a task failed, in the JSON."""
    from app.core import events as ev

    lines = []
    for event in events:
        if isinstance(event, ev.StepStarted):
            lines.append(f"step {event.step}")
        elif isinstance(event, ev.Notice):
            lines.append(f"notice: {event.message[:200]}")
        elif isinstance(event, ev.ToolCallFinished):
            arguments = json.dumps(event.arguments, ensure_ascii=False)[:160]
            failed = " (error)" if event.is_error else ""
            lines.append(f"call {event.tool}({arguments}){failed} -> {event.result[:200]}")
        elif isinstance(event, ev.AnswerReady):
            lines.append(f"answer [{event.verdict}]: {event.text[:300]}")
    return lines


def written_as_text(answer: str) -> bool:
    return written_call(answer) or bool(_CALL_TEXT.search(answer) or _CODE_CALL.search(answer))


def judged(task: Task, side: str, project: Path, answer: str, calls: list[Any], **rest: Any) -> Run:
    """``calls``: (server, tool, arguments, is_error) for every call the turn made."""
    # the app's lines under an answer whose last call failed (or no call served, a server down) quote
    # errors: no value the answer states
    notes = "|".join(re.escape(n) for n in (FAILED_NOTE, UNDONE_NOTE, DOWN_NOTE))
    stated = re.split(f"(?:^|\n\n)(?:{notes})", answer)[0]
    written = written_as_text(stated)
    unapproved = rest.pop("unapproved")
    if "offered" in rest:  # the bundled calculator, converter and clock do not count here
        own = [o for o in rest["offered"] if o.split(".")[0] not in servers.BUNDLED]
        rest["right_offered"] = any(task.fits(*o.split(".", 1)) for o in own)
    # A change is judged by the change alone; a stated value never by a call that holds it.
    done = unapproved == 0 and not (written and task.states_value) and task.judge(project, stated)
    return Run(
        task.name,
        side,
        done,
        answer,
        [f"{s}.{t}({json.dumps(a, ensure_ascii=False)[:160]})" for s, t, a, _ in calls],
        sum(1 for s, t, _, _ in calls if not task.fits(s, t)),
        sum(1 for *_, failed in calls if failed),
        written,
        unapproved,
        **rest,
    )


class BenchUser:
    """Approves each call it is asked about, once ("Allow", not "always"); declines forms and sampling."""

    def __init__(self) -> None:
        self.granted: list[tuple[str, str, str]] = []

    async def answer(self, request: Any) -> Any:
        from app.core.asking import ApprovalAnswer, ApprovalRequest

        if isinstance(request, ApprovalRequest):
            self.granted.append((request.server, request.tool, _key(request.arguments)))
            return ApprovalAnswer("allow", "approved by the bench")
        return request.declined("the bench answers no forms or sampling requests")


def _key(arguments: Any) -> str:
    return json.dumps(arguments, sort_keys=True, default=str)


class CalculonSide:
    def __init__(self, settings: Any, folder: Path, site: str) -> None:
        from app.engine import Engine

        self.folder, self.site = folder, site
        self.user = BenchUser()
        self.config_path = folder / "servers.json"
        self.config_path.write_text(json.dumps({"mcpServers": {}}))
        self.engine = Engine.from_settings(settings, servers_path=self.config_path, user=self.user)
        self.label = ""

    async def start(self) -> None:
        await self.engine.start(timeout=60)
        self.label = (await self.engine.ensure_backend()).model_label

    async def aclose(self) -> None:
        await self.engine.aclose()

    async def run(self, task: Task, max_rounds: int, config: Callable[[Path, str], Any] | None = None) -> Run:
        """``config``: the ``mcpServers`` file for the task's project, where not the usual one."""
        from app.core import events as ev

        project = ws.build(self.folder / task.name)
        if task.setup:
            task.setup(project)
        self.config_path.write_text(json.dumps((config or servers.mcp_servers)(project, self.site)))
        await self.engine.reload_servers()
        await self._all_ready()
        refresh = getattr(self.engine.selector, "refresh", None)
        if refresh is not None:  # rank the new servers' tools from the first step, as a warm app does
            await refresh(self.engine.supervisor.list_tools())
        if self.engine.session is not None:
            self.engine.session.reset()
        self.engine.approvals.new_conversation()
        self.user.granted.clear()
        steps: list[Any] = []

        def keep(event: Any) -> None:
            if isinstance(event, ev.StepStarted):
                steps.append(event)

        self.engine.subscribe(keep)
        started = time.perf_counter()
        try:
            outcome = await self.engine.ask(task.text(project, self.site))
        finally:
            self.engine.unsubscribe(keep)
        seconds = time.perf_counter() - started
        calls = [(c.server, c.tool, dict(c.arguments), c.is_error) for c in outcome.tool_calls]
        refused = sum(1 for c in outcome.tool_calls if c.is_error and c.result.startswith(_NOT_SENT))
        return judged(
            task,
            "calculon",
            project,
            outcome.answer,
            calls,
            unapproved=self._unapproved(outcome.tool_calls),
            seconds=seconds,
            schema_tokens=self._schema_tokens(steps),
            verdict=outcome.shown_verdict,
            refused=refused,
            error=outcome.error,
            offered=self._offered(steps[0]) if steps else [],
            trace=trace_lines(list(outcome.events)),
        )

    async def _all_ready(self, timeout: float = 180.0) -> None:
        """Every server ready before the question, as a person would see them in the window; npx
        and a loaded machine can take longer than the engine's own start-up wait."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:  # a server that could not start is as ready as it gets
            waiting = [s for s in self.engine.supervisor.states() if s.state not in ("ready", "failed")]
            if not waiting:
                return
            await asyncio.sleep(0.25)
        for status in waiting:
            print(f"server {status.name} is {status.state}: {status.last_error}", flush=True)

    def _unapproved(self, records: list[Any]) -> int:
        granted, missing = list(self.user.granted), 0
        for record in records:
            sent = not (record.is_error and record.result.startswith(_NOT_SENT))
            info = self.engine.supervisor.resolve(f"{record.server}.{record.tool}")
            destructive = info is not None and info.annotations.get("destructiveHint") is True
            if sent and (changes(record.server, record.tool) or destructive):
                key = (record.server, record.tool, _key(dict(record.arguments)))
                if key in granted:
                    granted.remove(key)
                else:
                    missing += 1
        return missing

    def _offered(self, step: Any) -> list[str]:
        resolve = self.engine.supervisor.resolve
        return [f"{t.server}.{t.tool}" for name, _ in step.offered if (t := resolve(name)) is not None]

    def _schema_tokens(self, steps: list[Any]) -> float:
        from app.mcp.retrieval.meter import schema_tokens

        resolve = self.engine.supervisor.resolve
        # what the prompt lists: a narrowed step may call fewer tools than its prompt shows
        names = [s.listed or tuple(n for n, _ in s.offered) for s in steps]
        per_step = [schema_tokens([t for n in step if (t := resolve(n)) is not None]) for step in names]
        return statistics.median(per_step) if per_step else 0.0


class PeerSide:
    def __init__(self, gguf: str, folder: Path, site: str) -> None:
        from bench._real_tasks_peer import ServersPeer

        self.peer = ServersPeer(gguf, folder / "servers.log")
        self.folder, self.site = folder, site

    async def run(self, task: Task, max_rounds: int) -> Run:
        project = ws.build(self.folder / task.name)
        if task.setup:
            task.setup(project)
        entries = servers.reference_only(servers.mcp_servers(project, self.site))
        await self.peer.connect(entries)
        try:
            found = await self.peer.run_task(task.text(project, self.site), max_rounds)
        finally:
            await self.peer.disconnect()
        calls = [(c.server, c.tool, c.arguments, c.is_error) for c in found.calls]
        unapproved = sum(
            1 for c in found.calls if changes(c.server, c.tool) and not c.approved and not c.is_error
        )
        return judged(
            task,
            "raw",
            project,
            found.answer,
            calls,
            unapproved=unapproved,
            seconds=found.seconds,
            schema_tokens=float(found.schema_tokens),
            error=found.error,
        )

    async def aclose(self) -> None:
        await self.peer.__aexit__(None, None, None)
