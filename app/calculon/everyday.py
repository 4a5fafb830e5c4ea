"""Everyday phrasings of arithmetic that have one meaning, rewritten as the arithmetic they name.

"A $40 coat is 50% off. What is the sale price?" names a price less a share of it; "What percent
of 80 is 20?" a quotient as a percentage; "What is a 15% tip on 80 dollars?" a share of an
amount. Each is matched whole, with exactly its two numbers: one more word of story and the
message is left as it was, for the ranker to read as a story (:mod:`app.calculon.transcript`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction

from app.calculon.evaluate import plain
from app.calculon.parser import percent_token
from app.core.numbers import find_numbers

_SALE = "(?:sale|discounted|new|reduced)"
# the first number stands as "a", the second as "b"; "%" means that one is a percentage
_FORMS: tuple[tuple[re.Pattern[str], str, Callable[[str, str], str]], ...] = (
    (  # "A $40 coat is 50% off. What is the sale price?"
        re.compile(
            r"(?:an? |the |my |this )?[$€£]?a(?: [a-z'-]+){0,4} (?:is|are|was|were) (?:on sale )?"
            r"(?:at )?b off"
            rf"[.,;]? (?:so )?(?:what is|what's|how much is|find) (?:the |its )?{_SALE} price"
            r"(?: of (?:the |my |this )?[a-z'-]+)?[?.!]?"
        ),
        "b",
        lambda a, b: f"{a} minus {b}% of {a}",
    ),
    (  # "What percent of 80 is 20?", "20 is what percent of 80?"
        re.compile(r"(?:what|which) (?:percent|percentage|per cent) of [$€£]?a is [$€£]?b[?.!]?"),
        "",
        lambda a, b: f"{b} divided by {a} times 100",
    ),
    (
        re.compile(r"[$€£]?a is what (?:percent|percentage|per cent) of [$€£]?b[?.!]?"),
        "",
        lambda a, b: f"{a} divided by {b} times 100",
    ),
    (  # "What is a 15% tip on 80 dollars?", "How much is 8% tax on $250?"
        re.compile(
            r"(?:what is|what's|how much is) (?:an? |the )?a"
            r" (?:tip|tax|sales tax|commission|deposit|discount) (?:on|of) (?:an? |the |my )?[$€£]?b"
            r"(?: [a-z'-]+){0,2}[?.!]?"
        ),
        "a",
        lambda a, b: f"{a}% of {b}",
    ),
)


def everyday(text: str) -> str:
    """``text`` as the arithmetic its everyday phrasing names, or ``text`` unchanged."""
    mentions = find_numbers(text)
    if len(mentions) != 2 or any(m.exempt or not m.readings for m in mentions):
        return text
    first, second = mentions
    tokens = {"a": percent_token(first), "b": percent_token(second)}
    body = f"{text[: first.start]}a{text[first.end : second.start]}b{text[second.end :]}"
    body = " ".join(body.lower().split())
    for pattern, percent, rewrite in _FORMS:
        if pattern.fullmatch(body) is None:
            continue
        if any(token.percent != (name == percent) for name, token in tokens.items()):
            continue
        a, b = (plain(tokens[name].value or Fraction(0)) for name in ("a", "b"))
        return rewrite(a, b)
    return text
