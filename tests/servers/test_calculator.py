"""The calculator as a real child process over stdio, through the SDK's Client."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest
from mcp import Client

from tests.servers.stdio import call, text_of

pytestmark = pytest.mark.anyio

TOOLS = {"add", "subtract", "multiply", "divide", "power", "sqrt", "mod", "evaluate"}


async def test_lists_every_tool_with_number_or_string_arguments(calculator: Client) -> None:
    listed = {tool.name: tool for tool in (await calculator.list_tools()).tools}
    assert set(listed) == TOOLS
    for name in TOOLS - {"evaluate"}:
        schema = listed[name].input_schema
        assert all(prop["type"] == ["number", "string"] for prop in schema["properties"].values()), name
        assert schema["required"] == list(schema["properties"]), name
    for tool in listed.values():
        assert tool.description
        assert "\n" not in tool.description and "  " not in tool.description
    assert listed["divide"].input_schema["required"] == ["a", "b"]
    assert listed["evaluate"].input_schema["properties"]["expression"]["type"] == "string"
    assert listed["add"].output_schema is not None


@pytest.mark.parametrize(
    ("tool", "arguments", "text"),
    [
        ("add", {"a": 0.1, "b": 0.2}, "0.3"),
        ("add", {"a": "0.1", "b": "0.2"}, "0.3"),
        ("subtract", {"a": 1, "b": "0.9"}, "0.1"),
        ("multiply", {"a": "1.1", "b": "1.1"}, "1.21"),
        ("divide", {"a": 1, "b": 8}, "0.125"),
        (
            "divide",
            {"a": "22", "b": 7},
            "22/7 ≈ 3.142857142857142857142857143 (rounded to 28 significant digits)",
        ),
        ("power", {"base": 2, "exponent": 100}, str(2**100)),
        ("power", {"base": 27, "exponent": "1/3"}, "3"),
        ("sqrt", {"x": "2.25"}, "1.5"),
        ("sqrt", {"x": 2}, "1.414213562373095048801688724 (rounded to 28 significant digits)"),
        ("mod", {"a": 17, "b": 5}, "2"),
        ("evaluate", {"expression": "(2 + 3) * 4 / 8 - 0.5"}, "2"),
        ("evaluate", {"expression": "0.1 + 0.2"}, "0.3"),
    ],
)
async def test_results_are_exact_numbers(
    calculator: Client, tool: str, arguments: dict[str, Any], text: str
) -> None:
    result = await call(calculator, tool, **arguments)
    assert not result.is_error
    assert text_of(result) == text


async def test_big_integers_survive_as_json_numbers_and_as_strings(calculator: Client) -> None:
    a, b = 123456789012345678901234567890123456789, 987654321098765432109876543210
    result = await call(calculator, "multiply", a=a, b=str(b))
    assert text_of(result) == str(a * b)


async def test_results_beyond_the_int_to_str_limit_come_back_whole(calculator: Client) -> None:
    a = "3" * 3000
    result = await call(calculator, "multiply", a=a, b=a)
    assert Fraction(Decimal(text_of(result))) == Fraction(Decimal(a)) ** 2


async def test_inexact_division_has_structured_fraction_and_precision(calculator: Client) -> None:
    result = await call(calculator, "divide", a=1, b=3)
    assert result.structured_content == {
        "value": "0.3333333333333333333333333333",
        "exact": False,
        "fraction": "1/3",
        "precision": 28,
    }


async def test_exact_results_say_they_are_exact(calculator: Client) -> None:
    result = await call(calculator, "divide", a=1, b=8)
    assert result.structured_content == {"value": "0.125", "exact": True}


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("divide", {"a": 1, "b": 0}, "division by zero"),
        ("mod", {"a": 1, "b": 0}, "modulo by zero"),
        ("add", {"a": "twelve", "b": 1}, "a must be a number like 42, -3.5, 1e6 or 1/3, got 'twelve'"),
        ("add", {"a": 1, "b": True}, "b must be a number, got True"),
        ("power", {"base": 10, "exponent": 10**9}, "the result is too large"),
        ("sqrt", {"x": -1}, "not a real number"),
        ("evaluate", {"expression": "2 * (3 + "}, "at character 9, found the end of the expression"),
        ("evaluate", {"expression": "9" * 20_000}, "too long"),
        ("evaluate", {"expression": "open('x')"}, "unexpected 'o' at character 1"),
    ],
)
async def test_failures_are_tool_errors_with_clear_messages(
    calculator: Client, tool: str, arguments: dict[str, Any], message: str
) -> None:
    result = await call(calculator, tool, **arguments)
    assert result.is_error
    assert text_of(result).startswith(f"Error executing tool {tool}: ")
    assert message in text_of(result)


async def test_server_keeps_answering_after_errors(calculator: Client) -> None:
    await call(calculator, "divide", a=1, b=0)
    assert text_of(await call(calculator, "add", a=2, b=2)) == "4"
