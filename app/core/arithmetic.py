"""Calculon mode's reading of the user's arithmetic, as data a backend turns into grammar.

:mod:`app.calculon.reading` reads the words; the local backend's call grammar
(:mod:`app.llm.local.operands`, :mod:`app.llm.local.ordered`) takes the result as it is, so
no policy about what words mean lives in a backend.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

ANY = "+-*/^%"


@dataclasses.dataclass(frozen=True)
class Item:
    """One operand, or a bracketed group of them, where the calculation uses it. ``join``: the
    operators that may stand right before it (the first item's is not used)."""

    forms: frozenset[str] = frozenset()  # a number's exact forms; empty for a group
    join: str = ANY
    group: tuple[Item, ...] = ()
    start: int = 0
    end: int = 0
    unit: str = ""  # the word written right after the number ("144 miles"), if any
    text: str = ""  # the number as written ("50%")

    def leaves(self) -> Iterator[Item]:
        if self.group:
            for item in self.group:
                yield from item.leaves()
        else:
            yield self


def leaves(items: Sequence[Item]) -> list[Item]:
    return [leaf for item in items for leaf in item.leaves()]


def fixes_operators(items: Sequence[Item]) -> bool:
    """Whether the words name the operator at every join: then a tool whose name is its
    operation ("subtract") adds nothing an expression does not say better."""
    joins = list(_joins(items))
    return bool(joins) and all(len(j) == 1 for j in joins)


def _joins(items: Sequence[Item]) -> Iterator[str]:
    yield from (item.join for item in items[1:])
    for item in items:
        yield from _joins(item.group)


@dataclasses.dataclass(frozen=True)
class UserArithmetic:
    """What Calculon mode read in the words a turn answers, for the backend's call grammar.

    ``text`` is the user's words with "that" written as the previous result ("Now add 16 to
    84." for "Now add 16 to that."), where the words are arithmetic on it; ``earlier`` is that
    result as written ("84"), "" where the words do not use it. ``spelled_out`` says the words
    write the arithmetic out ("12 times 7"), so every number of theirs belongs in the call."""

    text: str
    earlier: str = ""
    spelled_out: bool = False
    reading: tuple[Item, ...] = ()  # the numbers in the order the words use them, and their joins
    brackets: tuple[tuple[int, int], ...] = ()  # spans of ``text`` the user bracketed: "(80 + 20)"
    counted: frozenset[str] = frozenset()  # what the numbers count ("books"), and how many of what is asked
    asked_for: frozenset[str] = frozenset()  # what the question asks how many of ("km")
