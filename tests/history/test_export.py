"""Exports: Markdown that reads well, JSON that replays, and no secret in either."""

from __future__ import annotations

import json
import sqlite3

from app.core import events as ev
from app.history import History, Recorder, history_path
from app.history.decode import event_from_dict
from app.history.export import to_json, to_markdown
from app.history.replay import read_export
from tests.history.turns import a_turn


def saved(*turns: list[ev.Event]) -> tuple[History, str]:
    history = History(history_path(), print)
    recorder = Recorder(history)
    for turn in turns:
        for event in turn:
            recorder.sink(event)
    history.flush()
    assert recorder.conversation_id is not None
    return history, recorder.conversation_id


def test_markdown_has_the_question_each_call_with_arguments_and_result_and_the_verdict():
    history, conversation_id = saved(a_turn("t1", "What is 2 + 40?", "It is 42."))
    conversation = history.get(conversation_id)
    assert conversation is not None
    text = to_markdown(conversation, history.event_bodies(conversation_id))
    history.close()
    assert text.startswith("# What is 2 + 40?\n\n## Question\n\nWhat is 2 + 40?\n")
    assert (
        '### Tool call `calc.add` (2 ms)\n\nArguments: `{"a": 2, "b": 40}`\n\nResult:\n\n```\n42\n```' in text
    )
    assert text.endswith("## Answer\n\nIt is 42.\n\n**✓ verified · 42 ← add(2, 40)**\n")


def test_a_computed_answer_is_exported_with_its_formula_and_replays_with_its_verdict():
    turn = a_turn("t1", "Sam had 2 pens and got 40 more. How many now?", "He has 42.")
    computed = ev.AnswerReady(
        turn_id="t1",
        text="He has 42.",
        verified=False,
        verdict="computed",
        formula="42 = 2 (Sam had pens) + 40 (got more)",
        basis="The formula is the model's reading of your words: check it.",
    )
    turn[-2] = computed
    history, conversation_id = saved(turn)
    conversation = history.get(conversation_id)
    assert conversation is not None
    bodies = history.event_bodies(conversation_id)
    text = to_markdown(conversation, bodies)
    history.close()
    assert "**≈ computed, not verified: check the formula: 42 = 2 (Sam had pens) + 40 (got more)**" in text
    assert "✓ verified" not in text
    replayed = [event_from_dict(b) for b in bodies if b["kind"] == "answer_ready"]
    assert [(e.verdict, e.formula, e.verified) for e in replayed] == [("computed", computed.formula, False)]


def test_a_json_export_replays_as_the_same_events(tmp_path):
    events = a_turn("t1", "What is 2 + 40?", "It is 42.")
    history, conversation_id = saved(events)
    conversation = history.get(conversation_id)
    assert conversation is not None
    path = tmp_path / "export.json"
    path.write_text(to_json(conversation, history.event_bodies(conversation_id)))
    history.close()
    assert read_export(path) == ("What is 2 + 40?", events)


def test_an_export_holds_no_secret_even_one_stored_before_redaction(monkeypatch):
    history, conversation_id = saved(a_turn("t1", "hello", "Hi."))
    history.close()
    leaked = ev.Notice(turn_id="t1", message="key AIza" + "Q" * 35).to_dict() | {"api_key": "s3cr3t-value"}
    with sqlite3.connect(history_path()) as db:  # as an older version might have written it
        db.execute(
            "INSERT INTO events (conversation_id, turn_id, kind, ts, body) VALUES (?, 't1', 'notice', 0, ?)",
            (conversation_id, json.dumps(leaked)),
        )
    history = History(history_path(), print)
    conversation = history.get(conversation_id)
    assert conversation is not None
    bodies = history.event_bodies(conversation_id)
    exported = to_json(conversation, bodies) + to_markdown(conversation, bodies)
    history.close()
    assert "AIza" not in exported and "s3cr3t" not in exported


def test_an_event_kind_this_version_does_not_know_is_skipped():
    assert event_from_dict({"kind": "from_the_future", "turn_id": "t"}) is None
    assert event_from_dict({"kind": "notice"}) is None  # its message is missing
