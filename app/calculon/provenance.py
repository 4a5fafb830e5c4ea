"""Calculon mode's check: every number in an answer must be backed.

A number in the answer is backed when it appears, as a value, in the user's
messages or in a successful tool result of the conversation (the sources), or
is a correct rounding of one. How numbers are read is in :mod:`app.core.numbers`
and :mod:`app.core.number_words`; the backing rules are:

- **Exact.** Equal values back each other whatever the writing: ``1,776``,
  ``1776.0``, ``1.776e3`` and ``one thousand seven hundred seventy-six``.
- **Rounded.** A number backs a shorter form that is right to the last digit
  shown: 3.14159 backs 3.14 and 3.1416, not 3.15 or 3.1415. On an exact tie
  either neighbour counts (half-up and half-even are both common). Integers
  show units, so 1234.6 backs 1235 but 1234 backs neither 1230 nor 1200; a
  scale word shows its scale, so 1234567 backs "1.23 million" and "1.2
  million". A rounding to zero is never backed: 0.004 does not back 0.00.
- **Cut off.** A decimal followed by ``…`` or ``...`` may be truncated: 2/3
  backs ``0.666…`` as well as ``0.667``.
- **Percentages.** ``12.5%`` is backed by 12.5 or by 0.125 (the calculator
  says 0.125, the model says 12.5%); in a source, ``12.5%`` offers both too.
- **Signs matter.** -5 does not back 5, nor 5 back -5.
- **Written expressions.** ``1/3`` or ``2^10`` is backed by its value, or
  when every operand is backed (the user's ``1/3`` restated).

Exemptions, the only numbers not checked (each has tests):

- list markers at the start of a line (``1.`` or ``2)`` then text), counting
  up from 1, so a lone ``42.`` at the start of a line is still checked;
- step labels: the number right after the word "step" (``Step 2:``);
- ordinals: ``1st``, ``22nd``, ``twenty-first`` (and "first", "second" are
  never read as numbers);
- the pronoun "one" (see :mod:`app.core.number_words`);
- the calculator's own note "(rounded to 28 significant digits)" when the
  answer copies a tool result word for word (it describes a result, and backs
  nothing in a source either).

Nothing else is exempt: not years, not numbers in inline code or code blocks
(the user reads those too), not times or dates.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from collections.abc import Iterable, Sequence
from fractions import Fraction

from app.calculon.implied import implied_text
from app.core.calculator_text import ROUNDING_NOTE  # the note on a rounded result is not a result
from app.core.numbers import Mention, Reading, find_numbers
from app.core.tools import USER_SOURCE, CheckResult, Source

_LIST_MARKER = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+)?(?:\*\*)?([0-9]{1,4})[.)](?:\*\*)?[ \t]+\S", re.MULTILINE)
_STEP_WORD = re.compile(r"\bstep[ \t]+\Z", re.IGNORECASE)


class SourcePool:
    """Every exact value found in the sources, ready for exact and range lookups, each
    remembered with the first source that holds it: a trusted one (the user, a bundled or
    trusted server) before any other, so a number an untrusted server also wrote is still
    the user's or the calculator's."""

    def __init__(self, sources: Iterable[str | Source]) -> None:
        held: dict[Fraction, Source] = {}
        ordered = [Source(s) if isinstance(s, str) else s for s in sources]
        for source in sorted(ordered, key=lambda s: not s.trusted):
            for mention in find_numbers(ROUNDING_NOTE.sub(" ", source.text)):
                for value in mention.values():
                    held.setdefault(value, source)
        self._held = held
        self.values = frozenset(held)
        self._sorted = sorted(held)

    def backs(self, mention: Mention) -> bool:
        return self.backer(mention) is not None

    def backer(self, mention: Mention) -> str | None:
        """The label of a source that backs ``mention`` ("" for an unlabelled one), or None."""
        found = self.backers(mention)
        return None if found is None else " and ".join(dict.fromkeys(s.label for s in found if s.label))

    def backers(self, mention: Mention) -> list[Source] | None:
        """The sources that back ``mention``: one, or one per operand of a written expression."""
        for reading in mention.readings:
            value = self._backing_value(reading)
            if value is not None:
                return [self._held[value]]
        if mention.parts and all(p in self.values for p in mention.parts):
            return [self._held[p] for p in mention.parts]
        return None

    def backs_reading(self, reading: Reading) -> bool:
        return self._backing_value(reading) is not None

    def _backing_value(self, reading: Reading) -> Fraction | None:
        value, step = reading.value, reading.step
        if value in self.values:
            return value
        if step is None or value == 0:
            return None
        near = self._first_between(value - step / 2, value + step / 2)
        if near is not None or not reading.truncated:
            return near
        low, high = (value, value + step) if value > 0 else (value - step, value)
        return self._first_between(low, high)

    def _first_between(self, low: Fraction, high: Fraction) -> Fraction | None:
        index = bisect.bisect_left(self._sorted, low)
        if index < len(self._sorted) and self._sorted[index] <= high:
            return self._sorted[index]
        return None


def answer_mentions(answer: str) -> list[Mention]:
    """The numbers in an answer, with list markers, step labels and rounding notes marked exempt."""
    markers = {m.start(1): int(m.group(1)) for m in _LIST_MARKER.finditer(answer)}
    notes = [m.span() for m in ROUNDING_NOTE.finditer(answer)]
    seen: set[int] = set()
    found = []
    for mention in find_numbers(answer):
        number = markers.get(mention.start)
        if number is not None and mention.text == str(number) and (number == 1 or number - 1 in seen):
            seen.add(number)
            mention = _exempt(mention, "list")
        elif not mention.exempt and _is_step_label(answer, mention):
            mention = _exempt(mention, "step")
        elif any(start <= mention.start < end for start, end in notes):
            mention = _exempt(mention, "note")
        found.append(mention)
    return found


def _is_step_label(answer: str, mention: Mention) -> bool:
    whole = all(r.value.denominator == 1 and r.value > 0 for r in mention.readings) and not mention.parts
    return whole and _STEP_WORD.search(answer[max(0, mention.start - 12) : mention.start]) is not None


def _exempt(mention: Mention, rule: str) -> Mention:
    return dataclasses.replace(mention, exempt=rule)


def unbacked_numbers(answer: str, sources: Sequence[str | Source]) -> tuple[str, ...]:
    """The answer's unbacked numbers as written, in order, each once."""
    return CalculonVerifier().check(answer, sources).unbacked


