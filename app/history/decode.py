"""Engine events back from their JSON form (``Event.to_dict``), for replay and restore."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from app.core import events as ev


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
    names = {f.name for f in dataclasses.fields(cls)}
    fields = {k: _tupled(v) for k, v in body.items() if k in names}
    try:
        return cls(**fields)
    except TypeError:  # fields missing: written by a version with another shape
        return None


def _tupled(value: Any) -> Any:
    """JSON lists back into the tuples the frozen events hold."""
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value
