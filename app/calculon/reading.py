"""What the user's words say about a calculation's order and operators.

A tiny model picks the tool well and the operator poorly: "40 less than 110"
became ``40 - 110``, "273 apples are shared equally among 6 children" became
``273 * 6`` and "25 squared plus 22 squared" became ``25 + 22*2 + 2``. The
words hold more than the model reads from them:

- the numbers go into the calculation in the order written, except where
  English turns them round ("B less than A", "subtract B from A", "half of A");
- a word or sign close between two numbers names the operator between them ("minus",
  "shared among", "of" after a percentage, "/"); a word anywhere else in a story
  ("spent ... left") names nothing: which operation a story needs is the model's
  reading, and the verdict says so (:mod:`app.calculon.verdict`);
- a bracket the user wrote, and the numbers "the average of" lists, are a group.

A reading only narrows what the call's grammar admits (:mod:`ordered`); the
model still writes the call, and where the words are silent any operator goes.
No reading makes a number compulsory: word problems carry numbers the question
does not use.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Sequence

from app.core.arithmetic import ANY, Item, leaves
from app.core.number_forms import mention_forms
from app.core.numbers import Mention, find_numbers

MAX_JOIN_WORDS = 6  # "273 apples are shared equally among 6": more words between, and it is a story
_SIGNS = {"%": "%", "+": "+", "-": "-", "−": "-", "*": "*", "×": "*", "x": "*", "/": "/", "÷": "/"}
_SIGNS |= {"^": "^", "**": "^"}
_CUES = {  # words that name one kind of operation, wherever they stand
    "+": r"plus|add|adds|added|adding|sum|increased?|gain(?:s|ed)?|older|how old will",
    "-": r"minus|subtract(?:s|ed|ing)?|less|fewer|spent|spends?|leak(?:s|ed)?|lose|loses|lost|left"
    r"|remains?|remaining|difference|decreased?|off|ago|away|discount(?:s|ed)?",
    "*": r"(?<!how many )times|multipl(?:y|ied|ies)|product",  # "how many times does 34 go into 528"
    "/": r"divided?|divides|shared?|split|among|quotient|average|cut into|equal (?:parts|pieces|shares)",
    "^": r"squared|cubed|power",
}
_CUE = {op: re.compile(rf"\b(?:{words})\b", re.IGNORECASE) for op, words in _CUES.items()}
_OF = re.compile(r"\bof\s*$", re.IGNORECASE)  # "15% of 240", "3 cars of 40 seats"
_PERCENT_ON = re.compile(r"\b(?:on|of)\b", re.IGNORECASE)  # after a percentage: "a 20% tip on a $95 bill"
_LESS_THAN = re.compile(r"\b(?:less|fewer|smaller|lower) than\b", re.IGNORECASE)
_FROM = re.compile(r"\bfrom\b", re.IGNORECASE)
_TAKING = re.compile(r"\b(?:subtract\w*|take|takes|deduct\w*|remove)\b", re.IGNORECASE)
HOW_MANY = re.compile(r"\bhow many ([a-z]+)", re.IGNORECASE)  # group 1: what the question counts
_AVERAGE_OF = re.compile(r"\b(?:average|mean) of\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[?!;]|\.(?!\d)")
_GROUP = re.compile(r"\((?=[^()]*[0-9][^()]*[-+*/×÷^][^()]*[0-9])[-+*/×÷^0-9.,%\s]+\)")
_WORD = re.compile(r"[a-z]+", re.IGNORECASE)
_WORD_AFTER = re.compile(r"\s*([a-z]+)", re.IGNORECASE)
_UNIT = re.compile(r"\s?(°\s?[a-z]|[a-z]+)", re.IGNORECASE)
# A word that stands for a number: (its number, the operator that joins it, whether it comes
# before the number it works on: "half of 30" is 30 / 2, "25 squared" is 25 ^ 2).
_WORD_NUMBERS = {
    "squared": ("2", "^", False),
    "cubed": ("3", "^", False),
    "square": ("2", "^", True),
    "cube": ("3", "^", True),
    "half": ("2", "/", True),
    "halved": ("2", "/", False),
    "quarter": ("4", "/", True),
    "twice": ("2", "*", True),
    "double": ("2", "*", True),
    "doubled": ("2", "*", False),
    "triple": ("3", "*", True),
    "tripled": ("3", "*", False),
}
_NOT_UNITS = frozenset(
    re.findall(
        r"\w+",
        "and or of to by is are in on at the a an plus minus times divided multiplied squared cubed "
        "percent per over less more than from into what how much many prime factorial even odd root",
    )
)


def read(text: str, spelled_out: bool = False) -> tuple[Item, ...]:
    """The operands of ``text`` in the order its words use them, with what joins them;
    ``spelled_out``: the words are written-out arithmetic ("12 times 7", see transcript.py)."""
    items = _joined(text, _reordered(text, _leaves(text)), spelled_out)
    items = _averaged(text, items)
    return tuple(_bracketed(text, items))


def counted_words(text: str) -> frozenset[str]:
    """What the user's numbers count ("books" of "58 books") and what the question asks how
    many of ("days" of "how many days")."""
    units = {leaf.unit for leaf in leaves(read(text)) if leaf.unit}
    return frozenset(units) | asked_for(text)


def asked_for(text: str) -> frozenset[str]:
    """What the question asks how many of ("km" of "how many km is 144 miles?")."""
    return frozenset(HOW_MANY.findall(text))


def _leaves(text: str) -> list[Item]:
    found = [
        Item(forms, start=m.start, end=m.end, unit=_unit_after(text, m.end), text=m.text)
        for m in find_numbers(text)
        if (forms := mention_forms(m)) and not _one_of(text, m)
    ]
    words = [m for m in _WORD.finditer(text) if m.group().lower() in _WORD_NUMBERS]
    for match in words:
        after = text[match.end() :].lstrip().lower()
        if not after.startswith("root"):  # a square root is a tool of its own
            found.append(_word_leaf(match, found))
    return sorted(found, key=lambda item: item.start)


def _one_of(text: str, mention: Mention) -> bool:
    """ "One ticket costs $692": a spelled "one" before a noun says what the other number is
    for, and is no operand ("1 + 692 * 6" was written for six tickets)."""
    after = _WORD_AFTER.match(text, mention.end)
    if mention.text.lower() != "one" or after is None:
        return False
    return not any(cue.fullmatch(after.group(1)) for cue in _CUE.values())


def bracket_spans(text: str) -> list[tuple[int, int]]:
    """Innermost brackets that hold only arithmetic: "(80 + 20)"."""
    return [m.span() for m in _GROUP.finditer(text)]


def _word_leaf(match: re.Match[str], numbers: Sequence[Item]) -> Item:
    """A number word, placed after the number it works on: "half of 30" reads as 30 / 2."""
    value, join, before = _WORD_NUMBERS[match.group().lower()]
    start, end = match.span()
    if before:
        following = [n for n in numbers if n.start > match.end()]
        start = end = following[0].end if following else start
    return Item(frozenset({value}), join, start=start, end=end)


def _unit_after(text: str, end: int) -> str:
    match = _UNIT.match(text, end)
    word = match.group(1) if match else ""
    return "" if word.lower() in _NOT_UNITS else word


def _reordered(text: str, items: list[Item]) -> list[Item]:
    """ "B less than A" and "subtract B from A" are A - B: the pair turned round."""
    out = list(items)
    for i in range(len(out) - 1):
        first, second = out[i], out[i + 1]
        between = text[first.end : second.start]
        before = text[out[i - 1].end if i else 0 : first.start]
        if _LESS_THAN.search(between) or (_FROM.search(between) and _TAKING.search(before)):
            out[i] = dataclasses.replace(second, join=first.join)
            out[i + 1] = dataclasses.replace(first, join="-")
    return out


def _joined(text: str, items: list[Item], spelled_out: bool) -> list[Item]:
    """Each item's join from the words right before it. Where the words between two numbers
    name no operation, any operator goes: a story's operation is the model's reading, never
    forced here ("15 goldfish ... 5 were eaten" is not forced to either)."""
    out = [items[0]] if items else []
    for previous, item in itertools.pairwise(items):
        if item.join != ANY:
            out.append(item)
            continue
        lo, hi = sorted((previous.end, item.start))
        percent = previous.text.endswith(("%", "percent"))
        out.append(dataclasses.replace(item, join=_between(text[lo:hi], percent)))
    if len(out) == 2 and out[1].join == ANY and spelled_out:
        # "Multiply 80 by 12": written-out arithmetic whose operator word stands first
        named = [op for op, cue in _CUE.items() if cue.search(text)]
        if len(named) == 1:
            out[1] = dataclasses.replace(out[1], join=named[0])
    return out


def _between(words: str, after_percent: bool = False) -> str:
    if len(_WORD.findall(words)) > MAX_JOIN_WORDS or _SENTENCE_END.search(words):
        return ANY  # an operator word far from the numbers is part of a story, not a join
    bare = words.strip(" ()$€£,")
    if bare in _SIGNS:
        return _SIGNS[bare]
    named = [op for op, cue in _CUE.items() if cue.search(words)]
    if not named and (_OF.search(words) or (after_percent and _PERCENT_ON.search(words))):
        return "*"
    return named[0] if len(named) == 1 else ANY


def _averaged(text: str, items: list[Item]) -> list[Item]:
    """ "The average of 43, 18 and 10" is (43 + 18 + 10) / 3."""
    match = _AVERAGE_OF.search(text)
    if match is None:
        return items
    end = _SENTENCE_END.search(text, match.end())
    stop = end.start() if end else len(text)
    members = [i for i, item in enumerate(items) if match.end() <= item.start < stop]
    if len(members) < 2 or members != list(range(members[0], members[-1] + 1)):
        return items
    first, last = members[0], members[-1]
    summed = [dataclasses.replace(items[i], join="+") for i in members]
    group = Item(join=items[first].join, group=tuple(summed), start=items[first].start, end=items[last].end)
    count = Item(frozenset({str(len(members))}), "/", start=items[last].end, end=items[last].end)
    return [*items[:first], group, count, *items[last + 1 :]]


def _bracketed(text: str, items: list[Item]) -> list[Item]:
    """The numbers inside a bracket the user wrote ("(79 - 14) / 7") make one group."""
    out = list(items)
    for span in bracket_spans(text):
        inside = [i for i, item in enumerate(out) if span[0] < item.start and item.end < span[1]]
        if len(inside) < 2 or inside != list(range(inside[0], inside[-1] + 1)):
            continue
        members = tuple(out[i] for i in inside)
        group = Item(join=members[0].join, group=members, start=members[0].start, end=members[-1].end)
        out[inside[0] : inside[-1] + 1] = [group]
    return out
