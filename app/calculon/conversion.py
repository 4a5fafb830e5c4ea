"""A conversion the user asked for in so many words, transcribed for the converter.

"Convert 98.6 degrees Fahrenheit to Celsius", "What is 5 miles in km?", "How many cups are in a
gallon?": the amount, its unit and the target are the user's own words, as "12 times 7" is their
own formula. Left to the built-in model, the first became ``convert("98.6 C", "Celsius")`` and
the answer "98.6 °C". The transcription holds only where the whole request is one amount and two
units the bundled converter knows, of one kind; anything else is left to the model as before.
"""

from __future__ import annotations

import re
from fractions import Fraction

from app.calculon.candidates import written
from app.core.backend import FormulaHint
from app.core.numbers import Mention, find_numbers
from app.servers.exact import CalcError
from app.servers.units import Unit, find_unit

# one or two words ("fluid ounces"), the second not one of the request's own ("cups are in")
_UNIT = r"(?:degrees? )?°?[a-z][a-z0-9_^³]*(?: (?!(?:are|is|in|to|into|as|there)\b)[a-z]+)?"
_AMOUNT = r"[-−]?[0-9][0-9,]*(?:\.[0-9]+)?|a|an|one"
_CONVERT = r"(?:convert|change|turn)"
_FORMS = (
    # "convert 98.6 degrees fahrenheit to celsius", "change 3 feet into metres"
    re.compile(rf"{_CONVERT} (?P<amount>{_AMOUNT}) ?(?P<source>{_UNIT}) (?:to|into|in) (?P<target>{_UNIT})"),
    # "what is 5 miles in km", "5 miles to km", "how much is 2 litres in cups"
    re.compile(
        rf"(?:(?:what is|what's|how much is|how much are) )?"
        rf"(?P<amount>{_AMOUNT}) ?(?P<source>{_UNIT}) (?:in|to|into|as) (?P<target>{_UNIT})"
    ),
    # "how many cups are in a gallon", "how many feet in 2 miles"
    re.compile(
        rf"how many (?P<target>{_UNIT}) (?:are |is )?(?:there )?in (?P<amount>{_AMOUNT}) ?(?P<source>{_UNIT})"
    ),
    # "how many km is 26.2 miles", "how many pounds are 10 kg"
    re.compile(rf"how many (?P<target>{_UNIT}) (?:is|are) (?P<amount>{_AMOUNT}) ?(?P<source>{_UNIT})"),
)
_NAMES = re.compile(r"\b(?:fahrenheit|celsius|kelvin)\b")
_ONE = {"a": Fraction(1), "an": Fraction(1), "one": Fraction(1)}


def conversion_hint(text: str) -> FormulaHint | None:
    """The converter's call for a request that is one conversion and nothing more; else None."""
    mentions = [m for m in find_numbers(text) if not m.exempt and m.readings]
    if len(mentions) > 1:
        return None
    plain = " ".join(text.lower().replace("please", " ").split()).strip(" ?.!")
    for form in _FORMS:
        match = form.fullmatch(plain)
        if match is None:
            continue
        amount = _amount(match["amount"], mentions)
        source, target = _unit(match["source"]), _unit(match["target"])
        if amount is None or source is None or target is None:
            continue
        if source.dimension != target.dimension or source == target:
            return None  # "5 km in kg": the converter's refusal says why, not a guess of ours
        quantity = f"{written(amount)} {source.symbol}"
        # the answer names the amount in the user's words ("a gallon is 16 cup."): a "1" they
        # never wrote would stand unbacked in it
        shown = _NAMES.sub(lambda m: m[0].capitalize(), f"{match['amount']} {match['source']}")
        arguments = (("quantity", quantity), ("to_unit", target.symbol))
        return FormulaHint("", shown, "transcription", call=(("convert",), arguments))
    return None


def _amount(word: str, mentions: list[Mention]) -> Fraction | None:
    if word in _ONE and not mentions:
        return _ONE[word]
    if len(mentions) != 1:
        return None
    return mentions[0].readings[0].value


def _unit(words: str) -> Unit | None:
    try:
        return find_unit(words)
    except CalcError:
        return None
