"""A name an error says does not exist, beside the names the turn has read.

Told "no such column: quantity", Qwen2.5-Coder-1.5B looked the table up with describe_table, which
listed id, customer, product and qty, and sent the same query with "quantity" again: the name it
had in mind was the question's word. The app notes, under such an error, the names its earlier
results listed (a table's columns, a database's tables), so the next call reads them beside the
error. A note, as the app's counts are: the server's own words are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.core.listing import list_value

_MISSING = re.compile(
    r"no such (?P<a>column|table)s?:\s*[\"'`]?(?P<an>[\w.]+)"
    r"|(?P<b>column|table|relation)\s+[\"'`]?(?P<bn>[\w.]+)[\"'`]?\s+does not exist"
    r"|unknown (?P<c>column|table)\s+[\"'`]?(?P<cn>[\w.]+)",
    re.IGNORECASE,
)
MAX_LISTED = 40  # names noted at most: a schema, not a dump
_MAX_TEXT = 100_000  # a longer result is no list of names to parse


def missing_note(error: str, results: Iterable[str]) -> str:
    """The note for ``error`` where it names a column or table that does not exist; "" otherwise."""
    found = _MISSING.search(error)
    if found is None:
        return ""
    kind = (found["a"] or found["b"] or found["c"]).lower()
    name = found["an"] or found["bn"] or found["cn"]
    groups = [names for text in results if (names := listed_names(text))]
    if not groups:
        return (
            f"\n\n[Noted by the app: there is no {kind} {name!r}; look up what exists before trying again.]"
        )
    shown = "; ".join(", ".join(names) for names in groups)
    if len(shown) > 6 * MAX_LISTED:
        shown = shown[: 6 * MAX_LISTED] + " ..."
    return f"\n\n[Noted by the app: there is no {kind} {name!r}; the names read so far are: {shown}.]"


def listed_names(text: str) -> list[str]:
    """The names a result lists as rows with a "name" (a table's columns as describe_table gives
    them, the tables of list_tables); [] for any other text."""
    value = list_value(text) if len(text) <= _MAX_TEXT else None
    if value and all(isinstance(v, dict) and "name" in v for v in value):
        return [str(v["name"]) for v in value if isinstance(v, dict)][:MAX_LISTED]
    return []
