"""The bundled calculator: exact arithmetic as MCP tools, over stdio.

Run it with ``python -m app.servers.calculator`` (or ``calculon serve calculator``).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field, WithJsonSchema

from app.servers import arith, exact
from app.servers.common import NUMBER_HINT, NUMBER_SCHEMA, NumberResult, compute, tool
from app.servers.expression import evaluate as evaluate_expression

server: MCPServer = MCPServer(
    "calculator",
    log_level="WARNING",  # a failed call is the caller's news, not the log's
    instructions=(
        "Exact arithmetic. Use these tools for every calculation instead of working numbers out yourself. "
        "Results are exact; when a result has no finite decimal form it is given as a fraction and a "
        "rounded decimal, and says so."
    ),
)

A = Annotated[Any, NUMBER_SCHEMA, Field(description=f"The first number. {NUMBER_HINT}")]
B = Annotated[Any, NUMBER_SCHEMA, Field(description=f"The second number. {NUMBER_HINT}")]
X = Annotated[Any, NUMBER_SCHEMA, Field(description=f"The number. {NUMBER_HINT}")]
Base = Annotated[Any, NUMBER_SCHEMA, Field(description=f"The base. {NUMBER_HINT}")]
Exponent = Annotated[Any, NUMBER_SCHEMA, Field(description=f"The exponent. {NUMBER_HINT}")]
# The schema names the characters an expression may hold, so a model decoding under a grammar
# cannot write words into it; the evaluator still checks every call and explains its errors.
EXPRESSION_PATTERN = "^[0-9.eE+*/%^() ×·÷−–-]*$"
Expression = Annotated[
    str,
    WithJsonSchema({"type": "string", "pattern": EXPRESSION_PATTERN}),
    Field(description="An arithmetic expression, e.g. '(2 + 3) * 4 / 7' or '2^10 - 1'."),
]


@tool(server)
def add(a: A, b: B) -> NumberResult:
    """Add two numbers exactly: a + b (a plus b, their sum or total)."""
    return compute(lambda: _apply(lambda x, y: x + y, a, b))


@tool(server)
def subtract(a: A, b: B) -> NumberResult:
    """Subtract exactly: a - b (a minus b, the difference; "subtract b from a", "take b away from a",
    "b less than a")."""
    return compute(lambda: _apply(lambda x, y: x - y, a, b))


@tool(server)
def multiply(a: A, b: B) -> NumberResult:
    """Multiply exactly: a * b (a times b, their product; "a multiplied by b")."""
    return compute(lambda: _apply(lambda x, y: arith.checked(x * y), a, b))


@tool(server)
def divide(a: A, b: B) -> NumberResult:
    """Divide exactly: a / b (a divided by b, a per b, a shared or split among b, how many times b
    goes into a). Gives the exact
    decimal when there is one (1/8 = 0.125), otherwise the fraction and a decimal rounded to 28
    significant digits (1/3 ≈ 0.3333...)."""
    return compute(lambda: _apply(arith.divide, a, b))


@tool(server)
def power(base: Base, exponent: Exponent) -> NumberResult:
    """Raise base to the power exponent: base ^ exponent (base raised to the power of exponent,
    squared, cubed). Whole
    exponents are exact; a fractional exponent (e.g. 0.5 or '1/3') is exact when the root is,
    otherwise rounded to 28 significant digits."""
    return compute(
        lambda: arith.power(exact.parse_number(base, "base"), exact.parse_number(exponent, "exponent"))
    )


@tool(server)
def sqrt(x: X) -> NumberResult:
    """The square root of x. Exact for perfect squares (sqrt(2.25) = 1.5), otherwise rounded to
    28 significant digits."""
    return compute(lambda: arith.square_root(exact.parse_number(x, "x")))


@tool(server)
def mod(a: A, b: B) -> NumberResult:
    """The remainder after dividing a by b, what is left over (a mod b, a modulo b); the result has
    the sign of b, e.g. mod(17, 5) = 2."""
    return compute(lambda: _apply(arith.modulo, a, b))


@tool(server)
def evaluate(expression: Expression) -> NumberResult:
    """Evaluate a whole arithmetic expression exactly. Supports + - * /, ^ or ** for whole-number
    powers, % (right after a number it is percent: 20% * 150 = 30; between two numbers, as in mod),
    negative numbers and parentheses. Use this for calculations with several steps, averages and
    percentages (15% of 80 is 15% * 80; 80 - 15% takes 15% of 80 off, as on a pocket calculator)."""
    return compute(lambda: exact.describe(evaluate_expression(expression)))


def _apply(operation: Callable[[Fraction, Fraction], Fraction], a: Any, b: Any) -> exact.Result:
    return exact.describe(operation(exact.parse_number(a, "a"), exact.parse_number(b, "b")))


def main() -> None:
    server.run("stdio")


if __name__ == "__main__":
    main()
