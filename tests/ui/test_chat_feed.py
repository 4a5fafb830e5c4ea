"""Engine events as chat bubbles: a running call's progress bar."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPushButton

from app.core import events as ev
from app.ui.bubbles import MarkdownBubble, PlainBubble
from app.ui.chat_feed import ChatFeed
from app.ui.chat_pane import ChatPane

CALL = {"turn_id": "t1", "call_id": "t1-1", "server": "slow", "tool": "work"}


def test_a_calls_bubble_shows_a_progress_bar_while_it_runs_and_drops_it_when_done(qtbot):
    pane = ChatPane()
    qtbot.addWidget(pane)
    feed = ChatFeed(pane)
    feed.handle(ev.ToolCallStarted(**CALL, arguments={"steps": 4}))
    bubble = feed._calls["t1-1"]
    feed.handle(ev.ToolCallProgress(**CALL, progress=3, total=4, message="step 3"))
    bar = bubble.progress_bar
    assert not bar.isHidden() and bar.value() == 750 and bar.text() == "3/4 (75%) step 3"
    feed.handle(ev.ToolCallProgress(**CALL, progress=5))  # no total: the bar cannot say how far
    assert (bar.minimum(), bar.maximum()) == (0, 0)
    feed.handle(ev.ToolCallFinished(**CALL, arguments={}, result="ok", is_error=False, duration_ms=1))
    assert bar.isHidden() and "t1-1" not in feed._calls


def test_a_worked_answer_grows_in_one_bubble_and_its_inline_calls_stay_in_the_trace(qtbot):
    pane = ChatPane()
    qtbot.addWidget(pane)
    feed = ChatFeed(pane)
    inline = {**CALL, "server": "calculator", "tool": "evaluate", "arguments": {"expression": "3 * 12"}}
    feed.handle(ev.StepStarted(turn_id="t1", step=1))
    feed.handle(ev.TextDelta(turn_id="t1", text="She sold 3 * 12 "))
    feed.handle(ev.ToolCallStarted(**inline, inline=True))
    feed.handle(ev.ToolCallFinished(**inline, result="36", is_error=False, duration_ms=1))
    feed.handle(ev.StepStarted(turn_id="t1", step=2, continues=True))
    feed.handle(ev.TextDelta(turn_id="t1", text="= 36 muffins."))

    assert not any("evaluate" in b.title for b in pane.findChildren(PlainBubble))
    (answer,) = pane.findChildren(MarkdownBubble)  # one bubble, not one per step
    assert answer.source == "She sold 3 * 12 = 36 muffins."


# a red pixel beside a blue one
PNG_2X1 = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAABCAYAAAD0In+KAAAADklEQVR4nGP4z8AAQv8BD/kD/YURmXYAAAAASUVORK5CYII="


def test_a_result_shows_structured_json_an_image_and_a_link_that_asks_to_read_the_resource(qtbot):
    pane = ChatPane()
    qtbot.addWidget(pane)
    clicked: list[tuple[str, str]] = []
    feed = ChatFeed(pane, read_link=lambda server, uri: clicked.append((server, uri)))
    parts = (
        {"type": "image", "mime_type": "image/png", "data": PNG_2X1, "bytes": 71},
        {"type": "resource_link", "uri": "demo://doc", "name": "doc"},
    )
    finished = {"arguments": {}, "result": "Cloudy", "is_error": False, "duration_ms": 2}
    feed.handle(ev.ToolCallFinished(**CALL, **finished, structured={"humidity": 82}, parts=parts))
    bubble = pane.findChildren(PlainBubble)[-1]
    assert '"humidity": 82' in bubble.text() and bubble.text().startswith("Cloudy")
    (image,) = [label for label in bubble.findChildren(QLabel) if not label.pixmap().isNull()]
    assert (image.pixmap().width(), image.pixmap().height()) == (2, 1)
    (button,) = bubble.findChildren(QPushButton)
    button.click()
    assert clicked == [("slow", "demo://doc")]


def test_a_result_cut_for_the_model_offers_to_open_the_whole_of_it(qtbot, tmp_path, monkeypatch):
    from app.ui import content_view

    opened: list[str] = []
    monkeypatch.setattr(
        content_view.QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile())
    )
    pane = ChatPane()
    qtbot.addWidget(pane)
    kept = tmp_path / "call-1.txt"
    finished = {"arguments": {}, "result": "yyy\n[result truncated]", "is_error": False, "duration_ms": 2}
    ChatFeed(pane).handle(ev.ToolCallFinished(**CALL, **finished, kept=str(kept)))
    (button,) = pane.findChildren(PlainBubble)[-1].findChildren(QPushButton)
    assert button.text() == "Open full result"
    button.click()
    assert opened == [str(kept)]


def test_streamed_text_that_turns_out_to_be_a_call_is_never_titled_as_the_answer(qtbot):
    from app.ui.chat_feed import ANSWER_TITLE, MAYBE_CALL_TITLE, WRITTEN_CALL_TITLE

    pane = ChatPane()
    qtbot.addWidget(pane)
    feed = ChatFeed(pane)
    feed.handle(ev.TextDelta(turn_id="t1", text=' {"name": "evaluate", '))
    (bubble,) = pane.bubbles()
    assert bubble.title == MAYBE_CALL_TITLE  # while it streams, nobody knows yet
    feed.handle(ev.TextDelta(turn_id="t1", text='"arguments": {"expression": "51 / 3"}}'))
    notice = "Step 1: the model wrote its call to evaluate as text; it was run."
    feed.handle(ev.Notice(turn_id="t1", message=notice, text_was_call=True))
    assert bubble.title == WRITTEN_CALL_TITLE
    feed.handle(ev.TextDelta(turn_id="t1", text="Each box holds 17 cookies."))
    feed.handle(ev.AnswerReady(turn_id="t1", text="Each box holds 17 cookies.", verified=None))
    titles = [b.title for b in pane.bubbles()]
    assert titles == [WRITTEN_CALL_TITLE, "Note", "Answer"], titles
    assert ANSWER_TITLE not in titles


def test_an_answer_that_only_starts_like_markup_keeps_the_answers_title(qtbot):
    from app.ui.chat_feed import ANSWER_TITLE

    pane = ChatPane()
    qtbot.addWidget(pane)
    feed = ChatFeed(pane)
    feed.handle(ev.TextDelta(turn_id="t1", text="Each box holds "))
    feed.handle(ev.TextDelta(turn_id="t1", text="17 cookies."))
    (bubble,) = pane.bubbles()
    assert bubble.title == ANSWER_TITLE
