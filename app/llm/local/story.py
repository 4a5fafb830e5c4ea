"""How a two-number question joins its numbers when no word names the operator: its story.

"We drove 174 miles before lunch and 22 miles after" names no operator, and the model, left
the choice, wrote ``174 - 22``; "My account had $315 and I withdrew $19" became ``19 - 315``
and "a 258 page book read at 25 pages a day: how many days?" became ``258 * 25``. The
numbers themselves say more:

- two **like amounts** (the same unit after them, or the same currency sign before) are
  added, or taken away where money is paid out or things are used up, or where the question
  compares them; a product or quotient of like amounts is rarely what is asked;
- a **rate** ("25 pages a day", "$464 a week") divides an amount when the question asks how
  many of its periods ("how many days"), and multiplies a number of its periods ("in 14 weeks");
- "how many times does A **go into** B" is B / A.

Anything else is left open: the model picks the operator, as before.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.llm.local.reading import Item

_CURRENCY = "$€£¥"
# Words that take the second of two like amounts from the first; verbs whose direction
# depends on who gets what ("gave", "took") are left out.
_TAKEN = re.compile(
    r"\b(?:paid|pays?|sold|sells?|used|uses|ate|eaten|drank|withdr[ae]wn?|removed?|broke|broken"
    r"|fell|falls?|dropped|drops?|cooled)\b",
    re.IGNORECASE,
)
_COMPARED = re.compile(
    r"\bhow (?:much|many|far|long)(?: \w+)? (?:more|less|fewer|\w{2,}er)\b|\bchange\b", re.IGNORECASE
)
# After a number: "25 pages a day", "$464 a week", "60 km/h"; group 1 is what it counts per.
_RATE = re.compile(r"\s?(?:[a-z]+\s*)?(?:/\s*|\b(?:a|an|per|every)\s+)([a-z]+)", re.IGNORECASE)
_GO_INTO = re.compile(r"\bgo(?:es)? into\b", re.IGNORECASE)
HOW_MANY = re.compile(r"\bhow many ([a-z]+)", re.IGNORECASE)  # group 1: what the question counts


def joined(text: str, first: Item, second: Item) -> tuple[Item, Item] | None:
    """The two numbers in the order the story uses them, the second with its join; None where
    the story says nothing."""
    if _GO_INTO.search(text[first.end : second.start]):
        return second, dataclasses.replace(first, join="/")
    rated = _rated(text, first, second)
    if rated is not None:
        return rated
    if _alike(text, first, second):
        return first, dataclasses.replace(second, join=_like_amounts(text))
    return None


def _rated(text: str, first: Item, second: Item) -> tuple[Item, Item] | None:
    asked = {_singular(word.lower()) for word in HOW_MANY.findall(text)}
    for rate, other in ((first, second), (second, first)):
        match = _RATE.match(text, rate.end)
        if match is None:
            continue
        period = _singular(match.group(1).lower())
        if period in asked:
            return other, dataclasses.replace(rate, join="/")  # the amount over the rate
        if _singular(other.unit.lower()) == period:
            return first, dataclasses.replace(second, join="*")  # the rate times its periods
    return None


def _alike(text: str, first: Item, second: Item) -> bool:
    """Whether two numbers measure the same thing ("174 miles ... 22 miles", "$315 ... $19")."""
    if any(_RATE.match(text, item.end) for item in (first, second)):
        return False  # "25 pages a day" is a rate, not an amount of pages
    units = {_singular(item.unit.lower()) for item in (first, second)}
    signs = {text[item.start - 1 : item.start] for item in (first, second)}
    return (len(units) == 1 and units != {""}) or (len(signs) == 1 and signs <= set(_CURRENCY))


def _like_amounts(text: str) -> str:
    return "-" if _TAKEN.search(text) or _COMPARED.search(text) else "+"


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 3 else word
