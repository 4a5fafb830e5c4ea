"""A call the same as one that failed at its server this turn: refused before it reaches it.

Told "no such column: quantity", Qwen2.5-Coder-1.5B described the table, then sent the same
query again, and again after listing the tables: three times the server answered with the same
error (2 of 51 real tasks ended so). The same arguments fail the same way; the model is told so,
with the error, and asked to change what made it fail. A failure that may pass on its own (a
time-out, a refused connection, a server too busy) is left to be tried again, as is one after
a call that may have changed what made it fail: a commit refused with "no changes staged"
runs again once a file was staged. Looking things up (describe_table) changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from app.core.acting import looks_up
from app.core.records import CallRecord

REFAILED_NOT_RUN = "Not run (the same call failed just now):"
# How a failure that may pass on its own reads: such a call may be sent again as it was.
_PASSING = re.compile(
    r"time[d-]? ?out|timeout|temporar|try again|connection|unavailable|too many requests|rate.?limit"
    r"|\b(?:429|502|503|504)\b|busy|locked",
    re.IGNORECASE,
)


def failed_before(server: str, tool: str, arguments: Mapping[str, Any], calls: Sequence[CallRecord]) -> str:
    """Why the call is not run (the error the same call got at its server this turn), or ""."""
    for call in reversed(calls):
        if not call.failed and not looks_up(call.tool):
            return ""  # it may have changed what the earlier failure was about
        if call.server != server or call.tool != tool or dict(call.arguments) != dict(arguments):
            continue
        if not call.failed or call.result.startswith("Not run (") or _PASSING.search(call.result):
            return ""
        error = " ".join(call.result.split())
        shown = error if len(error) <= 160 else error[:157] + "..."
        return f"{tool} failed with these same arguments a moment ago ({shown!r})"
    return ""


def refailed_result(reason: str) -> str:
    return (
        f"{REFAILED_NOT_RUN} {reason}. The same call fails the same way: change what made it fail, "
        "using the names the results above show, or call another tool."
    )
