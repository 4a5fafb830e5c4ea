"""A rate given for a batch, scaled to another batch of the same unit: "A recipe needs 3 eggs for
every 2 cups of flour. How many eggs for 8 cups?" is 3 × 8 ÷ 2.

The ranker read it 3 × 2 × 8 (its corpora hold few rates whose batch is not one). The rule reads
only where the words leave one reading: a number, "for every" / "per" / "for each" and a second
number right after, a third number with the second's unit word, nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.calculon.candidates import Candidate, Quantity
from app.calculon.evaluate import Node

_PER = re.compile(r"\s+(?:[A-Za-z]+\s+){0,4}?(?:for every|for each|in every|per|every)\s+$", re.IGNORECASE)
_UNIT = re.compile(r"\s*([A-Za-z]+)")


def scaled_rate(text: str, found: Sequence[Quantity]) -> Candidate | None:
    """``amount × asked ÷ batch`` where ``amount per batch`` is said and ``asked`` shares the
    batch's unit ("2 cups" and "8 cups"); None elsewhere."""
    if len(found) != 3 or any(q.text.endswith("/100)") or q.value <= 0 for q in found):
        return None
    for first in range(2):
        amount, batch = found[first], found[first + 1]
        if not _PER.fullmatch(text, amount.end, batch.start):
            continue
        unit = _unit(text, batch)
        asked = 3 - first - (first + 1)  # the one left of 0, 1, 2
        if not unit or _unit(text, found[asked]) != unit:
            return None
        node = Node("/", (Node("*", (amount.node, found[asked].node)), batch.node))
        value = amount.value * found[asked].value / batch.value
        roles = ((first, "mul"), (asked, "mul"), (first + 1, "div_r"))
        return Candidate(node, value, (first, asked, first + 1), roles, ("/", "*"))
    return None


def _unit(text: str, quantity: Quantity) -> str:
    """The word after a number, singular: "cups" and "cup" are one unit."""
    match = _UNIT.match(text, quantity.end)
    return match[1].lower().removesuffix("s") if match else ""
