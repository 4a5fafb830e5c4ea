"""A request to put something somewhere is no word problem, whatever numbers it carries.

"Add a product named lamp in the category home, priced 19.99, with 4 in stock, to the products
table" was read as the story ``19.99 + 4``: the ranker's formula was handed to the model as the
call to make, and both the built-in and Qwen2.5-Coder-1.5B sent it to the calculator instead of
the database (the bad-input bench's locked database, whose lock was never reached). "Remember
that my locker code is 4412 and I have 3 keys" was ``4412 + 3`` the same way.

A request is such a deed when it opens with a verb that changes things ("add", "write",
"remember"), the verb's object is a thing ("a product", "the note") rather than a number, and
nothing after the verb asks for a result: no question, no operation named ("the total", "times"),
no "how many". None of the public word problems this was checked against (MAWPS, GSM8K's train
split) opens that way; they ask.
"""

from __future__ import annotations

import re

from app.calculon.transcript import names_an_operation
from app.core.named import without_names

# verbs that put, make or change something, as a request's first word
_CHANGES = re.compile(
    r"(?:add|insert|put|save|write|record|store|create|make|log|enter|remember|note|append|register|commit|set"
    r"|update|change|rename|move|copy|delete|remove|edit|replace)$"
)
# what such a verb's object opens with when it is a thing, not a number ("add that to 5" is a sum)
_THING = re.compile(r"(?:an?|the|my|our|your|his|her|their|this|these|those|some|new|another)$")
_ABOUT = ("remember", "note")  # "remember that ...": a fact to keep, not "that" result
# "add" is also the sum's verb ("Add the numbers 3 and 4", "Add a 15% tip to 80 dollars"): it is a
# deed only toward a place that keeps things ("to the products table", "to notes.txt")
_STORE = re.compile(
    r"\b(?:to|into|in|onto)\s+(?:[\w'-]+\s+){0,3}?(?:table|database|db|file|list|memory|notes?|sheet|"
    r"spreadsheet|folder|directory|repository|repo|cart|basket|calendar|inventory|catalog(?:ue)?|todo|"
    r"log|page|document|records?|store|shop)\b|\b[\w-]+\.(?:txt|md|csv|json|db|sqlite|ya?ml|toml|py)\b",
    re.IGNORECASE,
)
_OPENING = re.compile(r"^\s*(?:(?:please|now|then|also|and|just)\b[\s,]*)*([A-Za-z]+)\s+([A-Za-z]+)\b")
_ASKS = re.compile(
    r"\?|\b(?:how|what|which|find|calculate|compute|work(?:ing)? out|figure out|determine|solve|"
    r"left|remain\w*|average|mean|percent(?:age)?|together|altogether|combined|in total|in all)\b",
    re.IGNORECASE,
)


def instructs_a_change(asked: str) -> bool:
    """Whether ``asked`` asks to put, make or change a thing rather than to work a number out."""
    opening = _OPENING.match(asked)
    if opening is None:
        return False
    verb, first = opening[1].lower(), opening[2].lower()
    if not _CHANGES.match(verb) or not (_THING.match(first) or verb in _ABOUT):
        return False
    rest = asked[opening.end(1) :]
    if verb == "add" and not _STORE.search(rest):
        return False
    rest = without_names(rest)  # a path's "/" divides nothing
    return not (_ASKS.search(rest) or names_an_operation(rest))
