"""The bundled unit converter: temperature, length, mass and volume, exactly, over stdio.

Run it with ``python -m app.servers.converter`` (or ``calculon serve converter``).
Volumes are US customary (US liquid gallon of 231 cubic inches, 8 fl oz cup).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from app.servers import units
from app.servers.common import (
    NUMBER_HINT,
    NUMBER_SCHEMA,
    QuantityResult,
    quantity_result,
    tool,
    tool_errors,
)
from app.servers.exact import describe, parse_number

server: MCPServer = MCPServer(
    "converter",
    log_level="WARNING",  # a failed call is the caller's news, not the log's
    instructions=(
        "Exact unit conversion for temperature, length, mass and volume (US customary volumes). "
        "Use these tools instead of converting numbers yourself."
    ),
)

Celsius = Annotated[Any, NUMBER_SCHEMA, Field(description=f"Temperature in degrees Celsius. {NUMBER_HINT}")]
Fahrenheit = Annotated[
    Any, NUMBER_SCHEMA, Field(description=f"Temperature in degrees Fahrenheit. {NUMBER_HINT}")
]
Kelvin = Annotated[Any, NUMBER_SCHEMA, Field(description=f"Temperature in kelvins. {NUMBER_HINT}")]
Quantity = Annotated[
    str,
    Field(description="The amount with its unit, as written: '144 miles', '98.6 °F', '2.5 kg', '3 cups'."),
]
UnitName = Annotated[
    str,
    Field(description="The unit to convert to, a symbol or name: 'km', 'miles', 'lb', 'kg', 'cup', '°C'."),
]


@tool(server)
def celsius_to_fahrenheit(value: Celsius) -> QuantityResult:
    """Convert a temperature from degrees Celsius to degrees Fahrenheit (100 °C = 212 °F)."""
    return _amount(value, "°C", "°F")


@tool(server)
def fahrenheit_to_celsius(value: Fahrenheit) -> QuantityResult:
    """Convert a temperature from degrees Fahrenheit to degrees Celsius (212 °F = 100 °C)."""
    return _amount(value, "°F", "°C")


@tool(server)
def celsius_to_kelvin(value: Celsius) -> QuantityResult:
    """Convert a temperature from degrees Celsius to kelvins (0 °C = 273.15 K)."""
    return _amount(value, "°C", "K")


@tool(server)
def kelvin_to_celsius(value: Kelvin) -> QuantityResult:
    """Convert a temperature from kelvins to degrees Celsius (273.15 K = 0 °C)."""
    return _amount(value, "K", "°C")


@tool(server)
def fahrenheit_to_kelvin(value: Fahrenheit) -> QuantityResult:
    """Convert a temperature from degrees Fahrenheit to kelvins (32 °F = 273.15 K)."""
    return _amount(value, "°F", "K")


@tool(server)
def kelvin_to_fahrenheit(value: Kelvin) -> QuantityResult:
    """Convert a temperature from kelvins to degrees Fahrenheit (273.15 K = 32 °F)."""
    return _amount(value, "K", "°F")


# The amount and its unit travel together, as the user wrote them ("144 miles"): a small
# model asked for a separate from_unit wrote the two units the wrong way round.
@tool(server)
def convert(quantity: Quantity, to_unit: UnitName) -> QuantityResult:
    """Convert an amount to another unit of the same kind, exactly: "how many km is 26.2 miles"
    is quantity '26.2 miles', to_unit 'km'.
    Length: millimetres mm, centimetres cm, metres m, kilometres km, inches in, feet ft, yards yd,
    miles mi, nautical miles nmi. Mass: milligrams mg, grams g, kilograms kg, tonnes t, ounces oz,
    pounds lb, stone st. Volume (US customary): millilitres ml, centilitres cl, decilitres dl,
    litres l, cubic metres m3, teaspoons tsp, tablespoons tbsp, fluid ounces fl_oz, cups, pints pt,
    quarts qt, gallons gal. Temperature: C, F, K. Names, symbols, plurals and US spellings
    (meters, liters) all work."""
    return _convert(quantity, to_unit)


def _convert(quantity: str, to_unit: str) -> CallToolResult:
    with tool_errors():
        number, unit = units.split_quantity(quantity)
        return _converted(parse_number(number, "quantity"), unit, to_unit)


def _amount(value: Any, from_unit: str, to_unit: str) -> CallToolResult:
    with tool_errors():
        return _converted(parse_number(value, "value"), from_unit, to_unit)


def _converted(value: Fraction, from_unit: str, to_unit: str) -> CallToolResult:
    source, target = units.find_unit(from_unit), units.find_unit(to_unit)
    return quantity_result(describe(units.convert(value, source, target)), target.symbol)


def main() -> None:
    server.run("stdio")


if __name__ == "__main__":
    main()
