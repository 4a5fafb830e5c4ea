"""The trace store: a plain-Python tree (turn, then its steps) built from events.

Nodes are only ever appended or updated, never moved, so each node records its
row when inserted and every operation is constant time. Listeners hear about a
node before it is inserted (so a Qt model can call ``beginInsertRows``), after,
and whenever an existing node changes.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Protocol

from app.core import events as ev


@dataclasses.dataclass(eq=False)
class TraceNode:
    kind: str  # turn, step, thought, text, tool_call, ask, check, answer, notice, error, app_context
    label: str
    parent: TraceNode | None = None
    row: int = 0
    status: str = "running"  # running, ok, error, cancelled
    started: float = 0.0
    duration_ms: float | None = None
    data: dict[str, Any] = dataclasses.field(default_factory=dict)
    children: list[TraceNode] = dataclasses.field(default_factory=list)
    _parts: list[str] = dataclasses.field(default_factory=list, repr=False)

    @property
    def text(self) -> str:
        """Streamed text of a thought/text node, joined lazily (deltas are tiny)."""
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def details(self) -> str:
        """The node as pretty JSON, for the details pane and the clipboard."""
        body: dict[str, Any] = {"kind": self.kind, "label": self.label, "status": self.status}
        if self.duration_ms is not None:
            body["duration_ms"] = round(self.duration_ms, 1)
        if self._parts:
            body["text"] = self.text
        body.update(self.data)
        return json.dumps(body, indent=2, ensure_ascii=False, default=str)


class TraceListener(Protocol):
    def node_inserting(self, parent: TraceNode | None, row: int) -> None: ...

    def node_inserted(self, node: TraceNode) -> None: ...

    def node_changed(self, node: TraceNode) -> None: ...


class TraceStore:
    """Builds and owns the tree; apply every engine event to it in order."""

    def __init__(self) -> None:
        self.roots: list[TraceNode] = []
        self._listeners: list[TraceListener] = []
        self._turns: dict[str, TraceNode] = {}
        self._steps: dict[str, TraceNode] = {}
        self._calls: dict[str, TraceNode] = {}
        self._streaming: dict[str, TraceNode] = {}  # turn -> open thought/text node
        self._asks: dict[str, TraceNode] = {}  # request id -> question awaiting its answer

    def subscribe(self, listener: TraceListener) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: TraceListener) -> None:
        self._listeners.remove(listener)

    def count(self) -> int:
        return sum(1 for _ in self.walk())

    def walk(self) -> Any:
        stack = list(reversed(self.roots))
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def apply(self, event: ev.Event) -> None:
        handler = getattr(self, f"_on_{event.kind}", None)
        outside_turns = isinstance(event, ev.TurnStarted | ev.ServerLog)
        if handler is not None and (event.turn_id in self._turns or outside_turns):
            handler(event)

    # --- building blocks ---

    def _insert(self, parent: TraceNode | None, node: TraceNode) -> TraceNode:
        siblings = self.roots if parent is None else parent.children
        node.parent, node.row = parent, len(siblings)
        for listener in self._listeners:
            listener.node_inserting(parent, node.row)
        siblings.append(node)
        for listener in self._listeners:
            listener.node_inserted(node)
        return node

    def _changed(self, node: TraceNode) -> None:
        for listener in self._listeners:
            listener.node_changed(node)

    def _container(self, turn_id: str) -> TraceNode:
        return self._steps.get(turn_id) or self._turns[turn_id]

    def _stream(self, event: ev.TextDelta | ev.ThoughtDelta, kind: str, label: str) -> None:
        open_node = self._streaming.get(event.turn_id)
        if open_node is None or open_node.kind != kind:
            open_node = self._insert(
                self._container(event.turn_id), TraceNode(kind, label, started=event.ts, status="ok")
            )
            self._streaming[event.turn_id] = open_node
        open_node._parts.append(event.text)
        open_node.duration_ms = (event.ts - open_node.started) * 1000
        self._changed(open_node)

    # --- event handlers ---

    def _on_turn_started(self, event: ev.TurnStarted) -> None:
        label = f"Turn {len(self.roots) + 1}: {_short(event.text)}"
        node = TraceNode("turn", label, started=event.ts, data={"prompt": event.text})
        self._turns[event.turn_id] = self._insert(None, node)

    def _on_step_started(self, event: ev.StepStarted) -> None:
        label = f"Step {event.step}"
        if event.selected:
            label += f" · {len(event.offered)} tools offered"
        data = {"offered": [{"tool": name, "score": round(score, 4)} for name, score in event.offered]}
        node = TraceNode("step", label, started=event.ts, data=data)
        self._steps[event.turn_id] = self._insert(self._turns[event.turn_id], node)
        self._streaming.pop(event.turn_id, None)

    def _on_step_finished(self, event: ev.StepFinished) -> None:
        node = self._steps.get(event.turn_id)
        if node is not None:
            node.status, node.duration_ms = "ok", event.duration_ms
            node.data.update(tokens=event.tokens, tokens_per_s=round(event.tokens_per_s, 1))
            self._changed(node)

    def _on_thought_delta(self, event: ev.ThoughtDelta) -> None:
        self._stream(event, "thought", "Thought")

    def _on_text_delta(self, event: ev.TextDelta) -> None:
        self._stream(event, "text", "Text")

    def _on_tool_call_started(self, event: ev.ToolCallStarted) -> None:
        label, data = f"{event.server}.{event.tool}", _call_data(event)
        if event.from_app:  # made by an app's page, after its turn's steps: under the turn, said so
            label, data["from_app"] = f"{label} · from its app", event.from_app
            parent = self._turns[event.turn_id]
        else:
            self._streaming.pop(event.turn_id, None)
            parent = self._container(event.turn_id)
        node = TraceNode("tool_call", label, started=event.ts, data=data)
        self._calls[event.call_id] = self._insert(parent, node)

    def _on_tool_call_finished(self, event: ev.ToolCallFinished) -> None:
        node = self._calls.pop(event.call_id, None)
        if node is None:
            self._on_tool_call_started(ev.ToolCallStarted(**_call_fields(event)))
            node = self._calls.pop(event.call_id)
        node.status = "cancelled" if event.cancelled else "error" if event.is_error else "ok"
        node.duration_ms = event.duration_ms
        node.data.update(result=event.result, is_error=event.is_error)
        if event.structured is not None:
            node.data["structured"] = event.structured
        if event.parts:  # image bytes stay out of the details pane: their size says enough
            node.data["parts"] = [{k: v for k, v in p.items() if k != "data"} for p in event.parts]
        self._changed(node)

    def _on_tool_call_progress(self, event: ev.ToolCallProgress) -> None:
        node = self._calls.get(event.call_id)
        if node is not None:
            update = {"progress": event.progress, "total": event.total, "message": event.message}
            node.data["progress"] = update
            self._changed(node)

    def _on_server_log(self, event: ev.ServerLog) -> None:
        """A log line from a server while one of its calls runs belongs to that call (a 2026-07-28
        server sends log lines only inside the request that asked for them)."""
        running = [node for node in self._calls.values() if node.data.get("server") == event.server]
        if running:
            running[-1].data.setdefault("logs", []).append(f"[{event.level}] {event.message}")
            self._changed(running[-1])

    def _on_user_asked(self, event: ev.UserAsked) -> None:
        """Under the call it interrupts (an approval, a server's question mid-call), else the step."""
        self._streaming.pop(event.turn_id, None)
        data = {"request": event.request, "server": event.server, "asked": dict(event.details)}
        node = TraceNode("ask", f"Asked: {event.title}", started=event.ts, data=data)
        self._asks[event.request_id] = self._insert(self._asking_parent(event), node)

    def _asking_parent(self, event: ev.UserAsked) -> TraceNode:
        prefix = f"{event.turn_id}-"
        for call_id, call in reversed(self._calls.items()):
            if call_id.startswith(prefix) and call.data.get("server") == event.server:
                return call
        return self._container(event.turn_id)

    def _on_user_answered(self, event: ev.UserAnswered) -> None:
        node = self._asks.pop(event.request_id, None)
        if node is None:
            return
        agreed = event.answer.split(" ", 1)[0] in ("allow", "conversation", "always", "accept", "approve")
        node.status, node.duration_ms = ("ok" if agreed else "error"), event.duration_ms
        node.label = f"{node.label} → {event.answer}"
        node.data.update(answer=event.answer, answered=dict(event.details))
        self._changed(node)

    def _on_check_finished(self, event: ev.CheckFinished) -> None:
        verdict = "every number backed" if event.verified else f"unbacked: {', '.join(event.unbacked)}"
        label = f"Check {event.attempt}: {verdict}" + (" · re-asking" if event.will_reask else "")
        data = {"verified": event.verified, "unbacked": list(event.unbacked), "will_reask": event.will_reask}
        status = "ok" if event.verified else "error"
        self._insert(
            self._turns[event.turn_id], TraceNode("check", label, started=event.ts, status=status, data=data)
        )

    def _on_answer_ready(self, event: ev.AnswerReady) -> None:
        kind = event.verdict or {True: "verified", False: "unverified", None: ""}[event.verified]
        badge = {
            "verified": " ✓ verified",
            "computed": " ≈ computed",
            "unverified": " ✗ unverified",
            "not_calculated": " — not calculated",
            "unchecked": " · nothing checked",
            "untrusted": " ⚠ from an untrusted server",
        }
        said = event.formula if kind == "computed" else event.basis  # what was checked, or what to check
        label = f"Answer{badge.get(kind, '')}" + (f" · {said}" if said else "")
        node = TraceNode("answer", label, started=event.ts, status="ok")
        node._parts.append(event.text)
        node.data.update(
            verified=event.verified,
            verdict=kind or None,
            formula=event.formula,
            basis=event.basis,
            unbacked=list(event.unbacked),
        )
        self._insert(self._turns[event.turn_id], node)

    def _on_app_context_sent(self, event: ev.AppContextSent) -> None:
        label = f"Context from the app of {event.server}.{event.tool}: {_short(event.text)}"
        data = {"app_call": event.app_call, "text": event.text}
        node = TraceNode("app_context", label, started=event.ts, status="ok", data=data)
        self._insert(self._turns[event.turn_id], node)

    def _on_notice(self, event: ev.Notice) -> None:
        node = TraceNode("notice", event.message, started=event.ts, status="ok")
        self._insert(self._container(event.turn_id), node)

    def _on_turn_error(self, event: ev.TurnError) -> None:
        node = TraceNode("error", f"Error: {event.message}", started=event.ts, status="error")
        node.data["category"] = event.category
        self._insert(self._turns[event.turn_id], node)

    def _on_turn_finished(self, event: ev.TurnFinished) -> None:
        turn = self._turns[event.turn_id]
        turn.status = "cancelled" if event.cancelled else "error" if event.failed else "ok"
        turn.duration_ms = event.duration_ms
        apps = {}  # an app's calls are not the turn's: they run on
        for key, running in [*self._calls.items(), *self._asks.items()]:
            if "from_app" in running.data:
                apps[key] = running
            else:
                running.status = "cancelled"
                self._changed(running)
        self._calls = apps
        self._asks.clear()
        step = self._steps.pop(event.turn_id, None)
        if step is not None and step.status == "running":  # the turn failed or stopped inside it
            step.status = turn.status
            self._changed(step)
        self._streaming.pop(event.turn_id, None)
        self._changed(turn)


def status_text(node: TraceNode) -> str:
    """What the status column says: a running call's progress (``running 2/4 (50%)``), else its status."""
    update = node.data.get("progress") if node.status == "running" else None
    if not update:
        return node.status
    return f"running {progress_text(update['progress'], update['total'], update['message'])}"


def progress_text(value: float, total: float | None, message: str = "") -> str:
    """``2/4 (50%)``, or just the count when the server gives no total."""
    count = f"{value:g}/{total:g} ({value / total:.0%})" if total else f"{value:g}"
    return f"{count} {message}".strip()


def _short(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _call_fields(event: ev.ToolCallFinished) -> dict[str, Any]:
    return {
        "turn_id": event.turn_id,
        "ts": event.ts,
        "call_id": event.call_id,
        "server": event.server,
        "tool": event.tool,
        "arguments": event.arguments,
        "from_app": event.from_app,
    }


def _call_data(event: ev.ToolCallStarted) -> dict[str, Any]:
    return {
        "call_id": event.call_id,
        "server": event.server,
        "tool": event.tool,
        "arguments": dict(event.arguments),
    }
