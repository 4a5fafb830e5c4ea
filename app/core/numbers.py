"""Finding the numbers in free text and reading each as exact values.

A :class:`Mention` is one number as written (``1,234.5``, ``-12.5%``,
``1.2 × 10^5``, ``1/3``, ``eighty-four``) with the exact values it may stand for.
Everything is a :class:`fractions.Fraction`, so no reading loses a digit.

Reading rules, each deliberate:

- Thousands separators are commas in groups of three, or a no-break, thin or
  narrow no-break space (U+00A0, U+2009, U+202F). A plain space never joins
  digits: in "add 5 100 times" they are two numbers. The decimal mark is ".".
- A minus sign (``-`` or ``−``) belongs to the number unless it reads as
  subtraction: right after a digit, ``)``, ``]`` or ``%`` (spaces allowed
  between), or glued to a word (``COVID-19``).
- A number shows a precision: the unit of its last digit (``3.14`` shows
  0.01, ``1.23 million`` shows 10,000, an integer shows 1). Fractions and
  powers are exact. A decimal followed by ``…`` or ``...`` may be cut rather
  than rounded.
- ``12.5%`` stands for both 12.5 and 0.125. ``12k``, ``3M``, ``2bn`` stand
  for 12,000, 3,000,000, 2,000,000,000; in a source they offer the bare 12, 3, 2
  as well (the letter may be a unit), but an answer cannot claim those.
- Scientific notation is one number: ``1.2e5``, ``1.2 × 10^5``, ``1.2×10⁵``,
  ``1.2 \\times 10^{5}``.
- ``1/3`` and ``2^10`` are both a value and an expression of their operands.
- Digits inside a word (``H2O``, ``log10``, ``mp3``) are part of the word.
  After a digit, letters are a unit (``12kg``), and ``3x4`` reads as 3 and 4.
- A number too big to expand in good time (a power beyond ``MAX_EXPONENT``, a
  run of more than ``MAX_DIGITS`` digits) is still found, but has no value:
  it backs nothing and nothing backs it.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Iterator
from decimal import Decimal
from fractions import Fraction

from app.core import number_words

# A version or an address ("0.4.2", "2.1.0", "192.168.1.1"): an identifier written with digits,
# whose parts are no quantities
DOTTED = re.compile(r"(?<![\w.])[0-9]{1,6}(?:\.[0-9]{1,6}){2,5}(?![\w.]*[0-9])")

MAX_EXPONENT = 10_000  # beyond this a power is not expanded, so no value backs it
MAX_DIGITS = 12_000  # a longer run of digits is not read (the calculator writes at most 10,000)

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_MINUS = "-−"
_CURRENCY = "$€£¥₹"
_SEPARATORS = str.maketrans("", "", ",\u00a0\u2009\u202f")

_BODY = re.compile(
    r"""(?:[0-9]{1,3}(?:,[0-9]{3}(?![0-9]))+
         |[0-9]{1,3}(?:[\u00a0\u2009\u202f][0-9]{3}(?![0-9]))+
         |[0-9]+)(?:\.[0-9]+)?
       |\.[0-9]+""",
    re.VERBOSE,
)
_EXP = r"(?:\^|\*\*)\{?\(?([-−+]?[0-9]+)\)?\}?|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
_E_NOTATION = re.compile(r"[eE]([-−+]?[0-9]+)(?![A-Za-z0-9])")
_TIMES_TEN = re.compile(rf"[ \t]*(?:[x×X*·⋅]|\\times|\\cdot)[ \t]*10(?:{_EXP})")
_POWER = re.compile(_EXP)
_FRACTION = re.compile(r"/([0-9]+)(?![0-9/]|[.,][0-9])")
_ELLIPSIS = re.compile(r"…|\.\.\.")
_PERCENT = re.compile(r"[ \t]?%|[ \t]+(?:percent|per[ \t]?cent)\b", re.IGNORECASE)
_SCALE = re.compile(r"[ \t]+(hundred|thousand|million|billion|trillion|dozen)\b", re.IGNORECASE)
# "5 dozen" is 60 as "five dozen" is (app/core/number_words.py)
_DIGIT_SCALES = {**number_words.SCALES, "dozen": 12}
_SUFFIX_SCALE = re.compile(r"(k|K|M|mn|bn|B)(?![A-Za-z0-9])")
_ORDINAL = re.compile(r"(?:st|nd|rd|th)(?![A-Za-z])")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[0-9]+)*")
_LETTERS = re.compile(r"[A-Za-z_]+")
_SIGNED = re.compile(rf"[{_MINUS}][{_CURRENCY}]?(?=[0-9]|\.[0-9])")  # the sign, any currency symbol
_SUFFIX_SCALES = {"k": 10**3, "K": 10**3, "M": 10**6, "mn": 10**6, "bn": 10**9, "B": 10**9}


@dataclasses.dataclass(frozen=True)
class Reading:
    """One exact value a mention may stand for.

    ``step`` is the unit of the last digit shown (None: exact only);
    ``truncated`` says the digits may have been cut off rather than rounded.
    """

    value: Fraction
    step: Fraction | None = None
    truncated: bool = False

    def scaled(self, factor: Fraction) -> Reading:
        step = None if self.step is None else self.step * abs(factor)
        return Reading(self.value * factor, step, self.truncated)


@dataclasses.dataclass(frozen=True)
class Mention:
    """A number as written in the text.

    ``parts`` are the operands of a written expression (``1/3``, ``2^10``): when
    every one of them is backed, so is the expression. ``exempt`` names the rule
    that says this number is not a result (ordinal, list marker...), or is empty.
    """

    text: str
    start: int
    end: int
    readings: tuple[Reading, ...]
    parts: tuple[Fraction, ...] = ()
    exempt: str = ""
    source_only: tuple[Fraction, ...] = ()  # what it offers as a source, never claims in an answer

    def values(self) -> Iterator[Fraction]:
        """Every value this mention offers when it is in a source."""
        yield from (r.value for r in self.readings)
        yield from self.parts
        yield from self.source_only


def find_numbers(text: str) -> list[Mention]:
    """Every number in ``text``, in order, none overlapping."""
    found: list[Mention] = []
    i = 0
    while i < len(text):
        mention, i = _scan_at(text, i)
        if mention is not None:
            found.append(mention)
    return found


def _scan_at(text: str, i: int) -> tuple[Mention | None, int]:
    """The mention starting at ``i`` (if any) and where scanning goes on."""
    char = text[i]
    if char.isascii() and (char.isalpha() or char == "_"):
        return _scan_word(text, i)
    if char in "0123456789." or (char in _MINUS and _is_sign(text, i)):
        mention = _scan_digits(text, i)
        if mention is not None:
            return mention, mention.end
    if not char.isascii() and (value := unicodedata.numeric(char, None)) is not None:
        # "½", "²", "٣", "⑤": a number too, though no ASCII digit; unread, "346 - ½ is ⅛" was verified
        return Mention(char, i, i + 1, (Reading(Fraction(value).limit_denominator(1000)),)), i + 1
    return None, i + 1


def _scan_word(text: str, i: int) -> tuple[Mention | None, int]:
    if i > 0 and text[i - 1].isdigit():  # a unit or a multiplication sign: "12kg", "3x4"
        return None, _LETTERS.match(text, i).end()  # type: ignore[union-attr]
    phrase = number_words.read_phrase(text, i)
    if phrase is not None:
        reading = Reading(phrase.value, phrase.step)
        said = text[i : phrase.end]
        # "five dozen" is 60, and a formula may write its five (5 × 12), as after digits
        dozens = (phrase.value / 12,) if said.lower().endswith("dozen") and phrase.value != 12 else ()
        return Mention(said, i, phrase.end, (reading,), exempt=phrase.exempt, source_only=dozens), phrase.end
    return None, _IDENTIFIER.match(text, i).end()  # type: ignore[union-attr]


def _is_sign(text: str, i: int) -> bool:
    """Whether the minus at ``i`` is a sign rather than subtraction or a hyphen."""
    if _SIGNED.match(text, i) is None:
        return False
    if i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_)]%"):
        return False
    j = i - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return j < 0 or text[j] not in "0123456789)]%"


def _scan_digits(text: str, i: int) -> Mention | None:
    start = i
    signed = _SIGNED.match(text, i) if text[i] in _MINUS else None
    if signed is not None:
        i = signed.end()
    elif text[i] == "." and i > 0 and text[i - 1] in "0123456789.":
        return None  # ".3" in "1.2.3" or "...3" is read from the 3 on
    body = _BODY.match(text, i)
    if body is None:
        return None
    return _Builder(text, start, body, signed is not None).build()


class _Builder:
    """Reads what follows a run of digits: exponent, fraction, ellipsis, suffix."""

    def __init__(self, text: str, start: int, body: re.Match[str], negative: bool) -> None:
        self.text, self.start, self.end = text, start, body.end()
        self.digits = body.group()
        self.sign = -1 if negative else 1
        self.readings: tuple[Reading, ...] = ()
        self.parts: tuple[Fraction, ...] = ()
        self.source_only: tuple[Fraction, ...] = ()
        self.exempt = ""

    def build(self) -> Mention:
        if len(self.digits) > MAX_DIGITS:  # too long to read in good time: backs, and is backed by, nothing
            return Mention(self.text[self.start : self.end], self.start, self.end, ())
        plain = _decimal(self.digits)
        if not (self._exponent(plain) or self._fraction(plain)):
            self.readings = (plain if self.sign > 0 else plain.scaled(Fraction(-1)),)
            self._suffix()
        text = self.text[self.start : self.end]
        return Mention(text, self.start, self.end, self.readings, self.parts, self.exempt, self.source_only)

    def _match(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        match = pattern.match(self.text, self.end)
        if match is not None:
            self.end = match.end()
        return match

    def _exponent(self, mantissa: Reading) -> bool:
        scientific = self._match(_E_NOTATION) or self._match(_TIMES_TEN)
        if scientific is not None:
            exponent = _exponent_value(scientific)
            if abs(exponent) <= MAX_EXPONENT:
                self.readings = (mantissa.scaled(self.sign * Fraction(10) ** exponent),)
            return True
        power = self._match(_POWER) if "," not in self.digits else None
        if power is None:
            return False
        base, exponent = mantissa.value, _exponent_value(power)
        self.parts = (base, Fraction(exponent))
        if _power_is_safe(base, exponent):
            self.readings = (Reading(self.sign * base**exponent),)
        return True

    def _fraction(self, plain: Reading) -> bool:
        if not self.digits.isdigit():
            return False
        match = self._match(_FRACTION)
        if match is None:
            return False
        top, bottom = self.sign * _int(self.digits), _int(match.group(1))
        self.parts = (Fraction(top), Fraction(bottom))
        self.readings = (Reading(Fraction(top, bottom)),) if bottom else ()
        return True

    def _suffix(self) -> None:
        if "." in self.digits and self._match(_ELLIPSIS):
            self.readings = tuple(dataclasses.replace(r, truncated=True) for r in self.readings)
        if self._match(_PERCENT):
            self.readings = (*self.readings, *(r.scaled(Fraction(1, 100)) for r in self.readings))
        elif scale := self._match(_SCALE):
            factor = Fraction(_DIGIT_SCALES[scale.group(1).lower()])
            if factor == 12:  # "5 dozen" is 60, and a formula may write its 5 (5 × 12)
                self.source_only = tuple(r.value for r in self.readings)
            self.readings = tuple(r.scaled(factor) for r in self.readings)
        elif suffix := self._match(_SUFFIX_SCALE):
            factor = Fraction(_SUFFIX_SCALES[suffix.group(1)])
            self.source_only = tuple(r.value for r in self.readings)
            self.readings = tuple(r.scaled(factor) for r in self.readings)
        elif self.digits.isdigit() and self._match(_ORDINAL):
            self.exempt = "ordinal"


def _decimal(digits: str) -> Reading:
    plain = digits.translate(_SEPARATORS)
    places = len(plain.partition(".")[2])
    return Reading(Fraction(Decimal(plain)), Fraction(1, 10**places))


def _int(digits: str) -> int:
    # Through Decimal: int(str) refuses more than 4300 digits, and results may have 10,000.
    return int(Decimal(digits)) if len(digits) <= MAX_DIGITS else 0


def _exponent_value(match: re.Match[str]) -> int:
    written = next(g for g in match.groups() if g is not None)
    written = written.translate(_SUPERSCRIPTS).replace("−", "-")
    if len(written.lstrip("+-")) > 9:  # far past MAX_EXPONENT: keep only its sign
        return -(MAX_EXPONENT + 1) if written.startswith("-") else MAX_EXPONENT + 1
    return int(written)


def _power_is_safe(base: Fraction, exponent: int) -> bool:
    """Whether base ** exponent is defined and small enough to expand."""
    if base == 0:
        return exponent >= 0
    bits = base.numerator.bit_length() + base.denominator.bit_length()
    return abs(exponent) <= MAX_EXPONENT and bits * abs(exponent) <= 14 * MAX_EXPONENT
