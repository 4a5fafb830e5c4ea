"""What the verdict badge of an answer says: where each number came from.

"Verified" means only that every number came from a tool or from the user; it
does not mean the right operation was used (84 backed by add(12, 72) is still
84). So the badge names each number's source, and its tooltip says what
verified does and does not promise. Plain text: tool names and arguments come
from servers and models we do not control.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.tools import USER_SOURCE

BADGE_SOURCES = 2  # tool-backed numbers named on the badge itself; the tooltip lists them all
MEANING = (
    "Verified: every number in this answer came from a tool result or from your message. "
    "It says where each number came from, not that the right operation was chosen: check the calls."
)


def badge_text(backing: Sequence[tuple[str, str]]) -> str:
    """``✓ verified · 84 ← multiply(12, 7)``: the numbers that tools produced, first."""
    from_tools = [f"{number} ← {source}" for number, source in backing if source and source != USER_SOURCE]
    shown = " · ".join(from_tools[:BADGE_SOURCES])
    more = f" · +{len(from_tools) - BADGE_SOURCES} more" if len(from_tools) > BADGE_SOURCES else ""
    return f"✓ verified · {shown}{more}" if shown else "✓ verified"


UNTRUSTED_MEANING = (
    "Not verified: some numbers came only from a server you have not marked trusted "
    "(Settings → Trusted servers). The server could have made them up."
)


def untrusted_badge_text(untrusted: Sequence[tuple[str, str]]) -> str:
    """``⚠ from evil-server · 42``: the answer's numbers that only an untrusted server gave."""
    servers = list(dict.fromkeys(server for _, server in untrusted))
    numbers = ", ".join(number for number, _ in untrusted[:BADGE_SOURCES])
    more = f" +{len(untrusted) - BADGE_SOURCES} more" if len(untrusted) > BADGE_SOURCES else ""
    return f"⚠ from {', '.join(servers)} · {numbers}{more}"


def badge_tooltip(backing: Sequence[tuple[str, str]], untrusted: Sequence[tuple[str, str]] = ()) -> str:
    servers = dict(untrusted)
    lines = [UNTRUSTED_MEANING if untrusted else MEANING, ""]
    for number, source in backing:
        line = f"{number} — from {source}" if source == USER_SOURCE else f"{number} ← {source}"
        lines.append(f"{line} (from {servers[number]}, not trusted)" if number in servers else line)
    return "\n".join(lines).strip()
