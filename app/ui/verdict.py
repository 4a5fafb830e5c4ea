"""What the verdict badge of an answer says (:mod:`app.calculon.verdict` decides it).

"Verified" is shown only where the formula is established: the user's words spell the
arithmetic out, it was worked out apart from the model, and the tool agrees. A formula
that is the model's reading of a story is "computed": the badge shows that formula, each
number labelled with the user's words, and asks the person to check it. Plain text: tool
names and arguments come from servers and models we do not control.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.core.tools import USER_SOURCE

BADGE_SOURCES = 2  # tool-backed numbers named on the badge itself; the tooltip lists them all
MEANING = (
    "Verified: your message spells out this calculation, Calculon worked it out apart from the model, "
    "the tool's result agrees, and every number in the answer came from a tool or from you."
)
COMPUTED_MEANING = (
    "Computed, not verified: every number came from a tool or from you, but which calculation to run "
    "was the model's reading of your words. Check the formula: is it what you asked?"
)
NOT_CALCULATED_MEANING = (
    "Not calculated: you asked for a calculation, and no tool computed the number this answer states."
)
UNCHECKED_MEANING = (
    "Nothing was checked: no tool result stands behind this answer, and it has no number of yours."
)
MAX_FORMULA = 160  # characters on the badge; the tooltip has it whole


def kind_of(verdict: str | None, verified: bool | None) -> str | None:
    """The verdict of an answer; one saved before verdicts existed says only verified or not."""
    if verdict is not None:
        return verdict
    return None if verified is None else ("verified" if verified else "unverified")


def badge_text(backing: Sequence[tuple[str, str]], formula: str = "") -> str:
    """``✓ verified · 84 = 12 × 7``, or the numbers that tools produced where no formula is kept."""
    if formula:
        return f"✓ verified · {_clip(formula)}"
    from_tools = [f"{number} ← {source}" for number, source in backing if source and source != USER_SOURCE]
    shown = " · ".join(from_tools[:BADGE_SOURCES])
    more = f" · +{len(from_tools) - BADGE_SOURCES} more" if len(from_tools) > BADGE_SOURCES else ""
    return f"✓ verified · {shown}{more}" if shown else "✓ verified"


def computed_badge_text(formula: str) -> str:
    """``≈ computed, check the formula: 10 = 15 (goldfish) − 5 (were eaten)``."""
    return f"≈ computed, check the formula: {_clip(formula)}" if formula else "≈ computed: check the calls"


def computed_tooltip(basis: str, backing: Sequence[tuple[str, str]]) -> str:
    return "\n".join([COMPUTED_MEANING, *([basis] if basis else []), "", *_sources(backing, {})]).strip()


def _clip(text: str) -> str:
    return text if len(text) <= MAX_FORMULA else text[: MAX_FORMULA - 1] + "…"


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


def badge_tooltip(
    backing: Sequence[tuple[str, str]], untrusted: Sequence[tuple[str, str]] = (), basis: str = ""
) -> str:
    lines = [UNTRUSTED_MEANING if untrusted else MEANING, *([basis] if basis else []), ""]
    return "\n".join([*lines, *_sources(backing, dict(untrusted))]).strip()


def _sources(backing: Sequence[tuple[str, str]], servers: dict[str, str]) -> list[str]:
    lines = []
    for number, source in backing:
        line = f"{number} — from {source}" if source == USER_SOURCE else f"{number} ← {source}"
        lines.append(f"{line} (from {servers[number]}, not trusted)" if number in servers else line)
    return lines


def quiet_badge(kind: str, basis: str) -> tuple[str, str] | None:
    """The badge and tooltip of an answer nothing was computed for: "not calculated", "nothing
    was checked" or, restored without its servers, "from an untrusted server"; None for the others."""
    if kind == "not_calculated":
        return "— not calculated: no tool computed this number", f"{NOT_CALCULATED_MEANING}\n{basis}".strip()
    if kind == "unchecked":
        return "· nothing was checked", f"{UNCHECKED_MEANING}\n{basis}".strip()
    if kind == "untrusted":  # restored without its servers: the kind alone
        return (
            "⚠ from an untrusted server",
            f"Not verified: a server nobody marked trusted gave the numbers.\n{basis}".strip(),
        )
    return None
