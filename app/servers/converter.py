"""The bundled unit converter: temperature, length, mass and volume, exactly, over stdio.

Run it with ``python -m app.servers.converter`` (or ``calculon serve converter``).
Volumes are US customary (US liquid gallon of 231 cubic inches, 8 fl oz cup).
"""

from __future__ import annotations

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
Value = Annotated[Any, NUMBER_SCHEMA, Field(description=f"The amount to convert. {NUMBER_HINT}")]
UnitName = Annotated[
    str, Field(description="A unit symbol or name, e.g. 'km', 'miles', 'lb', 'kg', 'cup', 'l'.")
]


@tool(server)
def celsius_to_fahrenheit(value: Celsius) -> QuantityResult:
    """Convert a temperature from degrees Celsius to degrees Fahrenheit (100 °C = 212 °F)."""
    return _convert(value, "°C", "°F")


@tool(server)
def fahrenheit_to_celsius(value: Fahrenheit) -> QuantityResult:
    """Convert a temperature from degrees Fahrenheit to degrees Celsius (212 °F = 100 °C)."""
    return _convert(value, "°F", "°C")


@tool(server)
def celsius_to_kelvin(value: Celsius) -> QuantityResult:
    """Convert a temperature from degrees Celsius to kelvins (0 °C = 273.15 K)."""
    return _convert(value, "°C", "K")


@tool(server)
def kelvin_to_celsius(value: Kelvin) -> QuantityResult:
    """Convert a temperature from kelvins to degrees Celsius (273.15 K = 0 °C)."""
    return _convert(value, "K", "°C")


@tool(server)
def fahrenheit_to_kelvin(value: Fahrenheit) -> QuantityResult:
    """Convert a temperature from degrees Fahrenheit to kelvins (32 °F = 273.15 K)."""
    return _convert(value, "°F", "K")


@tool(server)
def kelvin_to_fahrenheit(value: Kelvin) -> QuantityResult:
    """Convert a temperature from kelvins to degrees Fahrenheit (273.15 K = 32 °F)."""
    return _convert(value, "K", "°F")


@tool(server)
def convert(value: Value, from_unit: UnitName, to_unit: UnitName) -> QuantityResult:
    """Convert an amount between units of the same kind, exactly.
    Length: millimetres mm, centimetres cm, metres m, kilometres km, inches in, feet ft, yards yd,
    miles mi, nautical miles nmi. Mass: milligrams mg, grams g, kilograms kg, tonnes t, ounces oz,
    pounds lb, stone st. Volume (US customary): millilitres ml, centilitres cl, decilitres dl,
    litres l, cubic metres m3, teaspoons tsp, tablespoons tbsp, fluid ounces fl_oz, cups, pints pt,
    quarts qt, gallons gal. Temperature: C, F, K. Names, symbols, plurals and US spellings
    (meters, liters) all work."""
    return _convert(value, from_unit, to_unit)


def _convert(value: Any, from_unit: str, to_unit: str) -> CallToolResult:
    with tool_errors():
        source, target = units.find_unit(from_unit), units.find_unit(to_unit)
        amount = units.convert(parse_number(value, "value"), source, target)
        return quantity_result(describe(amount), target.symbol)


def main() -> None:
    server.run("stdio")


if __name__ == "__main__":
    main()
