"""Things counted under the name of their kind: "A farmer has 4 cows, 7 pigs and 12 hens. How many
animals does he have?" is 4 + 7 + 12 (the ranker, weighing pairs, read 4 + 12); and one list of
one thing in its sorts: "A jar has 5 red, 8 blue and 7 green marbles. How many marbles are in the
jar?" is 5 + 8 + 7 (the ranker read 5 ÷ (8 − 7)).

The kinds are facts of the language (a hen is an animal, a dime a coin), written out here rather
than guessed: a question counting a kind the table does not know, or a story with a number of
anything outside the kind, is left to the ranker. What this reads is shown as computed, never
verified.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.calculon.candidates import MORE_STEPS, Candidate, Quantity
from app.calculon.changes import direction
from app.calculon.counted import counted_noun, singular
from app.calculon.evaluate import Node
from app.calculon.implied import listed_runs

_BIRDS = frozenset(
    [
        "bird",
        "hen",
        "chicken",
        "rooster",
        "duck",
        "goose",
        "geese",
        "swan",
        "owl",
        "parrot",
        "pigeon",
        "crow",
        "robin",
        "sparrow",
        "eagle",
    ]
)
_PETS = frozenset(
    ["dog", "puppy", "cat", "kitten", "hamster", "rabbit", "bunny", "goldfish", "fish", "parrot", "turtle"]
)
_FARM = frozenset(["cow", "pig", "sheep", "goat", "horse", "donkey", "pony", "calf", "lamb", "ox", "bull"])
_WILD = frozenset(
    [
        "lion",
        "tiger",
        "bear",
        "elephant",
        "monkey",
        "zebra",
        "giraffe",
        "deer",
        "fox",
        "wolf",
        "frog",
        "snake",
    ]
)
_KINDS: dict[str, frozenset[str]] = {
    "animal": _BIRDS | _PETS | _FARM | _WILD,
    "bird": _BIRDS,
    "pet": _PETS,
    "fruit": frozenset(
        [
            "apple",
            "orange",
            "banana",
            "pear",
            "peach",
            "plum",
            "grape",
            "cherry",
            "mango",
            "lemon",
            "lime",
            "kiwi",
            "melon",
        ]
    ),
    "vegetable": frozenset(
        ["carrot", "potato", "tomato", "onion", "pepper", "cucumber", "bean", "pea", "cabbage", "lettuce"]
    ),
    "flower": frozenset(["rose", "tulip", "daisy", "lily", "sunflower", "daffodil", "orchid"]),
    "tree": frozenset(["oak", "pine", "maple", "birch", "elm", "palm", "willow"]),
    "child": frozenset(("boy", "girl")),
    "kid": frozenset(("boy", "girl")),
    "student": frozenset(("boy", "girl")),
    "people": frozenset(["man", "men", "woman", "women", "boy", "girl", "adult", "child", "children", "kid"]),
    "coin": frozenset(["penny", "pennie", "nickel", "dime", "quarter"]),
    "vehicle": frozenset(["car", "truck", "bus", "van", "bike", "bicycle", "motorcycle", "scooter"]),
}
_HOW_MANY = re.compile(r"\bhow many\b")
_TWO_WORDS = re.compile(r"[ \t]*([A-Za-z]+)(?:[ \t]+([A-Za-z]+))?")  # "7 brown cows", not past a comma
_NOT_A_SUM = re.compile(
    r"\b(?:more|fewer|less|than|each|every|per|left|remain\w*|now|times|twice|half|need|needs|legs|wheels)\b"
)


def counted_as_a_kind(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """Two or more numbers, each of a different thing of one kind, no change said, and a question
    that counts the kind: their sum."""
    asked = question.lower()
    kind = _KINDS.get(counted_noun(asked))
    if kind is None or len(found) < 2 or not _HOW_MANY.search(asked) or _NOT_A_SUM.search(asked):
        return None
    if (
        MORE_STEPS.search(text)
        or _NOT_A_SUM.search(text.lower())
        or any(q.start >= len(text) - len(question) for q in found)
    ):
        return None
    things = []
    for q in found:
        named = _named(text, q) & kind
        if len(named) != 1 or q.value != int(q.value) or direction(text, q):
            return None  # "4 cows" counts a cow; a number of anything else, a share, or a change is no part
        things.append(named.pop())
    if len(set(things)) != len(things):  # "3 cows ... 2 more cows": a change, not a kind counted
        return None
    return _sum(found)


def one_list_of_sorts(text: str, question: str, found: Sequence[Quantity]) -> Candidate | None:
    """One list of numbers, its last followed by the thing the question counts ("5 red, 8 blue and 7
    green marbles"), no change said: their sum."""
    asked = question.lower()
    counted = counted_noun(asked)
    if not counted or len(found) < 2 or not _HOW_MANY.search(asked) or _NOT_A_SUM.search(asked):
        return None
    if MORE_STEPS.search(text) or _NOT_A_SUM.search(text.lower()):
        return None
    if any(q.start >= len(text) - len(question) or direction(text, q) for q in found):
        return None
    if listed_runs(text, found) != [list(range(len(found)))] or counted not in _named(text, found[-1]):
        return None
    if any(counted in _named(text, q) for q in found[:-1]):  # "5 marbles and 3 marbles": no sorts
        return None
    return _sum(found)


def _sum(found: Sequence[Quantity]) -> Candidate:
    node = found[0].node
    for q in found[1:]:
        node = Node("+", (node, q.node))
    value = sum((q.value for q in found), found[0].value * 0)
    roles = tuple((i, "add") for i in range(len(found)))
    return Candidate(node, value, tuple(range(len(found))), roles, ("+",) * (len(found) - 1))


def _named(text: str, quantity: Quantity) -> set[str]:
    match = _TWO_WORDS.match(text, quantity.end)
    return {singular(w.lower()) for w in match.groups() if w} if match else set()
