"""Simple English number words: "twelve", "eighty-four", "one hundred and five",
"two thousand three hundred", "a dozen", "two thirds", "one and a half".

Rules, each deliberate:

- Words join with a space or a hyphen; "and" only after "hundred" or a scale
  word ("one hundred and five"), or before "a half"/"a quarter".
- A phrase ending in thousand, million, billion or trillion shows that scale
  as its precision ("three million" is a rounding to the million, just like
  "3 million"); every other phrase is exact to the unit.
- "half", "third", "quarter"... are fractions only after a small numerator
  ("two thirds", "a half", "one-third"); bare "half" is not read as a number.
- Ordinals are not amounts: "twenty-first" is reported as an exempt ordinal,
  and "first", "second"... alone are not numbers at all.
- The pronoun "one" ("one of them", "no one", "this one", "one by one") is
  exempt, as is "one per line" (a layout); every other "one" is the number 1.
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

_UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"]
_TEENS += ["eighteen", "nineteen"]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

UNITS = {w: i for i, w in enumerate(_UNITS)}
TEENS = {w: i + 10 for i, w in enumerate(_TEENS)}
TENS = {w: (i + 2) * 10 for i, w in enumerate(_TENS)}
SMALL = UNITS | TEENS | TENS
SCALES = {"hundred": 100, "thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_BIG_SCALES = {w: v for w, v in SCALES.items() if v >= 1000}
_FRACTION_WORDS = {"half": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6}
_FRACTION_WORDS |= {"eighth": 8, "ninth": 9, "tenth": 10}
DENOMINATORS = {**_FRACTION_WORDS, **{w + "s": n for w, n in _FRACTION_WORDS.items()}, "halves": 2}
ORDINALS = {"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}
ORDINALS |= {w.removesuffix("y") + "ieth" for w in _TENS} | {"hundredth", "thousandth", "millionth"}

_PRONOUN_BEFORE = {"no", "any", "each", "every", "this", "that", "which", "the"}
_PRONOUN_AFTER = {"of", "another", "by"}
_LAYOUT = {"line", "row", "entry", "item"}

_WORD = re.compile(r"[A-Za-z]+")
_NEXT_WORD = re.compile(r"([ \t]+|[ \t]*-[ \t]*)([A-Za-z]+)")
_WORD_BEFORE = re.compile(r"(?:(\w+)[ \t]+)?([A-Za-z]+)[ \t]+\Z")
_HALF_DOZEN = re.compile(r"half[ \t-]+a[ \t-]+dozen\b", re.IGNORECASE)

Word = tuple[str, str, int]  # (lower-cased word, separator before it, end offset)


@dataclasses.dataclass(frozen=True)
class Phrase:
    """A number phrase: where it ends, its value, the unit of its precision
    (None: exact), and the exemption that applies to it, if any."""

    end: int
    value: Fraction
    step: Fraction | None
    exempt: str = ""


def read_phrase(text: str, start: int) -> Phrase | None:
    """The number phrase beginning at ``start`` (a word's first letter), or None."""
    if half := _HALF_DOZEN.match(text, start):  # an idiom, not a fraction of "a dozen" eggs
        return Phrase(half.end(), Fraction(6), Fraction(1), "")
    first = _WORD.match(text, start)
    if first is None or (first.group().lower() not in SMALL and first.group().lower() != "a"):
        return None
    words = _words(text, first)
    parsed = _Parser(words).run()
    if parsed is None:
        return None
    value, step, used, last_kind = parsed
    return Phrase(words[used - 1][2], value, step, _exemption(text, start, words, used, last_kind))


def _words(text: str, first: re.Match[str]) -> list[Word]:
    """Up to a dozen words from ``first`` on, each joined to the last by spaces or a hyphen."""
    words = [(first.group().lower(), "", first.end())]
    while len(words) < 12 and (match := _NEXT_WORD.match(text, words[-1][2])):
        words.append((match.group(2).lower(), match.group(1).strip() or " ", match.end()))
    return words


def _exemption(text: str, start: int, words: list[Word], used: int, last_kind: str) -> str:
    after = words[used][0] if used < len(words) else ""
    if last_kind == "tens" and after in ORDINALS:
        return "ordinal"  # "twenty-first"
    if used == 1 and words[0][0] == "one":
        before = _WORD_BEFORE.search(text[max(0, start - 40) : start])
        previous, earlier = (before.group(2).lower(), (before.group(1) or "").lower()) if before else ("", "")
        one_by = previous == "by" and earlier == "one"
        then = words[used + 1][0] if used + 1 < len(words) else ""
        layout = after == "per" and then in _LAYOUT  # "one per line": how to write, not an amount
        if after in _PRONOUN_AFTER or previous in _PRONOUN_BEFORE or one_by or layout:
            return "pronoun"
    return ""


class _Parser:
    """The longest valid phrase at the start of ``words``: (value, step, words used, last kind)."""

    def __init__(self, words: list[Word]) -> None:
        self.words = words
        self.total = 0  # everything before the last scale word
        self.group = 0  # the part below the last scale word
        self.last = ""  # kind of the last word taken
        self.scale_cap = 10**15  # scales must fall: "two million three thousand"
        self.best: tuple[Fraction, Fraction | None, int, str] | None = None

    def run(self) -> tuple[Fraction, Fraction | None, int, str] | None:
        for index, (word, _, _) in enumerate(self.words):
            if not self._take(word, index):
                break
            if self.last not in ("and", "a"):
                step = Fraction(_BIG_SCALES.get(word, 1))
                self.best = (Fraction(self.total + self.group), step, index + 1, self.last)
        return self._fraction() or self.best

    def _take(self, word: str, index: int) -> bool:
        after = self._peek(index)
        if word == "a":
            allowed = index == 0 and (after in SCALES or after in ("dozen", "half", "quarter"))
            return self._set(allowed, 1, "a")
        if word in SMALL:
            return self._small(word)
        if word in ("hundred", "dozen"):
            allowed = self.last in ("unit", "teen", "tens", "a") and 0 < self.group < 100
            return self._set(allowed, self.group * (100 if word == "hundred" else 12), word)
        if word in _BIG_SCALES:
            return self._scale(_BIG_SCALES[word])
        number_follows = after in SMALL
        return word == "and" and self._set(
            self.last in ("hundred", "scale") and number_follows, self.group, "and"
        )

    def _small(self, word: str) -> bool:
        """A word below a hundred: "seven", "twelve", "eighty"."""
        after_tens = word in UNITS and self.last == "tens" and word != "zero"  # "eighty-four"
        opening = self.last in ("", "hundred", "scale", "and") and (word != "zero" or not self.last)
        kind = "unit" if word in UNITS else "teen" if word in TEENS else "tens"
        return self._set(after_tens or opening, self.group + SMALL[word], kind)

    def _set(self, allowed: bool, group: int, kind: str) -> bool:
        if allowed:
            self.group, self.last = group, kind
        return allowed

    def _scale(self, scale: int) -> bool:
        if self.last not in ("unit", "teen", "tens", "hundred", "a", "dozen") or scale >= self.scale_cap:
            return False
        self.total, self.group, self.last, self.scale_cap = self.total + self.group * scale, 0, "scale", scale
        return True

    def _peek(self, index: int) -> str:
        return self.words[index + 1][0] if index + 1 < len(self.words) else ""

    def _fraction(self) -> tuple[Fraction, Fraction | None, int, str] | None:
        """ "two thirds", "a quarter", "one and a half": a numerator below 20, then a fraction word."""
        whole, used = (1, 1) if self.last == "a" and not self.best else self._small_whole()
        if not whole:
            return None
        rest = [w for w, _, _ in self.words[used : used + 3]]
        if rest and rest[0] in DENOMINATORS:
            return Fraction(whole, DENOMINATORS[rest[0]]), None, used + 1, "fraction"
        if rest[:2] == ["and", "a"] and len(rest) == 3 and rest[2] in ("half", "quarter"):
            return whole + Fraction(1, DENOMINATORS[rest[2]]), None, used + 3, "fraction"
        return None

    def _small_whole(self) -> tuple[int, int]:
        if self.best is None or self.best[0] >= 20 or self.best[2] != 1:
            return 0, 0
        return int(self.best[0]), 1
