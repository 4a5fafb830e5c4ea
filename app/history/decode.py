"""Engine events back from their JSON form (``Event.to_dict``), for replay and restore."""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping
from typing import Any

from app.core import events as ev


@functools.cache
def _kinds() -> dict[str, type[ev.Event]]:
    found: dict[str, type[ev.Event]] = {}
    pending: list[type[ev.Event]] = [ev.Event]
    while pending:
        cls = pending.pop()
        found[cls.kind] = cls
        pending.extend(cls.__subclasses__())
    return found


def event_from_dict(body: Mapping[str, Any]) -> ev.Event | None:
    """The event ``body`` describes; None for a kind this version does not know (a newer one's)."""
    cls = _kinds().get(str(body.get("kind", "")))
    if cls is None or cls is ev.Event:
        return None
    names = _field_names(cls.kind)
    fields = {k: _tupled(v) for k, v in body.items() if k in names}
    try:
        return cls(**fields)
    except TypeError:  # fields missing: written by a version with another shape
        return None


@functools.cache
def _field_names(kind: str) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(_kinds()[kind]))


def joined_deltas(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive text (or thought) deltas of one turn as one: the same text, a tenth of the events."""
    joined: list[dict[str, Any]] = []
    for body in bodies:
        last = joined[-1] if joined else None
        if last is not None and _same_stream(last, body):
            last["text"] += body["text"]
            last["ts"] = body["ts"]
        else:
            joined.append(body)
    return joined


_DELTAS = ("text_delta", "thought_delta")

# Rows for :func:`joined_rows`: a delta's text alone (SQLite takes it out of the JSON, in C), else the body.
ROWS_SQL = (
    "SELECT kind, turn_id, ts, CASE WHEN kind IN ('text_delta', 'thought_delta')"
    " THEN json_extract(body, '$.text') ELSE body END FROM events WHERE conversation_id = ? ORDER BY seq"
)


def joined_rows(rows: list[tuple[str, str, float, str]]) -> list[dict[str, Any]]:
    """:func:`joined_deltas` straight from :data:`ROWS_SQL`'s rows: the deltas, nine rows in ten of a
    long conversation, are never parsed as JSON."""
    joined: list[dict[str, Any]] = []
    for kind, turn_id, ts, value in rows:
        last = joined[-1] if joined else None
        if kind not in _DELTAS:
            joined.append(json.loads(value))
        elif last is not None and last["kind"] == kind and last["turn_id"] == turn_id:
            last["text"] += value
            last["ts"] = ts
        else:
            joined.append({"kind": kind, "turn_id": turn_id, "ts": ts, "text": value})
    return joined


def _same_stream(last: dict[str, Any], body: dict[str, Any]) -> bool:
    return body["kind"] in _DELTAS and last["kind"] == body["kind"] and last["turn_id"] == body["turn_id"]


def _tupled(value: Any) -> Any:
    """JSON lists back into the tuples the frozen events hold."""
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value
