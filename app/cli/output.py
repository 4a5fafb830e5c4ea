"""How the CLI shows things: tool and server listings, call results, live events."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from app.cli.visible import visible, visible_line
from app.core import events as ev
from app.core.progress import ProgressUpdate
from app.core.tools import ToolInfo, ToolResult
from app.core.trace import progress_text

if TYPE_CHECKING:  # the SDK is imported only once servers' processes are started (app.mcp.early)
    from app.mcp.lifecycle import ServerStatus

_CLIP = 200  # characters of a tool result or argument list in the live log


def tools_json(tools: Sequence[ToolInfo]) -> str:
    return json.dumps([_tool_dict(t) for t in tools], indent=2, ensure_ascii=False)


def _tool_dict(tool: ToolInfo) -> dict[str, Any]:
    return {
        "name": tool.name,
        "server": tool.server,
        "tool": tool.tool,
        "description": tool.description,
        "input_schema": dict(tool.input_schema),
        "icons": [dict(icon) for icon in tool.icons],
    }


def tools_text(tools: Sequence[ToolInfo]) -> str:
    if not tools:
        return "No tools: no server is running."
    blocks = []
    for tool in tools:
        schema = json.dumps(dict(tool.input_schema), ensure_ascii=False)
        blocks.append(f"{tool.name}  [{tool.server}]\n    {tool.description}\n    schema: {schema}")
    return "\n".join(blocks)


Review = Mapping[str, Mapping[str, Any]]  # per server: changed_tools and flags (app.cli.pinning)


def servers_json(states: Sequence[ServerStatus], review: Review | None = None) -> str:
    """Each server's status, with its ``changed_tools`` and ``flags`` from ``review`` where given."""
    keys = ("name", "state", "pid", "tool_count", "last_error", "tools", "remote", "skipped", "icons")
    rows = [{k: _plain(getattr(s, k)) for k in keys} | dict((review or {}).get(s.name, {})) for s in states]
    return json.dumps(rows, indent=2)


def servers_text(states: Sequence[ServerStatus], review: Review | None = None) -> str:
    if not states:
        return "No servers configured."
    lines = []
    for s in states:
        pid = f"pid {s.pid}" if s.pid else "no process"
        line = f"{s.name:<16} {s.state:<10} {pid:<12} {s.tool_count} tools"
        lines.append(line + (f"\n    last error: {s.last_error}" if s.last_error else ""))
        lines.extend(f"    {reason}" for reason in s.skipped)
        lines.extend(_review_lines(s.name, (review or {}).get(s.name, {})))
    return "\n".join(lines)


def _review_lines(server: str, review: Mapping[str, Any]) -> list[str]:
    """A server's changed tools (with their diffs) and flagged descriptions, indented under it."""
    lines = []
    for change in review.get("changed_tools", ()):
        tool = change["tool"]
        accept = f"calculon servers accept {server} {tool}"
        lines.append(f"    tool {tool} changed since first seen; held back until accepted: {accept}")
        lines.extend(f"        {line}" for line in change["diff"])
    flags = review.get("flags", ())
    lines.extend(f"    flagged ({flag['kind']}): {flag['where']}: {flag['detail']}" for flag in flags)
    return lines


def call_json(
    info: ToolInfo | None,
    name: str,
    arguments: Mapping[str, Any],
    result: ToolResult,
    asked: Sequence[ev.UserAnswered] = (),
    updates: Sequence[ProgressUpdate] = (),
) -> str:
    body = {
        "server": info.server if info else None,
        "tool": info.tool if info else name,
        "arguments": dict(arguments),
        "result": result.text,
        "is_error": result.is_error,
        "structured": result.structured,
        "parts": list(result.parts),
        "kept": result.kept or None,  # the file with the whole result, when "result" was cut
        "asked": [_asked_dict(a) for a in asked],
        "progress": [u.to_dict() for u in updates],
    }
    return json.dumps(body, ensure_ascii=False, default=str)


def _asked_dict(event: ev.UserAnswered) -> dict[str, Any]:
    return {
        "request": event.request,
        "server": event.server,
        "answer": event.answer,
        "ms": round(event.duration_ms, 1),
    }


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _CLIP else text[: _CLIP - 3] + "..."


class AskLog:
    """An event sink for questions outside a turn (``calculon call``): one line each on
    ``stream``, and the answers kept for ``--json``."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.answered: list[ev.UserAnswered] = []

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.UserAnswered):
            self.answered.append(event)
        self.stream.write(describe(event) + "\n")
        self.stream.flush()


class EventPrinter:
    """Writes events as they happen, one line each; streamed text stays on one line."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._streaming = ""  # the kind of delta whose line is open
        self._loading: tuple[str, int] = ("", -1)  # the last load line: its message and quarter

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.TextDelta | ev.ThoughtDelta):
            self._delta(event.kind, event.text)
            return
        if isinstance(event, ev.ModelLoading) and not event.done and not self._news(event):
            return
        self._end_line()
        line = describe(event)
        if line:
            self.stream.write(visible(line) + "\n")
            self.stream.flush()

    def _news(self, event: ev.ModelLoading) -> bool:
        """A load's progress is worth a line when its message changes or it passes a quarter:
        llama.cpp reports every percent, and a terminal does not need 100 lines of it."""
        seen = (event.message, int(event.progress * 4))
        if seen == self._loading:
            return False
        self._loading = seen
        return True

    def _delta(self, kind: str, text: str) -> None:
        if self._streaming != kind:
            self._end_line()
            self.stream.write("  thinking: " if kind == "thought_delta" else "  model: ")
            self._streaming = kind
        self.stream.write(visible_line(text.replace("\n", " ")))
        self.stream.flush()

    def _end_line(self) -> None:
        if self._streaming:
            self.stream.write("\n")
            self._streaming = ""


