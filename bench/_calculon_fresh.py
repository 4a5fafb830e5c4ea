"""A second held-out set for the Calculon bench, written after the first was spent.

The first held-out set (:mod:`bench._calculon_heldout`) has been read for its misses, so
it can no longer say how new wording fares. These questions were written before any run
of them, in the way people type into a chat box: everyday wording, money, recipes, travel,
school homework. Keys are computed with ``fractions`` from the operands the text shows.
The figure of the first run of this set is kept in docs/benchmarks.md; once its misses
are read to change the code, it is spent too, and the docs say so.

    python -m bench calculon_verified --set fresh --no-write
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction

from bench._calculon_questions import Question, Templates, from_templates

SEED = 20261203
F = Fraction

_TWO: Templates = [
    ("one_op", "{a} times {b}?", lambda a, b: a * b),
    ("one_op", "what's {a} plus {b}", lambda a, b: a + b),
    ("one_op", "Can you work out {a} minus {b} for me?", lambda a, b: a - b),
    ("one_op", "Divide {a} by {b}, please.", lambda a, b: a / b),
    ("one_op", "Add {b} to {a}.", lambda a, b: a + b),
    ("one_op", "How much is {a} multiplied by {b}?", lambda a, b: a * b),
    ("one_op", "{a} / {b} = ?", lambda a, b: a / b),
    ("one_op", "What's the sum of {a} and {b}?", lambda a, b: a + b),
    ("one_op", "I need {a} divided into {b} equal parts. How big is each part?", lambda a, b: a / b),
    ("one_op", "By how much does {a} exceed {b}?", lambda a, b: a - b),
    ("word", "I bought {b} tickets at ${a} each. What did I pay?", lambda a, b: a * b),
    (
        "word",
        "A car drives {a} km in {b} hours. What is its average speed in km per hour?",
        lambda a, b: a / b,
    ),
    ("word", "My account had ${a} and I withdrew ${b}. What is the balance?", lambda a, b: a - b),
    ("word", "There are {a} chairs in each row and {b} rows. How many chairs in all?", lambda a, b: a * b),
    (
        "word",
        "We drove {a} miles before lunch and {b} miles after. How far did we drive?",
        lambda a, b: a + b,
    ),
    (
        "word",
        "{a} cookies are shared equally by {b} children. How many does each child get?",
        lambda a, b: a / b,
    ),
    ("word", "A tank holds {a} litres and {b} litres leak out. How much is still in it?", lambda a, b: a - b),
    ("word", "A box weighs {a} g. What do {b} boxes weigh together?", lambda a, b: a * b),
]


def _pemdas(rng: random.Random) -> Iterator[Question]:
    a, b, c = rng.randint(10, 99), rng.randint(10, 99), rng.randint(2, 9)
    yield Question(f"What is {a} + {b} × {c}?", "pemdas", F(a + b * c))
    yield Question(f"Work out ({a} - {c}) / {c}.", "pemdas", F(a - c, c))
    yield Question(f"What is the average of {a}, {b} and {c}?", "pemdas", F(a + b + c, 3))
    yield Question(f"What is {c} to the power of 4?", "pemdas", F(c**4))
    yield Question(f"What is triple {a} minus {b}?", "pemdas", F(3 * a - b))


def _decimals(rng: random.Random) -> Iterator[Question]:
    price, rate = rng.randint(3, 60) * 5, rng.choice((10, 15, 25))
    yield Question(f"What is {rate}% of {price}?", "decimals", F(price) * F(rate, 100))
    yield Question(
        f"A ${price} coat is {rate}% off. What is the sale price?", "decimals", F(price) * (1 - F(rate, 100))
    )
    x, y = F(f"{rng.randint(1, 80)}.{rng.randint(11, 99)}"), F(f"{rng.randint(1, 40)}.{rng.randint(1, 9)}")
    yield Question(f"What is {float(x)} + {float(y)}?", "decimals", x + y)
    yield Question(f"What is {float(x)} divided by 4?", "decimals", x / 4)


def _units(rng: random.Random) -> Iterator[Question]:
    n = rng.randint(2, 90)
    yield Question(f"How many kilometres is {n} miles?", "units", F(n) * F("1.609344"))
    yield Question(f"Convert {n} feet to metres.", "units", F(n) * F("0.3048"))
    yield Question(f"What is {n} pounds in kilograms?", "units", F(n) * F("0.45359237"))
    yield Question(f"What is {n} °F in Celsius?", "units", (F(n) - 32) * 5 / 9)


def fresh_questions(seed: int = SEED) -> list[Question]:
    rng = random.Random(seed)
    found = [*from_templates(_TWO, rng, (40, 900), (2, 30)), *_pemdas(rng), *_decimals(rng), *_units(rng)]
    chat = ("Who wrote Hamlet?", "Tell me a fun fact about octopuses.")
    found += [Question(text, "no_math", None) for text in chat]
    a = rng.randint(2, 500)
    found.append(Question(f"Divide {a} by 0.", "impossible", None))
    return found
