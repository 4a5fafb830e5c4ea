"""Numbers a story names without writing them: "twice" is 2, "half" 2 (or 1/2), "a week" 7 days.

A worked answer multiplies by 2 for "twice as many" and by 7 for "every day for a week"; those
numbers come from the user's words as surely as a written "2" does, so they back an answer and a
call as the written ones do, each labelled with the words that gave it. The list is short on
purpose: each entry is a fact of the language or of the calendar, never a guess at a story.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Protocol

from app.core.numbers import find_numbers

# word (as a regular expression) -> the numbers it names, and how a formula labels each
_IMPLIED: tuple[tuple[str, tuple[tuple[Fraction, str], ...]], ...] = (
    (r"twice|double[sd]?|doubling|two times", ((Fraction(2), "twice"),)),
    (r"triple[sd]?|tripling|thrice", ((Fraction(3), "three times"),)),
    (r"half|halves|halved|halve", ((Fraction(2), "half"), (Fraction(1, 2), "half"))),
    (r"quarters?|quartered", ((Fraction(4), "quarter"), (Fraction(1, 4), "a quarter"))),
    (r"thirds?", ((Fraction(3), "a third"),)),
    (r"pairs?|couple", ((Fraction(2), "a pair"),)),
    (r"dozens?", ((Fraction(12), "a dozen"),)),
    (r"squared", ((Fraction(2), "squared"),)),  # "73 squared" is 73 ^ 2
    (r"cubed", ((Fraction(3), "cubed"),)),
    (r"percent|per cent|%", ((Fraction(100), "per cent"),)),
    (r"weeks?|weekly", ((Fraction(7), "days in a week"),)),
    (r"fortnights?", ((Fraction(14), "days in a fortnight"),)),
    (r"days?|daily", ((Fraction(24), "hours in a day"),)),
    (r"hours?|hourly", ((Fraction(60), "minutes in an hour"),)),
    (r"minutes?", ((Fraction(60), "seconds in a minute"),)),
    (
        r"years?|yearly|annual(?:ly)?",
        (
            (Fraction(12), "months in a year"),
            (Fraction(52), "weeks in a year"),
            (Fraction(365), "days in a year"),
        ),
    ),
    (r"months?|monthly", ((Fraction(12), "months in a year"),)),
    (r"decades?", ((Fraction(10), "years in a decade"),)),
    (r"centur(?:y|ies)", ((Fraction(100), "years in a century"),)),
    (r"cents?|pennies|penny", ((Fraction(100), "cents in a dollar"),)),
    (r"dimes?", ((Fraction(10), "cents in a dime"),)),
    (r"nickels?", ((Fraction(5), "cents in a nickel"),)),
    (r"quarters?", ((Fraction(25), "cents in a quarter"),)),
    (r"feet|foot", ((Fraction(12), "inches in a foot"),)),
    (r"yards?", ((Fraction(3), "feet in a yard"),)),
)
_PATTERNS = tuple(
    (re.compile(rf"(?<![\w]){words}(?![\w])", re.IGNORECASE), found) for words, found in _IMPLIED
)


def implied_numbers(text: str) -> list[tuple[Fraction, str]]:
    """The numbers ``text`` names in words, each with the words that name it, each value once."""
    found: dict[Fraction, str] = {}
    for pattern, numbers in _PATTERNS:
        if pattern.search(text):
            for value, label in numbers:
                found.setdefault(value, label)
    if _AVERAGE.search(text):  # "the average of 5 km, 7 km, 6 km and 10 km" is their sum over 4
        for count in _list_lengths(text):
            found.setdefault(Fraction(count), "how many numbers the average is of")
    return list(found.items())


_AVERAGE = re.compile(r"\b(?:average|mean)\b", re.IGNORECASE)
# what stands between two numbers of a list: ", ", " and ", a unit before it ("5 km, 7 km")
_LISTED = re.compile(r"\s*(?:[a-z]+\s*)?(?:,\s*and|,|and)\s*[$€£]?", re.IGNORECASE)


class _Span(Protocol):  # a number where it stands in the text: a Mention, a Quantity
    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


def listed_runs(text: str, numbers: Sequence[_Span]) -> list[list[int]]:
    """The numbers (in order) grouped by the lists they stand in, as indices: in "12, 15 and 18
    points in 3 games" the runs are [0, 1, 2] and [3]."""
    runs: list[list[int]] = [[0]] if numbers else []
    for i, (before, after) in enumerate(itertools.pairwise(numbers), start=1):
        if _LISTED.fullmatch(text[before.end : after.start]):
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _list_lengths(text: str) -> list[int]:
    """How many numbers each list of two or more holds: "12, 15 and 18" holds 3."""
    mentions = [m for m in find_numbers(text) if not m.exempt]
    return [len(run) for run in listed_runs(text, mentions) if len(run) >= 2]


def implied_text(text: str) -> str:
    """The implied numbers as a source text the number reader takes ("2 (twice); 7 (days in a week)")."""
    return "; ".join(f"{plain_number(value)} ({label})" for value, label in implied_numbers(text))


def plain_number(value: Fraction) -> str:
    """As a decimal: "1/2" would back its 1 and its 2 as well (a written fraction backs its parts)."""
    return str(value.numerator) if value.denominator == 1 else str(value.numerator / value.denominator)
