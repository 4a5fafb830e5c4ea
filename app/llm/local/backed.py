"""Numbers that cannot be invented: Calculon mode's decoding grammar for numbers.

In Calculon mode the local model may write a number, in a tool call's
arguments or in its answer, only if it is *backed*: it stands in the user's
words or in a tool result of this conversation, as written or in a form the
provenance check accepts (``1,776`` for 1776, ``0.125`` for ``12.5%``, a
correct rounding of ``0.3333…``). The model still picks the tool and the
order; it can no longer pick a number out of thin air.

The grammar is built in two parts, so a step pays only for what changed: the
tools' rules (cached per tool list, in :mod:`schema_grammar`) refer to the
primitives ``number``, ``integer`` and ``string``; :func:`argument_rules`
redefines those primitives over this step's backed numbers.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterable
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

from app.core.numbers import find_numbers

MAX_DIGITS = 400  # a longer number is not offered: no one copies it from a chat, and the grammar grows
ROUNDED_PLACES = 6  # a number with more decimals may also be written rounded to 0..6 places
_ROUNDING_NOTE = re.compile(r"\(rounded to [0-9]+ significant digits\)")
_PLAIN_NUMBER = re.compile(r"-?[0-9][0-9,]*(?:\.[0-9]+)?")
PRIMITIVES = ("number", "integer", "string")  # the converter's rule names that are redefined here


@dataclasses.dataclass(frozen=True)
class BackedForms:
    """Every way a backed number may be written: in prose, and as a JSON number."""

    text: frozenset[str]
    json: frozenset[str]
    integers: frozenset[str]


def backed_forms(texts: Iterable[str]) -> BackedForms:
    written: set[str] = set()
    values: set[Fraction] = set()
    for source in texts:
        for mention in find_numbers(_ROUNDING_NOTE.sub(" ", source)):
            if _PLAIN_NUMBER.fullmatch(mention.text) and len(mention.text) <= MAX_DIGITS:
                written.add(mention.text)
            values.update(mention.values())
    # Arguments take exact values only: a rounded input is a different calculation.
    exact = {f for v in values for f in exact_forms(v)} | {w.replace(",", "") for w in written}
    rounded = {f for v in values for f in rounded_forms(v)}
    text = exact | rounded | written
    text |= {_grouped(f) for f in text}
    integers = {f for f in exact if "." not in f}
    return BackedForms(frozenset(text), frozenset(exact), frozenset(integers))


def exact_forms(value: Fraction) -> set[str]:
    """``value`` as a plain decimal, when it has a finite one of reasonable length."""
    if value.denominator == 1:
        text = str(value.numerator)
        return {text} if len(text) <= MAX_DIGITS else set()
    with localcontext() as ctx:
        ctx.prec = MAX_DIGITS
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        return {_plain(exact)} if Fraction(exact) == value else set()


def rounded_forms(value: Fraction) -> set[str]:
    """Correct roundings of ``value`` to 0..ROUNDED_PLACES decimals (half-up and half-even
    on a tie, as the checker accepts), never a rounding to zero."""
    if value.denominator == 1:
        return set()
    forms: set[str] = set()
    with localcontext() as ctx:
        ctx.prec = MAX_DIGITS
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        for shown in range(ROUNDED_PLACES + 1):
            unit = Decimal(1).scaleb(-shown)
            forms.update(_plain(exact.quantize(unit, mode)) for mode in (ROUND_HALF_UP, ROUND_HALF_EVEN))
    return {f for f in forms if Decimal(f) != 0 and len(f) <= MAX_DIGITS and Fraction(Decimal(f)) != value}


def _plain(number: Decimal) -> str:
    return format(number, "f")


def _grouped(form: str) -> str:
    sign, _, digits = form.rpartition("-")
    whole, dot, decimals = digits.partition(".")
    if len(whole) <= 4:  # 1234 is as common as 1,234; only longer runs are grouped
        return form
    return f"{sign}{int(whole):,}{dot}{decimals}"


def text_rules(forms: BackedForms) -> list[str]:
    """``calculon-banswer``: free text that does not open with "<" (that is how a tool call
    begins), in which every run of digits is a backed number."""
    return [
        f"calculon-num ::= {_alternatives(forms.text)}",
        "calculon-btext ::= calculon-bseg* calculon-btail?",
        "calculon-bseg ::= [^0-9\\x00] | calculon-num calculon-bafter",
        "calculon-bafter ::= [^0-9.,\\x00] | [.,] [^0-9\\x00]",
        "calculon-btail ::= calculon-num [.,]?",
        "calculon-banswer ::= [^<0-9\\x00] calculon-btext | calculon-num calculon-bafter calculon-btext"
        " | calculon-btail",
    ]


def argument_rules(forms: BackedForms) -> list[str]:
    """The converter's ``number``, ``integer`` and ``string`` primitives over backed numbers."""
    return [
        f"calculon-jnum ::= {_alternatives(forms.json)}",
        f"calculon-jint ::= {_alternatives(forms.integers)}",
        "number ::= calculon-jnum space",
        "integer ::= calculon-jint space",
        'string ::= "\\"" calculon-sbody "\\"" space',
        # A digit may follow a letter (m3, H2O): the checker reads those as part of a word.
        "calculon-sbody ::= (calculon-schar | [A-Za-z] [0-9]+ | calculon-num calculon-safter)* calculon-num?",
        'calculon-schar ::= [^"\\\\0-9\\x00-\\x1f] | "\\\\" ["\\\\/bfnrt]',
        'calculon-safter ::= [^"\\\\0-9.,\\x00-\\x1f] | [.,] [^"\\\\0-9\\x00-\\x1f]',
    ]


def _alternatives(forms: Iterable[str]) -> str:
    ordered = sorted(forms, key=lambda f: (len(f), f))
    # With nothing backed, a rule that only a NUL character matches: no model writes one.
    return " | ".join(json.dumps(f) for f in ordered) if ordered else '"\\x00"'


def strict_rules(tool_rules: Iterable[str], forms: BackedForms) -> list[str]:
    """The tools' rules with their number and string primitives replaced by backed ones."""
    kept = [line for line in tool_rules if line.split(" ::=", 1)[0] not in PRIMITIVES]
    return [*kept, *argument_rules(forms)]