class CalculonVerifier:
    """The :class:`~app.core.tools.AnswerVerifier` of Calculon mode."""

    def check(self, answer: str, sources: Sequence[str | Source]) -> CheckResult:
        pool = SourcePool([*sources, *_implied(sources), *_groups(sources)])
        unbacked: dict[str, None] = {}
        backing: dict[str, str] = {}
        untrusted: dict[str, str] = {}
        for mention in answer_mentions(answer):
            if mention.exempt:
                continue
            found = pool.backers(mention)
            if found is None:
                unbacked[mention.text] = None
                continue
            backing.setdefault(mention.text, " and ".join(dict.fromkeys(s.label for s in found if s.label)))
            servers = [s.server for s in found if not s.trusted]
            if servers:
                untrusted.setdefault(mention.text, servers[0])
        return CheckResult(not unbacked, tuple(unbacked), tuple(backing.items()), tuple(untrusted.items()))


# the calculator's division of two whole numbers: 'evaluate("29 / 3")' or 'divide(29, 3)'
_DIVISION = re.compile(r'^(?:evaluate\("\s*(\d+)\s*/\s*(\d+)\s*"\)|divide\((\d+), (\d+)\))$')


def _groups(sources: Sequence[str | Source]) -> list[Source]:
    """The whole groups and what is left over of a division of whole numbers the calculator made
    ("How many full bags of 3 from 29 apples?": 9 whole, 2 left over, 10 bags to hold them all): each
    follows from its result exactly, as the quotient, the remainder and the quotient rounded up."""
    out = []
    for source in sources:
        if isinstance(source, str):
            continue
        match = _DIVISION.match(source.label)
        if match is None:
            continue
        dividend, divisor = (int(n) for n in match.groups() if n is not None)
        if divisor and dividend % divisor:
            whole, left = divmod(dividend, divisor)
            label = f"{source.label}, whole and left over"
            said = f"{whole} whole, {left} left over, {whole + 1} to hold them all"
            out.append(Source(said, label, source.server, source.trusted))
    return out


def _implied(sources: Sequence[str | Source]) -> list[Source]:
    """The numbers the user's words name without writing them ("twice": 2, "a week": 7 days)."""
    words = [
        s if isinstance(s, str) else s.text for s in sources if isinstance(s, str) or s.label == USER_SOURCE
    ]
    text = implied_text(" ".join(words))
    return [Source(text, USER_SOURCE)] if text else []
