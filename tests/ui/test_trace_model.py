"""The trace item model: correct for Qt's own model checker, live, and cheap to update."""

from __future__ import annotations

import json

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QAbstractItemModelTester
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

from app.core import events as ev
from app.core.trace import TraceStore
from app.ui.trace_model import COLUMNS, TraceModel
from app.ui.trace_view import TraceView


def a_turn(turn_id: str, *, failing_tool: bool = False) -> list[ev.Event]:
    call = {"call_id": f"{turn_id}-1", "server": "calc", "tool": "add", "arguments": {"a": 1, "b": 2}}
    return [
        ev.TurnStarted(turn_id=turn_id, text="What is 1 + 2?"),
        ev.StepStarted(turn_id=turn_id, step=1, offered=(("add", 0.9),), selected=True),
        ev.ThoughtDelta(turn_id=turn_id, text="Add "),
        ev.ThoughtDelta(turn_id=turn_id, text="them."),
        ev.ToolCallStarted(turn_id=turn_id, **call),
        ev.ToolCallFinished(turn_id=turn_id, **call, result="3", is_error=failing_tool, duration_ms=4.2),
        ev.StepFinished(turn_id=turn_id, step=1, tokens=10, duration_ms=100),
        ev.StepStarted(turn_id=turn_id, step=2),
        ev.TextDelta(turn_id=turn_id, text="It is 3."),
        ev.StepFinished(turn_id=turn_id, step=2, tokens=4, duration_ms=50),
        ev.AnswerReady(turn_id=turn_id, text="It is 3.", verified=True),
        ev.TurnFinished(turn_id=turn_id, duration_ms=160),
    ]


def test_model_passes_qts_model_tester_while_a_trace_grows(qtbot):
    store = TraceStore()
    model = TraceModel(store)
    tester = QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    for event in [*a_turn("t1"), *a_turn("t2", failing_tool=True), ev.TurnError(turn_id="t2", message="x")]:
        store.apply(event)
    assert tester is not None
    assert model.rowCount() == 2
    step = model.index(0, 0, model.index(0, 0))
    assert [model.data(model.index(r, 0, step)) for r in range(model.rowCount(step))] == [
        "Thought",
        "Tool call",
    ]


def test_tool_call_row_shows_server_tool_status_and_duration_and_errors_are_red(qtbot):
    store = TraceStore()
    model = TraceModel(store)
    for event in a_turn("t1", failing_tool=True):
        store.apply(event)
    call = next(n for n in store.walk() if n.kind == "tool_call")
    row = [model.data(model.index_of(call).siblingAtColumn(c)) for c in range(len(COLUMNS))]
    assert row == ["Tool call", "calc.add", "error", "4.2 ms"]
    colour = model.data(model.index_of(call), Qt.ItemDataRole.ForegroundRole)
    assert colour is not None and colour.red() > colour.green()


def test_streamed_text_updates_its_row_in_place(qtbot):
    store = TraceStore()
    model = TraceModel(store)
    events = a_turn("t1")
    for event in events[:3]:
        store.apply(event)
    thought = store.roots[0].children[0].children[0]
    with qtbot.waitSignal(model.dataChanged, timeout=1000) as changed:
        store.apply(events[3])
    assert model.node(changed.args[0]) is thought
    assert thought.text == "Add them."
    assert model.rowCount(model.index_of(thought.parent)) == 1


