"""A question that asks for a share of one quantity: "What is 20% of my monthly pay?".

The ranker weighs words learned from word-problem corpora, which hold few such questions: for
"I have 3 kids and earn 5000 dollars a month. What is 20% of my monthly pay?" it ranked
``(3 + 5000) ÷ (20/100)`` first, and no formula it offered was 20% × 5000. Yet the question
writes its own operation: a percentage of one thing the story holds. Here the candidates are
narrowed to that percentage times one other quantity, and the one whose words the question's
"of ..." shares ("monthly pay" and "a month") is put first; the ranker orders the rest. Which
quantity is meant stays a reading, shown as computed with its numbers labelled, never verified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.calculon.candidates import Candidate, Quantity, clause

# what opens a question that asks for the share itself ("What is", "How much is", "Find")
_ASKS = re.compile(
    r"(?:\b(?:what|how much)(?:'s|\s+is|\s+are|\s+would\s+be|\s+will\s+be)"
    r"|\b(?:find|calculate|compute|work\s+out))\s+$",
    re.IGNORECASE,
)
_OF = re.compile(r"\s*of\s+([^.?!]*)")
_WORD = re.compile(r"[a-z]+")
_AROUND = (
    ".",
    "?",
    "!",
    ",",
    " and ",
)  # what ends the clause a quantity stands in: its sentence, a comma, "and"
# words too common to say which quantity is meant
_SMALL = frozenset(re.findall(r"\w+", "a an the my his her their our your its of in on at for to and per"))


def asked_share(text: str, found: Sequence[Quantity]) -> int | None:
    """The percentage the question asks a share of ("What is 20% of ..."), as an index into
    ``found``; None where the question asks no such thing."""
    for index, quantity in enumerate(found):
        if not quantity.text.endswith("/100)"):
            continue
        if _ASKS.search(text[max(0, quantity.start - 24) : quantity.start]) and _OF.match(text, quantity.end):
            return index
    return None


def share_candidates(text: str, found: Sequence[Quantity], pool: Sequence[Candidate]) -> list[Candidate]:
    """The percentage times one other quantity, the quantity whose words the question's "of ..."
    shares first (a stable sort: the caller's order stands among equals); [] where the question
    asks for no share."""
    share = asked_share(text, found)
    if share is None:
        return []
    kept = [c for c in pool if len(c.used) == 2 and share in c.used and _multiplies(c, share)]
    match = _OF.match(text, found[share].end)
    said = _words(match.group(1) if match else "")
    return sorted(kept, key=lambda c: -len(said & _words(clause(text, found[_other(c, share)], _AROUND))))


def _multiplies(candidate: Candidate, share: int) -> bool:
    return all(role in ("mul", "pct_of") for index, role in candidate.roles if index == share)


def _other(candidate: Candidate, share: int) -> int:
    return next(i for i in candidate.used if i != share)


def _words(text: str) -> set[str]:
    """Stems of the words that carry meaning ("monthly" and "month" share "mont")."""
    return {w[:4] for w in _WORD.findall(text.lower()) if w not in _SMALL and len(w) > 2}
