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

import ast
import json
import re
from decimal import Decimal, InvalidOperation

_ASKS = re.compile(
    r"\b(?:most|least|highest|lowest|largest|smallest|biggest|maximum|minimum|max|min|busiest|quietest"
    r"|cheapest|dearest|fewest|greatest|top|peak)\b",
    re.IGNORECASE,
)
_SEPARATORS = (",", "\t", "|", ";")
MAX_RECORDS_CHARS = 100_000  # a longer list is read as text: its numbers could not be listed anyway
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
    records = _records(result)
    if records is not None:
        return records
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


def _records(result: str) -> tuple[list[str], list[list[str]]] | None:
    """Rows written as a list of records, in JSON or as Python writes them (the sqlite reference
    server's "[{'price': 12.75}, {'price': 89.9}]"), every record with the same keys; else None."""
    text = result.strip()
    if not (text.startswith("[{") and text.endswith("}]")) or len(text) > MAX_RECORDS_CHARS:
        return None
    try:
        rows = json.loads(text)
    except ValueError:
        try:
            rows = ast.literal_eval(text)  # literals only: nothing in the text is run
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return None
    if not isinstance(rows, list) or len(rows) < 2 or not all(isinstance(r, dict) for r in rows):
        return None
    header = [str(key) for key in rows[0]]
    if not header or any([str(key) for key in r] != header for r in rows):
        return None
    return header, [[str(value) for value in r.values()] for r in rows]


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
