"""The history file: events in order, search, deletion with undo, and what a bad file does."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from app.core import events as ev
from app.history import History, Recorder, history_path
from app.history.redact import REDACTED
from tests.history.turns import a_turn


def recorded(history: History, *turns: list[ev.Event]) -> str:
    recorder = Recorder(history)
    for turn in turns:
        for event in turn:
            recorder.sink(event)
    assert history.flush()
    assert recorder.conversation_id is not None
    return recorder.conversation_id


def opened(problems: list[str] | None = None, path: Path | None = None) -> History:
    return History(path or history_path(), (problems if problems is not None else []).append)


def test_events_come_back_in_order_after_the_file_is_reopened():
    history = opened()
    events = a_turn("t1", "What is 2 + 40?", "It is 42.")
    conversation_id = recorded(history, events, a_turn("t2", "And again?", "Still 42."))
    history.close()
    again = opened()
    assert again.events(conversation_id)[: len(events)] == events
    (conversation,) = again.conversations()
    assert (conversation.title, conversation.events) == ("What is 2 + 40?", 20)
    again.close()


def test_events_outside_a_turn_are_kept_under_no_conversation():
    history = opened()
    Recorder(history).sink(ev.ServerStateChanged(server="calc", state="ready", pid=7))
    assert history.flush()
    history.close()
    with sqlite3.connect(history_path()) as db:
        assert db.execute("SELECT conversation_id, kind FROM events").fetchall() == [(None, "server_state")]


def test_search_finds_questions_answers_and_tool_results_and_marks_the_hits():
    history = opened()
    first = recorded(history, a_turn("t1", "How far is Mars?", "Far away."))
    recorded(history, a_turn("t2", "Blue whales?", "Large."))
    (hit,) = history.search("mars")
    assert hit.conversation.id == first and hit.marked("[", "]") == "How far is [Mars]?"
    assert {h.role for h in history.search("42")} == {"tool"}  # the result "42", in both conversations
    assert len(history.search("42")) == 2
    history.close()


def test_a_deleted_conversation_is_hidden_until_undone_and_gone_after_a_purge():
    history = opened()
    conversation_id = recorded(history, a_turn("t1", "Delete me", "Done."))
    history.delete(conversation_id)
    history.flush()
    assert history.conversations() == [] and history.search("delete") == []
    history.undelete(conversation_id)
    history.flush()
    assert [c.id for c in history.conversations()] == [conversation_id]
    history.delete(conversation_id)
    history.purge()
    history.flush()
    assert history.events(conversation_id) == [] and history.search("delete") == []
    history.close()


def test_rename_and_pin_order_pinned_conversations_first():
    history = opened()
    older = recorded(history, a_turn("t1", "Old question", "Old."))
    recorded(history, a_turn("t2", "New question", "New."))
    history.rename(older, "Kept for later")
    history.pin(older)
    history.flush()
    assert next((c.title, c.pinned) for c in history.conversations()) == ("Kept for later", True)
    history.close()


def test_conversations_older_than_the_retention_are_purged_unless_pinned():
    history = opened()
    old, pinned, fresh = (recorded(history, a_turn(f"t{i}", f"Q{i}", "A.")) for i in range(3))
    for conversation_id in (old, pinned):
        history._execute("UPDATE conversations SET updated = 0 WHERE id = ?", (conversation_id,))
    history.pin(pinned)
    history.purge(older_than_days=30)
    history.flush()
    assert {c.id for c in history.conversations()} == {pinned, fresh}
    history.close()


def test_secrets_never_reach_the_file(monkeypatch):
    monkeypatch.setenv("EXAMPLE_API_KEY", "hunter2-very-secret")
    history = opened()
    recorded(history, a_turn("t1", "my key is hunter2-very-secret, and AIza" + "x" * 35, "ok"))
    answered = {"request_id": "r", "request": "elicitation", "server": "s", "answer": "accept"}
    history.append(None, ev.UserAnswered(**answered, details={"password": "pw1"}, duration_ms=1))
    history.flush()
    history.close()
    raw = history_path().read_bytes() + Path(f"{history_path()}-wal").read_bytes()
    assert b"hunter2" not in raw and b"AIzax" not in raw and b"pw1" not in raw
    assert REDACTED.encode() in raw


def test_a_corrupt_file_is_kept_aside_and_a_fresh_one_starts():
    path = history_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    problems: list[str] = []
    history = opened(problems)
    (problem,) = problems
    assert problem.count(". ") == 0 and "not a readable database" in problem
    (aside,) = path.parent.glob("history.db.*.unused")
    assert aside.read_bytes() == b"this is not a database" * 100 and str(aside) in problem
    assert recorded(history, a_turn("t1", "Fresh", "Yes.")) and history.saving
    history.close()


def test_a_file_from_a_newer_version_is_kept_aside_untouched():
    path = history_path()
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE future (x)")
        db.execute("PRAGMA user_version = 99")
    before = path.read_bytes()
    problems: list[str] = []
    opened(problems).close()
    assert "a newer Calculon wrote it (schema 99" in problems[0]
    (aside,) = path.parent.glob("history.db.*.unused")
    assert aside.read_bytes() == before


def test_a_full_disk_stops_saving_with_one_message_and_keeps_what_was_saved():
    problems: list[str] = []
    history = opened(problems)
    kept = recorded(history, a_turn("t1", "Saved before", "Yes."))
    # SQLite's own limit on the file's size: the next page it needs fails as a full disk does.
    history._writer._db.execute(f"PRAGMA max_page_count = {_pages(history_path())}")  # type: ignore[union-attr]
    recorded(history, *(a_turn(f"t{i}", "x" * 5000, "y" * 5000) for i in range(2, 6)))
    (problem,) = problems
    assert "database or disk is full" in problem and not history.saving
    history.append(kept, ev.Notice(turn_id="t1", message="dropped, not raised"))
    assert history.flush()
    history.close()
    again = opened()
    assert [c.title for c in again.conversations()] == ["Saved before"] and len(again.events(kept)) == 10
    again.close()


def _pages(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("PRAGMA page_count").fetchone()[0])


def test_a_read_only_file_means_no_saving_and_the_old_data_kept():
    history = opened()
    kept = recorded(history, a_turn("t1", "Saved before", "Yes."))
    history.close()
    before = history_path().read_bytes()

    def read_only(path: Path) -> sqlite3.Connection:
        return sqlite3.connect(
            f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
        )

    problems: list[str] = []
    history = History(history_path(), problems.append, opener=read_only)
    recorded(history, a_turn("t2", "Not saved", "No."))
    assert not history.saving and len(problems) == 1 and "readonly" in problems[0]
    assert [c.id for c in history.conversations()] == [kept]  # what was there can still be read
    history.close()
    assert history_path().read_bytes() == before


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes to read-only folders")
def test_a_read_only_folder_says_the_history_cannot_be_saved(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    problems: list[str] = []
    history = opened(problems, folder / "history.db")
    assert not history.saving and "cannot be saved" in problems[0]
    history.close()
    folder.chmod(stat.S_IRWXU)


def test_consecutive_text_deltas_come_back_joined_and_the_stored_stream_keeps_each():
    history = opened()
    turn = a_turn("t1", "Stream it", "")
    deltas = [ev.TextDelta(turn_id="t1", text=part) for part in ("It ", "is ", "42.")]
    at = next(i for i, e in enumerate(turn) if isinstance(e, ev.TextDelta))
    conversation_id = recorded(history, [*turn[:at], *deltas, *turn[at + 1 :]])
    joined = [e for e in history.events(conversation_id) if isinstance(e, ev.TextDelta)]
    assert [(e.text, e.ts) for e in joined] == [("It is 42.", deltas[-1].ts)]
    assert [b["text"] for b in history.event_bodies(conversation_id) if b["kind"] == "text_delta"] == [
        "It ",
        "is ",
        "42.",
    ]
    history.close()
