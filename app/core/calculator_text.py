"""The bundled calculator's output format, read in one place.

The calculator (``app/servers/exact.py``) writes an exact result as a plain number and an
inexact one as ``1/3 ≈ 0.3333333333333333333333333333 (rounded to 28 significant digits)``.
The checker, the verdict, the labelled formula and the local model's answer grammar all read
that text; they read it here, so a change to the format is a change to one module.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

APPROX = "≈"
ROUNDING_NOTE = re.compile(r"\(rounded to [0-9]+ significant digits\)")
# The two-number tools and the sign a formula writes for each, as a person reads it.
TWO_NUMBER_TOOLS = {"add": "+", "subtract": "−", "multiply": "×", "divide": "÷", "power": "^", "mod": "mod"}
_ASCII_SIGNS = {"+": "+", "−": "-", "×": "*", "÷": "/", "^": "^", "mod": "%"}
_SHOWN = str.maketrans({"*": "×", "/": "÷", "-": "−"})


def rounded(decimal: str) -> str:
    """A long decimal as a person writes it: four significant digits, at least two places
    ("9.666666666666666666666666667" as "9.667")."""
    value = Decimal(decimal)
    places = max(2, 3 - value.adjusted()) if value else 2
    return f"{value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN):f}"


def without_note(result: str) -> str:
    """The result with its rounding note blanked out: the note's digits are not a value."""
    return ROUNDING_NOTE.sub(" ", result)


def is_exact(result: str) -> bool:
    """Whether the calculator wrote the value exactly (no ``≈``, no rounding note)."""
    return APPROX not in result and "rounded" not in result


def exact_part(result: str) -> str:
    """The exact fraction written before ``≈`` ("1/3" of "1/3 ≈ 0.333"), or ""."""
    return result.split(APPROX)[0].strip() if APPROX in result else ""


def call_formula(tool: str, arguments: Mapping[str, Any], *, shown: bool = True) -> str | None:
    """The calculation a calculator call ran, as a formula: ``evaluate``'s expression, or a
    two-number tool's operation ("12 × 7"; ``shown=False``: "12 * 7"); None for other tools."""
    name = tool.rsplit(".", 1)[-1]
    expression = arguments.get("expression")
    if name == "evaluate" and isinstance(expression, str):
        written = " ".join(expression.split())
        if not shown:
            return written
        whole = written.replace("//", " div ").replace("%", " mod ") if "//" in written else written
        return " ".join(whole.translate(_SHOWN).split())
    if name in TWO_NUMBER_TOOLS and {"a", "b"} <= arguments.keys():
        sign = TWO_NUMBER_TOOLS[name]
        return f"{arguments['a']} {sign if shown else _ASCII_SIGNS[sign]} {arguments['b']}"
    return None
