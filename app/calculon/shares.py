"""A share of one amount: taken away, said in words ("Mark had 60 dollars. He spent half of it on a
jacket. How much does he have left?" is 60 − 60 ÷ 2), or written as a fraction ("A class has 28
students. 3/4 of them passed. How many passed?" is 28 × 0.75; the ranker read 28 − 0.75).

Such a story writes one number, so no pair of numbers reads it and the model was left to answer
alone. The divisor is the share's word ("half" 2, "a third" 3, "a quarter" 4), backed by that word
(:mod:`app.calculon.implied`). What this reads is shown as computed, never verified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

from app.calculon.candidates import MORE_STEPS, Candidate, Quantity, clause
from app.calculon.changes import asks_the_end
from app.calculon.evaluate import Node

_FRACTION = re.compile(r"\d+\s*/\s*\d+")
_OF = re.compile(r"\s+of\b")
_REST = re.compile(r"\b(?:not|n't|left|remain\w*|rest|others?)\b")
_NOT_ONE_SHARE = re.compile(
    r"\b(?:more|fewer|less|than|total|together|in all|altogether|entire|whole|both|each|per|every)\b"
)
_OF_ANOTHER = re.compile(r"\s+of\s+(?:what|that|those|the\s+total|the\s+\w+\s+(?:that|which|who))\b")
_WORD = re.compile(r"[a-z]{4,}")
_PLAIN = frozenset(
    [
        "them",
        "they",
        "those",
        "these",
        "that",
        "this",
        "with",
        "were",
        "have",
        "from",
        "their",
        "there",
        "what",
        "many",
        "much",
    ]
)
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


def fraction_of(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """An amount and a written fraction of it ("3/4 of them"): the question asks the share where it
    says a word of the fraction's clause ("how many passed"), the rest where it asks what is left or
    not ("how many did not pass"); either way or neither, it is left to the ranker."""
    if len(found) != 2 or MORE_STEPS.search(text) or any(q.text.endswith("/100)") for q in found):
        return None
    shares = [
        i for i, q in enumerate(found) if 0 < q.value < 1 and _FRACTION.fullmatch(text[q.start : q.end])
    ]
    if len(shares) != 1 or not _OF.match(text, found[shares[0]].end):
        return None
    share, amount = shares[0], 1 - shares[0]
    if any(q.start >= len(text) - len(question) for q in found):
        return None
    asked = question.lower()
    around = clause(text, found[share], (".", "?", "!", ";")).lower()
    if (
        _NOT_ONE_SHARE.search(asked)
        or _REST.search(around)
        or _OF_ANOTHER.match(text.lower(), found[share].end)
    ):
        return None  # "how many more", "in total"; "and the rest were cash"; "1/4 of what Kylie picked"
    said = set(_WORD.findall(around)) - _PLAIN
    part, rest = bool(said & set(_WORD.findall(asked))), bool(_REST.search(asked))
    if part == rest:
        return None
    product = Node("*", (found[amount].node, found[share].node))
    value = found[amount].value * found[share].value
    if part:
        return Candidate(product, value, (0, 1), ((amount, "mul"), (share, "mul")), ("*",))
    node = Node("-", (found[amount].node, product))
    roles = ((amount, "sub_l"), (share, "mul"))
    return Candidate(node, found[amount].value - value, (0, 1), roles, ("-", "*"))
