"""Exact unit conversion: length, mass, volume (US customary) and temperature.

Every factor is an exact Fraction from its definition: the international inch is
2.54 cm, the pound 0.45359237 kg, the US gallon 231 cubic inches.
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

from app.servers.exact import CalcError, describe

INCH = Fraction("0.0254")  # metres
POUND = Fraction("0.45359237")  # kilograms
GALLON = 231 * INCH**3 * 1000  # litres (US liquid gallon)
FLUID_OUNCE = GALLON / 128
ZERO_CELSIUS = Fraction("273.15")  # kelvins


@dataclasses.dataclass(frozen=True)
class Unit:
    symbol: str
    dimension: str
    factor: Fraction  # size in the dimension's base unit: m, kg, l; unused for temperature
    aliases: tuple[str, ...] = ()


UNITS: tuple[Unit, ...] = (
    Unit("mm", "length", Fraction(1, 1000), ("millimetre", "millimeter")),
    Unit("cm", "length", Fraction(1, 100), ("centimetre", "centimeter")),
    Unit("m", "length", Fraction(1), ("metre", "meter")),
    Unit("km", "length", Fraction(1000), ("kilometre", "kilometer")),
    Unit("in", "length", INCH, ("inch", "inches")),
    Unit("ft", "length", 12 * INCH, ("foot", "feet")),
    Unit("yd", "length", 36 * INCH, ("yard",)),
    Unit("mi", "length", 1760 * 36 * INCH, ("mile", "statute mile")),
    Unit("nmi", "length", Fraction(1852), ("nautical mile",)),
    Unit("mg", "mass", Fraction(1, 10**6), ("milligram", "milligramme")),
    Unit("g", "mass", Fraction(1, 1000), ("gram", "gramme")),
    Unit("kg", "mass", Fraction(1), ("kilogram", "kilogramme", "kilo")),
    Unit("t", "mass", Fraction(1000), ("tonne", "metric ton")),
    Unit("oz", "mass", POUND / 16, ("ounce",)),
    Unit("lb", "mass", POUND, ("pound", "lbs")),
    Unit("st", "mass", 14 * POUND, ("stone",)),
    Unit("ml", "volume", Fraction(1, 1000), ("millilitre", "milliliter")),
    Unit("cl", "volume", Fraction(1, 100), ("centilitre", "centiliter")),
    Unit("dl", "volume", Fraction(1, 10), ("decilitre", "deciliter")),
    Unit("l", "volume", Fraction(1), ("litre", "liter")),
    Unit("m3", "volume", Fraction(1000), ("m^3", "m³", "cubic metre", "cubic meter")),
    Unit("tsp", "volume", FLUID_OUNCE / 6, ("teaspoon",)),
    Unit("tbsp", "volume", FLUID_OUNCE / 2, ("tablespoon",)),
    Unit("fl_oz", "volume", FLUID_OUNCE, ("floz", "fluid ounce")),
    Unit("cup", "volume", GALLON / 16, ()),
    Unit("pt", "volume", GALLON / 8, ("pint",)),
    Unit("qt", "volume", GALLON / 4, ("quart",)),
    Unit("gal", "volume", GALLON, ("gallon",)),
    Unit("°C", "temperature", Fraction(1), ("celsius", "degc", "centigrade")),
    Unit("°F", "temperature", Fraction(1), ("fahrenheit", "degf")),
    Unit("K", "temperature", Fraction(1), ("kelvin",)),
)


def _key(name: str) -> str:
    """Lower case, no degree sign, single spaces for '_', '-' and runs of blanks."""
    name = name.lower().replace("°", "").replace("_", " ").replace("-", " ")
    return re.sub(r"^degrees? ", "", " ".join(name.split()))


_BY_NAME: dict[str, Unit] = {_key(n): u for u in UNITS for n in (u.symbol, *u.aliases)}


def find_unit(name: str) -> Unit:
    """A unit by symbol or alias, case-insensitively; a plain English plural also works."""
    key = _key(name)
    unit = _BY_NAME.get(key) or (_BY_NAME.get(key[:-1]) if key.endswith("s") and len(key) > 2 else None)
    if unit is None:
        raise CalcError(f"unknown unit {name[:40]!r}; known units are {known_units()}")
    return unit


_QUANTITY = re.compile(
    r"\s*([-+−]?(?:[0-9][0-9,]*(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?(?:/[0-9]+)?)\s*(.*?)\s*"
)


def split_quantity(text: str) -> tuple[str, str]:
    """``'144 miles'`` as its number and its unit: ``('144', 'miles')``."""
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise CalcError(f"quantity must be a number and a unit, e.g. '26.2 miles'; got {text[:40]!r}")
    if not match[2]:
        raise CalcError(f"quantity {text[:40]!r} has no unit; write it after the number, e.g. '26.2 miles'")
    return match[1].replace(",", "").replace("−", "-"), match[2]


# A unit written in words ("miles", "degrees Fahrenheit") anywhere, or a short symbol ("km", "°F",
# "5 m") after a number: "in", "t" and "m" are words and letters far more often than units.
_NUMBERED_SYMBOL = re.compile(r"\d\s*(°?[A-Za-z][A-Za-z0-9_^³]*)")
_WORD = re.compile(r"°?[A-Za-z][A-Za-z_]*")


def names_unit(text: str) -> bool:
    """Whether ``text`` names a unit the converter knows: a question its converter may fit."""
    if any(_unit_or_none(m[1]) is not None for m in _NUMBERED_SYMBOL.finditer(text)):
        return True
    words = _WORD.findall(text)
    for first, second in zip(words, [*words[1:], ""], strict=True):
        for name in (f"{first} {second}", first):
            unit = _unit_or_none(name)
            if unit is not None and (len(name) > 2 or name.startswith("°")) and name not in _NOT_UNITS:
                return True
    return False


_NOT_UNITS = frozenset(("in", "st", "pt", "cup", "cups", "kilo", "stone", "pound", "pounds", "ton", "tons"))


def _unit_or_none(name: str) -> Unit | None:
    try:
        return find_unit(name)
    except CalcError:
        return None


def known_units() -> str:
    groups: dict[str, list[str]] = {}
    for unit in UNITS:
        groups.setdefault(unit.dimension, []).append(unit.symbol)
    return "; ".join(f"{dimension}: {', '.join(symbols)}" for dimension, symbols in groups.items())


def convert(value: Fraction, source: Unit, target: Unit) -> Fraction:
    """value in ``source`` expressed in ``target``, exactly."""
    if source.dimension != target.dimension:
        raise CalcError(
            f"cannot convert {source.dimension} ({source.symbol}) to {target.dimension} ({target.symbol})"
        )
    if source.dimension == "temperature":
        return _from_kelvin(_to_kelvin(value, source), target)
    return value * source.factor / target.factor


def _to_kelvin(value: Fraction, unit: Unit) -> Fraction:
    kelvin = {"°C": value + ZERO_CELSIUS, "°F": (value - 32) * Fraction(5, 9) + ZERO_CELSIUS, "K": value}
    if kelvin[unit.symbol] < 0:
        raise CalcError(f"{describe(value).value} {unit.symbol} is below absolute zero (0 K)")
    return kelvin[unit.symbol]


def _from_kelvin(kelvin: Fraction, unit: Unit) -> Fraction:
    celsius = kelvin - ZERO_CELSIUS
    return {"°C": celsius, "°F": celsius * Fraction(9, 5) + 32, "K": kelvin}[unit.symbol]
