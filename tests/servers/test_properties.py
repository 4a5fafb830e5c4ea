"""Property tests: ``evaluate`` and the four operations agree with ``fractions.Fraction`` on random
input, and the cost budget refuses the work the digit cap let through, within a second."""

from __future__ import annotations

import math
import time
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.server.mcpserver.exceptions import ToolError

from app.servers import calculator
from app.servers.exact import CalcError
from app.servers.expression import evaluate

BOUNDED = settings(
    max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)


def written(value: int | Decimal) -> tuple[str, Fraction]:
    """A literal as it is written in an expression, and its exact value."""
    return (str(value) if isinstance(value, int) else format(value, "f")), Fraction(value)


literals = st.one_of(
    st.integers(0, 10**30).map(written),
    st.decimals(0, 10**6, places=4, allow_nan=False, allow_infinity=False).map(written),
)


@st.composite
def expressions(draw: st.DrawFn, depth: int = 0) -> tuple[str, Fraction | None]:
    """An expression in the calculator's syntax and its exact value (None: it divides by zero)."""
    if depth > 3 or draw(st.booleans()):
        return draw(literals)
    op = draw(st.sampled_from(["+", "-", "*", "/", "%", "^"]))
    left, a = draw(expressions(depth + 1))
    if op == "^":
        exponent = draw(st.integers(-3, 4))
        value = None if a is None or (a == 0 and exponent < 0) else a**exponent
        return f"({left})^{exponent}", value
    right, b = draw(expressions(depth + 1))
    space = draw(st.sampled_from(["", " ", "  "]))
    return f"({left}){space}{op}{space}({right})", _apply(op, a, b)


def _apply(op: str, a: Fraction | None, b: Fraction | None) -> Fraction | None:
    if a is None or b is None or (op in "/%" and b == 0):
        return None
    return {"+": a + b, "-": a - b, "*": a * b}.get(op) if op in "+-*" else a / b if op == "/" else a % b


def small_enough(value: Fraction | None) -> bool:
    return value is None or abs(value.numerator).bit_length() + value.denominator.bit_length() < 30_000


@BOUNDED
@given(expressions())
def test_evaluate_agrees_with_fraction_on_random_expressions(case):
    text, expected = case
    if not small_enough(expected):
        return
    if expected is None:
        with pytest.raises(CalcError, match="by zero"):
            evaluate(text)
    else:
        assert evaluate(text) == expected, text


def by_precedence(values: list[Fraction], ops: list[str]) -> Fraction:
    """A flat chain of + - * worked out by hand: products first, then the sum of signed terms."""
    total, sign, product = Fraction(0), 1, values[0]
    for op, value in zip(ops, values[1:], strict=False):
        if op == "*":
            product *= value
        else:
            total, sign, product = total + sign * product, 1 if op == "+" else -1, value
    return total + sign * product


@BOUNDED
@given(
    st.lists(literals, min_size=1, max_size=12), st.lists(st.sampled_from("+-*"), min_size=11, max_size=11)
)
def test_evaluate_applies_precedence_to_flat_chains(terms, ops):
    steps = [f"{op} {text}" for op, (text, _) in zip(ops, terms[1:], strict=False)]
    text = " ".join([terms[0][0], *steps])
    assert evaluate(text) == by_precedence([value for _, value in terms], ops), text


numbers = st.one_of(
    st.integers(-(10**40), 10**40),
    st.fractions(max_denominator=10**12).map(lambda f: f"{f.numerator}/{f.denominator}"),
    st.decimals(-(10**9), 10**9, places=6, allow_nan=False, allow_infinity=False).map(str),
)


def exact_value(structured: dict) -> Fraction:
    return Fraction(structured["fraction"]) if "fraction" in structured else Fraction(structured["value"])


@BOUNDED
@given(st.sampled_from(["add", "subtract", "multiply", "divide"]), numbers, numbers)
def test_the_four_operations_agree_with_fraction(operation, a, b):
    x, y = Fraction(a), Fraction(b)
    if operation == "divide" and y == 0:
        with pytest.raises(ToolError, match="division by zero"):
            calculator.divide(a, b)
        return
    expected = {"add": x + y, "subtract": x - y, "multiply": x * y, "divide": x / y if y else None}[operation]
    result = getattr(calculator, operation)(a, b)
    assert exact_value(result.structured_content) == expected
    if result.structured_content["exact"]:
        assert result.content[0].text == result.structured_content["value"]


def primes(count: int) -> list[int]:
    return [p for p in range(3, 2000) if all(p % d for d in range(2, math.isqrt(p) + 1))][:count]


def test_sixty_fractions_with_large_powers_are_refused_as_too_costly_within_a_second():
    # Each term's denominator has about 9,000 digits; before the budget this took about 30 s.
    text = " + ".join(f"1/{p}^{int(9000 / math.log10(p))}" for p in primes(60))
    began = time.process_time()
    with pytest.raises(CalcError, match="too costly to compute"):
        evaluate(text)
    assert time.process_time() - began < 1.0


@pytest.mark.parametrize(
    "text",
    [
        "*".join(["3^9000/5^6000*5^6000/3^9000"] * 350),  # each step under the digit cap
        "+".join(["7^5000/11^4000"] * 600),
        "+".join(["1/3^9000"] * 1100),
    ],
)
def test_the_costliest_expressions_that_fit_the_length_limit_end_within_a_second(text):
    began = time.process_time()
    try:
        evaluate(text)
    except CalcError as error:
        assert "too costly" in str(error) or "too large" in str(error)
    assert time.process_time() - began < 1.0


def test_ordinary_long_expressions_stay_well_inside_the_budget():
    assert evaluate("+".join(["1/7"] * 2500)) == Fraction(2500, 7)
    assert evaluate(" * ".join(["1.5"] * 100)) == Fraction(3, 2) ** 100
