"""The history: conversations, their events in order, and search over what was said.

Reads run on the caller's thread over their own connection (WAL: they never wait for the
writer); every change goes through the :class:`HistoryWriter`, in order with the events.
When the file cannot be used at all, the history says why once and saves nothing; reads
then find nothing, and the file on disk is left as it was.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import sqlite3
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app import paths
from app.core import events as ev
from app.history.decode import ROWS_SQL, event_from_dict, joined_rows
from app.history.schema import Connect, HistoryUnavailable, connect, open_database
from app.history.writer import HistoryWriter

logger = logging.getLogger(__name__)

Report = Callable[[str], None]


def history_path() -> Path:
    return paths.data_dir() / "history.db"


@dataclasses.dataclass(frozen=True)
class Conversation:
    id: str
    title: str
    created: float
    updated: float
    pinned: bool = False
    events: int = 0


# Around each matching word in a snippet: characters no message holds (shown as escapes if one did).
HIT_START, HIT_END = "\x02", "\x03"


@dataclasses.dataclass(frozen=True)
class Hit:
    """A search hit: the conversation, and the matching text with each hit marked."""

    conversation: Conversation
    role: str
    snippet: str

    def marked(self, start: str, end: str) -> str:
        return self.snippet.replace(HIT_START, start).replace(HIT_END, end)


class History:
    def __init__(self, path: Path, report: Report, opener: Connect = connect) -> None:
        """Never raises: problems go to ``report`` (one sentence each) and to :attr:`problems`."""
        self.path, self._report = path, report
        self.problems: list[str] = []
        self._read: sqlite3.Connection | None = None
        self._writer: HistoryWriter | None = None
        try:
            writing, self.problems = open_database(path, opener)
            self._read = opener(path)
        except (HistoryUnavailable, sqlite3.Error, OSError) as exc:
            logger.warning("history unavailable: %s", exc)
            self.problems.append(f"The history cannot be saved ({exc}); Calculon goes on without saving it.")
        else:
            self._writer = HistoryWriter(writing, self._problem)
        for problem in self.problems:
            report(problem)

    @classmethod
    def open(cls, report: Report, path: Path | None = None) -> History:
        return cls(path or history_path(), report)

    def _problem(self, message: str) -> None:
        self.problems.append(message)
        self._report(message)

    @property
    def saving(self) -> bool:
        return self._writer is not None and not self._writer.failed

    # --- changes (in order with the events) ---

    def new_conversation(self, title: str, ts: float | None = None) -> str:
        conversation_id = uuid.uuid4().hex[:12]
        ts = time.time() if ts is None else ts
        self._execute(
            "INSERT INTO conversations (id, title, created, updated) VALUES (?, ?, ?, ?)",
            (conversation_id, title, ts, ts),
        )
        return conversation_id

    def append(self, conversation_id: str | None, event: ev.Event) -> None:
        if self._writer is not None:
            self._writer.append(conversation_id, event)

    def rename(self, conversation_id: str, title: str) -> None:
        self._execute("UPDATE conversations SET title = ? WHERE id = ?", (title, conversation_id))

    def pin(self, conversation_id: str, pinned: bool = True) -> None:
        self._execute("UPDATE conversations SET pinned = ? WHERE id = ?", (int(pinned), conversation_id))

    def delete(self, conversation_id: str) -> None:
        """Hidden at once, gone for good at the next :meth:`purge` unless :meth:`undelete` comes first."""
        self._execute("UPDATE conversations SET deleted = ? WHERE id = ?", (time.time(), conversation_id))

    def undelete(self, conversation_id: str) -> None:
        self._execute("UPDATE conversations SET deleted = NULL WHERE id = ?", (conversation_id,))

    def purge(self, older_than_days: int = 0) -> None:
        """Remove deleted conversations, and with ``older_than_days`` those not touched since."""
        self._execute("DELETE FROM conversations WHERE deleted IS NOT NULL", ())
        if older_than_days > 0:
            cutoff = time.time() - older_than_days * 86400
            self._execute("DELETE FROM conversations WHERE updated < ? AND NOT pinned", (cutoff,))
            self._execute("DELETE FROM events WHERE conversation_id IS NULL AND ts < ?", (cutoff,))

    def _execute(self, sql: str, parameters: tuple[object, ...]) -> None:
        if self._writer is not None:
            self._writer.execute(sql, parameters)

    def flush(self, timeout: float = 10.0) -> bool:
        return self._writer.flush(timeout) if self._writer is not None else True

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._read is not None:
            self._read.close()

    # --- reading ---

    def conversations(self, limit: int = 10_000) -> list[Conversation]:
        """Pinned first, then the most recently updated."""
        return self._conversations("deleted IS NULL ORDER BY pinned DESC, updated DESC LIMIT ?", (limit,))

    def get(self, conversation_id: str) -> Conversation | None:
        found = self._conversations("deleted IS NULL AND id = ?", (conversation_id,))
        return found[0] if found else None

    def latest(self) -> Conversation | None:
        found = self._conversations("deleted IS NULL ORDER BY updated DESC LIMIT 1", ())
        return found[0] if found else None

    def _conversations(self, where: str, parameters: tuple[object, ...]) -> list[Conversation]:
        sql = (
            "SELECT id, title, created, updated, pinned,"
            " (SELECT count(*) FROM events e WHERE e.conversation_id = c.id)"
            f" FROM conversations c WHERE {where}"
        )
        rows = self._query(sql, parameters)
        return [Conversation(r[0], r[1], r[2], r[3], bool(r[4]), r[5]) for r in rows]

    def event_bodies(self, conversation_id: str) -> list[dict[str, object]]:
        rows = self._query(
            "SELECT body FROM events WHERE conversation_id = ? ORDER BY seq", (conversation_id,)
        )
        return [json.loads(body) for (body,) in rows]

    def events(self, conversation_id: str) -> list[ev.Event]:
        """The conversation's events in order, consecutive text deltas joined (the export keeps each)."""
        rows = self._query(ROWS_SQL, (conversation_id,))
        decoded = (event_from_dict(body) for body in joined_rows(rows))
        return [event for event in decoded if event is not None]

    def search(self, text: str, limit: int = 50) -> list[Hit]:
        """Conversations whose messages or tool results hold every word of ``text``, best first."""
        query = " ".join(f'"{word}"' for word in text.replace('"', " ").split())
        if not query:
            return []
        sql = (
            "SELECT m.conversation_id, m.role, snippet(messages_fts, 0, char(2), char(3), '…', 12)"
            " FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid"
            " JOIN conversations c ON c.id = m.conversation_id"
            " WHERE messages_fts MATCH ? AND c.deleted IS NULL ORDER BY rank LIMIT ?"
        )
        hits: dict[str, Hit] = {}
        for conversation_id, role, snippet in self._query(sql, (query, limit * 4)):
            if conversation_id not in hits and (found := self.get(conversation_id)) is not None:
                hits[conversation_id] = Hit(found, role, snippet)
        return list(hits.values())[:limit]

    def _query(self, sql: str, parameters: tuple[object, ...]) -> list[Any]:
        if self._read is None:
            return []
        try:
            return self._read.execute(sql, parameters).fetchall()
        except sqlite3.OperationalError:
            logger.exception("reading the history failed")
            return []