def describe(event: ev.Event) -> str:
    """One line for an event, or empty for events not worth a line."""
    describer = _DESCRIBERS.get(type(event))
    return describer(event) if describer else f"{event.kind}: {json.dumps(event.to_dict(), default=str)}"


def _tool_finished(e: Any) -> str:
    outcome = f"ERROR {_clip(e.result)}" if e.is_error else _clip(e.result)
    return f"  <- {e.server}.{e.tool}: {outcome} ({e.duration_ms:.0f} ms)"


def _verdict(e: Any) -> str:
    if e.verified is None:
        return ""
    if e.untrusted and e.verdict != "unverified":  # backed, but by a server nobody vouched for
        servers = ", ".join(dict.fromkeys(visible(server) for _, server in e.untrusted))
        return f" (NOT verified: numbers from {servers}, an untrusted server)"
    if e.verdict == "computed":
        return " (computed, NOT verified: check the formula)"
    if e.verdict == "not_calculated":
        return " (NOT calculated: no tool computed this number)"
    if e.verdict == "unchecked":
        return " (nothing was checked)"
    return " (verified)" if e.verified else " (NOT verified)"


def answer_text(outcome: Any) -> str:
    """The answer as ``ask`` prints it; a computed one with the formula to check beneath it."""
    if outcome.shown_verdict != "computed":
        return str(outcome.answer)
    formula = visible(outcome.formula) if outcome.formula else "see the tool calls above"
    return f"{outcome.answer}\n\nComputed, not verified. Check the formula: {formula}"


def _check(e: Any) -> str:
    if e.verified:
        return "  check: every number is backed"
    after = "; asking the model again" if e.will_reask else ""
    return f"  check: unbacked numbers {', '.join(e.unbacked)}{after}"


def _loading(e: Any) -> str:
    if e.error:
        return f"model: failed to load: {e.error}"
    return f"model: {e.message or 'loading'} ({e.progress:.0%})"


def _model_state(e: Any) -> str:
    """The model's process: its start and load already have their lines; what went wrong has one."""
    if e.state in ("crashed", "failed") and e.detail:
        return f"model process {e.state}: {e.detail}"
    if e.state == "restarting":
        return f"model process restarting ({e.detail})"
    return ""


def _server(e: Any) -> str:
    pid = f", pid {e.pid}" if e.pid else ""
    error = f": {e.last_error}" if e.last_error and e.state != "ready" else ""
    return f"server {e.server}: {e.state}{pid}, {e.tool_count} tools{error}"


def _finished(e: Any) -> str:
    how = "cancelled" if e.cancelled else "failed" if e.failed else "finished"
    return f"turn {how} in {e.duration_ms / 1000:.1f} s"


_DESCRIBERS: dict[type, Any] = {
    ev.TurnStarted: lambda e: f"turn: {_clip(e.text)}",
    ev.StepStarted: lambda e: (
        f"step {e.step}: {len(e.offered)} tools offered" + (" (selected by relevance)" if e.selected else "")
    ),
    ev.StepFinished: lambda e: f"step {e.step}: {e.tokens} tokens in {e.duration_ms / 1000:.1f} s",
    ev.ToolCallStarted: lambda e: f"  -> {e.server}.{e.tool} {_clip(json.dumps(dict(e.arguments)))}",
    ev.ToolCallFinished: _tool_finished,
    # the page itself is for the window; a terminal gets where it came from and its size
    ev.AppReady: lambda e: (
        f"     app {e.uri} from {e.server}: {len(e.html):,} characters (the window renders it)"
    ),
    ev.AppContextSent: lambda e: f"  context from the app of {e.server}.{e.tool}: {_clip(e.text)}",
    ev.ToolCallProgress: lambda e: f"     {e.tool}: {progress_text(e.progress, e.total, e.message)}",
    ev.CheckFinished: _check,
    ev.AnswerReady: lambda e: "answer ready" + _verdict(e),
    ev.Notice: lambda e: f"note: {e.message}",
    ev.TurnError: lambda e: f"error ({e.category}): {e.message}",
    ev.TurnFinished: _finished,
    ev.ModelLoading: _loading,
    ev.ModelStateChanged: _model_state,
    ev.ServerStateChanged: _server,
    ev.ServerLog: lambda e: f"server {e.server} log ({e.level}): {_clip(e.message)}",
    ev.UserAsked: lambda e: f"  ? asked: {_clip(e.title)}",
    ev.UserAnswered: lambda e: (
        f"  ? answered {e.request} from {e.server}: {e.answer} ({e.duration_ms:.0f} ms)"
    ),
    ev.ApprovalRemembered: lambda e: f"  remembered in settings: {e.key} = {e.policy}",
}
