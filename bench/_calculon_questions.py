"""The Calculon bench's questions: stratified, generated from a fixed seed, keyed with ``fractions``.

Every answer key is computed here with :class:`fractions.Fraction` from the
same operands the question text shows; none is written by hand. Each question
also names the call a correct run would make, which the scripted backend
replays to test the harness itself. Categories:

- ``one_op``: one operation, in everyday phrasings ("times", "the product of",
  "subtract B from A", "B less than A"...);
- ``pemdas``: several operations, where the order of operations matters;
- ``decimals``: decimals and percentages;
- ``big``: integers of 20 digits or more;
- ``units``: unit conversions (length, mass, volume, temperature);
- ``word``: word problems;
- ``no_math``: no arithmetic: the right run calls no tool and states no number;
- ``impossible``: no answer exists (division by zero...): the right run says so.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

SEED = 20261201
CATEGORIES = ("one_op", "pemdas", "decimals", "big", "units", "word", "no_math", "impossible")


@dataclasses.dataclass(frozen=True)
class Question:
    text: str
    category: str
    expected: Fraction | None  # None: no number is the answer (no_math, impossible)
    tool: str = ""  # the call a correct run makes (replayed by the scripted backend)
    arguments: dict[str, Any] = dataclasses.field(default_factory=dict)


Two = Callable[[Fraction, Fraction], Fraction]
Templates = list[tuple[str, str, Two]]  # (category, text with {a} and {b}, the key from a and b)


def from_templates(
    templates: Templates, rng: random.Random, a: tuple[int, int], b: tuple[int, int]
) -> Iterator[Question]:
    """One question per template, its operands drawn from the ranges ``a`` and ``b``."""
    for category, template, value in templates:
        x, y = rng.randint(*a), rng.randint(*b)
        yield Question(template.format(a=x, b=y), category, value(Fraction(x), Fraction(y)))


def _num(value: Fraction) -> int | float | str:
    """An operand as JSON: integers stay exact; decimals go as their shortest text."""
    if value.denominator == 1:
        return int(value)
    return float(value) if len(str(float(value))) < 16 else str(value)


def _d(text: str) -> Fraction:
    return Fraction(text)


def _dec(value: Fraction) -> str:
    """A terminating fraction as exact decimal text: 1/8 -> 0.125."""
    scaled, places = value, 0
    while scaled.denominator != 1:
        scaled, places = scaled * 10, places + 1
    digits = str(abs(scaled.numerator)).rjust(places + 1, "0")
    text = f"{digits[:-places]}.{digits[-places:]}" if places else digits
    return ("-" if value < 0 else "") + text


_ONE_OP: list[tuple[str, str, Callable[[Fraction, Fraction], Fraction]]] = [
    ("What is {a} times {b}?", "multiply", lambda a, b: a * b),
    ("What is {a} multiplied by {b}?", "multiply", lambda a, b: a * b),
    ("What is the product of {a} and {b}?", "multiply", lambda a, b: a * b),
    ("Multiply {a} by {b}.", "multiply", lambda a, b: a * b),
    ("What is {a} plus {b}?", "add", lambda a, b: a + b),
    ("What is the sum of {a} and {b}?", "add", lambda a, b: a + b),
    ("Add {a} and {b}.", "add", lambda a, b: a + b),
    ("What is {a} minus {b}?", "subtract", lambda a, b: a - b),
    ("Subtract {b} from {a}.", "subtract", lambda a, b: a - b),
    ("What is {b} less than {a}?", "subtract", lambda a, b: a - b),
    ("What is {a} divided by {b}?", "divide", lambda a, b: a / b),
    ("Divide {a} by {b}.", "divide", lambda a, b: a / b),
]


def one_op(rng: random.Random) -> Iterator[Question]:
    for template, tool, operation in _ONE_OP * 3:
        a, b = rng.randint(11, 999), rng.randint(2, 99)
        text = template.format(a=a, b=b)
        yield Question(text, "one_op", operation(Fraction(a), Fraction(b)), tool, {"a": a, "b": b})
    for _ in range(2):
        base, exponent = rng.randint(2, 9), rng.randint(2, 6)
        yield Question(
            f"What is {base} to the power of {exponent}?",
            "one_op",
            Fraction(base**exponent),
            "power",
            {"base": base, "exponent": exponent},
        )
    for root in (rng.randint(11, 40), rng.randint(41, 90)):
        yield Question(
            f"What is the square root of {root * root}?", "one_op", Fraction(root), "sqrt", {"x": root * root}
        )


def pemdas(rng: random.Random) -> Iterator[Question]:
    forms: list[tuple[str, str, Callable[[int, int, int], Fraction]]] = [
        ("What is {a} + {b} * {c}?", "{a} + {b} * {c}", lambda a, b, c: Fraction(a + b * c)),
        ("What is ({a} + {b}) * {c}?", "({a} + {b}) * {c}", lambda a, b, c: Fraction((a + b) * c)),
        ("What is {a} minus {b} times {c}?", "{a} - {b} * {c}", lambda a, b, c: Fraction(a - b * c)),
        ("What is {a} times {b} plus {c}?", "{a} * {b} + {c}", lambda a, b, c: Fraction(a * b + c)),
        ("What is {a} - {b} / {c}?", "{a} - {b} / {c}", lambda a, b, c: a - Fraction(b, c)),
        ("What is ({a} - {b}) / {c}?", "({a} - {b}) / {c}", lambda a, b, c: Fraction(a - b, c)),
        ("What is {a} squared plus {b} squared?", "{a}^2 + {b}^2", lambda a, b, c: Fraction(a * a + b * b)),
        ("What is {a} * {b} - {c} * 2?", "{a} * {b} - {c} * 2", lambda a, b, c: Fraction(a * b - c * 2)),
        (
            "What is the average of {a}, {b} and {c}?",
            "({a} + {b} + {c}) / 3",
            lambda a, b, c: Fraction(a + b + c, 3),
        ),
        ("What is {a} + {b} + {c}?", "{a} + {b} + {c}", lambda a, b, c: Fraction(a + b + c)),
    ]
    for question, expression, value in forms * 2:
        a, b, c = rng.randint(12, 99), rng.randint(2, 40), rng.randint(2, 12)
        expr = expression.format(a=a, b=b, c=c)
        yield Question(
            question.format(a=a, b=b, c=c), "pemdas", value(a, b, c), "evaluate", {"expression": expr}
        )


def decimals(rng: random.Random) -> Iterator[Question]:
    for _ in range(6):
        p, n = rng.choice((5, 10, 12.5, 15, 20, 25, 30, 40, 75)), rng.randint(2, 60) * 10
        share = Fraction(str(p)) / 100
        yield Question(
            f"What is {p}% of {n}?", "decimals", share * n, "evaluate", {"expression": f"{n} * {_dec(share)}"}
        )
    for _ in range(4):
        price, off = rng.randint(3, 30) * 10, rng.choice((10, 20, 25, 50))
        yield Question(
            f"A ${price} coat is {off}% off. What is the sale price?",
            "decimals",
            Fraction(price) * (1 - Fraction(off, 100)),
            "evaluate",
            {"expression": f"{price} - {price} * {_dec(Fraction(off, 100))}"},
        )
    pairs = [
        (_d(f"{rng.randint(1, 99)}.{rng.randint(1, 9)}"), _d(f"{rng.randint(1, 20)}.{rng.randint(10, 99)}"))
        for _ in range(15)
    ]
    tools = [
        ("times", "multiply", lambda a, b: a * b),
        ("plus", "add", lambda a, b: a + b),
        ("minus", "subtract", lambda a, b: a - b),
    ]
    for index, (a, b) in enumerate(pairs):
        word, tool, operation = tools[index % 3]
        text = f"What is {float(a)} {word} {float(b)}?"
        yield Question(text, "decimals", operation(a, b), tool, {"a": _num(a), "b": _num(b)})


def big(rng: random.Random) -> Iterator[Question]:
    tools = [
        ("plus", "add", lambda a, b: a + b),
        ("times", "multiply", lambda a, b: a * b),
        ("minus", "subtract", lambda a, b: a - b),
    ]
    for index in range(15):
        a = rng.randint(10**19, 10**22)
        b = rng.randint(10**19, 10**21)
        word, tool, operation = tools[index % 3]
        yield Question(f"What is {a} {word} {b}?", "big", Fraction(operation(a, b)), tool, {"a": a, "b": b})


_LENGTHS = {
    "miles": _d("1609.344"),
    "km": _d("1000"),
    "feet": _d("0.3048"),
    "metres": _d("1"),
    "inches": _d("0.0254"),
    "cm": _d("0.01"),
}
_MASSES = {"pounds": _d("0.45359237"), "kg": _d("1"), "ounces": _d("0.028349523125"), "grams": _d("0.001")}


def units(rng: random.Random) -> Iterator[Question]:
    conversions = [
        ("miles", "km"),
        ("km", "miles"),
        ("feet", "metres"),
        ("inches", "cm"),
        ("metres", "feet"),
        ("pounds", "kg"),
        ("kg", "pounds"),
        ("ounces", "grams"),
        ("grams", "ounces"),
    ]
    for source, target in conversions:
        amount = rng.randint(2, 150)
        table = _LENGTHS if source in _LENGTHS else _MASSES
        value = Fraction(amount) * table[source] / table[target]
        yield Question(
            f"How many {target} is {amount} {source}?",
            "units",
            value,
            "convert",
            {"quantity": f"{amount} {source}", "to_unit": target},
        )
    for _ in range(3):
        f = rng.randint(40, 110)
        yield Question(
            f"What is {f} °F in Celsius?",
            "units",
            (Fraction(f) - 32) * 5 / 9,
            "fahrenheit_to_celsius",
            {"value": f},
        )
    for _ in range(3):
        c = rng.randint(5, 45)
        yield Question(
            f"What is {c} °C in Fahrenheit?",
            "units",
            Fraction(c) * 9 / 5 + 32,
            "celsius_to_fahrenheit",
            {"value": c},
        )


def word(rng: random.Random) -> Iterator[Question]:
    problems: list[tuple[str, str, Callable[[int, int], Fraction]]] = [
        ("A box holds {a} eggs. How many eggs are in {b} boxes?", "multiply", lambda a, b: Fraction(a * b)),
        ("Tickets cost ${a} each. How much do {b} tickets cost?", "multiply", lambda a, b: Fraction(a * b)),
        ("I save ${a} a week. How much do I save in {b} weeks?", "multiply", lambda a, b: Fraction(a * b)),
        (
            "A train has {b} cars of {a} seats. How many seats are there?",
            "multiply",
            lambda a, b: Fraction(a * b),
        ),
        ("I had ${a} and spent ${b}. How much is left?", "subtract", lambda a, b: Fraction(a - b)),
        (
            "A tank holds {a} litres and {b} litres leak out. How many litres remain?",
            "subtract",
            lambda a, b: Fraction(a - b),
        ),
        (
            "{a} apples are shared equally among {b} children. How many does each child get?",
            "divide",
            lambda a, b: Fraction(a, b),
        ),
        (
            "A {a} km trip takes {b} hours. What is the average speed in km per hour?",
            "divide",
            lambda a, b: Fraction(a, b),
        ),
        (
            "A shelf has {a} books and I add {b} more. How many books are on it?",
            "add",
            lambda a, b: Fraction(a + b),
        ),
        ("Anna is {a} years old. How old will she be in {b} years?", "add", lambda a, b: Fraction(a + b)),
    ]
    for template, tool, value in problems * 2 + problems[:5]:
        a, b = rng.randint(20, 500), rng.randint(2, 19)
        yield Question(template.format(a=a, b=b), "word", value(a, b), tool, {"a": a, "b": b})


NO_MATH = [
    "What is the capital of France?",
    "Say hello.",
    "Who are you?",
    "What colour is the sky on a clear day?",
    "Tell me a short joke.",
    "What is the opposite of hot?",
    "Name a fruit that is yellow.",
    "What language is spoken in Spain?",
    "Is water wet?",
    "What do bees make?",
    "Thank you!",
    "What is your favourite colour?",
]


def impossible(rng: random.Random) -> Iterator[Question]:
    for _ in range(5):
        a = rng.randint(2, 900)
        yield Question(f"What is {a} divided by 0?", "impossible", None, "divide", {"a": a, "b": 0})
    for _ in range(2):
        a = rng.randint(2, 90)
        yield Question(f"What is {a} mod 0?", "impossible", None, "mod", {"a": a, "b": 0})
    yield Question("Divide 50 by 0.", "impossible", None, "divide", {"a": 50, "b": 0})
    yield Question("What is 0 to the power of -1?", "impossible", None, "power", {"base": 0, "exponent": -1})
    yield Question(
        "Share 12 sweets among 0 friends: how many does each get?",
        "impossible",
        None,
        "divide",
        {"a": 12, "b": 0},
    )


def all_questions(seed: int = SEED) -> list[Question]:
    rng = random.Random(seed)
    found = [*one_op(rng), *pemdas(rng), *decimals(rng), *big(rng), *units(rng), *word(rng)]
    found += [Question(text, "no_math", None) for text in NO_MATH]
    return found + list(impossible(rng))
