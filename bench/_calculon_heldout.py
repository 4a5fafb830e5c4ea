"""Held-out questions for the Calculon bench: phrasings the main set does not use.

The word reading behind Calculon mode's grammar (``app/calculon/reading.py``)
was written looking at the main set's phrasings; these questions were written
after it and are not used to tune it, so the two figures side by side show how
much of the main set's score is the main set's wording. Keys are computed with
``fractions`` from the operands the text shows, as in the main set.

    python -m bench calculon_verified --set heldout --no-write
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

from bench._calculon_questions import Question, Templates, from_templates

SEED = 20261202
F = Fraction

_TWO: Templates = [
    ("one_op", "What do you get if you multiply {a} by {b}?", lambda a, b: a * b),
    ("one_op", "What is {a} take away {b}?", lambda a, b: a - b),
    ("one_op", "Take {b} away from {a}.", lambda a, b: a - b),
    ("one_op", "What is {b} more than {a}?", lambda a, b: a + b),
    ("one_op", "What is {a} increased by {b}?", lambda a, b: a + b),
    ("one_op", "What is {a} decreased by {b}?", lambda a, b: a - b),
    ("one_op", "Find the quotient of {a} and {b}.", lambda a, b: a / b),
    ("one_op", "What is the difference between {a} and {b}?", lambda a, b: a - b),
    ("one_op", "Calculate {a} x {b}.", lambda a, b: a * b),
    ("one_op", "What is {a} ÷ {b}?", lambda a, b: a / b),
    ("word", "Tom has {a} marbles and gives away {b}. How many does he have now?", lambda a, b: a - b),
    ("word", "A bakery makes {a} loaves a day. How many does it make in {b} days?", lambda a, b: a * b),
    ("word", "{a} students split into groups of {b}. How many groups are there?", lambda a, b: a / b),
    ("word", "Sara read {a} pages on Monday and {b} on Tuesday. How many in total?", lambda a, b: a + b),
    ("word", "A rope {a} m long is cut into {b} equal pieces. How long is each piece?", lambda a, b: a / b),
    ("word", "The temperature was {a} degrees and fell by {b} degrees. What is it now?", lambda a, b: a - b),
    ("word", "A jar has {a} sweets and {b} are eaten. How many are left?", lambda a, b: a - b),
    ("word", "Each crate holds {a} bottles. How many bottles do {b} crates hold?", lambda a, b: a * b),
]


def _pemdas(rng: random.Random) -> Iterator[Question]:
    a, b, c, d = rng.randint(10, 90), rng.randint(10, 90), rng.randint(10, 90), rng.randint(10, 90)
    yield Question(f"What is the mean of {a}, {b}, {c} and {d}?", "pemdas", F(a + b + c + d, 4))
    yield Question(f"What is ({a} + {b}) × ({c} - {d})?", "pemdas", F((a + b) * (c - d)))
    yield Question(f"What is {a} squared minus {b}?", "pemdas", F(a * a - b))
    yield Question(f"What is double {a} plus {b}?", "pemdas", F(2 * a + b))
    yield Question(f"What is half of {2 * a}?", "pemdas", F(a))
    yield Question(f"What is {c} cubed?", "pemdas", F(c**3))


def _decimals(rng: random.Random) -> Iterator[Question]:
    price, rate = rng.randint(2, 40) * 5, rng.choice((5, 10, 15, 20))
    yield Question(f"What is ${price} plus {rate}% tax?", "decimals", F(price) * (1 + F(rate, 100)))
    yield Question(f"How much is a {rate}% tip on a ${price} bill?", "decimals", F(price) * F(rate, 100))
    yield Question(
        f"A ${price} jacket is discounted by {rate}%. What does it cost now?",
        "decimals",
        F(price) * (1 - F(rate, 100)),
    )
    x, y = F(f"{rng.randint(1, 50)}.{rng.randint(1, 9)}"), F(f"{rng.randint(1, 9)}.{rng.randint(11, 99)}")
    yield Question(f"What is {float(x)} multiplied by {float(y)}?", "decimals", x * y)


def _units(rng: random.Random) -> Iterator[Question]:
    n = rng.randint(2, 90)
    yield Question(f"Convert {n} kg to pounds.", "units", F(n) / F("0.45359237"))
    yield Question(f"How many grams are in {n} ounces?", "units", F(n) * F("28.349523125"))
    yield Question(f"What is {n} inches in cm?", "units", F(n) * F("2.54"))
    yield Question(f"Convert {n} degrees Celsius to Fahrenheit.", "units", F(n) * 9 / 5 + 32)


def heldout_questions(seed: int = SEED) -> list[Question]:
    rng = random.Random(seed)
    found = [*from_templates(_TWO, rng, (30, 600), (2, 25)), *_pemdas(rng), *_decimals(rng), *_units(rng)]
    chat = ("What is the tallest animal?", "How are you today?")
    found += [Question(text, "no_math", None) for text in chat]
    a = rng.randint(2, 500)
    found.append(Question(f"What is {a} divided by zero?", "impossible", None))
    return found
