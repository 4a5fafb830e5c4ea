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


def badge_tooltip(backing: Sequence[tuple[str, str]]) -> str:
    lines = [MEANING, ""]
    for number, source in backing:
        lines.append(f"{number} — from {source}" if source == USER_SOURCE else f"{number} ← {source}")
    return "\n".join(lines).strip()
