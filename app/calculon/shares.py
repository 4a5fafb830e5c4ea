"""A share of the one amount taken away, said in words: "Mark had 60 dollars. He spent half of it on
a jacket. How much does he have left?" is 60 − 60 ÷ 2.

Such a story writes one number, so no pair of numbers reads it and the model was left to answer
alone. The divisor is the share's word ("half" 2, "a third" 3, "a quarter" 4), backed by that word
(:mod:`app.calculon.implied`). What this reads is shown as computed, never verified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from app.calculon.candidates import MORE_STEPS, Candidate, Quantity
from app.calculon.changes import asks_the_end
from app.calculon.evaluate import Node

_SHARE = re.compile(r"\b(?:half|halves|thirds?|quarters?|fourths?|fifths?)\b")
_PARTS = {"half": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5}
# "spent half of it", "gave away a third of them", "ate a quarter of the cake"
_TAKEN = re.compile(
    r"\b(?:spent|spends|spend|gave|gives|give|ate|eats|sold|sells|lost|loses|used|uses|donated|donates)"
    r"(?:\s+away)?\s+(?:a|one)?\s*(half|third|quarter|fourth|fifth)\s+of\s+(?:it|them|his|her|their|the|its)\b"
)


def share_taken(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """One amount, one share of it taken away in words, and a question about what is left."""
    if len(found) != 1 or not asks_the_end(question.lower()):
        return None
    story = text[: len(text) - len(question)].lower()
    taken = list(_TAKEN.finditer(story))
    rest = _TAKEN.sub(" ", text.lower())
    if MORE_STEPS.search(rest) or _SHARE.search(rest):  # its own share is no further step; another is
        return None
    if len(taken) != 1 or found[0].start >= taken[0].start() or found[0].value <= 0:
        return None
    parts = _PARTS[taken[0][1]]
    amount = found[0].node
    divisor = Node("num", value=Fraction(parts), text=str(parts))
    node = Node("-", (amount, Node("/", (amount, divisor))))
    value = found[0].value - found[0].value / parts
    return Candidate(node, value, (0,), ((0, "sub_l"),), ("-", "/"))