def test_ctrl_c_copies_the_selected_nodes_details_json(qtbot):
    store = TraceStore()
    view = TraceView(store)
    qtbot.addWidget(view)
    view.show()
    for event in a_turn("t1"):
        store.apply(event)
    call = next(n for n in store.walk() if n.kind == "tool_call")
    view.tree.setCurrentIndex(view.model.index_of(call))
    view.tree.setFocus()
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(view.tree, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    copied = json.loads(QGuiApplication.clipboard().text())
    assert copied["arguments"] == {"a": 1, "b": 2} and copied["result"] == "3"
    assert json.loads(view.details.toPlainText()) == copied


def test_the_running_turn_is_expanded_and_the_previous_one_folds_away(qtbot):
    store = TraceStore()
    view = TraceView(store)
    qtbot.addWidget(view)
    for event in a_turn("t1")[:5]:
        store.apply(event)
    first = view.model.index(0, 0)
    assert view.tree.isExpanded(first) and view.tree.isExpanded(view.model.index(0, 0, first))
    for event in a_turn("t1")[5:] + a_turn("t2")[:3]:
        store.apply(event)
    assert not view.tree.isExpanded(first)
    assert view.tree.isExpanded(view.model.index(1, 0))
    view.collapse_action.trigger()
    assert not view.tree.isExpanded(view.model.index(1, 0))
    view.expand_action.trigger()
    assert view.tree.isExpanded(view.model.index(0, 0, view.model.index(1, 0)))


def test_invalid_and_out_of_range_indexes_are_empty(qtbot):
    model = TraceModel(TraceStore())
    assert not model.index(0, 0).isValid()
    assert model.parent(QModelIndex()) == QModelIndex()
    assert model.data(QModelIndex()) is None


def test_a_running_calls_progress_shows_in_its_status_and_a_cancelled_call_reads_cancelled(qtbot):
    store = TraceStore()
    model = TraceModel(store)
    call = {"call_id": "t1-1", "server": "slow", "tool": "work"}
    store.apply(ev.TurnStarted(turn_id="t1", text="work"))
    store.apply(ev.ToolCallStarted(turn_id="t1", **call, arguments={}))
    store.apply(ev.ToolCallProgress(turn_id="t1", **call, progress=1, total=4, message="step 1"))
    node = next(n for n in store.walk() if n.kind == "tool_call")
    status = model.index_of(node).siblingAtColumn(2)
    assert model.data(status) == "running 1/4 (25%) step 1"
    finished = {"arguments": {}, "result": "cancelled by the user", "is_error": True, "duration_ms": 9}
    store.apply(ev.ToolCallFinished(turn_id="t1", **call, **finished, cancelled=True))
    assert model.data(status) == "cancelled" and node.data["progress"]["total"] == 4


def test_a_servers_log_lines_during_its_call_are_kept_on_the_calls_node(qtbot):
    store = TraceStore()
    call = {"call_id": "t1-1", "server": "logs", "tool": "say"}
    store.apply(ev.ServerLog(server="logs", level="info", message="before any call"))
    store.apply(ev.TurnStarted(turn_id="t1", text="say it"))
    store.apply(ev.ToolCallStarted(turn_id="t1", **call, arguments={}))
    store.apply(ev.ServerLog(server="other", level="info", message="not this call's"))
    store.apply(ev.ServerLog(server="logs", level="warning", message="disk nearly full"))
    node = next(n for n in store.walk() if n.kind == "tool_call")
    assert node.data["logs"] == ["[warning] disk nearly full"]
    assert '"logs"' in node.details()


def test_the_latest_call_is_shown_as_it_happens_until_the_user_picks_a_node(qtbot):
    store = TraceStore()
    view = TraceView(store)
    qtbot.addWidget(view)
    view.resize(520, 700)
    view.show()
    for event in a_turn("t1")[:6]:
        store.apply(event)
    assert "calc.add" in view.details.toPlainText() and '"a": 1' in view.details.toPlainText()
    turn = view.model.index(0, 0)
    view.tree.setCurrentIndex(turn)  # the user looks at the turn instead
    second = {"call_id": "t1-2", "server": "calc", "tool": "multiply", "arguments": {"a": 3, "b": 4}}
    store.apply(ev.ToolCallStarted(turn_id="t1", **second))
    assert view.tree.currentIndex() == turn  # left where they put it
    for event in a_turn("t2")[:5]:  # a new turn follows its calls again
        store.apply(event)
    assert view.model.node(view.tree.currentIndex()).kind == "tool_call"


def test_every_label_fits_its_column_in_a_trace_panel_at_1280x800(qtbot):
    store = TraceStore()
    view = TraceView(store)
    qtbot.addWidget(view)
    view.resize(500, 700)  # the trace panel's width in a 1280x800 window
    view.show()
    store.apply(ev.TurnStarted(turn_id="t1", text="What is 15% of 240, plus 7?"))
    call = {"call_id": "t1-1", "server": "calculator", "tool": "multiply", "arguments": {"a": 240, "b": 0.15}}
    store.apply(ev.StepStarted(turn_id="t1", step=1))
    store.apply(ev.ToolCallStarted(turn_id="t1", **call))
    metrics, header = view.tree.fontMetrics(), view.tree.header()
    turn = view.model.index(0, 0)
    assert header.sectionSize(0) >= metrics.horizontalAdvance(view.model.data(turn)) + view.tree.indentation()
    assert header.sectionSize(1) >= metrics.horizontalAdvance("calculator.multiply")
    duration = view.model.index(0, 3, view.model.index(0, 0, turn))
    assert view.model.data(duration, Qt.ItemDataRole.TextAlignmentRole) & int(Qt.AlignmentFlag.AlignRight)


def painted(view, index) -> str:
    """What the tree paints in a cell: the delegate's text for the cell's own rectangle."""
    option = QStyleOptionViewItem()
    option.initFrom(view.tree)
    option.rect, option.widget = view.tree.visualRect(index), view.tree
    view.tree.itemDelegate().initStyleOption(option, index)
    return option.text


def test_a_story_turns_rows_read_at_a_glance_in_half_a_1280_window(qtbot):
    """Each row of a word problem's turn fits its column as the tree nests it: asides dropped
    (the formula's labels, the odds), a sentence still too wide ended at a word, not mid-word;
    the whole label is the tooltip."""
    store = TraceStore()
    view = TraceView(store)
    qtbot.addWidget(view)
    view.resize(620, 700)  # the trace panel in a 1280x800 window, the splitter at its default
    view.show()
    reading = (
        "The formula 15 − 5 is a reading of the story (79% likely among the candidate formulas of"
        " its numbers), not a transcription: check it. Other readings: 15 ÷ 5 19%; 15 × 5 1%."
    )
    written = "The answer was written from the story's reading and the calculator's result, not the model."
    asked = "Paige raised 15 goldfish in the pond but stray cats ate them. 5 were eaten. How many are left?"
    store.apply(ev.TurnStarted(turn_id="t1", text=asked))
    store.apply(ev.StepStarted(turn_id="t1", step=1, offered=tuple((f"tool{i}", 1.0) for i in range(13))))
    store.apply(ev.Notice(turn_id="t1", message=reading))
    call = {
        "call_id": "t1-1",
        "server": "calculator",
        "tool": "evaluate",
        "arguments": {"expression": "15 - 5"},
    }
    store.apply(ev.ToolCallStarted(turn_id="t1", **call))
    store.apply(ev.Notice(turn_id="t1", message=written))
    store.apply(ev.CheckFinished(turn_id="t1", attempt=1, verified=True, unbacked=(), will_reask=False))
    formula = "10 = 15 (Paige raised goldfish in pond) − 5 (were eaten)"
    store.apply(ev.AnswerReady(turn_id="t1", text="15 − 5 = 10.", verdict="computed", formula=formula))
    view.tree.expandAll()
    metrics, style = view.tree.fontMetrics(), view.tree.style()
    shown = {}
    for node in store.walk():
        index = view.model.index_of(node)
        line = painted(view, index)
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1
        room = view.tree.visualRect(index).width() - 2 * margin
        assert metrics.horizontalAdvance(line) <= room, line  # Qt's own eliding has nothing left to cut
        assert view.model.data(index, Qt.ItemDataRole.ToolTipRole) == node.label
        whole, stem = view.model.data(index), line.removesuffix("…")
        assert whole.startswith(stem) and (line == whole or whole[len(stem)] in " ,;:·"), line  # at a word
        shown.setdefault(node.kind, []).append(line)
    assert shown["answer"] == ["Answer ≈ computed · 10 = 15 − 5"]
    assert shown["notice"][0].startswith("The formula 15 − 5 is a reading of the story")
    assert shown["turn"][0].startswith("Turn 1: Paige raised 15 goldfish") and shown["turn"][0].endswith("…")
