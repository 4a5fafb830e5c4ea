"""The largest and smallest value of a table's column, found by the app, where the question asks
for one ("Which day had the most visitors?").

Comparing numbers is no more the model's than adding them: Qwen2.5-Coder-1.5B read a week of
visitor counts and summed them, then wrote a call of a ``max`` function no server has. Where the
question asks for a most or a least and a tool's text is a table (a header, then rows of the
same width: CSV, tab- or pipe-separated), the result the model reads ends with each numeric
column's highest and lowest value and the row's label. Like a count, the note is part of the
result, so a number in the answer is backed by it.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_ASKS = re.compile(
    r"\b(?:most|least|highest|lowest|largest|smallest|biggest|maximum|minimum|max|min|busiest|quietest"
    r"|cheapest|dearest|fewest|greatest|top|peak)\b",
    re.IGNORECASE,
)
_SEPARATORS = (",", "\t", "|", ";")
MAX_COLUMNS = 3


def extremes_note(asked: str, result: str) -> str:
    """The note for ``result`` where ``asked`` wants a most or a least of a table; "" otherwise."""
    found = numeric_columns(result) if _ASKS.search(asked) else None
    if found is None:
        return ""
    rows, label, columns = found
    facts = []
    for column, name, cells in columns:
        numbers = [number(cell) or Decimal(0) for cell in cells]  # every cell is one
        high = max(range(len(rows)), key=numbers.__getitem__)
        low = min(range(len(rows)), key=numbers.__getitem__)
        shown = [
            f"{rows[i][column]}" + (f" ({rows[i][label]})" if label is not None else "") for i in (high, low)
        ]
        facts.append(f"the highest {name} is {shown[0]}, the lowest {shown[1]}")
    return f"\n\n[Found by the app: {'; '.join(facts[:MAX_COLUMNS])}.]" if facts else ""


Column = tuple[int, str, list[str]]  # its index, its header, its cells


def numeric_columns(result: str) -> tuple[list[list[str]], int | None, list[Column]] | None:
    """A table's rows, its label column, and the columns whose every cell is a number; None
    where ``result`` is no table."""
    found = table(result)
    if found is None:
        return None
    header, rows = found
    label = label_column(header, rows)
    columns = [(column, name, [row[column] for row in rows]) for column, name in enumerate(header)]
    numeric = [c for c in columns if c[0] != label and all(number(cell) is not None for cell in c[2])]
    return rows, label, numeric


def table(result: str) -> tuple[list[str], list[list[str]]] | None:
    lines = [line.strip() for line in result.strip().splitlines() if line.strip()]
    if len(lines) < 3:
        return None
    for separator in _SEPARATORS:
        cells = [[cell.strip() for cell in line.strip(separator).split(separator)] for line in lines]
        width = len(cells[0])
        if width >= 2 and all(len(row) == width for row in cells):
            header, rows = cells[0], cells[1:]
            if all(number(cell) is None for cell in header):
                return header, rows
    return None


def label_column(header: list[str], rows: list[list[str]]) -> int | None:
    """The first column that is not numbers: what names a row (a day, an item)."""
    for column in range(len(header)):
        if any(number(row[column]) is None for row in rows):
            return column
    return None


def number(cell: str) -> Decimal | None:
    try:
        return Decimal(cell.replace(",", "").lstrip("$€£"))
    except InvalidOperation:
        return None
