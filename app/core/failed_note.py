"""A turn that ends on a failed call says so in its answer, in the error's own words.

Told "Access denied - path outside allowed directories: /etc/hostname not in /home/me/project" by
the filesystem reference server, a small model answers "I'm sorry, but I can't access that
file.": the reason, which the person can act on (allow the folder, fix the path, start the
server), stayed in the trace. Where the turn's last call failed at its server (or the server
could not be reached) and nothing ran after it, the answer ends with a line the app writes,
quoting the error's first line, unless the answer already does. A call the person declined, or
one the app refused as malformed, gets no line: the model was told, and the person has nothing
to act on.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.records import CallRecord
from app.core.toolrun import NOT_APPROVED

FAILED_NOTE = "⚠ The last call failed:"
# What the app itself answers a malformed call with (app.core.toolrun, app.core.calling): the
# model's mistake, told to the model; the person has nothing to act on there.
_APP_SAID = ("Not run (", "Arguments for ", "Arguments do not match ", "Unknown tool ")
MAX_QUOTED = 300  # characters of the error's first line


def failure_note(calls: Sequence[CallRecord], answer: str) -> str:
    """The line that ends an answer whose turn's last call failed, or ""."""
    last = calls[-1] if calls else None
    if last is None or not last.failed or last.result.startswith(_APP_SAID):
        return ""
    if NOT_APPROVED in last.result:  # the person's own no: nothing to tell them
        return ""
    lines = last.result.strip().splitlines()
    first = lines[0].strip()[:MAX_QUOTED] if lines else ""
    if not first or first.lower() in answer.lower():
        return ""
    quoted = first.replace("`", "'")  # a code span: the error's words are shown, never formatted
    return f"{FAILED_NOTE} {last.server}.{last.tool} said `{quoted}`"


def with_failure_note(answer: str, calls: Sequence[CallRecord]) -> str:
    note = failure_note(calls, answer)
    if not note:
        return answer
    return f"{answer.rstrip()}\n\n{note}" if answer.strip() else note
