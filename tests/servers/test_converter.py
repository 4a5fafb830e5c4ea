"""The converter as a real child process over stdio."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from tests.servers.stdio import call, text_of

pytestmark = pytest.mark.anyio

TEMPERATURE_TOOLS = {
    "celsius_to_fahrenheit",
    "fahrenheit_to_celsius",
    "celsius_to_kelvin",
    "kelvin_to_celsius",
    "fahrenheit_to_kelvin",
    "kelvin_to_fahrenheit",
}


async def test_lists_temperature_tools_and_convert(converter: Client) -> None:
    listed = {tool.name: tool for tool in (await converter.list_tools()).tools}
    assert set(listed) == TEMPERATURE_TOOLS | {"convert"}
    assert listed["convert"].input_schema["required"] == ["quantity", "to_unit"]
    assert "Celsius" in listed["celsius_to_fahrenheit"].input_schema["properties"]["value"]["description"]


@pytest.mark.parametrize(
    ("tool", "value", "text"),
    [
        ("celsius_to_fahrenheit", 100, "212 °F"),
        ("celsius_to_fahrenheit", "36.6", "97.88 °F"),
        ("fahrenheit_to_celsius", 212, "100 °C"),
        ("celsius_to_kelvin", -273.15, "0 K"),
        ("kelvin_to_celsius", 0, "-273.15 °C"),
        ("fahrenheit_to_kelvin", 32, "273.15 K"),
        ("kelvin_to_fahrenheit", "273.15", "32 °F"),
    ],
)
async def test_temperatures_convert_exactly(converter: Client, tool: str, value: Any, text: str) -> None:
    result = await call(converter, tool, value=value)
    assert not result.is_error
    assert text_of(result) == text


async def test_inexact_temperatures_give_fraction_and_rounding(converter: Client) -> None:
    result = await call(converter, "fahrenheit_to_celsius", value=100)
    assert text_of(result) == "340/9 ≈ 37.77777777777777777777777778 °C (rounded to 28 significant digits)"
    assert result.structured_content == {
        "value": "37.77777777777777777777777778",
        "exact": False,
        "fraction": "340/9",
        "precision": 28,
        "unit": "°C",
    }


@pytest.mark.parametrize(
    ("quantity", "target", "text"),
    [
        ("1 inch", "cm", "2.54 cm"),
        ("26.2 miles", "km", "42.1648128 km"),
        ("1pound", "grams", "453.59237 g"),
        ("2 gallons", "litres", "7.570823568 l"),
        ("1.5 cups", "ml", "354.88235475 ml"),
        ("20 °C", "F", "68 °F"),
        ("1,000 m", "km", "1 km"),
        ("-40 degrees Fahrenheit", "C", "-40 °C"),
    ],
)
async def test_convert_reads_the_amount_with_its_unit_and_is_exact(
    converter: Client, quantity: str, target: str, text: str
) -> None:
    result = await call(converter, "convert", quantity=quantity, to_unit=target)
    assert text_of(result) == text
    assert result.structured_content is not None
    assert result.structured_content["exact"] is True


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        (
            "convert",
            {"quantity": "1 furlong", "to_unit": "m"},
            "unknown unit 'furlong'; known units are",
        ),
        (
            "convert",
            {"quantity": "1 m", "to_unit": "kg"},
            "cannot convert length (m) to mass (kg)",
        ),
        ("convert", {"quantity": "lots of m", "to_unit": "km"}, "quantity must be a number and a unit"),
        ("convert", {"quantity": "12", "to_unit": "km"}, "has no unit"),
        ("kelvin_to_celsius", {"value": -1}, "-1 K is below absolute zero"),
        ("celsius_to_fahrenheit", {"value": -300}, "-300 °C is below absolute zero"),
    ],
)
async def test_failures_are_tool_errors_with_clear_messages(
    converter: Client, tool: str, arguments: dict[str, Any], message: str
) -> None:
    result = await call(converter, tool, **arguments)
    assert result.is_error
    assert message in text_of(result)
