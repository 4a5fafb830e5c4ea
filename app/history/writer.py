"""The one writer of the history: a thread that commits what the loop hands it, in batches.

The loop only puts a small tuple on a queue (no I/O, no JSON), so saving never stalls it.
The thread takes whatever arrives within :data:`BATCH_S` of the first item and commits it
in one transaction. What a crash can lose: the items of the batch being gathered or
committed, at most the last few milliseconds; nothing committed is lost to ``kill -9``
(WAL with ``synchronous = NORMAL``; a power cut may also lose the last commits).

When a write fails (a full disk, a read-only file) the batch is rolled back, ``on_problem``
hears one sentence (from the writer thread), and everything after is dropped: the old data
stays as it was and the app goes on without saving.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

from app.core import events as ev
from app.history.redact import redact, secret_values

logger = logging.getLogger(__name__)

BATCH_S = 0.003
_STOP = object()

# (sql, parameters) for statements the loop wants run in order with the events.
Statement = tuple[str, tuple[Any, ...]]


class HistoryWriter:
    def __init__(self, connection: sqlite3.Connection, on_problem: Callable[[str], None]) -> None:
        self._db = connection
        self._on_problem = on_problem
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._secrets = secret_values()
        self.failed = ""
        self._thread = threading.Thread(target=self._run, name="history-writer", daemon=True)
        self._thread.start()

    # --- from the loop ---

    def append(self, conversation_id: str | None, event: ev.Event) -> None:
        self._queue.put((conversation_id, event))

    def execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> None:
        self._queue.put((sql, parameters))

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until everything handed over so far is committed (or dropped after a failure)."""
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def close(self, timeout: float = 10.0) -> None:
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join(timeout)

    # --- the thread ---

    def _run(self) -> None:
        while True:
            batch = self._gather()
            self._commit([item for item in batch if isinstance(item, tuple)])
            for item in batch:
                if isinstance(item, threading.Event):
                    item.set()
            if any(item is _STOP for item in batch):
                return

    def _gather(self) -> list[Any]:
        batch = [self._queue.get()]
        deadline = time.monotonic() + BATCH_S
        while batch[-1] is not _STOP and (left := deadline - time.monotonic()) > 0:
            try:
                batch.append(self._queue.get(timeout=left))
            except queue.Empty:
                break
        return batch

    def _commit(self, items: list[tuple[Any, ...]]) -> None:
        if not items or self.failed:
            return
        try:
            self._db.execute("BEGIN")
            for first, second in items:
                if isinstance(second, ev.Event):
                    self._write_event(first, second)
                else:  # a title may quote the question, and so a secret in it
                    self._db.execute(first, redact(second, self._secrets))
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            self._give_up(exc)

    def _give_up(self, exc: sqlite3.Error) -> None:
        logger.exception("saving the history failed")
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")
        self.failed = (
            f"Saving the history stopped ({exc}); what was saved before is kept, and Calculon goes on"
            " without saving."
        )
        self._on_problem(self.failed)

    def _write_event(self, conversation_id: str | None, event: ev.Event) -> None:
        body = redact(event.to_dict(), self._secrets)
        self._db.execute(
            "INSERT INTO events (conversation_id, turn_id, kind, ts, body) VALUES (?, ?, ?, ?, ?)",
            (conversation_id, event.turn_id, event.kind, event.ts, json.dumps(body, ensure_ascii=False)),
        )
        said = searchable(body) if conversation_id else None
        if said is not None:
            self._db.execute(
                "INSERT INTO messages (conversation_id, role, text, ts) VALUES (?, ?, ?, ?)",
                (conversation_id, said[0], said[1], event.ts),
            )
            self._db.execute("UPDATE conversations SET updated = ? WHERE id = ?", (event.ts, conversation_id))


def searchable(body: dict[str, Any]) -> tuple[str, str] | None:
    """(role, text) for events that say something worth finding: questions, answers, tool results."""
    kind = body["kind"]
    if kind == "turn_started":
        return "user", body["text"]
    if kind == "answer_ready":
        return "assistant", body["text"]
    if kind == "tool_call_finished":
        arguments = json.dumps(body["arguments"], ensure_ascii=False)
        return "tool", f"{body['server']}.{body['tool']} {arguments} → {body['result']}"
    return None
