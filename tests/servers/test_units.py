"""Pure tests of unit lookup and exact conversion."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.servers import units
from app.servers.exact import CalcError


def _convert(value: object, source: str, target: str) -> Fraction:
    return units.convert(Fraction(str(value)), units.find_unit(source), units.find_unit(target))


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [
        (1, "in", "cm", "2.54"),
        (1, "ft", "m", "0.3048"),
        (1, "mi", "km", "1.609344"),
        (1, "nmi", "m", "1852"),
        (3, "ft", "yd", "1"),
        (1, "lb", "kg", "0.45359237"),
        (1, "st", "lb", "14"),
        (16, "oz", "lb", "1"),
        (1, "t", "g", "1000000"),
        (1, "gal", "l", "3.785411784"),
        (1, "gal", "qt", "4"),
        (1, "cup", "fl_oz", "8"),
        (1, "tbsp", "tsp", "3"),
        (1, "m3", "l", "1000"),
        (100, "C", "F", "212"),
        (-40, "F", "C", "-40"),
        (0, "C", "K", "273.15"),
        (0, "K", "F", "-459.67"),
        (98.6, "F", "C", "37"),
    ],
)
def test_conversions_are_exact(value: object, source: str, target: str, expected: str) -> None:
    assert _convert(value, source, target) == Fraction(expected)


def test_inexact_conversions_stay_fractions() -> None:
    assert _convert(1, "km", "mi") == Fraction(1000, 1) / Fraction("1609.344")
    assert _convert(50, "F", "C") == Fraction(10)
    assert _convert(1, "F", "C") == Fraction(-155, 9)


@pytest.mark.parametrize(
    ("name", "symbol"),
    [
        ("Metres", "m"),
        ("meter", "m"),
        ("KM", "km"),
        ("kilometers", "km"),
        ("feet", "ft"),
        ("inches", "in"),
        ("Pounds", "lb"),
        ("lbs", "lb"),
        ("fl oz", "fl_oz"),
        ("fluid-ounces", "fl_oz"),
        ("cups", "cup"),
        ("mL", "ml"),
        ("L", "l"),
        ("m³", "m3"),
        ("°C", "°C"),
        ("degrees Fahrenheit", "°F"),
        ("kelvin", "K"),
        ("nautical miles", "nmi"),
    ],
)
def test_units_are_found_by_alias_case_insensitively(name: str, symbol: str) -> None:
    assert units.find_unit(name).symbol == symbol


def test_no_name_is_shared_by_two_units() -> None:
    owners: dict[str, set[str]] = {}
    for unit in units.UNITS:
        for name in (unit.symbol, *unit.aliases):
            owners.setdefault(units._key(name), set()).add(unit.symbol)
    assert {name: found for name, found in owners.items() if len(found) > 1} == {}


def test_unknown_unit_lists_the_known_ones() -> None:
    with pytest.raises(
        CalcError, match=r"unknown unit 'furlong'; known units are length: mm, .*; mass: .*gal"
    ):
        units.find_unit("furlong")


def test_mixing_dimensions_is_refused() -> None:
    with pytest.raises(CalcError, match=r"cannot convert length \(m\) to mass \(kg\)"):
        _convert(1, "m", "kg")


@pytest.mark.parametrize(("value", "unit"), [(-1, "K"), (-273.16, "C"), (-460, "F")])
def test_temperatures_below_absolute_zero_are_refused(value: float, unit: str) -> None:
    with pytest.raises(CalcError, match="below absolute zero"):
        _convert(value, unit, "K")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Convert 98.6 degrees Fahrenheit to Celsius", True),
        ("What is 109 °F in Celsius?", True),
        ("I walked 5 km and 2 m more", True),
        ("A recipe needs 3 cups of flour. How many ml is that?", True),
        ("How far is a marathon in miles?", True),
        ("Which day had the most visitors in /w/visitors.csv?", False),
        ("Change the port in config.json to 9090.", False),
        ("How many degrees apart are today's high and low?", False),
        ("Tom put 5 apples in a bag; how many are in it?", False),
        ("What is 12 times 7?", False),
    ],
)
def test_a_question_names_a_unit_only_where_it_writes_one(text: str, named: bool) -> None:
    assert units.names_unit(text) is named
