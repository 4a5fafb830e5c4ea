"""Turns engine events into chat bubbles, one handler per event kind."""

from __future__ import annotations

import json
from collections.abc import Callable

import shiboken6
from PySide6.QtWidgets import QWidget

from app.core import events as ev
from app.core.progress import ProgressUpdate
from app.core.text_calls import may_open_call
from app.core.trace import progress_text
from app.ui import theme, verdict
from app.ui.bubbles import Bubble, MarkdownBubble, PlainBubble
from app.ui.chat_pane import ChatPane
from app.ui.content_view import ContentParts, full_result_button

ANSWER_TITLE = "Calculon"
MAYBE_CALL_TITLE = "Model output · may be a tool call, not an answer"
WRITTEN_CALL_TITLE = "Tool call written as text · not an answer"


def format_ms(ms: float | None) -> str:
    if ms is None:
        return ""
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def result_text(event: ev.ToolCallFinished) -> str:
    """The result as the model got it, and the structured content as formatted JSON."""
    if event.structured is None:
        return event.result
    formatted = json.dumps(event.structured, indent=2, ensure_ascii=False, default=str)
    if formatted == event.result:
        return formatted
    return f"{event.result}\n\nStructured content (checked against the tool's output schema):\n{formatted}"


class ChatFeed:
    """Keeps track of the bubbles still growing in the running turn."""

    def __init__(self, pane: ChatPane, read_link: Callable[[str, str], object] = lambda _s, _u: None) -> None:
        self.pane = pane
        self.read_link = read_link  # (server, uri): the user clicked a resource link in a result
        self._text: MarkdownBubble | None = None
        self._thought: PlainBubble | None = None
        self._calls: dict[str, Bubble] = {}  # call id -> its bubble, while the call runs
        self._results: dict[str, Bubble] = {}  # call id -> its result's bubble, where an app may follow
        self._inline: set[str] = set()  # the running calls a worked answer makes inside its prose
        # Makes the widget of an MCP App (app.ui.app_view.AppViews); None: apps are not shown (a saved chat).
        self.open_app: Callable[[ev.AppReady, QWidget], QWidget] | None = None
        self._apps: list[QWidget] = []

    def handle(self, event: ev.Event) -> None:
        handler = getattr(self, f"_on_{event.kind}", None)
        if handler is not None:
            handler(event)

    def show_error(self, message: str, title: str = "Error") -> Bubble:
        return self.pane.add_bubble(PlainBubble("error", title, message))

    def _close_streams(self) -> None:
        if self._text is not None:
            self._text.flush()
        self._text = self._thought = None

    # --- handlers ---

    def _on_turn_started(self, event: ev.TurnStarted) -> None:
        self._close_streams()
        self.pane.add_bubble(PlainBubble("user", "You", event.text))

    def _on_step_started(self, event: ev.StepStarted) -> None:
        if not event.continues:  # a worked answer's next step writes on in the same bubble
            self._close_streams()

    def _on_thought_delta(self, event: ev.ThoughtDelta) -> None:
        if self._thought is None:
            self._thought = PlainBubble("thought", "Thinking")
            self.pane.add_bubble(self._thought)
        self._thought.append(event.text)

    def _on_text_delta(self, event: ev.TextDelta) -> None:
        self._thought = None
        if self._text is None:
            self._text = MarkdownBubble("answer", ANSWER_TITLE)
            self.pane.add_bubble(self._text)
        self._text.append(event.text)
        # Until the step ends nobody knows whether text that opens like a call is one: say so.
        title = MAYBE_CALL_TITLE if may_open_call(self._text.source) else ANSWER_TITLE
        if self._text.title != title:
            self._text.set_title(title)

    def _on_tool_call_started(self, event: ev.ToolCallStarted) -> None:
        if (
            event.inline
        ):  # a calculation inside the answer's prose: the answer shows its result, the trace the call
            self._inline.add(event.call_id)
            return
        if not event.from_app:  # a page's call may come while another turn streams its answer
            self._close_streams()
        arguments = json.dumps(dict(event.arguments), indent=2, ensure_ascii=False, default=str)
        origin = " · from its app" if event.from_app else ""
        bubble = PlainBubble("tool_call", f"Tool call · {event.server}.{event.tool}{origin}", arguments)
        self._calls[event.call_id] = self.pane.add_bubble(bubble)

    def _on_tool_call_progress(self, event: ev.ToolCallProgress) -> None:
        bubble = self._calls.get(event.call_id)
        if bubble is not None:
            update = ProgressUpdate(event.progress, event.total, event.message)
            bubble.show_progress(update.fraction, progress_text(event.progress, event.total, event.message))

    def _on_tool_call_finished(self, event: ev.ToolCallFinished) -> None:
        if event.call_id in self._inline:
            self._inline.discard(event.call_id)
            return
        running = self._calls.pop(event.call_id, None)
        if running is not None:
            running.end_progress()
        kind, word = ("tool_error", "Tool error") if event.is_error else ("tool_result", "Result")
        word = "Cancelled" if event.cancelled else word
        origin = " · from its app" if event.from_app else ""
        title = f"{word} · {event.server}.{event.tool}{origin} · {format_ms(event.duration_ms)}"
        bubble = self.pane.add_bubble(PlainBubble(kind, title, result_text(event)))
        self._results[event.call_id] = bubble
        if event.parts:
            parts = ContentParts(event.parts, bubble)
            parts.link_activated.connect(lambda uri: self.read_link(event.server, uri))
            bubble.add_below(parts)
        if event.kept:
            bubble.add_below(full_result_button(event.kept, bubble))

    def _on_app_ready(self, event: ev.AppReady) -> None:
        bubble = self._results.pop(event.call_id, None)
        if self.open_app is None or bubble is None:
            return
        bubble.set_title(f"{bubble.title} · app {event.uri}")
        app = self.open_app(event, bubble)
        self._apps.append(app)
        bubble.add_below(app)

    def close_apps(self, reason: str) -> None:
        """Before the chat is cleared or the window closes: each live app is told it is going (its
        view waits a bounded time for its answer, app.ui.app_teardown.tear_down)."""
        for app in self._apps:
            teardown = getattr(app, "teardown", None)  # the text fallback has nothing to tell
            if teardown is not None and shiboken6.isValid(app):
                teardown(reason)
        self._apps.clear()
        self._results.clear()

    def _on_check_finished(self, event: ev.CheckFinished) -> None:
        # Only a rejected draft is marked here; a final verdict arrives with AnswerReady.
        if not event.will_reask or self._text is None:
            return
        draft, self._text = self._text, None
        draft.flush()
        draft.set_title("Draft answer")
        draft.mark_unbacked(event.unbacked)
        draft.set_badge(f"✗ not from a tool: {', '.join(event.unbacked)} · asking again", theme.BAD_COLOUR)

    def _on_answer_ready(self, event: ev.AnswerReady) -> None:
        bubble, self._text = self._text, None
        if bubble is None:  # a backend that does not stream gives the answer only here
            bubble = MarkdownBubble("answer", ANSWER_TITLE)
            self.pane.add_bubble(bubble)
        bubble.set_source(event.text)
        bubble.set_title("Answer")
        kind = verdict.kind_of(event.verdict, event.verified)
        if kind in ("verified", "computed", "untrusted") and event.untrusted:
            bubble.set_badge(verdict.untrusted_badge_text(event.untrusted), theme.RUNNING_COLOUR)
            bubble.badge.setToolTip(verdict.badge_tooltip(event.backing, event.untrusted))
        elif kind == "verified":
            bubble.set_badge(verdict.badge_text(event.backing, event.formula), theme.OK_COLOUR)
            bubble.badge.setToolTip(verdict.badge_tooltip(event.backing, basis=event.basis))
        elif kind == "computed":
            bubble.set_badge(verdict.computed_badge_text(event.formula), theme.RUNNING_COLOUR)
            bubble.badge.setToolTip(verdict.computed_tooltip(event.basis, event.backing))
        elif kind == "unverified":
            bubble.set_badge(f"✗ unverified: {', '.join(event.unbacked)}", theme.BAD_COLOUR)
            bubble.mark_unbacked(event.unbacked)
        elif kind is not None and (quiet := verdict.quiet_badge(kind, event.basis)) is not None:
            bubble.set_badge(quiet[0], theme.MUTED_COLOUR)
            bubble.badge.setToolTip(quiet[1])

    def _on_notice(self, event: ev.Notice) -> None:
        if event.text_was_call and self._text is not None:
            written, self._text = self._text, None
            written.flush()
            written.set_title(WRITTEN_CALL_TITLE)
        self.pane.add_bubble(PlainBubble("notice", "Note", event.message))

    def _on_turn_error(self, event: ev.TurnError) -> None:
        self._close_streams()
        title = "Stopped" if event.category == "cancelled" else f"Error ({event.category})"
        self.show_error(event.message, title)

    def _on_turn_finished(self, event: ev.TurnFinished) -> None:
        self._close_streams()
        for bubble in self._calls.values():
            bubble.end_progress()
        self._calls.clear()
