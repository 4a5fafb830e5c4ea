"""Pure tests of the expression tokenizer and evaluator."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from app.servers.exact import CalcError
from app.servers.expression import MAX_DEPTH, evaluate, tokenize


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 + 2", 3),
        ("0.1 + 0.2", Fraction(3, 10)),
        ("2 + 3 * 4", 14),
        ("(2 + 3) * 4", 20),
        ("10 - 4 - 3", 3),
        ("2 ^ 10", 1024),
        ("2 ** 10", 1024),
        ("2 ^ 3 ^ 2", 512),
        ("-2 ^ 2", -4),
        ("(-2) ^ 2", 4),
        ("2 ^ -2", Fraction(1, 4)),
        ("--3", 3),
        ("-(1 - 4)", 3),
        ("+5", 5),
        ("1 / 3 + 1 / 6", Fraction(1, 2)),
        ("7 % 3", 1),
        ("-7 % 3", 2),
        ("20% * 150", 30),
        ("40 - 50%", 20),
        ("200 + 10%", 220),
        ("40 - 50% * 2", 39),
        ("40 * (100 - 50) / 100", 20),
        ("100 / 8 * 2", 25),
        ("1.5e3 + .5", Fraction(3001, 2)),
        ("12345678901234567890 * 98765432109876543210", 12345678901234567890 * 98765432109876543210),
        ("6 × 7 ÷ 2 − 1", 20),
        ("2 + 2 =", 4),
        ("  ( ( 1 ) )  ", 1),
    ],
)
def test_expressions_evaluate_exactly(expression: str, expected: object) -> None:
    assert evaluate(expression) == expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("2 +", "expected a number or '\\(' at character 4, found the end"),
        ("2 + * 3", "expected a number or '\\(' at character 5, found '\\*'"),
        ("(1 + 2", "expected '\\)' at character 7 to close '\\(' at 1"),
        ("1 + 2)", "unexpected '\\)' at character 6"),
        ("2 3", "unexpected '3' at character 3"),
        ("2 x 3", "unexpected 'x' at character 3"),
        ("__import__('os')", "unexpected '_' at character 1"),
        ("1 / (2 - 2)", "division by zero \\(at '/', character 3\\)"),
        ("5 % 0", "modulo by zero"),
        ("4 ^ 0.5", "exponent at character 3 is not a whole number"),
        ("10 ^ 10 ^ 10", "too large"),
        ("9" * 10_001, "too long"),
    ],
)
def test_malformed_or_impossible_expressions_say_what_and_where(expression: str, message: str) -> None:
    with pytest.raises(CalcError, match=message):
        evaluate(expression)


def test_deep_nesting_is_refused_cleanly() -> None:
    with pytest.raises(CalcError, match="nests too deeply"):
        evaluate("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1))
    with pytest.raises(CalcError, match="nests too deeply"):
        evaluate("1" + "^1" * (MAX_DEPTH + 1))
    assert evaluate("(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH) == 1


def test_a_long_chain_of_signs_does_not_recurse() -> None:
    assert evaluate("-" * 5001 + "1") == -1


def test_tokens_carry_their_position() -> None:
    tokens = tokenize(" 12 ** (3)")
    assert [(t.kind, t.text, t.position) for t in tokens] == [
        ("number", "12", 2),
        ("op", "**", 5),
        ("op", "(", 8),
        ("number", "3", 9),
        ("op", ")", 10),
        ("end", "", 11),
    ]


def _random_expression(rng: random.Random, depth: int) -> tuple[str, Fraction]:
    """A random expression and its value, computed independently with Fraction."""
    if depth == 0 or rng.random() < 0.3:
        whole, places = rng.randint(0, 10**6), rng.randint(0, 3)
        return (f"{whole}e-{places}" if places else str(whole)), Fraction(whole, 10**places)
    left, a = _random_expression(rng, depth - 1)
    right, b = _random_expression(rng, depth - 1)
    operator = rng.choice("+-*/")
    if operator == "/" and b == 0:
        operator = "+"
    value = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else a}[operator]
    return f"({left} {operator} {right})", value


def test_random_expressions_match_fraction_arithmetic() -> None:
    rng = random.Random(314159)
    for _ in range(400):
        text, expected = _random_expression(rng, 4)
        negate = rng.random() < 0.2
        assert evaluate(f"-{text}" if negate else text) == (-expected if negate else expected)
