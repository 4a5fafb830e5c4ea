"""The tasks this machine's Calculon has followed, for ``calculon tasks``.

A task outlives the call that made it: a command-line run stopped halfway leaves a remote
server's task working, and the window's trace is gone once it closes. Each task is kept with
the server, the tool, its id and its last status as Calculon saw it, in ``tasks.json`` in the
data folder (the newest 200; written when a status changes, not on every poll).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from pathlib import Path
from typing import Any

from app import paths
from app.jsonfile import JsonProblem, read_json

logger = logging.getLogger(__name__)

FILE_NAME = "tasks.json"
KEPT = 200
MAX_BYTES = 4 * 1024 * 1024


def default_path() -> Path:
    return paths.data_dir() / FILE_NAME


@dataclasses.dataclass(frozen=True)
class TaskRecorder:
    """One server's recorder, handed to its connection's tasks extension."""

    server: str
    path: Path | None = None

    def __call__(self, tool: str, task_id: str, status: str, message: str) -> None:
        record(self.path or default_path(), self.server, tool, task_id, status, message)


def records(path: Path | None = None) -> list[dict[str, Any]]:
    """Every kept task, oldest first; an unreadable file reads as none (and is said in the log)."""
    try:
        body = read_json(path or default_path(), MAX_BYTES)
    except FileNotFoundError:
        return []
    except (OSError, JsonProblem) as exc:
        logger.info("the task list is unreadable: %s", exc)
        return []
    tasks = body.get("tasks") if isinstance(body, dict) else None
    return [t for t in tasks if isinstance(t, dict)] if isinstance(tasks, list) else []


def record(path: Path, server: str, tool: str, task_id: str, status: str, message: str) -> None:
    tasks = records(path)
    now = time.time()
    same = next((t for t in tasks if t.get("task_id") == task_id and t.get("server") == server), None)
    if same is not None and (same.get("status"), same.get("message")) == (status, message):
        return
    if same is None:
        same = {"server": server, "tool": tool, "task_id": task_id, "started": now}
        tasks.append(same)
    same.update(status=status, message=message, updated=now)
    try:
        paths.atomic_write_json(path, {"tasks": tasks[-KEPT:]})
    except OSError as exc:  # the call goes on; only the listing misses this status
        logger.info("could not keep task %s: %s", task_id, exc)
