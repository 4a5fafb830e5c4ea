"""One test per migration, and opening an older file migrates it in place."""

from __future__ import annotations

import contextlib
import sqlite3

from app.history import History, history_path
from app.history.schema import VERSION, connect, migrate


def tables(db: sqlite3.Connection) -> set[str]:
    return {
        name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")
    }


def test_migration_1_creates_conversations_events_and_messages(tmp_path):
    db = connect(tmp_path / "h.db")
    migrate(db, 0, 1)
    assert {"conversations", "events", "messages"} <= tables(db)
    assert db.execute("PRAGMA user_version").fetchone() == (1,)


def version_1_file(path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = connect(path)
    migrate(db, 0, 1)
    db.execute("INSERT INTO conversations (id, title, created, updated) VALUES ('c1', 'Old', 1, 1)")
    db.execute(
        "INSERT INTO messages (conversation_id, role, text, ts) VALUES ('c1', 'user', 'saturn rings', 1)"
    )
    return db


def test_migration_2_indexes_the_messages_saved_before_it(tmp_path):
    db = version_1_file(tmp_path / "h.db")
    migrate(db, 1, 2)
    found = db.execute("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'saturn'").fetchall()
    assert found == [(1,)] and {"messages_indexed", "messages_unindexed"} <= tables(db)
    db.execute("INSERT INTO messages (conversation_id, role, text, ts) VALUES ('c1', 'tool', 'jupiter', 2)")
    assert db.execute("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'jupiter'").fetchone() == (
        1,
    )


def test_a_failed_migration_leaves_the_previous_version(tmp_path):
    db = version_1_file(tmp_path / "h.db")
    db.execute("CREATE TABLE messages_fts (x)")  # in the way of migration 2
    with contextlib.suppress(sqlite3.OperationalError):
        migrate(db, 1, 2)
    assert db.execute("PRAGMA user_version").fetchone() == (1,) and not db.in_transaction


def test_opening_a_version_1_file_migrates_it_and_keeps_its_conversations():
    version_1_file(history_path()).close()
    problems: list[str] = []
    history = History(history_path(), problems.append)
    assert problems == [] and [c.title for c in history.conversations()] == ["Old"]
    assert [hit.conversation.id for hit in history.search("saturn")] == ["c1"]
    history.close()
    with sqlite3.connect(history_path()) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (VERSION,)
