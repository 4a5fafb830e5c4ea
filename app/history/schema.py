"""The history database's schema: versioned by ``PRAGMA user_version``, migrated forward only.

Each entry of :data:`MIGRATIONS` takes a database from version ``i`` to ``i + 1`` and runs in
one transaction, so a crash mid-migration leaves the previous version. A file that is not
a database, or that a newer Calculon wrote, is never touched: :func:`open_database` moves it
aside, says so in one sentence, and starts a fresh one.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

logger = logging.getLogger(__name__)

Connect = Callable[[Path], sqlite3.Connection]

_V1 = """
CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    pinned INTEGER NOT NULL DEFAULT 0,
    deleted REAL  -- set while a deletion can still be undone
);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT REFERENCES conversations(id) ON DELETE CASCADE,
    turn_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    ts REAL NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX events_by_conversation ON events (conversation_id, seq);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role TEXT NOT NULL,  -- user, assistant, tool
    text TEXT NOT NULL,
    ts REAL NOT NULL
);
CREATE INDEX messages_by_conversation ON messages (conversation_id, id);
"""

# Full-text search over what was said and what tools returned, kept in step by triggers.
_V2 = """
CREATE VIRTUAL TABLE messages_fts USING fts5 (text, content='messages', content_rowid='id');
CREATE TRIGGER messages_indexed AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER messages_unindexed AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
"""

MIGRATIONS: tuple[str, ...] = (_V1, _V2)
VERSION = len(MIGRATIONS)


class HistoryUnavailable(Exception):
    """The history cannot be saved here at all (a read-only folder, a full disk)."""


def connect(path: Path) -> sqlite3.Connection:
    """A connection in WAL mode: readers never wait for the writer, a crash loses no commit."""
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("PRAGMA busy_timeout = 5000")
    return connection


def open_database(path: Path, opener: Connect = connect) -> tuple[sqlite3.Connection, list[str]]:
    """The database at ``path``, migrated to :data:`VERSION`, and what the user should be told.

    Raises :class:`HistoryUnavailable` when no database can be written there."""
    problems: list[str] = []
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = opener(path)
    except (OSError, sqlite3.Error) as exc:
        raise HistoryUnavailable(f"cannot open {path}: {exc}") from exc
    try:
        _prepare(connection)
    except _Unusable as exc:
        connection.close()
        problems.append(_set_aside(path, exc.why))
        connection = opener(path)
        _prepare(connection)
    return connection, problems


class _Unusable(Exception):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def _prepare(connection: sqlite3.Connection) -> None:
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        connection.execute("PRAGMA quick_check").fetchone()
    except sqlite3.DatabaseError as exc:
        if _write_refused(exc):
            raise HistoryUnavailable(str(exc)) from exc
        raise _Unusable(f"it is not a readable database ({exc})") from exc
    if version > VERSION:
        raise _Unusable(f"a newer Calculon wrote it (schema {version}, this one knows {VERSION})")
    try:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
        migrate(connection, version)
    except sqlite3.DatabaseError as exc:
        raise HistoryUnavailable(str(exc)) from exc


def _write_refused(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_FULL)


def migrate(connection: sqlite3.Connection, version: int, target: int = VERSION) -> None:
    """Apply the migrations after ``version`` up to ``target``, one transaction each."""
    for number in range(version, target):
        logger.info("history schema %d -> %d", number, number + 1)
        try:
            connection.executescript(
                f"BEGIN; {MIGRATIONS[number]} PRAGMA user_version = {number + 1}; COMMIT;"
            )
        except sqlite3.Error:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise


def _set_aside(path: Path, why: str) -> str:
    """Rename the file (and its WAL) out of the way, never deleting it; the one sentence to show."""
    aside = path.with_name(f"{path.name}.{time.strftime('%Y%m%d-%H%M%S')}.unused")
    for suffix in ("", "-wal", "-shm"):
        part = Path(f"{path}{suffix}")
        if part.exists():
            part.rename(f"{aside}{suffix}")
    logger.warning("history %s set aside as %s: %s", path, aside, why)
    return f"The history file could not be used because {why}; it was kept as {aside} and a new one started."
