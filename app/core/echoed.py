"""A call that hands a tool its own earlier reply as an argument.

Qwen2.5-Coder-1.5B wrote the total into total.txt, then called ``write_file`` again with the
content "Successfully wrote to .../total.txt", overwriting the total with the server's reply; it
committed a change, then committed again with the message "Changes committed successfully with
hash 6d45...". A tool's reply is never content for the same tool: such a call is not run, and the
model is told why. Short replies ("15.74") are left alone: a number read back may be written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.core.records import CallRecord

MIN_SHARED = 24  # characters an argument shares with the reply's opening before it is a copy


def echoed_reply(tool: str, arguments: Mapping[str, Any], calls: Sequence[CallRecord]) -> str:
    """Why the call repeats ``tool``'s own earlier reply as an argument, or ""."""
    replies = [c.result.strip() for c in calls if c.tool == tool and not c.is_error]
    for name, value in arguments.items():
        if not isinstance(value, str):
            continue
        text = value.strip()
        for reply in replies:
            if (
                len(reply) >= MIN_SHARED
                and len(text) >= MIN_SHARED
                and text[:MIN_SHARED] == reply[:MIN_SHARED]
            ):
                shown = reply.splitlines()[0][:80]
                return f"its {name} repeats what {tool} answered before ({shown!r}): a reply, not content"
    return ""
