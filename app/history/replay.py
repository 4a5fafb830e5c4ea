"""Saved events made ready to show again, and a JSON export read back for a replay.

Streamed text arrives as many small deltas; read back, consecutive deltas become one
(:func:`~app.history.decode.joined_deltas`: same bubbles, same trace nodes, a fraction of
the work). A turn the app never finished,
because it was killed, is closed with a note so its trace does not spin forever.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.core import events as ev
from app.history.decode import event_from_dict, joined_deltas
from app.history.export import FORMAT
from app.jsonfile import JsonProblem, read_json

MAX_EXPORT_BYTES = 256 * 1024 * 1024
INTERRUPTED = "Calculon stopped before this turn finished; what it did until then is shown."


class ReplayProblem(ValueError):
    """The file is not a Calculon export; the message names the file and says why."""


def display_events(events: Sequence[ev.Event]) -> list[ev.Event]:
    """The events, with each turn the app never finished closed by a note."""
    unfinished: dict[str, float] = {}
    for event in events:
        if isinstance(event, ev.TurnStarted):
            unfinished[event.turn_id] = event.ts
        elif isinstance(event, ev.TurnFinished):
            unfinished.pop(event.turn_id, None)
    closing: list[ev.Event] = []
    for turn_id, ts in unfinished.items():
        closing.append(ev.TurnError(turn_id=turn_id, ts=ts, message=INTERRUPTED, category="interrupted"))
        closing.append(ev.TurnFinished(turn_id=turn_id, ts=ts, failed=True))
    return [*events, *closing]


def read_export(path: Path) -> tuple[str, list[ev.Event]]:
    """The title and events of a JSON export (``calculon history export ID --format json``)."""
    try:
        document = read_json(path, MAX_EXPORT_BYTES)
    except (JsonProblem, OSError) as exc:
        raise ReplayProblem(f"{path} cannot be replayed: {exc}") from exc
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ReplayProblem(f"{path} is not a Calculon conversation export")
    bodies: Any = document.get("events")
    if not isinstance(bodies, list):
        raise ReplayProblem(f"{path} holds no events")
    valid = [b for b in bodies if isinstance(b, dict) and isinstance(b.get("kind"), str)]
    events = [e for e in (event_from_dict(b) for b in joined_deltas(valid)) if e is not None]
    conversation = document.get("conversation")
    title = conversation.get("title", path.stem) if isinstance(conversation, dict) else path.stem
    return str(title), events
